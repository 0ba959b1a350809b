/* proc.h — what /proc says about a process. */
#ifndef SCRY_UTIL_PROC_H
#define SCRY_UTIL_PROC_H

#include <sys/types.h>

/* The process (tgid) of a pid or thread id, from /proc/PID/status; -1 if there is none. */
pid_t scry_process_of(pid_t pid);

#endif
