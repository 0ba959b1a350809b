/* loop.c — the event loop (see loop.h): epoll_pwait2 with a nanosecond timeout (epoll_pwait
 * in milliseconds where the kernel lacks it; pids polled where it lacks pidfds) for the
 * timers, kept in a small array (a handful per session).  The stop signals are blocked
 * while the loop runs and unblocked only inside the wait, by the mask the wait installs
 * atomically: one that arrives after the stop flag was checked stays pending and ends the
 * wait at once, never sleeping until the next wake-up. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/loop.h"

enum { W_FD, W_PID, W_PIDPOLL };

struct watch {                 /* an fd or a pidfd, registered with epoll (data.ptr) */
	int kind, fd;
	pid_t pid;
	scry_fd_fn fd_fn;
	scry_pid_fn pid_fn;
	void *ctx;
	bool dead;
};

struct timer {
	uint64_t due;              /* SCRY_LOOP_NEVER: free slot */
	scry_timer_fn fn;
	void *ctx;
};

struct scry_loop {
	int ep;
	bool quit;
	bool no_pwait2;            /* the kernel has no epoll_pwait2: epoll_pwait */
	sigset_t stop_signals;     /* the signals whose handlers set the stop flag */
	struct timer *timers;
	size_t ntimers;
	struct watch **watches;
	size_t nwatches;
};

int scry_loop_new(struct scry_loop **out)
{
	struct scry_loop *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->ep = epoll_create1(EPOLL_CLOEXEC);
	if (l->ep < 0) {
		int e = errno;

		free(l);
		return -e;
	}
	sigemptyset(&l->stop_signals);
	sigaddset(&l->stop_signals, SIGINT);
	sigaddset(&l->stop_signals, SIGTERM);
	sigaddset(&l->stop_signals, SIGHUP);
	*out = l;
	return 0;
}

void scry_loop_free(struct scry_loop *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nwatches; i++) {
		if (l->watches[i]->kind == W_PID)
			close(l->watches[i]->fd);
		free(l->watches[i]);
	}
	free(l->watches);
	free(l->timers);
	close(l->ep);
	free(l);
}

int scry_loop_timer(struct scry_loop *l, uint64_t delay_ns, scry_timer_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < l->ntimers && l->timers[i].due != SCRY_LOOP_NEVER; i++)
		;
	if (i == l->ntimers) {
		struct timer *t = realloc(l->timers, (l->ntimers + 1) * sizeof(*t));

		if (!t)
			return -ENOMEM;
		l->timers = t;
		l->ntimers++;
	}
	l->timers[i] = (struct timer){ .due = scry_monotonic_ns() + delay_ns, .fn = fn, .ctx = ctx };
	return (int)i;
}

void scry_loop_timer_cancel(struct scry_loop *l, int id)
{
	if (id >= 0 && (size_t)id < l->ntimers)
		l->timers[id].due = SCRY_LOOP_NEVER;
}

static int add_watch(struct scry_loop *l, struct watch *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };
	struct watch **ws = realloc(l->watches, (l->nwatches + 1) * sizeof(*ws));

	if (!ws)
		return -ENOMEM;
	l->watches = ws;
	if (epoll_ctl(l->ep, EPOLL_CTL_ADD, w->fd, &ev) < 0)
		return -errno;
	l->watches[l->nwatches++] = w;
	return 0;
}

int scry_loop_fd(struct scry_loop *l, int fd, scry_fd_fn fn, void *ctx)
{
	struct watch *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	*w = (struct watch){ .kind = W_FD, .fd = fd, .fd_fn = fn, .ctx = ctx };
	if ((r = add_watch(l, w)))
		free(w);
	return r;
}

void scry_loop_fd_cancel(struct scry_loop *l, int fd)
{
	for (size_t i = 0; i < l->nwatches; i++) {
		struct watch *w = l->watches[i];

		if (w->kind == W_FD && w->fd == fd && !w->dead) {
			w->dead = true;     /* freed by the loop, out of its dispatch */
			epoll_ctl(l->ep, EPOLL_CTL_DEL, fd, NULL);
			return;
		}
	}
}

/* Free the fd watches cancelled since the last round (none is in a dispatch now). */
static void reap_watches(struct scry_loop *l)
{
	size_t k = 0;

	for (size_t i = 0; i < l->nwatches; i++) {
		struct watch *w = l->watches[i];

		if (w->kind == W_FD && w->dead)
			free(w);
		else
			l->watches[k++] = w;
	}
	l->nwatches = k;
}

/* Without pidfds (Linux < 5.3, or valgrind): the process is looked at every 10 ms, a child
 * with waitid(WNOWAIT) (it stays to be reaped), another process with kill(pid, 0). */
static bool pid_ended(pid_t pid)
{
	siginfo_t si = { 0 };

	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
		return si.si_pid == pid;
	return errno == ECHILD && kill(pid, 0) < 0 && errno == ESRCH;
}

static uint64_t pid_poll(void *ctx, uint64_t now)
{
	struct watch *w = ctx;

	if (!pid_ended(w->pid))
		return 10 * 1000 * 1000ULL;
	w->pid_fn(w->ctx, w->pid);
	return SCRY_LOOP_NEVER;
}

