/* sessions.c — the daemon's sessions (see daemon_int.h): the configuration, the engine
 * session built from it, start and stop on the daemon's loop, and `list NAME`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/daemon_int.h"
#include "util/clock.h"
#include "util/heap.h"
#include "util/log.h"
#include "util/loop.h"

struct dsession *dsession_find(struct daemon *d, const char *name)
{
	for (size_t i = 0; i < d->nsess; i++)
		if (!strcmp(d->sess[i]->name, name))
			return d->sess[i];
	return NULL;
}

struct dsession *dsession_new(const char *name, const char *dir)
{
	struct dsession *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->name = strdup(name);
	s->dir = strdup(dir);
	s->rot_timer = s->size_timer = s->prep_timer = -1;
	s->max_pid_sets = SCRY_DEFAULT_PID_SETS;
	if (!s->name || !s->dir) {
		dsession_free(s);
		return NULL;
	}
	return s;
}

int dsession_register(struct daemon *d, struct dsession *s, char *err, size_t errlen)
{
	struct dsession **v = realloc(d->sess, (d->nsess + 1) * sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->sess = v;
	d->sess[d->nsess++] = s;
	return 0;
}

int dsession_quota(struct daemon *d, uid_t uid, size_t n, char *err, size_t errlen)
{
	size_t owned = 0;

	if (uid == 0)
		return 0;
	for (size_t i = 0; i < d->nsess; i++)
		owned += d->sess[i]->owner.uid == uid;
	if (owned + n <= d->max_sessions_per_user)
		return 0;
	snprintf(err, errlen, "uid %u has %zu session(s): at most %u per user (scryd --max-sessions-per-user); "
		 "destroy one first", (unsigned)uid, owned, d->max_sessions_per_user);
	return -EUSERS;
}

int dsession_add(struct daemon *d, const char *name, const char *dir, char *err, size_t errlen)
{
	struct dsession *s = dsession_new(name, dir);
	int ret;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((ret = dsession_register(d, s, err, errlen)))
		dsession_free(s);
	return ret;
}

struct dchannel *dsession_channel(struct dsession *s, const char *name)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (!strcmp(s->chans[i].name, name))
			return &s->chans[i];
	return NULL;
}

int dsession_add_channel(struct dsession *s, const char *name, struct dchannel **out)
{
	struct dchannel *v = realloc(s->chans, (s->nchans + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->chans = v;
	memset(&v[s->nchans], 0, sizeof(v[0]));
	if (!(v[s->nchans].name = strdup(name)))
		return -ENOMEM;
	v[s->nchans].read_timer_us = DCHANNEL_READ_TIMER_US;        /* LTTng's kernel defaults */
	v[s->nchans].monitor_timer_us = DCHANNEL_MONITOR_TIMER_US;
	*out = &v[s->nchans++];
	return 0;
}

void dsession_drop_channel(struct dsession *s, struct dchannel *c)
{
	size_t i = (size_t)(c - s->chans);

	for (size_t k = 0; k < c->nops; k++) {
		free(c->ops[k].spec);
		free(c->ops[k].filter);
		free(c->ops[k].name);
	}
	free(c->ops);
	free(c->name);
	memmove(&s->chans[i], &s->chans[i + 1], (s->nchans - i - 1) * sizeof(*c));
	s->nchans--;
}

