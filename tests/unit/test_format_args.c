/* test_format_args.c — strace-style printing (src/format) of arguments: numbers and modes, string quoting
 * and -s cuts, string arrays, buffers, socket addresses built with the libc structs, sets
 * whose meaning depends on another argument.
 * Expected strings are strace 6.1's output for the same values (fmt_test_util.h has the
 * helpers the format tests share). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "catalog/argspec.h"
#include "catalog/structs.h"
#include "catalog/syscall_table.h"
#include "format/format.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000   /* the kernel's; the C library does not export it */
#endif

#include "fmt_test_util.h"

/* ---------------------------------------------------------------- args: numbers, modes */


static void test_arg_numbers(void **state)
{
	struct scry_argspec s;
	struct scry_argval a;
	struct scry_fmt_opts yo = { .strsize = 32, .fd_path = fdpath, .fd_ctx = "ctx", .pid = 1234 };

	ARG(kind(SCRY_A_INT), val((uint64_t)-5), "-5");
	ARG(kind(SCRY_A_UINT), val(4294967295u), "4294967295");
	ARG(kind(SCRY_A_HEX), val(0), "0");
	ARG(kind(SCRY_A_HEX), val(0x20), "0x20");
	ARG(kind(SCRY_A_PTR), val(0), "NULL");
	ARG(kind(SCRY_A_PTR), val(0x7ffd54cc1580), "0x7ffd54cc1580");
	ARG(kind(SCRY_A_FD), val(3), "3");
	ARG(kind(SCRY_A_FD), val((uint64_t)-1000), "-1000");
	ARG(kind(SCRY_A_DIRFD), val((uint64_t)-100), "AT_FDCWD");
	ARG(kind(SCRY_A_DIRFD), val(0xffffff9c), "AT_FDCWD");
	ARG(kind(SCRY_A_DIRFD), val(5), "5");
	ARG(kind(SCRY_A_PID), val((uint64_t)-1), "-1");
	ARG(kind(SCRY_A_PID), val(0xffffffff), "-1");
	ARG(kind(SCRY_A_SIG), val(SIGKILL), "SIGKILL");
	ARG(kind(SCRY_A_SIG), val(33), "SIGRT_1");
	ARG(kind(SCRY_A_SIG), val(0), "0");
	ARG(kind(SCRY_A_SIG), val(65), "65");
	ARG(kind(SCRY_A_SIG), val((uint64_t)-1), "-1");
	/* -y */
	s = kind(SCRY_A_FD);
	a = val(3);
	EXPECT(scry_fmt_arg(&ob, &s, &a, NULL, 0, false, &yo), "3</etc/passwd>");
	a = val(4);
	EXPECT(scry_fmt_arg(&ob, &s, &a, NULL, 0, false, &yo), "4");
	s = kind(SCRY_A_DIRFD);
	a = val(3);
	EXPECT(scry_fmt_arg(&ob, &s, &a, NULL, 0, false, &yo), "3</etc/passwd>");
	/* not recorded */
	a = val(3);
	a.have = false;
	ARG(kind(SCRY_A_INT), a, "?");
	/* sets */
	s = kind(SCRY_A_FLAGS);
	s.set = "open";
	ARG(s, val(O_RDONLY | O_CLOEXEC), "O_RDONLY|O_CLOEXEC");
	s.kind = SCRY_A_ENUM;
	s.set = "whence";
	ARG(s, val(SEEK_END), "SEEK_END");
	s.set = "nosuchset";
	ARG(s, val(10), "0xa");
}

static void test_modes(void **state)
{
	ARG(kind(SCRY_A_MODE), val(S_IFCHR | 0666), "S_IFCHR|0666");
	ARG(kind(SCRY_A_MODE), val(S_IFIFO | 04755), "S_IFIFO|S_ISUID|0755");
	ARG(kind(SCRY_A_MODE), val(S_IFSOCK | 01777), "S_IFSOCK|S_ISVTX|0777");
	ARG(kind(SCRY_A_MODE), val(S_IFREG), "S_IFREG|000");
	ARG(kind(SCRY_A_MODE), val(04755), "S_ISUID|0755");
	ARG(kind(SCRY_A_MODE), val(06000), "S_ISUID|S_ISGID|000");
	ARG(kind(SCRY_A_MODE), val(0644), "0644");
	ARG(kind(SCRY_A_MODE), val(0), "000");
	ARG(kind(SCRY_A_MODE), val(0170644), "0170644");
	ARG(kind(SCRY_A_OCT), val(0), "000");
	ARG(kind(SCRY_A_OCT), val(022), "022");
	ARG(kind(SCRY_A_OCT), val(7), "007");
	ARG(kind(SCRY_A_OCT), val(0644), "0644");
	ARG(kind(SCRY_A_OCT), val(01777), "01777");
	ARG(kind(SCRY_A_OCT), val(0100644), "0100644");
}

