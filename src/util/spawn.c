/* spawn.c — a command held before exec (see spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "util/spawn.h"

int scry_spawn_held(char *const argv[], struct scry_child *c, char *err, size_t errlen)
{
	int go[2], st[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(st, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot create a pipe: %s", strerror(errno));
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot fork: %s", strerror(e));
		close(go[0]); close(go[1]); close(st[0]); close(st[1]);
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
		execvp(argv[0], argv);
		e = errno;
		if (write(st[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(st[1]);
	c->pid = pid;
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
		snprintf(err, errlen, "cannot run the command: %s", strerror(e));
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