int dchannel_add_pid_op(struct dchannel *c, bool enable, const char *spec, pid_t pid)
{
	struct dop *v = realloc(c->ops, (c->nops + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	c->ops = v;
	if (!(v[c->nops].spec = strdup(spec)))
		return -ENOMEM;
	v[c->nops].filter = NULL;
	v[c->nops].name = NULL;
	v[c->nops].one = false;
	v[c->nops].pid = pid;
	v[c->nops++].enable = enable;
	return 0;
}

int dchannel_add_op(struct dchannel *c, bool enable, const char *spec)
{
	return dchannel_add_pid_op(c, enable, spec, 0);
}

int dchannel_add_rule_op(struct dchannel *c, const char *spec, const char *filter)
{
	int ret = dchannel_add_pid_op(c, true, spec, 0);

	if (!ret && filter && !(c->ops[c->nops - 1].filter = strdup(filter))) {
		free(c->ops[--c->nops].spec);
		ret = -ENOMEM;
	}
	return ret;
}

int dchannel_add_disable_rule_op(struct dchannel *c, const char *spec, const char *filter)
{
	int ret = dchannel_add_pid_op(c, false, spec, 0);

	if (!ret) {
		c->ops[c->nops - 1].one = true;
		if (filter && !(c->ops[c->nops - 1].filter = strdup(filter))) {
			free(c->ops[--c->nops].spec);
			ret = -ENOMEM;
		}
	}
	return ret;
}

static bool same_filter(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int dchannel_rules(const struct dchannel *c, struct drule **rules)
{
	size_t n = 0;

	*rules = calloc(c->nops ? c->nops : 1, sizeof(**rules));
	if (!*rules)
		return -ENOMEM;
	for (size_t i = 0; i < c->nops; i++) {
		const struct dop *op = &c->ops[i];
		size_t k;

		if (op->pid)
			continue;
		if (!op->enable) {          /* every rule of the spec */
			for (k = 0; k < n; k++)
				if (!strcmp((*rules)[k].spec, op->spec) && (!op->one || same_filter((*rules)[k].filter, op->filter)))
					(*rules)[k].enabled = false;
			continue;
		}
		for (k = 0; k < n && (strcmp((*rules)[k].spec, op->spec) || !same_filter((*rules)[k].filter, op->filter));
		     k++)
			;
		if (k == n) {
			(*rules)[n].spec = op->spec;
			(*rules)[n].name = op->name;
			(*rules)[n++].filter = op->filter;
		}
		(*rules)[k].enabled = true;
	}
	return (int)n;
}

static bool has_enable(const struct dchannel *c)
{
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].enable)
			return true;
	return false;
}

/* One op replayed on the engine session; a per-process one whose process has ended (or
 * whose set was evicted since) is passed over. */
static int replay_op(struct dsession *s, const struct dchannel *c, const struct dop *op, char *err, size_t errlen)
{
	pid_t evicted;
	int ret;

	if (!op->pid && op->one)
		return scry_session_disable_rule(s->eng, c->name, op->spec, op->filter, err, errlen);
	if (!op->pid)
		return op->enable ? scry_session_enable_rule(s->eng, c->name, op->spec, op->filter, err, errlen)
				  : scry_session_disable_event(s->eng, c->name, op->spec, err, errlen);
	ret = op->enable ? scry_session_enable_event_pid(s->eng, c->name, op->spec, op->pid, &evicted, err, errlen)
			 : scry_session_disable_event_pid(s->eng, c->name, op->spec, op->pid, err, errlen);
	return ret == -ESRCH || (ret == -ENOENT && !op->enable) ? 0 : ret;
}

/* A configured session's BPF objects are loaded (verified) ahead of `start`, as LTTng's
 * enable-event registers its probes before start: once its configuration has not changed
 * for PREPARE_DELAY (a script's verbs in a row do not each pay a load), so that start only
 * makes the trace directory, attaches and flips the switch.  A start before that loads
 * them itself. */
#define PREPARE_DELAY_NS (200 * 1000 * 1000ULL)

static int rebuild(struct daemon *d, struct dsession *s, bool prepare, char *err, size_t errlen);

static void cancel_prepare(struct daemon *d, struct dsession *s)
{
	if (s->prep_timer >= 0)
		scry_loop_timer_cancel(d->loop, s->prep_timer);
	s->prep_timer = -1;
}

static uint64_t prepare_tick(void *ctx, uint64_t now)
{
	struct dsession *s = ctx;
	uint64_t t0 = scry_monotonic_ns();
	char err[512], e2[256];

	s->prep_timer = -1;
	if (!s->eng || s->state != D_CREATED || scry_session_prepared(s->eng))
		return SCRY_LOOP_NEVER;
	if (scry_session_prepare(s->eng, err, sizeof(err))) {
		/* start says it again; the engine is built afresh (not half loaded) */
		scry_log(SCRY_LOG_INFO, "scryd: session %s: loading its BPF objects ahead of start failed: %s",
			 s->name, err);
		rebuild(s->d, s, false, e2, sizeof(e2));
		return SCRY_LOOP_NEVER;
	}
	scry_log(SCRY_LOG_INFO, "scryd: session %s: BPF objects loaded ahead of start (%.1f ms)", s->name,
		 (scry_monotonic_ns() - t0) / 1e6);
	return SCRY_LOOP_NEVER;
}

/* The engine session of the configuration: its channels with at least one event (a
 * channel's first enable-event is its opts.events, the rest replayed through the verbs,
 * in order; with --spans, every enable-event before the first disable-event is in
 * opts.events, so that the process spans find their events in the channel before load). */
int dsession_rebuild(struct daemon *d, struct dsession *s, char *err, size_t errlen)
{
	return rebuild(d, s, true, err, errlen);
}

/* A tracker's values for the engine: NULL when not in use, a (possibly empty) array else. */
static const uint32_t no_values[1];
#define TRACKER(s, k, v) (!((s)->tracker_set & 1u << (k)) ? NULL : (v) ? (v) : no_values)

static int rebuild(struct daemon *d, struct dsession *s, bool prepare, char *err, size_t errlen)
{
	struct scry_channel_opts *co = NULL;
	struct scry_session_opts so = {
		.output = s->relay_only ? NULL : s->dir, .owner = dsession_owner(s), .set_group = s->set_group,
		.group = s->group, .catalog = d->cat, .target_all = !(s->tracker_set & 1u << DTRACK_PID),
		.relay = s->has_relay ? &s->relay : NULL, .relay_session = s->name, .hostname = s->hostname,
		.live_timer_us = s->live_timer_us,
		.snapshot = s->snapshot, .clock = s->clock, .max_pid_sets = s->max_pid_sets,
		/* a tracker in use, even empty (none: nothing passes), has its array */
		.track_vpids = TRACKER(s, DTRACK_VPID, s->vpids), .ntrack_vpids = s->nvpids,
		.track_uids = TRACKER(s, DTRACK_UID, s->uids), .ntrack_uids = s->nuids,
		.track_gids = TRACKER(s, DTRACK_GID, s->gids), .ntrack_gids = s->ngids,
		.track_vuids = TRACKER(s, DTRACK_VUID, s->vuids), .ntrack_vuids = s->nvuids,
		.track_vgids = TRACKER(s, DTRACK_VGID, s->vgids), .ntrack_vgids = s->nvgids,
	};
	size_t *first = NULL, *nfirst = NULL, n = 0;
	const char ***specs = NULL, ***filters = NULL;
	int ret = -ENOMEM;

	cancel_prepare(d, s);
	scry_session_destroy(s->eng);
	s->eng = NULL;
	s->d = d;
	co = calloc(s->nchans ? s->nchans : 1, sizeof(*co));
	first = calloc(s->nchans ? s->nchans : 1, sizeof(*first));
	nfirst = calloc(s->nchans ? s->nchans : 1, sizeof(*nfirst));
	specs = calloc(s->nchans ? s->nchans : 1, sizeof(*specs));
	filters = calloc(s->nchans ? s->nchans : 1, sizeof(*filters));
	if (!co || !first || !nfirst || !specs || !filters) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->nchans; i++) {
		struct dchannel *c = &s->chans[i];

		if (!has_enable(c))
			continue;
		while (first[i] < c->nops && (!c->ops[first[i]].enable || c->ops[first[i]].pid))
			first[i]++;      /* disables before any enable: nothing to disable */
		bool none = first[i] == c->nops;   /* per-process events only: replayed below */

		nfirst[i] = none ? 0 : 1;
		while (s->spans_file && !none && first[i] + nfirst[i] < c->nops && c->ops[first[i] + nfirst[i]].enable &&
		       !c->ops[first[i] + nfirst[i]].pid)
			nfirst[i]++;
		if (!(specs[i] = calloc(nfirst[i] ? nfirst[i] : 1, sizeof(char *))) ||
		    !(filters[i] = calloc(nfirst[i] ? nfirst[i] : 1, sizeof(char *)))) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < nfirst[i]; k++) {
			specs[i][k] = c->ops[first[i] + k].spec;
			filters[i][k] = c->ops[first[i] + k].filter;
		}
		co[n++] = (struct scry_channel_opts){
			.name = c->name, .events = none ? NULL : specs[i], .nevents = nfirst[i], .no_events = none,
			.event_filters = none ? NULL : filters[i],
			.ctx_mask = c->ctx_mask, .ring_size = s->snapshot || c->overwrite ? 0 : c->ring_size,
			/* an overwrite channel: num_subbuf sub-buffers of subbuf_size per CPU wait
			 * for the writer (the BPF ring is the default one) */
			.overwrite_packets = c->overwrite ? (unsigned)c->num_subbuf : 0,
			/* a flight recorder keeps num_subbuf packets of subbuf_size per CPU */
			.packet_size = s->snapshot ? (size_t)c->subbuf_size : 0,
			.keep_packets = s->snapshot ? (unsigned)c->num_subbuf : 0,
			.tracefile_size = c->tracefile_size, .tracefile_count = c->tracefile_count,
			.switch_timer_us = c->switch_timer_us,
		};
		if ((c->tracefile_size || c->overwrite) && c->subbuf_size)     /* LTTng: a packet is a sub-buffer */
			co[n - 1].packet_size = (size_t)c->subbuf_size;
	}
	ret = 0;
	if (!n)
		goto out;            /* no event yet: nothing to build */
	so.channels = co;
	so.nchannels = n;
	if ((ret = dfeed_channels(s, &so, err, errlen) ? -EINVAL : 0))
		goto out;
	for (int again = 1; again == 1;) {   /* again when the process spans need a channel of their own */
		scry_session_destroy(s->eng);
		s->eng = NULL;
		if ((ret = scry_session_create(&s->eng, &so, err, errlen)))
			goto out;
		if ((again = dfeed_bind(s, &so, err, errlen)) < 0) {
			ret = -EINVAL;
			break;
		}
	}
	for (size_t i = 0; i < s->nchans && !ret; i++) {
		struct dchannel *c = &s->chans[i];

		if (!has_enable(c))
			continue;
		/* the ops after those in opts.events, and the per-process ones before them */
		for (size_t k = 0; k < c->nops && !ret; k++)
			if (c->ops[k].pid || k >= first[i] + nfirst[i])
				ret = replay_op(s, c, &c->ops[k], err, errlen);
		if (!ret && c->disabled)
			ret = scry_session_enable_channel(s->eng, c->name, false, err, errlen);
	}
	if (ret) {
		scry_session_destroy(s->eng);
		s->eng = NULL;
	} else if (prepare && s->state == D_CREATED) {
		int t = scry_loop_timer(d->loop, PREPARE_DELAY_NS, prepare_tick, s);

		s->prep_timer = t >= 0 ? t : -1;
	}