/* ---------------------------------------------------------------- strings */

#define STR(s, len, max, more, str) EXPECT(scry_fmt_str(&ob, (const uint8_t *)(s), len, max, more), str)

static void test_strings(void **state)
{
	static const char w48[] = "hi\n\t\"\\\001\377abcdefghijklmnopqrstuvwxyz0123456789";

	STR(w48, 48, 32, false, "\"hi\\n\\t\\\"\\\\\\1\\377abcdefghijklmnopqrstuvwx\"...");
	STR("0123456789012345678901234567890", 31, 32, false, "\"0123456789012345678901234567890\"");
	STR("01234567890123456789012345678901", 32, 32, false, "\"01234567890123456789012345678901\"");
	STR("012345678901234567890123456789012", 33, 32, false, "\"01234567890123456789012345678901\"...");
	STR("\0\0001x", 4, 32, false, "\"\\0\\0001x\"");
	STR("", 0, 32, false, "\"\"");
	STR("\1\303\251\t", 4, 32, false, "\"\\1\\303\\251\\t\"");
	STR("\v\f\r\x7f ~", 6, 32, false, "\"\\v\\f\\r\\177 ~\"");
	STR("\0017", 2, 32, false, "\"\\0017\"");
	STR("\0018", 2, 32, false, "\"\\18\"");
	STR("ab", 2, 32, true, "\"ab\"...");
	STR("abcdef", 6, 3, true, "\"abc\"...");
	STR("vm\n", 3, 32, false, "\"vm\\n\"");
	STR(NULL, 0, 32, false, "\"\"");
}

static void test_string_args(void **state)
{
	char big[300], expect[310];
	struct scry_argval a = val(0x1000);
	struct scry_argspec path = kind(SCRY_A_PATH), str = kind(SCRY_A_STR);

	for (int i = 0; i < 299; i++)
		big[i] = (char)('a' + i % 26);
	big[299] = 0;
	a.p = (const uint8_t *)big;
	a.len = 299;
	snprintf(expect, sizeof(expect), "\"%s\"", big);
	EXPECT(scry_fmt_arg(&ob, &path, &a, NULL, 0, false, &opts), expect);
	EXPECT(scry_fmt_arg(&ob, &str, &a, NULL, 0, false, &opts), "\"abcdefghijklmnopqrstuvwxyzabcdef\"...");
	a.len = 15;
	a.truncated = true;         /* prctl(PR_SET_NAME): 15 bytes read of a longer string */
	EXPECT(scry_fmt_arg(&ob, &str, &a, NULL, 0, false, &opts), "\"abcdefghijklmno\"...");
	EXPECT(scry_fmt_arg(&ob, &path, &a, NULL, 0, false, &opts), "\"abcdefghijklmno\"...");
	/* unreadable: the pointer */
	a = val(0x8);
	EXPECT(scry_fmt_arg(&ob, &path, &a, NULL, 0, false, &opts), "0x8");
	a = val(0);
	EXPECT(scry_fmt_arg(&ob, &str, &a, NULL, 0, false, &opts), "NULL");
}


