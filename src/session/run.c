/* run.c — a session's event loop (scry_session_run, see session.h), on util/loop.h: the
 * rings polled at the pace of their fill rate, packets flushed every second (the pump: the
 * same timers in the daemon's loop, one per started session), the run ended
 * by a deadline, the end of the command scry started (pidfd), the end of every process
 * given with -p, or a signal. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "session/session.h"
#include "util/clock.h"
#include "util/loop.h"

#define SECOND 1000000000ULL

struct scry_session_pump {
	struct scry_session *s;
	struct scry_loop *loop;
	uint64_t max_poll_delay_ns;
	void (*after_poll)(void *ctx, uint64_t now);
	void *ctx;
	int poll_timer, flush_timer, live_timer, switch_timer;
};

struct run {
	struct scry_session *s;
	const struct scry_run_opts *o;
	struct scry_run_end *end;
	struct scry_loop *loop;
	struct scry_session_pump *pump;
	size_t pids_left;
};

static uint64_t poll_tick(void *ctx, uint64_t now)
{
	struct scry_session_pump *p = ctx;
	long moved = scry_session_poll(p->s);
	uint64_t delay = moved < 0 ? 10 * 1000 * 1000ULL : scry_session_poll_delay_ns(p->s);

	if (p->after_poll)
		p->after_poll(p->ctx, now);
	if (p->max_poll_delay_ns && delay > p->max_poll_delay_ns)
		delay = p->max_poll_delay_ns;
	return delay;
}

/* A live session's timer: packets flushed, first packets, beacons (relay_out.c). */
static uint64_t live_tick(void *ctx, uint64_t now)
{
	struct scry_session_pump *p = ctx;

	scry_session_live_tick(p->s);
	return scry_session_live_period_ns(p->s);
}

/* The channels' switch timers (timers.c). */
static uint64_t switch_tick(void *ctx, uint64_t now)
{
	struct scry_session_pump *p = ctx;
	uint64_t next = scry_session_switch_tick(p->s, now);

	return next == UINT64_MAX ? SCRY_LOOP_NEVER : next;
}

static uint64_t flush_tick(void *ctx, uint64_t now)
{
	struct scry_session_pump *p = ctx;

	scry_session_flush(p->s);
	return SECOND;
}

int scry_session_pump_start(struct scry_session *s, struct scry_loop *l, uint64_t max_poll_delay_ns,
			    void (*after_poll)(void *ctx, uint64_t now), void *ctx, struct scry_session_pump **out)
{
	struct scry_session_pump *p = calloc(1, sizeof(*p));
	int ret;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	*p = (struct scry_session_pump){ .s = s, .loop = l, .max_poll_delay_ns = max_poll_delay_ns,
					 .after_poll = after_poll, .ctx = ctx, .poll_timer = -1, .flush_timer = -1,
					 .live_timer = -1, .switch_timer = -1 };
	if ((ret = p->poll_timer = scry_loop_timer(l, 0, poll_tick, p)) < 0 ||
	    (ret = p->flush_timer = scry_loop_timer(l, SECOND, flush_tick, p)) < 0 ||
	    (scry_session_live_period_ns(s) && (ret = p->live_timer = scry_loop_timer(l, 0, live_tick, p)) < 0) ||
	    (scry_session_has_switch_timer(s) &&
	     (ret = p->switch_timer = scry_loop_timer(l, 0, switch_tick, p)) < 0)) {
		scry_session_pump_stop(p);
		return ret;
	}
	*out = p;
	return 0;
}

void scry_session_pump_stop(struct scry_session_pump *p)
{
	if (!p)
		return;
	scry_loop_timer_cancel(p->loop, p->poll_timer);
	scry_loop_timer_cancel(p->loop, p->flush_timer);
	if (p->live_timer >= 0)
		scry_loop_timer_cancel(p->loop, p->live_timer);
	if (p->switch_timer >= 0)
		scry_loop_timer_cancel(p->loop, p->switch_timer);
	free(p);
}

static uint64_t second_tick(void *ctx, uint64_t now)
{
	struct run *r = ctx;

	r->o->every_second(r->o->ctx, now);
	return SECOND;
}

static uint64_t deadline(void *ctx, uint64_t now)
{
	struct run *r = ctx;

	r->end->deadline = true;
	scry_loop_quit(r->loop);
	return SCRY_LOOP_NEVER;
}

static void child_ended(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	if (waitpid(pid, &r->end->wstatus, 0) == pid)
		r->end->child_done = true;
	scry_loop_quit(r->loop);
}

static void target_ended(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	if (r->pids_left && !--r->pids_left) {
		r->end->targets_ended = true;
		scry_loop_quit(r->loop);
	}
}

/* A --duration counts from the switch's instant, not from here: the statedump (which runs once
 * recording is on) and the pump's start would otherwise lengthen it (1.044 s for 1 s seen). */
static uint64_t duration_left(const struct scry_session *s, uint64_t duration_ns)
{
	uint64_t done = scry_session_elapsed_ns(s);

	return done < duration_ns ? duration_ns - done : 0;
}

int scry_session_run(struct scry_session *s, const struct scry_run_opts *o, struct scry_run_end *end,
		     char *err, size_t errlen)
{
	struct run r = { .s = s, .o = o, .end = end };
	int ret;

	memset(end, 0, sizeof(*end));
	ret = scry_loop_new(&r.loop);
	if (ret) {
		snprintf(err, errlen, "event loop: %s", strerror(-ret));
		return ret;
	}
	if ((ret = scry_session_pump_start(s, r.loop, o->max_poll_delay_ns, o->after_poll, o->ctx, &r.pump)) < 0 ||
	    (o->every_second && (ret = scry_loop_timer(r.loop, SECOND, second_tick, &r)) < 0) ||
	    (o->duration_ns && (ret = scry_loop_timer(r.loop, duration_left(s, o->duration_ns), deadline, &r)) < 0))
		goto fail;
	if (o->child > 0 && (ret = scry_loop_pid(r.loop, o->child, child_ended, &r)) < 0)
		goto fail;
	for (size_t i = 0; i < o->npids; i++) {
		ret = scry_loop_pid(r.loop, o->pids[i], target_ended, &r);
		if (ret == 0)
			r.pids_left++;
		else if (ret != -ESRCH)
			goto fail;
	}
	if (o->npids && !r.pids_left) {
		end->targets_ended = true;          /* all gone already */
		scry_session_pump_stop(r.pump);
		scry_loop_free(r.loop);
		return 0;
	}
	ret = scry_loop_run(r.loop, o->stop);
	if (ret)
		goto fail;
	scry_session_pump_stop(r.pump);
	scry_loop_free(r.loop);
	return 0;
fail:
	snprintf(err, errlen, "event loop: %s", strerror(-ret));
	scry_session_pump_stop(r.pump);
	scry_loop_free(r.loop);
	return ret;
}
