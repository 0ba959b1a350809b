/* fdtrack.h — `scry trace -y`: which path each file descriptor of each process refers to,
 * kept from the calls seen (open/openat/openat2/creat, dup*, fcntl F_DUPFD*, close,
 * close_range, execve's close-on-exec, fds of sockets, pipes and other objects read from
 * /proc/PID/fd when the call is seen), the working directory (chdir, fchdir), files
 * unlinked while open marked deleted, what a process had open before it was traced
 * (fdtrack_prime), and /proc/PID/fd/N for the fds no call told about (src/trace/fdtrack.c).
 * Paths are resolved in scry's own mount namespace. */
#ifndef SCRY_TRACE_FDTRACK_H
#define SCRY_TRACE_FDTRACK_H

#include <limits.h>
#include <stdbool.h>
#include "trace/call.h"
#include "trace/imap.h"

struct fdtrack {
	struct imap procs;              /* pid -> struct fdtab * */
	const char *proc_root;          /* "/proc" (tests point it elsewhere) */
	char buf[4][PATH_MAX + 16];     /* readlink results handed out, in turn */
	unsigned next_buf;
};

void fdtrack_init(struct fdtrack *t);
void fdtrack_free(struct fdtrack *t);

/* The path of fd in process pid (AT_FDCWD: its working directory), or NULL; an unlinked
 * file's ends with " (deleted)", as readlink says.  Valid until the fourth next call. */
const char *fdtrack_path(struct fdtrack *t, int pid, int fd);

/* A socket's protocol as the kernel named it when the call that made it returned ("TCP",
 * "UNIX-STREAM"), or NULL; *fresh (may be NULL): made by socket() and not bound, connected
 * or sent from since — what /proc says of it now may be later than the line shown. */
const char *fdtrack_proto(struct fdtrack *t, int pid, int fd, bool *fresh);

/* -yy: remember now (a socket's description) for pid's fd and return it; with now NULL
 * (the socket is gone from /proc), the last one remembered, or NULL. */
const char *fdtrack_seen(struct fdtrack *t, int pid, int fd, const char *now);
/* -yy: what the kernel said pid's fd was at the call (SCRY_SOP_SOCK), kept until the fd is
 * replaced; fdtrack_kernel_seen gives it back (NULL: none). */
void fdtrack_kernel_name(struct fdtrack *t, int pid, int fd, const char *name);
const char *fdtrack_kernel_seen(struct fdtrack *t, int pid, int fd);

/* Apply what a returned call did to pid's descriptors.  all: the argument values at exit
 * (exit captures, else the entry values). */
void fdtrack_apply(struct fdtrack *t, const struct trace_call *c, const struct scry_argval *all);

/* What pid has open now, and its working directory, from /proc (the command scry started,
 * before its exec; a process given with -p): the descriptors it inherited. */
void fdtrack_prime(struct fdtrack *t, int pid);

/* A new process inherits its parent's descriptors; a process that ended has none. */
void fdtrack_fork(struct fdtrack *t, int parent_pid, int pid);
void fdtrack_drop(struct fdtrack *t, int pid);

/* Set or forget one descriptor by hand (tests, and callers that know better). */
void fdtrack_set(struct fdtrack *t, int pid, int fd, const char *path, bool cloexec);

#endif /* SCRY_TRACE_FDTRACK_H */