static void test_strv(void **state)
{
	static const char *const argv[] = { "ls", "-l" };
	static const char *const envp[] = { "A=1", "B=2\n" };
	static char store[4096], store2[64];
	const char *many[39];
	struct scry_argspec specs[3] = { kind(SCRY_A_PATH), kind(SCRY_A_STRV), kind(SCRY_A_STRV) };
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	char expect[4096];

	all[0] = val(0x1000);
	all[1] = strv(argv, 2, store, 0x7ffd2daa1000);
	all[2] = strv(envp, 2, store2, 0x7ffd2daa1420);
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "[\"ls\", \"-l\"]");
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420 /* 2 vars */");
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &vopts), "[\"A=1\", \"B=2\\n\"]");
	all[2].n = 1;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420 /* 1 var */");
	/* execve("x", NULL, NULL) */
	all[1] = val(0);
	all[1].have_ptr = true;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "NULL");
	/* 39 long arguments, -s 32: 32 shown, each cut */
	for (int i = 0; i < 39; i++)
		many[i] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	all[1] = strv(many, 39, store, 0x7ffd2daa1000);
	strcpy(expect, "[");
	for (int i = 0; i < 32; i++)
		strcat(expect, "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., ");
	strcat(expect, "...]");
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), expect);
	/* verbose: all of them */
	all[1].n = 2;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &vopts),
	       "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"...]");
	/* the capture stopped before the end of the list */
	all[1].truncated = true;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &vopts),
	       "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"..., ...]");
	/* the count of the whole array: 41 variables of which 2 recorded */
	all[1] = strv(argv, 2, store, 0x7ffd2daa1000);
	all[2] = strv(envp, 2, store2, 0x7ffd2daa1420);
	all[2].have_count = true;
	all[2].count = 41;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420 /* 41 vars */");
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &vopts), "[\"A=1\", \"B=2\\n\", ...]");
	all[2].count = 0;
	all[2].n = 0;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420 /* 0 vars */");
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &vopts), "[]");
	/* the environment recorded as LTTng does (no --capture env): pointer and count alone,
	 * shown as strace shows it without -v, with -v too (there is nothing more to show) */
	all[2] = val(0x7ffd2daa1420);
	all[2].have_ptr = true;
	all[2].have_count = true;
	all[2].count = 37;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420 /* 37 vars */");
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &vopts), "0x7ffd2daa1420 /* 37 vars */");
	all[2].count = SCRY_STRV_UNREADABLE;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420");
	all[2] = val(0);
	all[2].have_ptr = true;
	all[2].have_count = true;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "NULL");
	/* argv without its strings stays a pointer */
	all[1] = val(0x7ffd2daa1000);
	all[1].have_ptr = true;
	all[1].have_count = true;
	all[1].count = 2;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "0x7ffd2daa1000");
	all[1] = strv(argv, 2, store, 0x7ffd2daa1000);
	all[2] = strv(envp, 2, store2, 0x7ffd2daa1420);
	all[2].have_count = true;
	/* argv: every string recorded, then more than recorded */
	all[1].have_count = true;
	all[1].count = 2;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "[\"ls\", \"-l\"]");
	all[1].count = 3;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "[\"ls\", \"-l\", ...]");
	/* an array that could not be read: its pointer, as strace */
	all[1].count = SCRY_STRV_UNREADABLE;
	all[1].n = 0;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "0x7ffd2daa1000");
	all[2].count = SCRY_STRV_UNREADABLE;
	EXPECT(scry_fmt_arg(&ob, &specs[2], &all[2], all, 0, true, &opts), "0x7ffd2daa1420");
	/* a NULL array recorded with its pointer */
	all[1] = strv(argv, 0, store, 0);
	all[1].have_count = true;
	EXPECT(scry_fmt_arg(&ob, &specs[1], &all[1], all, 0, true, &opts), "NULL");
}

/* ---------------------------------------------------------------- buffers */


static void test_sockopt_and_getcwd(void **state)
{
	static const char *const opt[] = { "fd", "level", "optname", "optval", "optlen" };
	static const char *const gc[] = { "buf", "size" };
	struct scry_argspec so[5], gcs[2];
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	char err[128];
	int one = 1;

	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("setsockopt"), opt, 5, so, err, sizeof(err)), 0);
	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("getcwd"), gc, 2, gcs, err, sizeof(err)), 0);
	/* setsockopt(1000, SOL_SOCKET, SO_REUSEADDR, [1], 4) */
	all[1] = val(SOL_SOCKET);
	all[2] = val(SO_REUSEADDR);
	all[3] = capture(&one, 4, 0, 0x7ffe0000);
	all[4] = val(4);
	EXPECT(scry_fmt_arg(&ob, &so[3], &all[3], all, -EBADF, true, &opts), "[1]");
	all[3] = capture("eth0", 4, 0, 0x7ffe0000);
	all[2] = val(SO_BINDTODEVICE);
	all[4] = val(5);
	EXPECT(scry_fmt_arg(&ob, &so[3], &all[3], all, 0, true, &opts), "\"eth0\"...");
	/* getcwd("/tmp/x", 256) = 7: the NUL is not shown */
	all[0] = capture("/tmp/x\0", 7, 0, 0x7ffe0000);
	all[1] = val(256);
	EXPECT(scry_fmt_arg(&ob, &gcs[0], &all[0], all, 7, true, &opts), "\"/tmp/x\"");
	all[0] = capture("/tmp/x\0", 7, 0, 0x7ffe0000);
	EXPECT(scry_fmt_arg(&ob, &gcs[0], &all[0], all, -ERANGE, true, &opts), "0x7ffe0000");
}

