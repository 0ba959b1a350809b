/* session.c — a recording session (see session.h): its lifecycle (create, load, track,
 * start, pause, resume, stop, destroy) over its channels (channel.c), and what it polls,
 * flushes and counts.  What it writes on disk (the trace directory, its metadata, chunks
 * and snapshots) is output.c's; its events are events.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "consumer/consumer.h"
#include "ctf/trace_dir.h"
#include "session/filters.h"
#include "session/guard.h"
#include "session/user_filter.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "session/session.h"
#include "session/session_int.h"
#include "util/cgroup.h"
#include "util/clock.h"
#include "util/heap.h"
#include "util/log.h"

/* A trace directory is written: an output given, or a channel writes events and none has a
 * record sink or counts (metrics channels write nothing and leave the choice to the others). */
bool session_has_trace(const struct scry_session *s)
{
	return s->has_trace;
}

static bool wants_trace(const struct scry_session_opts *o)
{
	if (o->snapshot)
		return false;        /* written by scry_session_snapshot only */
	if (o->relay && !o->output)
		return false;        /* streamed only */
	if (o->output)
		return true;
	bool events = false;

	for (size_t i = 0; i < o->nchannels; i++) {
		if (o->channels[i].sink || o->channels[i].kind == SCRY_CHANNEL_COUNT)
			return false;
		events |= o->channels[i].kind == SCRY_CHANNEL_EVENTS;
	}
	return events;
}

struct scry_channel *session_channel(const struct scry_session *s, const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (!name || !strcmp(s->chans[i]->name, name))
			return s->chans[i];
	snprintf(err, errlen, "no channel named '%s'", name ? name : "");
	return NULL;
}

/* --track-cgroup: each path must be a cgroup v2 directory. */
static int open_cgroups(struct scry_session *s, char *err, size_t errlen)
{
	if (!s->opts.ntrack_cgroups)
		return 0;
	s->cgroup_fds = malloc(s->opts.ntrack_cgroups * sizeof(int));
	if (!s->cgroup_fds) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->opts.ntrack_cgroups; i++)
		s->cgroup_fds[i] = -1;
	for (size_t i = 0; i < s->opts.ntrack_cgroups; i++) {
		int fd = scry_cgroup_open(s->opts.track_cgroups[i], err, errlen);

		if (fd < 0)
			return fd;
		s->cgroup_fds[i] = fd;
	}
	return 0;
}

int scry_session_create(struct scry_session **out, const struct scry_session_opts *o,
			char *err, size_t errlen)
{
	static const struct scry_channel_opts one_default = { 0 };
	struct scry_session *s = calloc(1, sizeof(*s));
	int ret = -ENOMEM;

	err[0] = 0;
	if (!s)
		goto oom;
	scry_heap_reserve();        /* huge pages for the parses (again, after a daemon's release) */
	scry_features_prefetch();   /* the kernel's BTF parsed while the events are resolved */
	s->guard.fd = -1;
	s->opts = *o;
	if (!s->opts.nchannels) {
		s->opts.channels = &one_default;
		s->opts.nchannels = 1;
	}
	if (!s->opts.packet_size)
		s->opts.packet_size = SCRY_DEFAULT_PACKET_SIZE;
	s->max_psets = s->opts.max_pid_sets < SCRY_PID_SETS_MAX ? s->opts.max_pid_sets : SCRY_PID_SETS_MAX;
	if ((ret = scry_clock_check(s->opts.clock, err, errlen)))
		goto fail;
	s->has_trace = wants_trace(&s->opts);
	if (s->opts.snapshot && !s->opts.output && !s->opts.relay) {
		snprintf(err, errlen, "a snapshot session needs an output directory or a relay");
		ret = -EINVAL;
		goto fail;
	}
	ret = s->has_trace || (s->opts.snapshot && s->opts.output) ? session_check_output(s, err, errlen) : 0;
	if (ret)
		goto fail;
	if ((ret = session_check_relay(s, err, errlen)))
		goto fail;
	s->cat = o->catalog ? o->catalog : scry_catalog_open(NULL, err, errlen);
	if (!s->cat) {
		ret = -ENOENT;
		goto fail;
	}
	scry_catalog_set_capture(s->cat, &o->capture);
	ret = open_cgroups(s, err, errlen);
	if (ret)
		goto fail;
	s->chans = calloc(s->opts.nchannels, sizeof(*s->chans));
	if (!s->chans)
		goto oom;
	for (size_t i = 0; i < s->opts.nchannels; i++) {
		struct scry_channel *c;

		ret = channel_new(&c, s, &s->opts.channels[i], (unsigned)i, err, errlen);
		if (c)
			s->chans[s->nchans++] = c;
		if (ret)
			goto fail;
		if (i && s->chans[i - 1]->opts.kind == SCRY_CHANNEL_METRICS && c->opts.kind != SCRY_CHANNEL_METRICS) {
			/* stream class ids are channel indexes: the metrics channels (no stream) come last */
			snprintf(err, errlen, "a metrics channel must come after the channels of events");
			ret = -EINVAL;
			goto fail;
		}
		for (size_t j = 0; j + 1 < s->nchans; j++)
			if (!strcmp(s->chans[j]->name, c->name)) {
				snprintf(err, errlen, "two channels named '%s'", c->name);
				ret = -EINVAL;
				goto fail;
			}
	}
	s->opts.channels = NULL;   /* the caller's: the channels hold copies */
	*out = s;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	scry_session_destroy(s);
	return ret;
}

