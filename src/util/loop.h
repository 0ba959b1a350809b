/* loop.h — one event loop (epoll) for every command and, later, the daemon: file
 * descriptors that become readable, timers whose callback says when it wants to run
 * next (periodic flushes, polling paced by the fill rate, a deadline), and processes whose
 * end is awaited through a pidfd.  Single-threaded; callbacks may add or cancel entries
 * and quit the loop. */
#ifndef SCRY_UTIL_LOOP_H
#define SCRY_UTIL_LOOP_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#define SCRY_LOOP_NEVER UINT64_MAX

struct scry_loop;

/* A timer's callback: now (CLOCK_MONOTONIC ns); returns the ns until its next call, or
 * SCRY_LOOP_NEVER to end the timer. */
typedef uint64_t (*scry_timer_fn)(void *ctx, uint64_t now);
typedef void (*scry_fd_fn)(void *ctx, int fd);
typedef void (*scry_pid_fn)(void *ctx, pid_t pid);

int scry_loop_new(struct scry_loop **out);
void scry_loop_free(struct scry_loop *l);
/* A timer first called delay_ns from now.  Returns its id (>= 0) or -errno. */
int scry_loop_timer(struct scry_loop *l, uint64_t delay_ns, scry_timer_fn fn, void *ctx);
void scry_loop_timer_cancel(struct scry_loop *l, int id);
/* fn when fd is readable (level-triggered).  0 or -errno. */
int scry_loop_fd(struct scry_loop *l, int fd, scry_fd_fn fn, void *ctx);
/* Stop watching fd (from a callback too); the caller closes it. */
void scry_loop_fd_cancel(struct scry_loop *l, int fd);
/* fn once when process pid ends (its pidfd becomes readable; a child is not reaped).
 * -ESRCH when there is no such process. */
int scry_loop_pid(struct scry_loop *l, pid_t pid, scry_pid_fn fn, void *ctx);
void scry_loop_quit(struct scry_loop *l);
/* The signals whose handlers set the stop flag (default: SIGINT, SIGTERM, SIGHUP). */
void scry_loop_stop_signals(struct scry_loop *l, const sigset_t *set);
/* Run until scry_loop_quit, or until *stop is set by a signal handler (may be NULL).  With
 * stop, the stop signals are blocked in the calling thread while the loop runs (callbacks
 * included, and the threads they start) and unblocked only during the wait, so that a
 * signal after the last check of *stop ends the wait at once; the mask is restored at the
 * end (a signal held meanwhile is handled then). */
int scry_loop_run(struct scry_loop *l, volatile sig_atomic_t *stop);

#endif