static void test_buffers(void **state)
{
	static const char *const rw[] = { "fd", "buf", "count" };
	const struct scry_argspec *rd = parse1("fd, obuf(ret), uint", rw, 3, 1);
	const struct scry_argspec *wr = parse1("fd, ibuf(count), uint", rw, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	static const char w48[] = "hi\n\t\"\\\001\377abcdefghijklmnopqrstuvwxyz0123456789";

	/* write(1000, "hi\n..."..., 48) */
	all[0] = val(1000);
	all[1] = val(0x1000);
	all[1].have_ptr = true;
	all[1].p = (const uint8_t *)w48;
	all[1].len = 48;
	all[2] = val(48);
	EXPECT(scry_fmt_arg(&ob, wr, &all[1], all, -EBADF, true, &opts),
	       "\"hi\\n\\t\\\"\\\\\\1\\377abcdefghijklmnopqrstuvwx\"...");
	/* snaplen cut: 10 bytes captured of 100 */
	all[1].p = (const uint8_t *)"0123456789";
	all[1].len = 10;
	all[2] = val(100);
	EXPECT(scry_fmt_arg(&ob, wr, &all[1], all, 100, true, &opts), "\"0123456789\"...");
	/* write(1000, "ab", 2) of a larger capture */
	all[1].p = (const uint8_t *)"abc";
	all[1].len = 3;
	all[2] = val(2);
	EXPECT(scry_fmt_arg(&ob, wr, &all[1], all, -EBADF, true, &opts), "\"ab\"");
	/* write(1000, NULL, 10) */
	all[1] = val(0);
	all[1].have_ptr = true;
	all[2] = val(10);
	EXPECT(scry_fmt_arg(&ob, wr, &all[1], all, -EFAULT, true, &opts), "NULL");
	/* read(3, "vm\n", 64) = 3 */
	all[1] = val(0x7ffd54cc1580);
	all[1].have_ptr = true;
	all[1].p = (const uint8_t *)"vm\nXXXX";
	all[1].len = 3;
	all[2] = val(64);
	EXPECT(scry_fmt_arg(&ob, rd, &all[1], all, 3, true, &opts), "\"vm\\n\"");
	/* read(3, "", 0) = 0 */
	all[1].len = 0;
	EXPECT(scry_fmt_arg(&ob, rd, &all[1], all, 0, true, &opts), "\"\"");
	/* read(-1000, 0x7ffd54cc1580, 10) = -1 EBADF: the pointer */
	all[1].have = false;
	EXPECT(scry_fmt_arg(&ob, rd, &all[1], all, -EBADF, true, &opts), "0x7ffd54cc1580");
	all[1].have = true;
	EXPECT(scry_fmt_arg(&ob, rd, &all[1], all, -EBADF, true, &opts), "0x7ffd54cc1580");
	/* not finished yet: no capture */
	all[1].have = false;
	EXPECT(scry_fmt_arg(&ob, rd, &all[1], all, 0, false, &opts), "0x7ffd54cc1580");
}

/* ---------------------------------------------------------------- socket addresses */

#define SA(ptr, len, str) EXPECT(scry_fmt_sockaddr(&ob, (const uint8_t *)(ptr), (len)), str)

static void test_sockaddr(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_port = htons(443),
				   .sin6_flowinfo = htonl(5), .sin6_scope_id = 2 };
	struct sockaddr_un su = { .sun_family = AF_UNIX };
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK, .nl_pid = 12, .nl_groups = 0x11 };
	struct sockaddr sp = { .sa_family = AF_PACKET };
	struct sockaddr_storage ss = { 0 };

	sin.sin_addr.s_addr = htonl(0x7f000001);
	SA(&sin, sizeof(sin), "{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}");
	SA(&sin, 4, "{sa_family=AF_INET, sa_data=\"\\0P\"}");
	sin.sin_port = htons(1);
	sin.sin_addr.s_addr = htonl(0x01020304);
	SA(&sin, 8, "{sa_family=AF_INET, sa_data=\"\\0\\1\\1\\2\\3\\4\"}");
	SA(&sin, 15, "{sa_family=AF_INET, sa_data=\"\\0\\1\\1\\2\\3\\4\\0\\0\\0\\0\\0\\0\\0\"}");

	s6.sin6_addr.s6_addr[15] = 1;
	SA(&s6, sizeof(s6), "{sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(5), "
			    "inet_pton(AF_INET6, \"::1\", &sin6_addr), sin6_scope_id=2}");
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:1.2.3.4", &s6.sin6_addr);
	SA(&s6, 24, "{sa_family=AF_INET6, sin6_port=htons(0), sin6_flowinfo=htonl(0), "
		    "inet_pton(AF_INET6, \"::ffff:1.2.3.4\", &sin6_addr)}");
	SA(&s6, 20, "{sa_family=AF_INET6, sa_data=\"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\377\\377\"}");

	strcpy(su.sun_path, "/run/x\n\"y");
	SA(&su, sizeof(su), "{sa_family=AF_UNIX, sun_path=\"/run/x\\n\\\"y\"}");
	SA(&su, offsetof(struct sockaddr_un, sun_path) + 5, "{sa_family=AF_UNIX, sun_path=\"/run/\"}");
	su.sun_path[0] = 0;
	SA(&su, offsetof(struct sockaddr_un, sun_path) + 6, "{sa_family=AF_UNIX, sun_path=@\"run/x\"}");
	SA(&su, 2, "{sa_family=AF_UNIX}");
	memset(su.sun_path, 0, sizeof(su.sun_path));
	SA(&su, 3, "{sa_family=AF_UNIX, sun_path=@\"\"}");
	memset(su.sun_path, 'A', sizeof(su.sun_path));
	SA(&su, sizeof(su), "{sa_family=AF_UNIX, sun_path=\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
			    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}");

	SA(&nl, sizeof(nl), "{sa_family=AF_NETLINK, nl_pid=12, nl_groups=0x000011}");
	nl.nl_pid = 0;
	nl.nl_groups = 0;
	SA(&nl, sizeof(nl), "{sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}");

	memcpy(sp.sa_data, "ab\0\1cdefghijkl", 14);
	SA(&sp, sizeof(sp), "{sa_family=AF_PACKET, sa_data=\"ab\\0\\1cdefghijkl\"}");
	sp.sa_family = 200;
	SA(&sp, sizeof(sp), "{sa_family=0xc8 /* AF_??? */, sa_data=\"ab\\0\\1cdefghijkl\"}");
	SA(&ss, 16, "{sa_family=AF_UNSPEC, sa_data=\"\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0\"}");
	SA(&ss, 1, "{}");
	SA(NULL, 16, "{}");
}

