/* options.h — the settings of `scry trace`, in strace's terms (src/trace/options.c); its
 * command line, in strace's spelling where strace has the option, is cli/trace_options.c:
 *   -f / --no-follow, -p PID[,PID], -a, -e trace=SET, -e status=SET, -e signal=SET, -z, -Z,
 *   -T, -t/-tt/-ttt, -r, -s N, -o FILE, -c, -C, -S SORTBY, -w, -y, -v, --json,
 *   --snaplen N, -x/-xx, -X raw|abbrev|verbose, -P PATH, -e read=/write=SET, -e quiet=SET,
 *   -q/-qq/-qqq, -i, -n, -A, -E VAR[=VAL], -u USER, -ff, -D, -I N, -b execve, -U COLS,
 *   -Y/--decode-pids=comm, --seccomp-bpf, [--] CMD ARGS...
 * The parser knows no kernel: syscall names are resolved through a lookup callback. */
#ifndef SCRY_TRACE_OPTIONS_H
#define SCRY_TRACE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACE_NR_MAX 1024                    /* syscall numbers in the selection bitmap */
#define TRACE_FD_MAX 1024                    /* -e read=/write=: descriptors in the sets */

enum trace_xlat { TRACE_XLAT_ABBREV, TRACE_XLAT_RAW, TRACE_XLAT_VERBOSE };   /* -X */

enum trace_quiet {                           /* -e quiet= (strace's names) */
	TRACE_Q_ATTACH        = 1 << 0,      /* "Process N attached" */
	TRACE_Q_EXIT          = 1 << 1,      /* "+++ exited with N +++", "+++ killed by" */
	TRACE_Q_PATH_RESOLVE  = 1 << 2,      /* -P: "Requested path ... resolved into ..." */
	TRACE_Q_PERSONALITY   = 1 << 3,      /* never printed by scry (64-bit only) */
	TRACE_Q_THREAD_EXECVE = 1 << 4,      /* "+++ superseded by execve +++" (not printed) */
	TRACE_Q_ALL           = (1 << 5) - 1,
};

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
	/* strace's other options */
	unsigned xflag;                      /* -x: 1 non-ASCII strings in hex, -xx: 2 all strings */
	int xlat;                            /* -X: TRACE_XLAT_* */
	unsigned quiet;                      /* -q, -qq, -e quiet=: TRACE_Q_* */
	bool show_nr;                        /* -n: "[ 257] " before each call */
	bool show_ip;                        /* -i: "[00007f...] " the instruction pointer */
	bool append;                         /* -A: -o FILE appended to */
	bool per_pid_files;                  /* -ff: -o FILE.PID, one file per process */
	bool decode_comm;                    /* -Y, --decode-pids=comm: pid<comm> */
	bool detach_execve;                  /* -b execve: a process left at its execve */
	unsigned detach_pgrp;                /* -D, -DD, -DDD: accepted (BPF: scry is no tracer parent) */
	int interruptible;                   /* -I 1..4 (accepted: strace's own signal blocking) */
	bool seccomp;                        /* --seccomp-bpf (accepted: scry filters in the kernel) */
	const char *columns;                 /* -U: the -c table's columns as given, or NULL */
	int cols[16];                        /* ... parsed (trace/summary.h's TRACE_COL_*) */
	unsigned ncols;
	const char **paths;                  /* -P PATH (into argv, malloc'd list) */
	size_t npaths;
	char **env;                          /* -E VAR=VAL, -E VAR (into argv, malloc'd list) */
	size_t nenv;
	const char *user;                    /* -u USER: the command run as USER */
	uint64_t dump_read[TRACE_FD_MAX / 64];   /* -e read=SET: fds whose reads are dumped */
	uint64_t dump_write[TRACE_FD_MAX / 64];  /* -e write=SET */
	bool dumps;                          /* a read= or write= set is not empty */
	const char *inject;                  /* -e inject= or fault= (refused: needs kprobes) */
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

/* One -e QUALIFIER=SET, or -e SET (trace=): trace=, status=, signal=, quiet=, read=,
 * write=; inject= and fault= are kept in o->inject for the caller to refuse. */
int trace_opts_qualifier(struct trace_opts *o, const char *arg, const struct trace_names *names,
			 char *err, size_t errlen);

bool trace_opts_selected(const struct trace_opts *o, int nr);
/* -e read=/write=: are fd's reads (write: writes) dumped in hex? */
bool trace_opts_dumped(const struct trace_opts *o, int fd, bool write);
/* True when every syscall is selected (no filter needed in the kernel). */
bool trace_opts_selects_all(const struct trace_opts *o);

#endif /* SCRY_TRACE_OPTIONS_H */
