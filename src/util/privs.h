/* privs.h — does this process have what loading tracing BPF programs needs (privileges,
 * open files)? */
#ifndef SCRY_PRIVS_H
#define SCRY_PRIVS_H

#include <stddef.h>

/* 0, or -EPERM with a one-line message naming what is missing. */
int scry_check_privileges(const char *what, char *err, size_t errlen);
/* The soft limit on open files raised to the hard one: scry holds an fd per program, map,
 * link and ring buffer (about 200 for `record -a`, more with many tracepoints).  0 or -errno. */
int scry_raise_nofile(void);
/* The daemon's: the soft and hard limits raised to the kernel's most (fs.nr_open, at most
 * 1,048,576; root may raise the hard limit): each loaded session holds ~200 fds (a map
 * each), so a common hard limit (20,000 here) stopped a daemon near 100 sessions.  The
 * limit reached (>= what it was), or 0 if it could not be read. */
unsigned long scry_raise_nofile_max(void);
/* The limit as it was before scry_raise_nofile (in a command scry starts: its own). */
void scry_restore_nofile(void);
/* If err reports too many open files (EMFILE; or EBADF under a limit below 1024, what
 * libbpf makes of an EMFILE), it is replaced by one line naming the limit (RLIMIT_NOFILE)
 * and how to raise it. */
void scry_explain_nofile(char *err, size_t errlen);

#endif
