/* tree.c — a small process tree with known pids/tids, for the descendants test.
 *   tree          root ─┬─ child A (2 pthreads, each calls gettid) ── grandchild: exec /bin/true
 *                       └─ child B (exec /bin/sh -c 'exit 0')
 * Every task does at least one syscall after it exists.  Each reports (pid, tid) to the root
 * over a pipe; the root prints {"root":P,"pids":[...],"tids":[...]} (tids include pids). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int report_fd;

static void report(void)
{
	long rec[2] = { getpid(), syscall(SYS_gettid) };
	if (write(report_fd, rec, sizeof rec) != sizeof rec)
		_exit(3);
}

static void *thread_main(void *arg)
{
	report();
	return NULL;
}

static void exec_or_die(char *const argv[])
{
	execv(argv[0], argv);
	perror(argv[0]);
	_exit(4);
}

static void wait_all(void)
{
	while (wait(NULL) > 0)
		;
}

int main(void)
{
	int p[2];
	if (pipe(p)) {
		perror("pipe");
		return 1;
	}
	report_fd = p[1];
	report();
	pid_t a = fork();
	if (a == 0) {
		close(p[0]);
		report();
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pid_t g = fork();
		if (g == 0) {
			report();
			close(p[1]);
			char *const argv[] = { "/bin/true", NULL };
			exec_or_die(argv);
		}
		wait_all();
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0) {
		close(p[0]);
		report();
		close(p[1]);
		char *const argv[] = { "/bin/sh", "-c", "exit 0", NULL };
		exec_or_die(argv);
	}
	close(p[1]);
	wait_all();

	long rec[2];
	long pids[16], tids[16];
	int np = 0, nt = 0;
	while (read(p[0], rec, sizeof rec) == sizeof rec && nt < 16) {
		int seen = 0;
		for (int i = 0; i < np; i++)
			seen |= pids[i] == rec[0];
		if (!seen)
			pids[np++] = rec[0];
		tids[nt++] = rec[1];
	}
	printf("{\"root\":%d,\"pids\":[", getpid());
	for (int i = 0; i < np; i++)
		printf("%s%ld", i ? "," : "", pids[i]);
	printf("],\"tids\":[");
	for (int i = 0; i < nt; i++)
		printf("%s%ld", i ? "," : "", tids[i]);
	printf("]}\n");
	return np == 4 && nt == 6 ? 0 : 1;
}