static void test_sockaddr_args(void **state)
{
	static const char *const cn[] = { "fd", "uservaddr", "addrlen" };
	static const char *const ac[] = { "fd", "upeer_sockaddr", "upeer_addrlen" };
	const struct scry_argspec *conn = parse1("fd, isockaddr(addrlen), int", cn, 3, 1);
	const struct scry_argspec *acc = parse1("fd, osockaddr(*upeer_addrlen), iostruct:int", ac, 3, 1);
	const struct scry_argspec *accl = parse1("fd, osockaddr(*upeer_addrlen), iostruct:int", ac, 3, 2);
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	int len16 = 16;

	sin.sin_addr.s_addr = htonl(0x7f000001);
	all[0] = val(1000);
	all[1] = val(0x7ffe9d9f62b0);
	all[1].have_ptr = true;
	all[1].p = (const uint8_t *)&sin;
	all[1].len = sizeof(sin);
	all[2] = val(16);
	EXPECT(scry_fmt_arg(&ob, conn, &all[1], all, -EBADF, true, &opts),
	       "{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}");
	all[2] = val(0);
	EXPECT(scry_fmt_arg(&ob, conn, &all[1], all, -EBADF, true, &opts), "0x7ffe9d9f62b0");
	all[2] = val(1);
	EXPECT(scry_fmt_arg(&ob, conn, &all[1], all, -EBADF, true, &opts), "0x7ffe9d9f62b0");
	/* accept(3, {...}, [16]) = 4 */
	all[2] = val(0x7ffe9d9f6000);
	all[2].have_ptr = true;
	all[2].p = (const uint8_t *)&len16;
	all[2].len = 4;
	all[2].n = 1;
	EXPECT(scry_fmt_arg(&ob, acc, &all[1], all, 4, true, &opts),
	       "{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}");
	EXPECT(scry_fmt_arg(&ob, accl, &all[2], all, 4, true, &opts), "[16]");
	/* accept(3, NULL, NULL) */
	all[1] = val(0);
	all[1].have_ptr = true;
	all[2] = val(0);
	all[2].have_ptr = true;
	EXPECT(scry_fmt_arg(&ob, acc, &all[1], all, 4, true, &opts), "NULL");
	EXPECT(scry_fmt_arg(&ob, accl, &all[2], all, 4, true, &opts), "NULL");
}

