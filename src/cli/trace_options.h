/* trace_options.h — the `scry trace` command line (src/cli/trace_options.c): strace's
 * options, in strace's spelling where strace has the option, into struct trace_opts
 * (trace/options.h); --filter and the trackers into struct cli_track (cli/track.h). */
#ifndef SCRY_CLI_TRACE_OPTIONS_H
#define SCRY_CLI_TRACE_OPTIONS_H

#include <stdio.h>
#include "cli/track.h"
#include "trace/options.h"

/* Parse argv[1..argc) (argv[0] is "trace"); options stop at "--" or the first non-option
 * (the command).  0, or -1 with a one-line message in err (no "scry trace: " prefix).
 * o and track are initialized by the call; free them with trace_opts_free and
 * cli_track_free in both cases. */
int trace_opts_parse(struct trace_opts *o, struct cli_track *track, int argc, char **argv,
		     const struct trace_names *names, char *err, size_t errlen);
void trace_opts_usage(FILE *f);

#endif