out:
	for (size_t i = 0; specs && i < s->nchans; i++)
		free(specs[i]);
	for (size_t i = 0; filters && i < s->nchans; i++)
		free(filters[i]);
	free(specs);
	free(filters);
	free(nfirst);
	free(co);
	free(first);
	return ret;
}

int dsession_rotate(struct dsession *s, char *archive, size_t len, char *err, size_t errlen)
{
	struct scry_session_summary sum;
	int ret;

	if (s->state == D_CREATED || !s->eng) {
		snprintf(err, errlen, "session '%s' is not started: nothing to rotate", s->name);
		return -EINVAL;
	}
	if (s->snapshot) {
		snprintf(err, errlen, "session '%s' is a snapshot session: it writes no trace to rotate", s->name);
		return -EINVAL;
	}
	ret = scry_session_rotate(s->eng, archive, len, err, errlen);
	scry_session_progress(s->eng, &sum);
	s->rot_bytes = sum.bytes;
	if (ret)
		scry_log(SCRY_LOG_INFO, "scryd: session %s: rotation failed: %s", s->name, err);
	else
		scry_log(SCRY_LOG_INFO, "scryd: session %s: trace chunk archived in %s", s->name, archive);
	return ret;
}

static uint64_t rotation_tick(void *ctx, uint64_t now)
{
	struct dsession *s = ctx;
	char archive[4096], err[512];

	dsession_rotate(s, archive, sizeof(archive), err, sizeof(err));
	return s->rot_timer_ns;
}