/* socket's protocol by family, [gs]etsockopt's option by level, fcntl's argument by command */
static void test_dependent_sets(void **state)
{
	static const char *const so[] = { "family", "type", "protocol" };
	static const char *const opt[] = { "fd", "level", "optname", "optval", "optlen" };
	static const char *const fc[] = { "fd", "cmd", "arg" };
	const struct scry_argspec *proto = parse1("enum:af, flags:sock_type, enum:sockproto", so, 3, 2);
	const struct scry_argspec *name = parse1("fd, enum:sol, enum:sockopt, ibuf(optlen), int", opt, 5, 2);
	const struct scry_argspec *farg = parse1("fd, enum:fcntl, enum:fcntl_arg", fc, 3, 2);
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };

#define DEP(spec, i, v, str) do { all[i] = val(v); \
	EXPECT(scry_fmt_arg(&ob, (spec), &all[i], all, 0, true, &opts), str); } while (0)
	all[0] = val(AF_INET);
	DEP(proto, 2, IPPROTO_TCP, "IPPROTO_TCP");
	DEP(proto, 2, 0, "IPPROTO_IP");
	DEP(proto, 2, 0xffffffff, "0xffffffff /* IPPROTO_??? */");
	all[0] = val(AF_UNIX);
	DEP(proto, 2, 0, "0");
	DEP(proto, 2, 0xffffffff, "4294967295");
	all[0] = val(AF_NETLINK);
	DEP(proto, 2, 0, "NETLINK_ROUTE");
	DEP(proto, 2, 0x11, "0x11 /* NETLINK_??? */");
	all[0] = val(AF_PACKET);
	DEP(proto, 2, htons(3), "htons(ETH_P_ALL)");
	DEP(proto, 2, htons(0x800), "htons(ETH_P_IP)");
	DEP(proto, 2, 0xffff, "htons(0xffff /* ETH_P_??? */)");

	all[1] = val(SOL_SOCKET);
	DEP(name, 2, SO_REUSEADDR, "SO_REUSEADDR");
	DEP(name, 2, 0, "0 /* SO_??? */");
	all[1] = val(SOL_TCP);
	DEP(name, 2, 1, "TCP_NODELAY");
	all[1] = val(SOL_IP);
	DEP(name, 2, 1, "IP_TOS");
	all[1] = val(SOL_IPV6);
	DEP(name, 2, 26, "IPV6_V6ONLY");
	all[1] = val(SOL_NETLINK);
	DEP(name, 2, 1, "NETLINK_ADD_MEMBERSHIP");
	all[1] = val(258);
	DEP(name, 2, 1, "1");

	all[1] = val(F_SETFD);
	DEP(farg, 2, FD_CLOEXEC, "FD_CLOEXEC");
	DEP(farg, 2, 0, "0");
	all[1] = val(F_SETFL);
	DEP(farg, 2, O_NONBLOCK | O_RDWR, "O_RDWR|O_NONBLOCK");
	DEP(farg, 2, 0, "O_RDONLY");
	all[1] = val(F_DUPFD_CLOEXEC);
	DEP(farg, 2, 10, "10");
	all[1] = val(F_SETLEASE);
	DEP(farg, 2, F_RDLCK, "F_RDLCK");
	all[1] = val(F_GETLK);
	DEP(farg, 2, 0, "NULL");
	all[1] = val(F_SETSIG);
	DEP(farg, 2, 0, "0");
	all[1] = val(1234);
	DEP(farg, 2, 5, "0x5");
#undef DEP
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arg_numbers),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_string_args),
		cmocka_unit_test(test_strv),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_sockopt_and_getcwd),
		cmocka_unit_test(test_sockaddr),
		cmocka_unit_test(test_sockaddr_args),
		cmocka_unit_test(test_dependent_sets),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
