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
#include <sys/wait.h>
#include <unistd.h>

#include "ctf/recover.h"
#include "ctf/trace_dir.h"
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

/* In the guardian: wait for the recorder's end; recover the trace if it died. */
static void __attribute__((noreturn)) guardian(int fd, const char *dir)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	struct ctf_recover_report rep;
	char c = 0, err[512];
	int lock_fd = -1, null_fd;
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
	if (fd != 3 && dup2(fd, 3) == 3)
		fd = 3;
	syscall(SYS_close_range, fd + 1, ~0U, 0);
	drop_bpf_maps();
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == RELEASE)
		_exit(0);
	/* the recorder died: its lock on dir went with it */
	if (ctf_trace_dir_lock(dir, true, &lock_fd) < 0)
		_exit(0);                     /* no trace directory yet: nothing to recover */
	int r = ctf_trace_recover(dir, &rep, err, sizeof(err));

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

int scry_guard_start(struct scry_guard *g, const char *dir, char *err, size_t errlen)
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
		guardian(p[0], dir);
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