int scry_session_prepare(struct scry_session *s, char *err, size_t errlen)
{
	uint64_t t0 = scry_monotonic_ns();
	int ret = 0;

	if (s->prepared)
		return 0;
	scry_features_hold(true);
	for (size_t i = 0; i < s->nchans; i++)
		if ((ret = channel_load(s->chans[i], err, errlen)))
			break;
	scry_features_hold(false);
	scry_features_release();    /* every channel's object is loaded (and no other thread's) */
	s->load_times.prepare_ns = scry_monotonic_ns() - t0;
	s->prepared = !ret;
	return ret;
}

bool scry_session_prepared(const struct scry_session *s)
{
	return s->prepared;
}

int scry_session_load(struct scry_session *s, char *err, size_t errlen)
{
	uint64_t t0 = scry_monotonic_ns(), t1;
	bool ahead = s->prepared;
	int ret = 0;

	session_random_uuid(s->uuid);
	/* the trace directory first (destroy removes it if the session never starts), then its
	 * guardian (which unmaps the BPF maps of a session prepared ahead: it holds none) */
	if (session_has_trace(s) && ((ret = session_make_trace_dir(s, err, errlen)) ||
			     (ret = scry_guard_start(&s->guard, ctf_trace_dir_root(s->tdir), err, errlen))))
		return ret;
	if (s->opts.snapshot && s->opts.output && (ret = session_make_snapshot_base(s, err, errlen)))
		return ret;
	t1 = scry_monotonic_ns();
	s->load_times.dir_ns = t1 - t0;
	ret = scry_session_prepare(s, err, errlen);
	t0 = scry_monotonic_ns();
	s->load_times.bpf_ns = ahead ? 0 : t0 - t1;
	if (ret)
		return ret;
	s->loaded = true;
	if (s->opts.relay && !s->opts.snapshot && (ret = session_connect_relay(s, err, errlen)))   /* a snapshot's: at each */
		return ret;
	if (!session_has_trace(s) && !s->relay)
		return 0;
	ret = session_write_metadata(s, err, errlen);   /* on failure, destroy removes the directory */
	s->load_times.metadata_ns = scry_monotonic_ns() - t0;
	return ret;
}

void scry_session_load_times(const struct scry_session *s, struct scry_session_load_times *out)
{
	*out = s->load_times;
}