/* The pump polls at least this often (0: at its own pace): the spans' 50 ms, and LTTng's
 * read timer (the consumer's wake-up period) of each channel. */
static uint64_t poll_delay(const struct dsession *s)
{
	uint64_t d = dfeed_poll_delay(s);

	for (size_t i = 0; i < s->nchans; i++) {
		uint64_t rd = s->chans[i].read_timer_us * 1000;

		if (rd && (!d || rd < d))
			d = rd;
	}
	return d;
}

/* LTTng's monitor timer: each channel's buffer usage sampled every period (at the 250 ms
 * tick's resolution), shown by status. */
static void monitor(struct dsession *s, uint64_t now)
{
	for (size_t i = 0; i < s->nchans; i++) {
		struct dchannel *c = &s->chans[i];

		if (!c->monitor_timer_us || now < c->monitor_next_ns)
			continue;
		c->monitor_next_ns = now + c->monitor_timer_us * 1000;
		c->usage_sampled = !scry_session_channel_usage(s->eng, c->name, &c->usage_used, &c->usage_size);
	}
}

const char *dsession_write_error_name(int error)
{
	return error == -ENOSPC || error == -EDQUOT ? "disk full" : strerror(-error);
}

/* Four times a second: a failed write said once in the log (status says it too), and
 * --size checked against the bytes written since the last rotation. */
