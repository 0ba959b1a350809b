/* test_ctl_fds.c — descriptors passed with a control message (src/ctl/fds.c, scryd's ready
 * object): a message and its descriptors arrive whole, each the very file sent (same inode);
 * none sent, none received; more than the receiver takes fails and leaves no descriptor
 * open in the receiver; more than a message carries is refused by the sender. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctl/proto.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void build(struct scry_ctl_builder *b)
{
	scry_ctl_builder_init(b, SCRY_CTL_REPLY);
	scry_ctl_add(b, "status", "0");
	scry_ctl_add(b, "fd", "map:0:one");
	scry_ctl_add(b, "fd", "ring:0");
	scry_ctl_add(b, "fd", "prog:3:three");
	assert_int_equal(scry_ctl_finish(b), 0);
}

static void test_fds_arrive_whole(void **state)
{
	int sv[2], sent[3], got[8];
	size_t n = 99;
	struct scry_ctl_builder b;
	struct scry_ctl_msg m;
	char err[256];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_true((sent[0] = open("/dev/null", O_RDONLY)) >= 0);
	assert_true((sent[1] = open("/", O_RDONLY | O_DIRECTORY)) >= 0);
	assert_true((sent[2] = open("/proc/self/exe", O_RDONLY)) >= 0);
	build(&b);
	assert_int_equal(scry_ctl_send_fds(sv[0], &b, sent, 3, err, sizeof(err)), 0);
	assert_int_equal(scry_ctl_recv_fds(sv[1], &m, got, 8, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	for (int i = 0; i < 3; i++) {
		struct stat a, c;

		assert_int_equal(fstat(sent[i], &a), 0);
		assert_int_equal(fstat(got[i], &c), 0);
		assert_true(a.st_ino == c.st_ino && a.st_dev == c.st_dev);
		assert_int_equal(fcntl(got[i], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		assert_int_not_equal(got[i], sent[i]);
		close(got[i]);
		close(sent[i]);
	}
	assert_string_equal(scry_ctl_get(&m, "status"), "0");
	assert_int_equal(m.nkv, 4);
	assert_string_equal(m.kv[3].value, "prog:3:three");
	scry_ctl_msg_free(&m);
	scry_ctl_builder_free(&b);
	close(sv[0]);
	close(sv[1]);
}

static void test_no_fds(void **state)
{
	int sv[2], got[4];
	size_t n = 99;
	struct scry_ctl_builder b;
	struct scry_ctl_msg m;
	char err[256];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	build(&b);
	assert_int_equal(scry_ctl_send_fds(sv[0], &b, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(scry_ctl_recv_fds(sv[1], &m, got, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(m.nkv, 4);
	scry_ctl_msg_free(&m);
	scry_ctl_builder_free(&b);
	close(sv[0]);
	close(sv[1]);
}

static void test_more_than_taken_fails_closed(void **state)
{
	int sv[2], sent[3], got[2] = { -1, -1 }, before;
	size_t n = 99;
	struct scry_ctl_builder b;
	struct scry_ctl_msg m;
	char err[256] = "";

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 3; i++)
		assert_true((sent[i] = open("/dev/null", O_RDONLY)) >= 0);
	build(&b);
	assert_int_equal(scry_ctl_send_fds(sv[0], &b, sent, 3, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++)
		close(sent[i]);
	before = open_fds();
	assert_int_equal(scry_ctl_recv_fds(sv[1], &m, got, 2, &n, err, sizeof(err)), -EMSGSIZE);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "more descriptors"));
	assert_int_equal(open_fds(), before);     /* every one received closed again */
	scry_ctl_builder_free(&b);
	close(sv[0]);
	close(sv[1]);
}

static void test_too_many_to_send(void **state)
{
	int sv[2], fds[SCRY_CTL_MAX_FDS + 1];
	struct scry_ctl_builder b;
	char err[256];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i <= SCRY_CTL_MAX_FDS; i++)
		fds[i] = sv[0];
	build(&b);
	assert_int_equal(scry_ctl_send_fds(sv[0], &b, fds, SCRY_CTL_MAX_FDS + 1, err, sizeof(err)), -E2BIG);
	scry_ctl_builder_free(&b);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fds_arrive_whole),
		cmocka_unit_test(test_no_fds),
		cmocka_unit_test(test_more_than_taken_fails_closed),
		cmocka_unit_test(test_too_many_to_send),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
