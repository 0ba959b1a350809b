/* guard.c — the guardian of a recording (see guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctf/recover.h"
#include "session/guard.h"
#include "util/log.h"

#define RELEASE 'R'

/* The BPF maps the recorder had mapped (its rings, stages, .bss) unmapped from the
 * guardian's copy of its memory: the guardian must not keep them alive. */
static void drop_bpf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long lo, hi;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "anon_inode:bpf-map") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			munmap((void *)lo, hi - lo);
	fclose(f);
}

/* The guardian becomes the trace owner's process (no way back). */
static int become(const struct scry_cred *c)
{
	if (!c)
		return 0;
	if (setgroups((size_t)c->ngroups, c->groups) < 0 || setresgid(c->gid, c->gid, c->gid) < 0 ||
	    setresuid(c->uid, c->uid, c->uid) < 0)
		return -errno;
	return 0;
}

/* In the guardian: wait for the recorder's end; recover the trace (dir_fd) if it died. */
static void __attribute__((noreturn)) guardian(int fd, int dir_fd, const char *dir, const struct scry_cred *owner)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	struct ctf_recover_report rep;
	char c = 0, err[512];
	int null_fd;
	ssize_t n;

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	setsid();                         /* out of the terminal's process group */
	prctl(PR_SET_NAME, "scry-guard");
	/* keep stderr (for the one line below) and the pipe: the recorder's BPF objects, its
	 * trace files and the terminal's stdin/stdout must not be held by the guardian */
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		dup2(null_fd, STDOUT_FILENO);
	}
	/* the pipe as 3 and the trace directory as 4, nothing else */
	if (fd != 3) {
		int f = fcntl(fd, F_DUPFD_CLOEXEC, 5), d = fcntl(dir_fd, F_DUPFD_CLOEXEC, 5);

		fd = dup2(f, 3);
		dir_fd = dup2(d, 4);
	} else if (dir_fd != 4) {
		dir_fd = dup2(dir_fd, 4);
	}
	syscall(SYS_close_range, 5, ~0U, 0);
	drop_bpf_maps();
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == RELEASE)
		_exit(0);
	/* the recorder died: its lock on dir went with it */
	if (dir_fd < 0 || flock(dir_fd, LOCK_EX) < 0)
		_exit(0);
	if (become(owner) < 0) {
		scry_log(SCRY_LOG_INFO, "scry: the recorder of %s died; cannot take its owner's rights to recover it: %s",
			 dir, strerror(errno));
		_exit(1);
	}
	int r = ctf_trace_recover_at(dir_fd, dir, &rep, err, sizeof(err));

	if (r == -ENOENT && !rep.streams)
		_exit(0);                     /* it died before the trace began: nothing in it */
	if (r < 0) {
		scry_log(SCRY_LOG_INFO, "scry: the recorder of %s died; recovery failed: %s", dir, err);
		_exit(1);
	}
	scry_log(SCRY_LOG_INFO, "scry: the recorder of %s died; its trace keeps %llu complete packets "
		 "(%llu bytes of unfinished packets cut, %u indexes rebuilt)", dir,
		(unsigned long long)rep.packets, (unsigned long long)rep.bytes_cut, rep.indexes_rebuilt);
	_exit(0);
}

int scry_guard_start(struct scry_guard *g, struct scry_dirh *dir, char *err, size_t errlen)
{
	int p[2];
	pid_t pid;

	g->pid = 0;
	g->fd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot start the trace's guardian: pipe: %s", strerror(errno));
		return -errno;
	}
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		snprintf(err, errlen, "cannot start the trace's guardian: fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		close(p[1]);
		guardian(p[0], scry_dirh_fd(dir), scry_dirh_path(dir), scry_dirh_cred(dir));
	}
	close(p[0]);
	g->pid = pid;
	g->fd = p[1];
	return 0;
}

void scry_guard_release(struct scry_guard *g)
{
	char c = RELEASE;

	if (g->fd < 0)
		return;
	if (write(g->fd, &c, 1) != 1) {
		/* the guardian is gone: nothing to tell */
	}
	close(g->fd);
	g->fd = -1;
	if (g->pid > 0)
		waitpid(g->pid, NULL, 0);
	g->pid = 0;
}