static uint64_t session_tick(void *ctx, uint64_t now)
{
	struct dsession *s = ctx;
	struct scry_session_summary sum;
	char archive[4096], err[512];

	scry_session_progress(s->eng, &sum);
	if (sum.write_error && !s->write_error) {
		s->write_error = sum.write_error;
		scry_log(SCRY_LOG_INFO, "scryd: session %s: %s after %llu events: the trace ends at its last complete "
			 "packet, what follows is counted lost", s->name, dsession_write_error_name(sum.write_error),
			 (unsigned long long)sum.events);
	}
	if (s->rot_size && !sum.write_error && sum.bytes - s->rot_bytes >= s->rot_size)
		dsession_rotate(s, archive, sizeof(archive), err, sizeof(err));
	monitor(s, now);
	return 250 * 1000 * 1000ULL;
}

void dsession_rotation_timers(struct daemon *d, struct dsession *s)
{
	s->d = d;
	if (s->rot_timer >= 0)
		scry_loop_timer_cancel(d->loop, s->rot_timer);
	if (s->size_timer >= 0)
		scry_loop_timer_cancel(d->loop, s->size_timer);
	s->rot_timer = s->size_timer = -1;
	if (s->state != D_STARTED)
		return;
	if (s->rot_timer_ns)
		s->rot_timer = scry_loop_timer(d->loop, s->rot_timer_ns, rotation_tick, s);
	s->size_timer = scry_loop_timer(d->loop, 250 * 1000 * 1000ULL, session_tick, s);
}

