/* call.h — one syscall as `scry trace` sees it: the decoded entry and exit events of one
 * thread merged (src/trace).  The live consumer (src/trace/live.c) fills these from the
 * events of the BPF side; the printer (src/trace/printer.c) turns them into strace lines,
 * JSON lines, or the -c summary. */
#ifndef SCRY_TRACE_CALL_H
#define SCRY_TRACE_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include "catalog/argspec.h"
#include "catalog/catalog.h"
#include "format/format.h"
#include "scry_abi.h"

/* What a descriptor the call returned is, recorded at its exit (catalog: SCRY_SOP_FILE). */
struct trace_file {
	bool have;
	uint32_t mode;                /* its inode's mode (S_IFSOCK, S_IFIFO, 0600 anonymous...) */
	uint64_t ino;
	char name[33];                /* its dentry's name: "[eventpoll]", "TCP", "memfd:x" */
};

/* The socket a descriptor was when the kernel ran the call (-yy: SCRY_SOP_SOCK). */
struct trace_sock {
	bool have;
	int fd;
	struct scry_sock_rec r;
};

struct trace_call {
	const char *name;             /* as strace names it: "stat", "openat" */
	int nr;                       /* syscall number */
	unsigned nargs;
	const struct scry_argspec *specs;   /* nargs entries */
	const struct scry_syscall_arg *args; /* nargs entries: names, C sizes (NULL: unknown) */
	int pid, tid;
	int64_t ts_entry, ts_exit;    /* ns since the epoch (CLOCK_REALTIME) */
	bool have_entry, have_exit;
	struct scry_argval in[SCRY_MAX_ARGS];    /* from syscall_entry_*: plain values, IN captures */
	struct scry_argval out[SCRY_MAX_ARGS];   /* from syscall_exit_*: OUT captures (have=false if none) */
	int64_t ret;
	struct trace_file file[2];    /* the returned descriptor, or a pipe's two, when recorded */
	struct trace_sock sock[2];    /* -yy: the fd argument's socket at the entry, accept's at the exit */
	uint64_t ip;                  /* -i: the user instruction pointer at the event (0: unknown) */
	const char *comm;             /* -Y: the task's command name at the event, or NULL */
	const uint64_t *frames;       /* -k: the user stack at the exit (valid during the call), */
	uint32_t nframes;             /* nframes addresses, innermost first */
};

#endif /* SCRY_TRACE_CALL_H */