int scry_session_track(struct scry_session *s, pid_t tgid, char *err, size_t errlen)
{
	for (size_t i = 0; i < s->nchans; i++) {
		int ret = scry_probes_track(s->chans[i]->probes, tgid);

		if (ret) {
			snprintf(err, errlen, "cannot follow pid %d: %s", (int)tgid, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Every event of every channel starts (or stops) at one instant: the switches are flipped
 * one after the other, with nothing in between. */
static void set_recording(struct scry_session *s, bool on)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->probes)
			scry_probes_set_recording(s->chans[i]->probes, on && !s->chans[i]->off);
}

int scry_session_enable_channel(struct scry_session *s, const char *channel, bool on, char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);

	if (!c)
		return -ENOENT;
	c->off = !on;
	if (c->probes && s->started && !s->paused)
		scry_probes_set_recording(c->probes, on);
	return 0;
}

uint64_t scry_session_elapsed_ns(const struct scry_session *s)
{
	uint64_t now = session_now(s);

	return s->start_ts && now > s->start_ts ? now - s->start_ts : 0;
}

int scry_session_start(struct scry_session *s, char *err, size_t errlen)
{
	int ret;

	s->start_ts = session_now(s);
	for (size_t i = 0; i < s->nchans; i++)
		if ((ret = channel_start(s->chans[i], err, errlen)))
			return ret;
	if ((ret = session_pid_sets_sync(s, err, errlen)))   /* their tracepoints' slots known now */
		return ret;
	if (s->relay && (ret = scry_relay_streams_sent(s->relay, err, errlen)))   /* live viewers see them */
		return ret;
	for (size_t i = 0; i < s->nchans; i++)   /* the statedump's file reads, before the switch */
		if ((ret = channel_statedump_prepare(s->chans[i], err, errlen)))
			return ret;
	s->start_ts = session_now(s);
	session_chunk_stamp(s->chunk_begin, sizeof(s->chunk_begin));
	set_recording(s, true);   /* every event from this instant on */
	s->started = true;
	/* the statedump, once recording: what changes while it runs is recorded as it happens */
	for (size_t i = 0; i < s->nchans; i++)
		if ((ret = channel_statedump(s->chans[i], err, errlen)))
			return ret;
	return 0;
}

int scry_session_statedump(struct scry_session *s, char *err, size_t errlen)
{
	bool any = false;
	int ret;

	if (!s->started || s->stop_ts) {
		snprintf(err, errlen, "the session is %s", s->started ? "stopped" : "not started");
		return -EINVAL;
	}
	for (size_t i = 0; i < s->nchans; i++)
		any |= s->chans[i]->statedump;
	if (!any) {
		snprintf(err, errlen, "no channel of the session records the statedump (enable-event -k "
			 "'lttng_statedump_*' before start)");
		return -EINVAL;
	}
	for (size_t i = 0; i < s->nchans; i++)
		if ((ret = channel_statedump(s->chans[i], err, errlen)))
			return ret;
	return 0;
}

int scry_session_sc_count(struct scry_session *s, unsigned nr, struct scry_sc_count *out)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->opts.kind == SCRY_CHANNEL_COUNT)
			return s->chans[i]->probes ? scry_probes_sc_count(s->chans[i]->probes, nr, out) : -EINVAL;
	return -ENOENT;
}

int scry_session_exit_code(struct scry_session *s, pid_t tgid, int *status)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->probes && !scry_probes_exit_code(s->chans[i]->probes, tgid, status))
			return 0;
	return -ENOENT;
}

int scry_session_ustack_fd(const struct scry_session *s)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->opts.ustack_window && s->chans[i]->probes)
			return scry_probes_ustack_fd(s->chans[i]->probes);
	return -1;
}

int scry_session_ustack_stats(struct scry_session *s, struct scry_ustack_stats *out)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->opts.ustack_window && s->chans[i]->probes)
			return scry_probes_ustack_stats(s->chans[i]->probes, out);
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

static struct scry_channel *metrics_channel(const struct scry_session *s)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->opts.kind == SCRY_CHANNEL_METRICS && s->chans[i]->probes)
			return s->chans[i];
	return NULL;
}

int scry_session_metric_fd(const struct scry_session *s, unsigned id)
{
	struct scry_channel *c = metrics_channel(s);

	return c ? scry_probes_metric_fd(c->probes, id) : -1;
}

int scry_session_span_fd(const struct scry_session *s)
{
	struct scry_channel *c = metrics_channel(s);

	return c ? scry_probes_span_fd(c->probes) : -1;
}

int scry_session_metric_stats(struct scry_session *s, struct scry_metric_stats *out)
{
	struct scry_channel *c = metrics_channel(s);

	return c ? scry_probes_metric_stats(c->probes, out) : -ENOENT;
}

size_t scry_session_prog_stats(struct scry_session *s, struct scry_prog_stats *out, size_t max)
{
	struct scry_channel *c = metrics_channel(s);

	return c ? scry_probes_prog_stats(c->probes, out, max) : 0;
}

struct scry_catalog *scry_session_catalog(const struct scry_session *s)
{
	return s->cat;
}