/* start after stop: the paused engine session records again into the same trace. */
static int restart(struct daemon *d, struct dsession *s, char *err, size_t errlen)
{
	uint64_t t0 = scry_monotonic_ns();
	int ret;

	if ((ret = scry_session_resume(s->eng, err, errlen)))
		return ret;
	if ((ret = scry_session_pump_start(s->eng, d->loop, poll_delay(s), dfeed_after_poll(s), s->cap,
					   &s->pump))) {
		char e2[256];

		snprintf(err, errlen, "event loop: %s", strerror(-ret));
		scry_session_pause(s->eng, e2, sizeof(e2));
		return ret;
	}
	s->state = D_STARTED;
	s->stop_error[0] = 0;
	dsession_rotation_timers(d, s);
	scry_log(SCRY_LOG_INFO, "scryd: session %s started again, trace %s (%.1f ms)", s->name,
		 scry_session_dir(s->eng), (scry_monotonic_ns() - t0) / 1e6);
	return 0;
}

int dsession_start(struct daemon *d, struct dsession *s, char *err, size_t errlen)
{
	uint64_t t0 = scry_monotonic_ns(), t1, t2, t3;
	int ret;

	if (s->state == D_STARTED) {
		snprintf(err, errlen, "session '%s' is already started", s->name);
		return -EALREADY;
	}
	if (s->state == D_STOPPED)
		return restart(d, s, err, errlen);
	if (!s->eng) {
		snprintf(err, errlen, "session '%s' has no event enabled (scry enable-event first)", s->name);
		return -ENOENT;
	}
	cancel_prepare(d, s);
	bool ahead = scry_session_prepared(s->eng);

	if ((ret = scry_session_load(s->eng, err, errlen)))
		goto fail;
	if (dfeed_open(s, err, errlen)) {
		ret = -EINVAL;
		goto fail;
	}
	t1 = scry_monotonic_ns();
	for (size_t i = 0; i < s->npids; i++)
		if ((ret = scry_session_track(s->eng, s->pids[i], err, errlen)))
			goto fail;
	t2 = scry_monotonic_ns();
	if ((ret = scry_session_start(s->eng, err, errlen)))
		goto fail;
	t3 = scry_monotonic_ns();
	if ((ret = scry_session_pump_start(s->eng, d->loop, poll_delay(s), dfeed_after_poll(s), s->cap,
					   &s->pump))) {
		struct scry_session_summary sum;
		char e2[256];

		snprintf(err, errlen, "event loop: %s", strerror(-ret));
		scry_session_stop(s->eng, &sum, e2, sizeof(e2));
		goto fail;
	}
	s->state = D_STARTED;
	s->rot_bytes = 0;
	dsession_rotation_timers(d, s);
	dfeed_serving(s, true);
	/* where a start's time goes (bench/daemon.sh reads it) */
	struct scry_session_load_times lt;

	scry_session_load_times(s->eng, &lt);
	scry_log(SCRY_LOG_INFO, "scryd: session %s started, trace %s (%.1f ms: load %.1f [trace dir and guardian %.1f, "
		 "BPF objects of %zu channel(s) %.1f%s, metadata %.1f], track %.1f, attach %.1f)", s->name,
		 scry_session_dir(s->eng), (scry_monotonic_ns() - t0) / 1e6, (t1 - t0) / 1e6, lt.dir_ns / 1e6,
		 s->nchans, lt.bpf_ns / 1e6, ahead ? " (loaded ahead)" : "", lt.metadata_ns / 1e6, (t2 - t1) / 1e6,
		 (t3 - t2) / 1e6);
	return 0;
fail:
	/* nothing recorded: the engine session is built again from the configuration */
	dfeed_serving(s, false);
	scry_session_destroy(s->eng);
	s->eng = NULL;
	{
		char e2[256];

		dsession_rebuild(d, s, e2, sizeof(e2));
	}
	return ret;
}

