/* spawn.c — a command held before exec (see spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "util/privs.h"
#include "util/spawn.h"

/* The file execvp() would run for name, found before the fork as strace does, so that the
 * traced child makes one execve instead of one per PATH entry.  NULL: let execvp search. */
static char *resolve(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/') || !path || !(copy = strdup(path)))
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *cand;
		struct stat sb;

		if (asprintf(&cand, "%s/%s", *dir ? dir : ".", name) < 0)
			break;
		if (!access(cand, X_OK) && !stat(cand, &sb) && S_ISREG(sb.st_mode))
			found = cand;
		else
			free(cand);
	}
	free(copy);
	return found;
}

int scry_spawn_check(const char *name, char *err, size_t errlen)
{
	char *file = NULL;
	struct stat sb;
	int e = 0;

	if (!*name) {
		e = ENOENT;
	} else if (strchr(name, '/')) {
		if (stat(name, &sb))
			e = errno;
		else if (!S_ISREG(sb.st_mode))
			e = EACCES;
		else if (access(name, X_OK))
			e = errno;
	} else if (!(file = resolve(name))) {
		snprintf(err, errlen, "cannot run '%s': command not found in PATH", name);
		return -ENOENT;
	}
	free(file);
	if (e)
		snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
	return -e;
}

int scry_spawn_held(char *const argv[], struct scry_child *c, char *err, size_t errlen)
{
	int st[2];
	char *file = resolve(argv[0]);
	struct passwd *pw = NULL;
	gid_t groups[256];
	int ngroups = 256;

	if (c->user) {   /* looked up here: the child after fork calls nothing that locks */
		if (!(pw = getpwnam(c->user)) || getgrouplist(c->user, pw->pw_gid, groups, &ngroups) < 0) {
			snprintf(err, errlen, pw ? "user '%s' is in too many groups" : "cannot find user '%s'", c->user);
			free(file);
			return -EINVAL;
		}
	}

	if (pipe2(st, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		free(file);
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		close(st[0]); close(st[1]);
		free(file);
		return -e;
	}
	if (pid == 0) {
		int e;

		close(st[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		scry_restore_nofile();   /* the command's open-file limit as scry's caller set it */
		if (pw && (setgroups((size_t)ngroups, groups) || setgid(pw->pw_gid) || setuid(pw->pw_uid))) {
			e = errno;
			if (write(st[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		{   /* the command gets every signal (scry's event loop blocks its stop signals) */
			sigset_t none;

			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		/* named already as the exec will name us (the kernel: the basename of the path
		 * execve is given, 15 bytes): a trace's sched_switch into the held child, before
		 * its exec, then names the command as LTTng's analyses (lttng-cputop: a task's
		 * name is the one at its first switch) and a reader of the trace expect */
		{
			const char *path = file ? file : argv[0], *base = strrchr(path, '/');

			prctl(PR_SET_NAME, base ? base + 1 : path, 0, 0, 0);
		}
		/* stop here, before the tracer follows us: when it lets us go (SIGCONT) the next
		 * thing we do is the execve, which is where the trace of the command begins (the
		 * kill's exit is behind us; glibc's raise() would restore its mask afterwards) */
		syscall(SYS_kill, getpid(), SIGSTOP);
		if (file)
			execv(file, argv);
		else
			execvp(argv[0], argv);
		e = errno;
		if (write(st[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	free(file);
	close(st[1]);
	c->pid = pid;
	c->cmd = argv[0];
	c->status_fd = st[0];
	for (;;) {     /* until it has stopped itself */
		int ws;
		pid_t r = waitpid(pid, &ws, WUNTRACED);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == pid && WIFSTOPPED(ws)) {
			c->held = true;
			return 0;
		}
		snprintf(err, errlen, "cannot start '%s': it ended before it could be traced", argv[0]);
		close(st[0]);
		c->status_fd = -1;
		c->pid = -1;
		return -ECHILD;
	}
}

int scry_spawn_release(struct scry_child *c, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (kill(c->pid, SIGCONT)) {
		snprintf(err, errlen, "cannot release the command: %s", strerror(errno));
		return -errno;
	}
	c->held = false;
	do
		n = read(c->status_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->status_fd);
	c->status_fd = -1;
	if (n == sizeof(e)) {
		snprintf(err, errlen, "cannot run '%s': %s", c->cmd, strerror(e));
		return -e;
	}
	return 0;
}

void scry_spawn_abort(struct scry_child *c)
{
	if (c->pid <= 0)
		return;
	if (c->status_fd >= 0)
		close(c->status_fd);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

int scry_exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}

