/* verbs.c — the session's verbs on a running session, for tests/e2e/test_verbs.py.
 *   verbs enable DIR N    records syscall:getppid of a child; the child calls getppid N
 *                         times; syscall:getpid is enabled (scry_session_enable_event); the
 *                         child calls getpid N times, then getppid N times; the procname
 *                         context is added before load (scry_session_add_context), and
 *                         adding one after start is refused; the session's events are
 *                         fixed_events, so enabling a tracepoint after start is refused
 *   verbs disable DIR N   records syscall:getppid, syscall:getpid, sched:sched_process_exit;
 *                         the child calls getppid N times and getpid N times; getppid and the
 *                         tracepoint are disabled (scry_session_disable_event); the child
 *                         calls getppid N times and getpid N times, and exits
 * Prints {"child":PID,"changed_ns":T,"events":E,"discarded":D,"again":"..."}: T the
 * CLOCK_MONOTONIC time the verb returned, "again" the error of disabling getppid twice
 * (disable) or of adding a context after start (enable), "tp" that of enabling
 * sched:sched_switch after start (enable). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "session/session.h"
#include "util/clock.h"

/* The child: waits for each go-ahead, then makes its calls (nr 0: none). */
static void child_run(int fd, long n, const long (*phases)[2], int nphases)
{
	char c;

	for (int k = 0; k < nphases; k++) {
		if (read(fd, &c, 1) != 1)
			_exit(1);
		for (int j = 0; j < 2; j++)
			for (long i = 0; phases[k][j] && i < n; i++)
				syscall(phases[k][j]);
	}
	_exit(0);
}

static int go(int fd, int times)
{
	for (int i = 0; i < times; i++)
		if (write(fd, "g", 1) != 1)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const long enable_phases[][2] = { { SYS_getppid, 0 }, { SYS_getpid, 0 }, { SYS_getppid, 0 } };
	static const long disable_phases[][2] = { { SYS_getppid, SYS_getpid }, { SYS_getppid, SYS_getpid } };
	const char *enable_events[] = { "syscall:getppid" };
	const char *disable_events[] = { "syscall:getppid", "syscall:getpid", "sched:sched_process_exit" };
	struct scry_session_opts so = { 0 };
	struct scry_channel_opts chan = { 0 };
	struct scry_session *s = NULL;
	struct scry_session_summary sum;
	char err[1024] = "", again[256] = "", tp[256] = "";
	uint64_t changed;
	int pipefd[2];
	bool enable;
	pid_t child;
	long n;

	if (argc != 4 || (strcmp(argv[1], "enable") && strcmp(argv[1], "disable"))) {
		fprintf(stderr, "usage: %s enable|disable DIR N\n", argv[0]);
		return 2;
	}
	enable = !strcmp(argv[1], "enable");
	n = strtol(argv[3], NULL, 0);
	if (pipe(pipefd))
		return 1;
	child = fork();
	if (child == 0) {
		close(pipefd[1]);
		if (enable)
			child_run(pipefd[0], n, enable_phases, 3);
		child_run(pipefd[0], n, disable_phases, 2);
	}
	close(pipefd[0]);
	so.output = argv[2];
	chan.events = enable ? enable_events : disable_events;
	chan.nevents = enable ? 1 : 3;
	chan.ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID);
	so.channels = &chan;
	so.nchannels = 1;
	so.fixed_events = enable;
	if (scry_session_create(&s, &so, err, sizeof(err)) ||
	    (enable && scry_session_add_context(s, NULL, SCRY_CTX_PROCNAME, err, sizeof(err))) ||
	    scry_session_load(s, err, sizeof(err)) ||
	    scry_session_track(s, child, err, sizeof(err)) || scry_session_start(s, err, sizeof(err)) ||
	    go(pipefd[1], 1))
		goto fail;
	if (enable && scry_session_add_context(s, NULL, SCRY_CTX_PRIO, again, sizeof(again)) != -EBUSY)
		goto fail;
	usleep(200000);                       /* the first phase is over */
	if (enable) {
		if (scry_session_enable_event(s, NULL, "syscall:getpid", err, sizeof(err)) ||
		    scry_session_enable_event(s, NULL, "sched:sched_switch", tp, sizeof(tp)) != -ENOTSUP)
			goto fail;
	} else {
		if (scry_session_disable_event(s, NULL, "syscall:getppid", err, sizeof(err)) ||
		    scry_session_disable_event(s, NULL, "sched_process_exit", err, sizeof(err)))
			goto fail;
		if (scry_session_disable_event(s, NULL, "syscall:getppid", again, sizeof(again)) != -ENOENT)
			goto fail;
	}
	changed = scry_monotonic_ns();
	if (go(pipefd[1], enable ? 2 : 1))
		goto fail;
	waitpid(child, NULL, 0);
	if (scry_session_stop(s, &sum, err, sizeof(err)))
		goto fail;
	printf("{\"child\":%d,\"changed_ns\":%llu,\"events\":%llu,\"discarded\":%llu,\"again\":\"%s\",\"tp\":\"%s\"}\n",
	       (int)child, (unsigned long long)changed, (unsigned long long)sum.events,
	       (unsigned long long)sum.discarded, again, tp);
	scry_session_destroy(s);
	return 0;
fail:
	fprintf(stderr, "verbs: %s\n", err[0] ? err : "a step failed");
	kill(child, SIGKILL);
	scry_session_destroy(s);
	return 1;
}
