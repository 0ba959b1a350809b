/* test_loop.c — the event loop (src/util/loop.c): timers called when due and re-armed by
 * their return value, a cancelled timer never called, a readable fd, the end of a child
 * process through its pidfd (not reaped by the loop), a pidfd for no process, quit, and
 * the stop flag a signal handler sets, and a stop signal raised before the wait (blocked
 * while the loop runs, let in by the wait's mask) ending that wait at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/clock.h"
#include "util/loop.h"

struct rec {
	struct scry_loop *l;
	int calls;
	uint64_t at[8];
	int quit_after;
};

static uint64_t every_2ms(void *ctx, uint64_t now)
{
	struct rec *r = ctx;

	if (r->calls < 8)
		r->at[r->calls] = now;
	if (++r->calls == r->quit_after)
		scry_loop_quit(r->l);
	return 2000000;
}

static uint64_t once(void *ctx, uint64_t now)
{
	struct rec *r = ctx;

	r->calls++;
	return SCRY_LOOP_NEVER;
}

static void test_timers(void **state)
{
	struct scry_loop *l;
	struct rec periodic = { .quit_after = 5 }, one = { 0 }, cancelled = { 0 };
	uint64_t t0 = scry_monotonic_ns();
	int id;

	assert_int_equal(scry_loop_new(&l), 0);
	periodic.l = l;
	assert_true(scry_loop_timer(l, 0, every_2ms, &periodic) >= 0);
	assert_true(scry_loop_timer(l, 1000000, once, &one) >= 0);
	id = scry_loop_timer(l, 1000000, once, &cancelled);
	assert_true(id >= 0);
	scry_loop_timer_cancel(l, id);
	assert_int_equal(scry_loop_run(l, NULL), 0);
	assert_int_equal(periodic.calls, 5);
	assert_int_equal(one.calls, 1);
	assert_int_equal(cancelled.calls, 0);
	for (int i = 1; i < 5; i++)
		assert_true(periodic.at[i] - periodic.at[i - 1] >= 2000000);
	assert_true(scry_monotonic_ns() - t0 >= 8000000);
	scry_loop_free(l);
}

static void on_fd(void *ctx, int fd)
{
	struct rec *r = ctx;
	char c;

	assert_int_equal(read(fd, &c, 1), 1);
	assert_int_equal(c, 'x');
	r->calls++;
	scry_loop_quit(r->l);
}

static void test_fd(void **state)
{
	struct scry_loop *l;
	struct rec r = { 0 };
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_int_equal(scry_loop_new(&l), 0);
	r.l = l;
	assert_int_equal(scry_loop_fd(l, p[0], on_fd, &r), 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(scry_loop_run(l, NULL), 0);
	assert_int_equal(r.calls, 1);
	scry_loop_free(l);
	close(p[0]);
	close(p[1]);
}

static pid_t ended;

static void on_pid(void *ctx, pid_t pid)
{
	struct rec *r = ctx;

	ended = pid;
	r->calls++;
	scry_loop_quit(r->l);
}

static void test_pid(void **state)
{
	struct scry_loop *l;
	struct rec r = { 0 };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		usleep(20000);
		_exit(7);
	}
	assert_int_equal(scry_loop_new(&l), 0);
	r.l = l;
	assert_int_equal(scry_loop_pid(l, pid, on_pid, &r), 0);
	assert_int_equal(scry_loop_run(l, NULL), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(ended, pid);
	assert_int_equal(waitpid(pid, &status, WNOHANG), pid);   /* left to reap */
	assert_int_equal(WEXITSTATUS(status), 7);
	assert_int_equal(scry_loop_pid(l, pid, on_pid, &r), -ESRCH);   /* reaped: no process */
	scry_loop_free(l);
}

static volatile sig_atomic_t stop;

static void on_alarm(int sig)
{
	stop = sig;
}

static void test_stop_flag(void **state)
{
	struct scry_loop *l;
	struct rec r = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm };

	sigaction(SIGALRM, &sa, NULL);
	assert_int_equal(scry_loop_new(&l), 0);
	assert_true(scry_loop_timer(l, 10ULL * 1000000000ULL, once, &r) >= 0);  /* far away */
	ualarm(20000, 0);
	assert_int_equal(scry_loop_run(l, &stop), 0);       /* woken by the signal */
	assert_int_equal(stop, SIGALRM);
	assert_int_equal(r.calls, 0);
	scry_loop_free(l);
}

static volatile sig_atomic_t handled;

static void on_stop(int sig)
{
	stop = sig;
	handled++;
}

struct held {
	int blocked;               /* SIGHUP was blocked in the callback */
	int stop_after_raise;      /* the stop flag right after raise(): 0, the signal held */
};

/* A stop signal raised from inside the loop, after its callbacks and before its wait, as
 * a Ctrl-C between the check of the flag and the wait would come. */
static uint64_t raise_stop(void *ctx, uint64_t now)
{
	struct held *h = ctx;
	sigset_t cur;

	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	h->blocked = sigismember(&cur, SIGHUP);
	raise(SIGHUP);
	h->stop_after_raise = stop;
	return 10ULL * 1000000000ULL;   /* the wait that follows: 10 s unless the signal ends it */
}

static void test_stop_signal_before_wait(void **state)
{
	struct scry_loop *l;
	struct held h = { -1, -1 };
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t cur;
	uint64_t t0;

	stop = 0;
	handled = 0;
	sigaction(SIGHUP, &sa, NULL);
	assert_int_equal(scry_loop_new(&l), 0);
	assert_true(scry_loop_timer(l, 0, raise_stop, &h) >= 0);
	t0 = scry_monotonic_ns();
	assert_int_equal(scry_loop_run(l, &stop), 0);
	/* blocked while the loop ran: the signal stayed pending past the check of the flag ... */
	assert_int_equal(h.blocked, 1);
	assert_int_equal(h.stop_after_raise, 0);
	/* ... and the wait's mask let it in at once, not after the wait's 10 s */
	assert_true(scry_monotonic_ns() - t0 < 1000000000ULL);
	assert_int_equal(stop, SIGHUP);
	assert_int_equal(handled, 1);
	pthread_sigmask(SIG_SETMASK, NULL, &cur);
	assert_int_equal(sigismember(&cur, SIGHUP), 0);   /* the mask restored */
	signal(SIGHUP, SIG_DFL);
	scry_loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers),
		cmocka_unit_test(test_fd),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_stop_flag),
		cmocka_unit_test(test_stop_signal_before_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
