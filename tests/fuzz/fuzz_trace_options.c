/* fuzz_trace_options.c — libFuzzer target: input bytes as `scry trace`'s arguments (split at
 * NUL bytes, at most 30) through trace_opts_parse and its option table (src/cli/optable.c)
 * with a small syscall table: it parses or refuses with one line (not empty; no newline but
 * an argument's, which the message names as given);
 * a parse that is not --help has something to trace; a second parse of fixed arguments
 * after it gives the same result each time (no state of a cluster left behind). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli/trace_options.h"

static const char *const names[] = { "read", "write", "open", "close", "stat", "openat", "execve", "clone" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

static int lookup(void *ctx, const char *name)
{
	for (size_t i = 0; i < NNAMES; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_names tn = { .lookup = lookup, .names = names, .nnames = NNAMES };
	char *buf, *argv[32] = { "trace" }, *again[] = { "trace", "-T", "ls", NULL };
	int argc = 1, rc, newline = 0;
	struct trace_opts o;
	struct cli_track track;
	char err[512] = "";

	/* a regex (-e trace=/RE) with repetitions is left out: glibc's regcomp takes memory in
	 * the product of its repeats (gigabytes for 80 bytes), a limit of regcomp, not of the table */
	if (memchr(data, '/', size) && (memchr(data, '+', size) || memchr(data, '*', size) || memchr(data, '{', size)))
		return 0;
	if (!(buf = malloc(size + 1)))
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i <= size && argc < 31;) {
		argv[argc++] = buf + i;
		newline |= strchr(buf + i, '\n') != NULL;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	rc = trace_opts_parse(&o, &track, argc, argv, &tn, err, sizeof(err));
	if (rc != 0 && rc != -1)
		abort();
	if (rc && (!err[0] || (!newline && strchr(err, '\n'))))   /* an argument is named as given */
		abort();
	if (!rc && !o.help && !o.cmd && !o.npids && !o.all && !track.npids)
		abort();
	trace_opts_free(&o);
	cli_track_free(&track);

	rc = trace_opts_parse(&o, &track, 3, again, &tn, err, sizeof(err));
	if (rc || o.help || !o.durations || o.xflag || o.tstamp || !o.cmd || strcmp(o.cmd[0], "ls"))
		abort();
	trace_opts_free(&o);
	cli_track_free(&track);
	free(buf);
	return 0;
}