size_t scry_session_events(const struct scry_session *s, unsigned chan, const struct scry_event *const **events)
{
	*events = (const struct scry_event *const *)s->chans[chan]->events;
	return s->chans[chan]->nevents;
}

long scry_session_poll(struct scry_session *s)
{
	long total = 0;

	scry_relay_pump(s->relay);
	if (scry_relay_backlogged(s->relay))
		return 0;            /* the relay is slow: events wait in the rings */
	for (size_t i = 0; i < s->nchans; i++) {
		long n = s->chans[i]->consumer ? scry_consumer_poll(s->chans[i]->consumer) : 0;

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

uint64_t scry_session_poll_delay_ns(const struct scry_session *s)
{
	uint64_t delay = 10 * 1000 * 1000ULL;

	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer) {
			uint64_t d = scry_consumer_poll_delay_ns(s->chans[i]->consumer);
			if (d < delay)
				delay = d;
		}
	return delay;
}

int scry_session_flush(struct scry_session *s)
{
	int ret = 0;

	if (s->npsets)
		session_pid_sets_reap(s);   /* each second: a set whose process ended goes */
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer) {
			int r = scry_consumer_flush(s->chans[i]->consumer);
			if (r && !ret)
				ret = r;
		}
	return ret;
}

/* The channels' consumer totals added up. */
static void add_stats(struct scry_session_summary *out, const struct scry_consumer_stats *cs)
{
	out->events += cs->events;
	out->discarded += cs->discarded;
	out->truncated += cs->truncated;
	out->bytes += cs->bytes;
	out->clamped += cs->clamped;
	out->filtered += cs->filtered;
	out->unfollowed += cs->unfollowed;
	out->lost += cs->lost;
	out->too_big += cs->too_big;
	if (!out->write_error)
		out->write_error = cs->write_error;
}

void scry_session_progress(struct scry_session *s, struct scry_session_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer) {
			struct scry_consumer_stats cs;

			scry_consumer_stats(s->chans[i]->consumer, &cs);
			add_stats(out, &cs);
		}
	out->seconds = s->start_ts ? (session_now(s) - s->start_ts) / 1e9 : 0;
	session_relay_progress(s, out);
}

int scry_session_pause(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_session_summary sum;
	int ret = 0;

	if (!s->started || s->paused) {
		snprintf(err, errlen, "the session is not recording");
		return -EINVAL;
	}
	set_recording(s, false);    /* every event until this instant */
	s->stop_ts = session_now(s);
	s->paused = true;
	scry_session_progress(s, &sum);
	if (s->chunks && session_has_trace(s) && !sum.write_error) {   /* LTTng: the chunk archived */
		if (s->relay)            /* and at the relay */
			return session_relay_rotate(s, NULL, 0, err, errlen);
		if (!(ret = session_rotate(s, false, NULL, 0, err, errlen)))
			s->chunk_closed = true;
		return ret;
	}
	for (size_t i = 0; i < s->nchans; i++) {
		int r = s->chans[i]->consumer ? scry_consumer_drain(s->chans[i]->consumer, s->stop_ts) : 0;

		scry_session_progress(s, &sum);
		if (r && r == sum.write_error)
			r = 0;           /* the trace's disk failed: in the summary (write_error, lost) */
		if (r && !ret) {
			ret = r;
			snprintf(err, errlen, "writing the trace failed: %s", strerror(-r));
		}
	}
	if (s->relay)               /* every packet delivered (or counted lost) */
		scry_relay_flush(s->relay);
	if (!ret && s->relay && s->chunks && !session_has_trace(s))   /* the chunk archived at the relay */
		ret = session_relay_rotate(s, NULL, 0, err, errlen);
	return ret;
}

int scry_session_resume(struct scry_session *s, char *err, size_t errlen)
{
	int ret = 0;

	if (!s->paused) {
		snprintf(err, errlen, "the session is not stopped");
		return -EINVAL;
	}
	if (s->chunk_closed) {      /* a new chunk in DIR/kernel, or at the relay */
		ret = s->relay ? session_relay_open_chunk(s, err, errlen) : session_open_chunk(s, session_now(s), err, errlen);
		if (ret)
			return ret;
		session_chunk_stamp(s->chunk_begin, sizeof(s->chunk_begin));
		s->chunk_closed = false;
	}
	s->paused = false;
	set_recording(s, true);
	return 0;
}