int dsession_stop(struct daemon *d, struct dsession *s, char *err, size_t errlen)
{
	int ret;

	if (s->state != D_STARTED) {
		snprintf(err, errlen, "session '%s' is not started", s->name);
		return -EINVAL;
	}
	scry_session_pump_stop(s->pump);
	s->pump = NULL;
	s->state = D_STOPPED;
	dsession_rotation_timers(d, s);     /* cancelled */
	/* paused, kept: start records again into this trace; destroy completes it */
	ret = scry_session_pause(s->eng, s->stop_error, sizeof(s->stop_error));
	scry_session_progress(s->eng, &s->sum);
	s->nchunks = scry_session_chunks(s->eng);
	if (!ret)
		s->stop_error[0] = 0;
	scry_log(SCRY_LOG_INFO, "scryd: session %s stopped: %llu events, %llu discarded, %llu lost", s->name,
		 (unsigned long long)s->sum.events, (unsigned long long)s->sum.discarded,
		 (unsigned long long)s->sum.lost);
	dfeed_stopped(s);          /* metrics.prom, the spans of what was read */
	if (ret)
		snprintf(err, errlen, "%s", s->stop_error);
	return ret;
}

void dsession_free(struct dsession *s)
{
	if (!s)
		return;
	dfeed_serving(s, false);   /* no scrape reads the engine session from now on */
	scry_session_destroy(s->eng);
	s->eng = NULL;
	dfeed_free(s);             /* after the engine session, whose sink it is */
	for (size_t i = 0; i < s->nchans; i++) {
		for (size_t k = 0; k < s->chans[i].nops; k++) {
			free(s->chans[i].ops[k].spec);
			free(s->chans[i].ops[k].filter);
			free(s->chans[i].ops[k].name);
		}
		free(s->chans[i].ops);
		free(s->chans[i].name);
	}
	free(s->chans);
	free(s->last_snapshot);
	free(s->snap_out.path);
	free(s->pids);
	free(s->vpids);
	free(s->uids);
	free(s->gids);
	free(s->vuids);
	free(s->vgids);
	free(s->name);
	free(s->dir);
	free(s->hostname);
	free(s);
}

/* The heap's free pages given back (util/heap.c) once the loop is back from the verb or
 * the failure that freed sessions: destroy -a releases once, after the last. */
static uint64_t release_heap(void *ctx, uint64_t now)
{
	struct daemon *d = ctx;
	struct scry_heap_usage u;

	d->release_armed = false;
	scry_heap_release(&u);
	scry_log(SCRY_LOG_INFO, "scryd: heap released after destroy: RSS %llu -> %llu KiB, %zu bytes in use, "
		 "%zu session(s) left", (unsigned long long)u.rss_before_kib, (unsigned long long)u.rss_after_kib,
		 u.in_use, d->nsess);
	return SCRY_LOOP_NEVER;
}

static void release_heap_soon(struct daemon *d)
{
	if (d->release_armed || !d->loop)
		return;
	d->release_armed = scry_loop_timer(d->loop, 0, release_heap, d) >= 0;
}

void dsession_destroy(struct daemon *d, struct dsession *s)
{
	char err[256];

	cancel_prepare(d, s);
	if (s->state == D_STARTED)
		dsession_stop(d, s, err, sizeof(err));
	if (s->state == D_STOPPED && s->eng) {   /* the trace completed, BPF objects and rings freed */
		struct scry_session_summary sum;

		dfeed_serving(s, false);
		scry_session_stop(s->eng, &sum, err, sizeof(err));
		dfeed_end(s);       /* the spans still open ended, the exporter flushed */
		scry_session_destroy(s->eng);
		s->eng = NULL;
	}
	for (size_t i = 0; i < d->nsess; i++)
		if (d->sess[i] == s) {
			memmove(&d->sess[i], &d->sess[i + 1], (d->nsess - i - 1) * sizeof(*d->sess));
			d->nsess--;
			break;
		}
	dsession_free(s);
	release_heap_soon(d);
}

bool dsession_name_ok(const char *n)
{
	if (!*n || strlen(n) > 200 || n[0] == '.' || n[0] == '-')
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
		      *n == '_' || *n == '-' || *n == '.'))
			return false;
	return true;
}
