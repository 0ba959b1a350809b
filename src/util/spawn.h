/* spawn.h — start a command held before exec, so that a tracer can follow it from its
 * execve on: spawn (fork; the child stops itself, SIGSTOP, with nothing left to do but the
 * execve), set up tracing of the pid, release (SIGCONT: it execs).  Killed while held
 * (scry_spawn_abort, or the tracer's death orphaning its process group) it never runs. */
#ifndef SCRY_SPAWN_H
#define SCRY_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct scry_child {
	pid_t pid;
	int status_fd;    /* read end: the child's exec errno, EOF when exec succeeded */
	bool held;        /* stopped, not released yet */
	const char *cmd;  /* argv[0], for messages */
	const char *user; /* in: run the command as this user (its uid, gid and groups; trace
			   * -u), or NULL */
};

/* 0 if name can be executed (searched in PATH like execvp), else -errno and a message:
 * checked before anything is created, so a typo leaves no trace directory behind. */
int scry_spawn_check(const char *name, char *err, size_t errlen);
int scry_spawn_held(char *const argv[], struct scry_child *c, char *err, size_t errlen);
/* Let it exec; fails with a message if the command could not be executed. */
int scry_spawn_release(struct scry_child *c, char *err, size_t errlen);
/* Kill and reap a child that was never released. */
void scry_spawn_abort(struct scry_child *c);
/* Exit status the way a shell reports it: code, or 128 + signal. */
int scry_exit_status(int wstatus);

#endif