int scry_session_stop(struct scry_session *s, struct scry_session_summary *out, char *err, size_t errlen)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (s->loaded && !s->paused) {
		set_recording(s, false);   /* every event until this instant */
		s->stop_ts = session_now(s);
	}
	for (size_t i = 0; i < s->nchans; i++) {
		struct scry_channel *c = s->chans[i];

		if (!c->probes)
			continue;
		scry_probes_detach(c->probes);
		/* program runs the kernel skipped, and entries still waiting for their exit (a
		 * consumer's are in its streams' packets and its totals) */
		if (!c->consumer)
			out->discarded += scry_probes_recursion_misses(c->probes) +
					  scry_probes_deferred_waiting(c->probes);
	}
	if (!s->stop_ts)
		s->stop_ts = session_now(s);
	for (size_t i = 0; i < s->nchans; i++) {
		struct scry_channel *c = s->chans[i];
		struct scry_consumer_stats cs = { 0 };
		int r;

		if (!c->consumer)
			continue;
		r = scry_consumer_close(c->consumer, s->stop_ts, &cs);
		c->consumer = NULL;
		if (r && !ret) {
			ret = r;
			snprintf(err, errlen, "writing the trace failed: %s", strerror(-r));
		}
		add_stats(out, &cs);
	}
	session_close_relay(s);      /* the streams' ends sent, the last packets flushed */
	session_relay_progress(s, out);
	if (s->chunks && !s->chunk_closed && session_has_trace(s) && !ret && !out->write_error) {   /* the last chunk joins the archives */
		char e2[256];

		if (session_rename_last_chunk(s, e2, sizeof(e2)) && !ret) {
			ret = -EIO;
			snprintf(err, errlen, "%s", e2);
		}
	}
	ctf_trace_dir_close(s->tdir, true);
	s->tdir = NULL;
	scry_guard_release(&s->guard);
	out->seconds = s->start_ts ? (s->stop_ts - s->start_ts) / 1e9 : 0;
	return ret;
}

void scry_session_destroy(struct scry_session *s)
{
	if (!s)
		return;
	scry_features_release();   /* a prefetch still running (never loaded) */
	for (size_t i = 0; i < s->nchans; i++)
		channel_free(s->chans[i]);   /* consumers closed, BPF objects closed */
	free(s->chans);
	session_close_relay(s);      /* after the streams, its sinks */
	session_pid_sets_free(s);
	ctf_trace_dir_close(s->tdir, s->started);   /* never started: nothing is left behind */
	scry_guard_release(&s->guard);
	if (s->cgroup_fds)
		for (size_t i = 0; i < s->opts.ntrack_cgroups; i++)
			if (s->cgroup_fds[i] >= 0)
				close(s->cgroup_fds[i]);
	free(s->cgroup_fds);
	if (s->cat != s->opts.catalog)
		scry_catalog_close(s->cat);
	scry_dirh_unref(s->root);
	for (size_t i = 0; i < s->ncgnames; i++)
		free((char *)s->cgnames[i].container);
	free(s->cgnames);
	free(s->dir);
	free(s);
}

int scry_session_set_sink(struct scry_session *s, unsigned chan,
			  void (*sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size), void *ctx)
{
	if (chan >= s->nchans || s->chans[chan]->probes || s->chans[chan]->opts.kind != SCRY_CHANNEL_EVENTS)
		return -EINVAL;
	s->chans[chan]->opts.sink = sink;
	s->chans[chan]->opts.sink_ctx = ctx;
	return 0;
}

size_t scry_session_nchannels(const struct scry_session *s)
{
	return s->nchans;
}

uint64_t scry_session_ctx_mask(const struct scry_session *s, unsigned chan)
{
	return s->chans[chan]->opts.ctx_mask;
}

int scry_session_export_warm(struct scry_session *s, struct scry_warm *w, char *err, size_t errlen)
{
	if (s->nchans != 1 || !s->chans[0]->probes) {
		snprintf(err, errlen, "only a loaded session of one channel hands its object over");
		return -EINVAL;
	}
	return scry_probes_export(s->chans[0]->probes, w, err, errlen);
}

bool scry_session_warm(const struct scry_session *s)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->probes && scry_probes_warm(s->chans[i]->probes))
			return true;
	return false;
}
