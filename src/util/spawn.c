/* spawn.c — a command held before exec (see spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
	int go[2], st[2];
	char *file = resolve(argv[0]);

	if (pipe2(go, O_CLOEXEC) || pipe2(st, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		free(file);
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		close(go[0]); close(go[1]); close(st[0]); close(st[1]);
		free(file);
		return -e;
	}
	if (pid == 0) {
		char b;
		int e;

		close(go[1]);
		close(st[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &b, 1) != 1)
			_exit(127);            /* the tracer went away before releasing us */
		close(go[0]);
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
	close(go[0]);
	close(st[1]);
	c->pid = pid;
	c->cmd = argv[0];
	c->go_fd = go[1];
	c->status_fd = st[0];
	return 0;
}

int scry_spawn_release(struct scry_child *c, char *err, size_t errlen)
{
	char b = 1;
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, &b, 1) != 1) {
		snprintf(err, errlen, "cannot release the command: %s", strerror(errno));
		return -errno;
	}
	close(c->go_fd);
	c->go_fd = -1;
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
	if (c->go_fd >= 0)
		close(c->go_fd);
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

