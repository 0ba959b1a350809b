/* recover.c — `scry recover DIR`: make a trace whose recorder died readable again (each
 * stream keeps its complete packets; ctf/recover.h).  The guardian of a recording does the
 * same on its own; this is for when the guardian died too (a whole process group killed,
 * a power loss).  A trace still being recorded is left alone. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli/commands.h"
#include "ctf/recover.h"
#include "ctf/trace_dir.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry recover DIR\n"
		"Make the trace DIR readable after its recorder died (SIGKILL, crash, power loss):\n"
		"each stream keeps its complete packets, an unfinished packet at its end is cut, and\n"
		"its packet index is rebuilt.  A trace that is still being recorded is not touched.\n");
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
	r = ctf_trace_recover(argv[1], &rep, err, sizeof(err));
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
