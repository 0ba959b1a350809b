/* recover.c — `scry recover DIR`: make a trace whose recorder died readable again (each
 * stream keeps its complete packets; ctf/recover.h).  The guardian of a recording does the
 * same on its own; this is for when the guardian died too (a whole process group killed,
 * a power loss).  A trace still being recorded is left alone. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli/commands.h"
#include "ctf/recover.h"
#include "ctf/trace_dir.h"
#include "util/runas.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry recover DIR\n"
		"Make the trace DIR readable after its recorder died (SIGKILL, crash, power loss):\n"
		"each stream keeps its complete packets, an unfinished packet at its end is cut, and\n"
		"its packet index is rebuilt.  A trace that is still being recorded is not touched.\n");
}

/* The trace recovered with its owner's rights (root's own, or another user's trace as that
 * user: nothing in it can lead root's writes elsewhere). */
static int recover_as_owner(int dfd, const char *dir, struct ctf_recover_report *rep, char *err, size_t errlen)
{
	struct scry_cred c;
	struct scry_runas ra;
	struct stat st;
	int r;

	if (fstat(dfd, &st) < 0)
		return -errno;
	if (st.st_uid == geteuid())
		return ctf_trace_recover_at(dfd, dir, rep, err, errlen);
	if ((r = scry_cred_of_user(&c, st.st_uid, st.st_gid, err, errlen)))
		return r;
	if ((r = scry_runas_begin(&c, &ra))) {
		snprintf(err, errlen, "%s: cannot take its owner's (uid %u) rights: %s", dir, (unsigned)st.st_uid,
			 strerror(-r));
		return r;
	}
	r = ctf_trace_recover_at(dfd, dir, rep, err, errlen);
	scry_runas_end(&ra);
	return r;
}

int cmd_recover(int argc, char **argv)
{
	struct ctf_recover_report rep;
	char err[1024];
	int lock_fd, r;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	r = ctf_trace_dir_lock(argv[1], false, &lock_fd);
	if (r == -EWOULDBLOCK) {
		fprintf(stderr, "scry recover: %s is being recorded (or recovered) by a running scry: not touched\n",
			argv[1]);
		return 1;
	}
	if (r) {
		fprintf(stderr, "scry recover: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	r = recover_as_owner(lock_fd, argv[1], &rep, err, sizeof(err));
	close(lock_fd);
	if (r) {
		fprintf(stderr, "scry recover: %s\n", err);
		return 1;
	}
	if (!rep.streams_cut && !rep.indexes_rebuilt)
		printf("%s: nothing to recover: %u streams, %llu complete packets\n", argv[1], rep.streams,
		       (unsigned long long)rep.packets);
	else
		printf("%s: %u streams, %llu complete packets kept; %llu bytes of unfinished packets cut "
		       "in %u streams; %u indexes rebuilt\n", argv[1], rep.streams, (unsigned long long)rep.packets,
		       (unsigned long long)rep.bytes_cut, rep.streams_cut, rep.indexes_rebuilt);
	return 0;
}