int scry_loop_pid(struct scry_loop *l, pid_t pid, scry_pid_fn fn, void *ctx)
{
	struct watch *w;
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), r;

	/* a thread, not a process (ENOENT; EINVAL before 6.9): PIDFD_THREAD (Linux 6.9) */
	if (fd < 0 && (errno == ENOENT || errno == EINVAL))
		fd = (int)syscall(SYS_pidfd_open, pid, O_EXCL);

	if (fd < 0 && (errno == ENOSYS || errno == EINVAL)) {   /* no pidfds: poll */
		struct watch **ws;

		if (kill(pid, 0) < 0 && errno == ESRCH)
			return -ESRCH;
		if (!(ws = realloc(l->watches, (l->nwatches + 1) * sizeof(*ws))))
			return -ENOMEM;
		l->watches = ws;
		if (!(w = calloc(1, sizeof(*w))))
			return -ENOMEM;
		*w = (struct watch){ .kind = W_PIDPOLL, .fd = -1, .pid = pid, .pid_fn = fn, .ctx = ctx };
		l->watches[l->nwatches++] = w;
		r = scry_loop_timer(l, 0, pid_poll, w);
		return r < 0 ? r : 0;
	}
	if (fd < 0)
		return -errno;
	if (!(w = calloc(1, sizeof(*w)))) {
		close(fd);
		return -ENOMEM;
	}
	*w = (struct watch){ .kind = W_PID, .fd = fd, .pid = pid, .pid_fn = fn, .ctx = ctx };
	if ((r = add_watch(l, w))) {
		close(fd);
		free(w);
	}
	return r;
}

void scry_loop_quit(struct scry_loop *l)
{
	l->quit = true;
}

/* Run the timers that are due; returns the ns until the next one. */
static uint64_t run_timers(struct scry_loop *l)
{
	uint64_t now = scry_monotonic_ns(), next = SCRY_LOOP_NEVER;

	for (size_t i = 0; i < l->ntimers && !l->quit; i++) {
		struct timer *t = &l->timers[i];

		if (t->due == SCRY_LOOP_NEVER)
			continue;
		if (t->due <= now) {
			uint64_t d = t->fn(t->ctx, now);

			t = &l->timers[i];          /* the callback may have added timers */
			if (t->due == SCRY_LOOP_NEVER)
				continue;           /* cancelled by its own callback */
			now = scry_monotonic_ns();
			t->due = d == SCRY_LOOP_NEVER ? SCRY_LOOP_NEVER : now + d;
		}
		if (t->due != SCRY_LOOP_NEVER) {
			uint64_t d = t->due > now ? t->due - now : 0;

			if (d < next)
				next = d;
		}
	}
	return next;
}

void scry_loop_stop_signals(struct scry_loop *l, const sigset_t *set)
{
	l->stop_signals = *set;
}

/* Block the stop signals; *old: the mask before, *wait: the mask for the waits (the one
 * before, the stop signals unblocked). */
static void block_stop_signals(struct scry_loop *l, sigset_t *old, sigset_t *wait)
{
	pthread_sigmask(SIG_BLOCK, &l->stop_signals, old);
	*wait = *old;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&l->stop_signals, sig) == 1)
			sigdelset(wait, sig);
}

/* Wait for the fds up to wait ns (SCRY_LOOP_NEVER: no timeout) with the signal mask
 * mask (NULL: unchanged) during the wait.  The events, or -1 with errno. */
static int wait_events(struct scry_loop *l, struct epoll_event *evs, int max, uint64_t wait,
		       const sigset_t *mask)
{
	struct timespec ts = { (time_t)(wait / 1000000000ULL), (long)(wait % 1000000000ULL) };
	int n = l->no_pwait2 ? -1 : epoll_pwait2(l->ep, evs, max, wait == SCRY_LOOP_NEVER ? NULL : &ts, mask);

	if (n < 0 && (l->no_pwait2 || errno == ENOSYS)) {
		/* Linux < 5.11 (or valgrind): milliseconds, rounded up */
		l->no_pwait2 = true;
		n = epoll_pwait(l->ep, evs, max, wait == SCRY_LOOP_NEVER ? -1 :
				wait > 3600000000000ULL ? 3600000 : (int)((wait + 999999) / 1000000), mask);
	}
	return n;
}

int scry_loop_run(struct scry_loop *l, volatile sig_atomic_t *stop)
{
	struct epoll_event evs[16];
	sigset_t old, wait_mask;
	int ret = 0;

	if (stop)
		block_stop_signals(l, &old, &wait_mask);
	l->quit = false;
	while (!l->quit && !(stop && *stop)) {
		uint64_t wait;

		int n;

		reap_watches(l);
		wait = run_timers(l);
		if (l->quit || (stop && *stop))
			break;
		n = wait_events(l, evs, 16, wait, stop ? &wait_mask : NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (int i = 0; i < n && !l->quit; i++) {
			struct watch *w = evs[i].data.ptr;

			if (w->kind == W_FD) {
				if (!w->dead)
					w->fd_fn(w->ctx, w->fd);
			} else if (!w->dead) {
				w->dead = true;     /* once: the pidfd stays readable */
				epoll_ctl(l->ep, EPOLL_CTL_DEL, w->fd, NULL);
				w->pid_fn(w->ctx, w->pid);
			}
		}
	}
	if (stop)
		pthread_sigmask(SIG_SETMASK, &old, NULL);   /* one pending is handled now */
	return ret;
}
