/* options.h — the settings of `scry trace`, in strace's terms (src/trace/options.c); its
 * command line, in strace's spelling where strace has the option, is cli/trace_options.c:
 *   -f / --no-follow, -p PID[,PID], -a, -e trace=SET, -e status=SET, -e signal=SET, -z, -Z,
 *   -T, -t/-tt/-ttt, -r, -s N, -o FILE, -c, -C, -S SORTBY, -w, -y, -v, --json,
 *   --snaplen N, [--] CMD ARGS...
 * The parser knows no kernel: syscall names are resolved through a lookup callback. */
#ifndef SCRY_TRACE_OPTIONS_H
#define SCRY_TRACE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACE_NR_MAX 1024                    /* syscall numbers in the selection bitmap */

enum trace_status {                          /* -e status= */
	TRACE_ST_SUCCESSFUL  = 1 << 0,
	TRACE_ST_FAILED      = 1 << 1,       /* returned -4095..-1 */
	TRACE_ST_UNFINISHED  = 1 << 2,       /* never returned (task died, exit_group) */
	TRACE_ST_UNAVAILABLE = 1 << 3,       /* accepted; never happens in scry */
	TRACE_ST_DETACHED    = 1 << 4,       /* pending when tracing stopped */
	TRACE_ST_ALL         = (1 << 5) - 1,
};

enum trace_count { TRACE_COUNT_NONE, TRACE_COUNT_ONLY /* -c */, TRACE_COUNT_ALSO /* -C */ };

enum trace_sort {                            /* -S, for the -c table */
	TRACE_SORT_TIME,                     /* default */
	TRACE_SORT_AVG,
	TRACE_SORT_CALLS,
	TRACE_SORT_ERRORS,
	TRACE_SORT_NAME,
	TRACE_SORT_NOTHING,                  /* syscall number order */
};

struct trace_opts {
	/* what to trace */
	bool follow;                         /* -f: children too; default (--no-follow): only the processes given */
	pid_t *pids;                         /* -p (malloc'd) */
	size_t npids;
	bool all;                            /* -a: system-wide */
	char **cmd;                          /* the command (points into argv), or NULL */
	uint64_t sel[TRACE_NR_MAX / 64];     /* -e trace=: selected syscall numbers */
	bool sel_rest;                       /* numbers >= TRACE_NR_MAX selected */
	bool trace_given;                    /* an -e trace= was given */
	unsigned status;                     /* -e status=, -z, -Z: TRACE_ST_* */
	uint64_t sigset;                     /* -e signal=: bit s-1 for signal s (1..64) */
	const char **probes;                 /* -e uprobe:/uretprobe:/usdt:/kprobe:... specs (into argv) */
	size_t nprobes;
	const char *flow;                    /* --flow [uprobe:]PATH:GLOB: the call tree (into argv) */
	/* how to print */
	int tstamp;                          /* 0, 1 -t, 2 -tt, 3 -ttt */
	bool relative;                       /* -r */
	bool durations;                      /* -T */
	unsigned strsize;                    /* -s (default 32) */
	uint64_t snaplen;                    /* --snaplen: bytes captured per buffer (0: default) */
	const char *fetch;                   /* --fetch: uprobes' members by path, or NULL */
	const char *outfile;                 /* -o (points into argv) */
	enum trace_count count;              /* -c, -C */
	enum trace_sort sortby;              /* -S */
	bool wallclock;                      /* -w (scry always measures latency) */
	unsigned decode_fds;                 /* -y: 1, -yy: 2 (sockets by protocol and address) */
	bool verbose;                        /* -v */
	bool stack;                          /* -k: each call's user stack, symbolized (strace -k) */
	bool json;                           /* --json */
	const char *record_dir;              /* --record DIR: the CTF trace of the same events */
	bool help;                           /* -h: print trace_opts_usage and exit 0 */
	bool filtered;                       /* --filter given (decided on a call's entry) */
	char warn[512];                      /* options that have no effect, '\n'-separated */
};

/* Syscall names as the user may write them.  lookup: the number of a name (kernel names
 * and strace's spellings: "stat" and "newstat" alike), or -1.  names: every name, for the
 * closest-match suggestions and /regex. */
struct trace_names {
	int (*lookup)(void *ctx, const char *name);
	void *ctx;
	const char *const *names;
	size_t nnames;
};

/* Defaults: not following children, everything selected, status all, every signal, strsize 32. */
void trace_opts_init(struct trace_opts *o);

/* Free what o holds (its pids). */
void trace_opts_free(struct trace_opts *o);

/* Parse one -e trace= value (without "trace=") into o's selection, replacing it. */
int trace_opts_set_trace(struct trace_opts *o, const char *set, const struct trace_names *names,
			 char *err, size_t errlen);

/* One -e QUALIFIER=SET, or -e SET (trace=): trace=, status=, signal=. */
int trace_opts_qualifier(struct trace_opts *o, const char *arg, const struct trace_names *names,
			 char *err, size_t errlen);

bool trace_opts_selected(const struct trace_opts *o, int nr);
/* True when every syscall is selected (no filter needed in the kernel). */
bool trace_opts_selects_all(const struct trace_opts *o);

#endif /* SCRY_TRACE_OPTIONS_H */
