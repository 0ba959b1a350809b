/* disable_later.c — events disabled on a running session through the verb layer
 * (scry_session_disable_event), for tests/e2e/test_enable_later.py.
 *   disable_later DIR N
 * Records syscall:getppid, syscall:getpid and the tracepoint sched:sched_process_exit of a
 * child, starts; the child calls getppid N times and getpid N times; then getppid and the
 * tracepoint are disabled, and the child calls getppid N times and getpid N times again,
 * and exits.  Prints {"child":PID}. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "session/session.h"

static void phase(int fd, long n)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(1);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

int main(int argc, char **argv)
{
	struct scry_session_opts so = { 0 };
	struct scry_session *s = NULL;
	struct scry_session_summary sum;
	const char *events[] = { "syscall:getppid", "syscall:getpid", "sched:sched_process_exit" };
	char err[1024];
	int go[2];
	long n;
	pid_t child;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR N\n", argv[0]);
		return 2;
	}
	n = strtol(argv[2], NULL, 0);
	if (pipe(go))
		return 1;
	child = fork();
	if (child == 0) {
		close(go[1]);
		phase(go[0], n);
		phase(go[0], n);
		_exit(0);
	}
	close(go[0]);
	so.output = argv[1];
	so.events = events;
	so.nevents = 3;
	so.ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID);
	if (scry_session_create(&s, &so, err, sizeof(err)) || scry_session_load(s, err, sizeof(err)) ||
	    scry_session_track(s, child, err, sizeof(err)) || scry_session_start(s, err, sizeof(err)))
		goto fail;
	if (write(go[1], "1", 1) != 1)
		goto fail;
	usleep(200000);
	if (scry_session_disable_event(s, "syscall:getppid", err, sizeof(err)) ||
	    scry_session_disable_event(s, "sched_process_exit", err, sizeof(err)))
		goto fail;
	if (scry_session_disable_event(s, "syscall:getppid", err, sizeof(err)) != -ENOENT)
		goto fail;           /* nothing enabled matches any more */
	printf("{\"child\":%d,\"again\":\"%s\"}\n", (int)child, err);
	if (write(go[1], "2", 1) != 1)
		goto fail;
	waitpid(child, NULL, 0);
	if (scry_session_stop(s, &sum, err, sizeof(err)))
		goto fail;
	scry_session_destroy(s);
	return 0;
fail:
	fprintf(stderr, "disable_later: %s\n", err);
	kill(child, SIGKILL);
	scry_session_destroy(s);
	return 1;
}
