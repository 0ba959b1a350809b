/* enable_later.c — an event enabled on a running session through the verb layer
 * (scry_session_enable_event), for tests/e2e/test_enable_later.py.
 *   enable_later DIR N
 * Records syscall:getppid of a child into DIR, starts; the child calls getppid N times;
 * then syscall:getpid is enabled on the running session, and the child calls getpid N
 * times, then getppid N times again.  Prints {"child":PID,"enabled_ns":T} (T: the
 * CLOCK_MONOTONIC time the enable returned). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "session/session.h"
#include "util/clock.h"

static void phase(int fd, long n, long nr)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(1);
	for (long i = 0; i < n; i++)
		syscall(nr);
}

int main(int argc, char **argv)
{
	struct scry_session_opts so = { 0 };
	struct scry_session *s = NULL;
	struct scry_session_summary sum;
	const char *events[] = { "syscall:getppid" };
	char err[1024];
	int go[2], status;
	uint64_t enabled;
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
		phase(go[0], n, SYS_getppid);
		phase(go[0], n, SYS_getpid);
		phase(go[0], n, SYS_getppid);
		_exit(0);
	}
	close(go[0]);
	so.output = argv[1];
	so.events = events;
	so.nevents = 1;
	so.ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID);
	if (scry_session_create(&s, &so, err, sizeof(err)) || scry_session_load(s, err, sizeof(err)) ||
	    scry_session_track(s, child, err, sizeof(err)) || scry_session_start(s, err, sizeof(err)))
		goto fail;
	if (write(go[1], "1", 1) != 1)
		goto fail;
	usleep(200000);
	scry_session_poll(s);
	if (scry_session_enable_event(s, "syscall:getpid", err, sizeof(err)))
		goto fail;
	enabled = scry_monotonic_ns();
	if (write(go[1], "22", 2) != 2)
		goto fail;
	waitpid(child, &status, 0);
	if (scry_session_stop(s, &sum, err, sizeof(err)))
		goto fail;
	printf("{\"child\":%d,\"enabled_ns\":%llu,\"events\":%llu,\"discarded\":%llu}\n", (int)child,
	       (unsigned long long)enabled, (unsigned long long)sum.events, (unsigned long long)sum.discarded);
	scry_session_destroy(s);
	return 0;
fail:
	fprintf(stderr, "enable_later: %s\n", err);
	kill(child, SIGKILL);
	scry_session_destroy(s);
	return 1;
}
