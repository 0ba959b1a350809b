/* session.c — libscry's in-process sessions (include/scry/scry.h) over the engine's
 * (session/session.h), the same code `scry record` runs: the channels (channel.c), tracked
 * processes and trackers gathered before start, then the engine's session made of them;
 * the events handed to the caller's callback by each channel's record sink (event.c
 * decodes them), the losses as loss records after each poll of the rings. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "api/engine.h"
#include "api/event.h"
#include "api/session_int.h"
#include <scry/scry.h>

#define DEFAULT_CTX ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME))

const char *scry_version(void)
{
	return "0.1.0";
}

bool api_check_session(const struct scry_session *s, bool before_start, const char *what, char *err,
		       size_t errlen, int *ret)
{
	if (!s) {
		SAY("%s: no session (NULL)", what);
		*ret = -EINVAL;
		return false;
	}
	if (before_start && s->engine) {
		SAY("%s: the session is started (only before scry_session_start)", what);
		*ret = -EBUSY;
		return false;
	}
	return true;
}

int api_check_ring_size(const char *what, size_t size, char *err, size_t errlen)
{
	if (size && (size & (size - 1))) {
		SAY("%s: buffer_size %zu is not a power of two", what, size);
		return -EINVAL;
	}
	if (size && (size < SCRY_MIN_RING_SIZE || size > SCRY_RING_MAX)) {
		SAY("%s: buffer_size %zu is out of range (%u to %llu bytes)", what, size, SCRY_MIN_RING_SIZE,
		    (unsigned long long)SCRY_RING_MAX);
		return -EINVAL;
	}
	return 0;
}

struct scry_session *scry_session_new(const struct scry_session_options *opts, char *err, size_t errlen)
{
	struct scry_session *s;

	if (opts && (opts->size < offsetof(struct scry_session_options, buffer_size) + sizeof(opts->buffer_size) ||
		     opts->size > 4096)) {
		SAY("scry_session_new: options of size %zu: initialise them with SCRY_SESSION_OPTIONS_INIT",
		    opts->size);
		return NULL;
	}
	if (opts && opts->output && !*opts->output) {
		SAY("scry_session_new: an empty output directory name (NULL: no trace)");
		return NULL;
	}
	if (opts && api_check_ring_size("scry_session_new", opts->buffer_size, err, errlen))
		return NULL;
	if (!(s = calloc(1, sizeof(*s))))
		goto oom;
	if (opts)   /* the members this caller's options have (an older header's: fewer) */
		memcpy(&s->opts, opts, opts->size < sizeof(s->opts) ? opts->size : sizeof(s->opts));
	s->opts.size = sizeof(s->opts);
	if (s->opts.relay_url) {
		char why[256];

		if (relay_url_parse(&s->relay, s->opts.relay_url, why, sizeof(why))) {
			SAY("scry_session_new: relay_url: %s", why);
			free(s);
			return NULL;
		}
	}
	if (s->opts.relay_name && !*s->opts.relay_name) {
		SAY("scry_session_new: an empty relay_name (NULL: \"scry\")");
		free(s);
		return NULL;
	}
	if ((s->opts.output && !(s->output = strdup(s->opts.output))) ||
	    (s->opts.relay_name && !(s->relay_name = strdup(s->opts.relay_name))))
		goto oom;
	s->opts.output = s->output;
	s->opts.relay_name = s->relay_name;
	s->ctx_mask = DEFAULT_CTX;
	return s;
oom:
	if (s)
		free(s->output);
	free(s);
	SAY("scry_session_new: out of memory");
	return NULL;
}

int scry_session_track_pid(struct scry_session *s, pid_t pid, char *err, size_t errlen)
{
	pid_t *v, tgid;
	int ret;

	if (!api_check_session(s, true, "scry_session_track_pid", err, errlen, &ret))
		return ret;
	if (pid <= 0) {
		SAY("scry_session_track_pid: %d is no process id", (int)pid);
		return -EINVAL;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		SAY("scry_session_track_pid: no process %d", (int)pid);
		return -ESRCH;
	}
	if ((tgid = scry_process_of(pid)) > 0)
		pid = tgid;                  /* a thread stands for its process */
	if (!(v = realloc(s->pids, (s->npids + 1) * sizeof(*v)))) {
		SAY("scry_session_track_pid: out of memory");
		return -ENOMEM;
	}
	(s->pids = v)[s->npids++] = pid;
	return 0;
}

/* Add id to a tracker's values. */
static int track_id(struct scry_session *s, const char *what, uint32_t **v, size_t *n, uint32_t id, char *err,
		    size_t errlen)
{
	uint32_t *w;
	int ret;

	if (!api_check_session(s, true, what, err, errlen, &ret))
		return ret;
	if (id == UINT32_MAX) {
		SAY("%s: %u is no id (-1)", what, (unsigned)id);
		return -EINVAL;
	}
	if (!(w = realloc(*v, (*n + 1) * sizeof(*w)))) {
		SAY("%s: out of memory", what);
		return -ENOMEM;
	}
	(*v = w)[(*n)++] = id;
	return 0;
}

int scry_session_track_uid(struct scry_session *s, uid_t uid, char *err, size_t errlen)
{
	return track_id(s, "scry_session_track_uid", s ? &s->uids : NULL, s ? &s->nuids : NULL, uid, err, errlen);
}

int scry_session_track_gid(struct scry_session *s, gid_t gid, char *err, size_t errlen)
{
	return track_id(s, "scry_session_track_gid", s ? &s->gids : NULL, s ? &s->ngids : NULL, gid, err, errlen);
}

int scry_session_track_vpid(struct scry_session *s, pid_t vpid, char *err, size_t errlen)
{
	if (s && vpid <= 0) {
		SAY("scry_session_track_vpid: %d is no process id", (int)vpid);
		return -EINVAL;
	}
	return track_id(s, "scry_session_track_vpid", s ? &s->vpids : NULL, s ? &s->nvpids : NULL, (uint32_t)vpid, err,
			errlen);
}

int scry_session_track_cgroup(struct scry_session *s, const char *path, char *err, size_t errlen)
{
	struct statfs sf;
	char **v, *p;
	int ret;

	if (!api_check_session(s, true, "scry_session_track_cgroup", err, errlen, &ret))
		return ret;
	if (!path || !*path) {
		SAY("scry_session_track_cgroup: no cgroup directory (e.g. \"/sys/fs/cgroup/system.slice\")");
		return -EINVAL;
	}
	if (s->ncgroups == SCRY_MAX_TRACK_CGROUPS) {
		SAY("scry_session_track_cgroup: more than %d cgroups", SCRY_MAX_TRACK_CGROUPS);
		return -E2BIG;
	}
	if (statfs(path, &sf)) {
		ret = -errno;
		SAY("scry_session_track_cgroup: '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (sf.f_type != CGROUP2_SUPER_MAGIC) {
		SAY("scry_session_track_cgroup: '%s' is not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	if (!(v = realloc(s->cgroups, (s->ncgroups + 1) * sizeof(*v))) || !(s->cgroups = v, p = strdup(path))) {
		SAY("scry_session_track_cgroup: out of memory");
		return -ENOMEM;
	}
	s->cgroups[s->ncgroups++] = p;
	return 0;
}

int scry_session_on_event(struct scry_session *s, scry_event_cb cb, void *ctx)
{
	if (!s)
		return -EINVAL;
	if (s->engine)
		return -EBUSY;
	s->cb = cb;
	s->cb_ctx = ctx;
	return 0;
}

/* A channel's record sink: each record decoded and given to the callback. */
static void sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct api_channel *c = ctx;
	const struct scry_event *e = scry_api_decode(&c->dec, cpu, ev, size);

	if (e && c->s->cb)           /* none during destroy */
		c->s->cb(e, c->s->cb_ctx);
}

/* A loss record for what was lost since the last one (total: the session's losses so far),
 * if anything was. */
static void report_loss(struct scry_session *s, uint64_t total)
{
	if (s->cb && total > s->lost_reported) {
		s->cb(scry_api_loss(&s->loss, total - s->lost_reported, scry_monotonic_ns()), s->cb_ctx);
		s->lost_reported = total;
	}
}

static void after_poll(void *ctx, uint64_t now)
{
	struct scry_session *s = ctx;
	struct scry_session_summary p;

	scry_session_progress(s->engine, &p);
	report_loss(s, p.discarded + p.lost);
}

/* Start failed: nothing of it kept (start may be called again). */
static int start_fail(struct scry_session *s, int ret)
{
	scry_engine_session_destroy(s->engine);
	s->engine = NULL;
	for (size_t i = 0; i < s->nchans; i++)
		scry_api_decoder_free(&s->chans[i]->dec);
	return ret;
}

/* The engine's session made of s's settings (its channels in ch, s->nchans of them). */
static int create(struct scry_session *s, struct scry_channel_opts *ch, char *err, size_t errlen)
{
	struct scry_session_opts so = { 0 };
	char buf[1024];
	size_t n;
	int ret;

	/* no trace directory: the sinks in the channels (beside the relay) */
	if ((ret = api_channels_build(s, ch, &n, s->cb && !s->output ? sink : NULL, err, errlen)))
		return ret;
	if (!s->output && !s->cb && !s->opts.relay_url) {
		SAY("scry_session_start: nowhere for the events to go: give options.output, options.relay_url "
		    "or a callback (scry_session_on_event)");
		return -EINVAL;
	}
	if (s->opts.system_wide && s->npids) {
		SAY("scry_session_start: options.system_wide and scry_session_track_pid are exclusive (the "
		    "whole machine already holds the process)");
		return -EINVAL;
	}
	if (!s->opts.system_wide && !s->npids) {
		SAY("scry_session_start: nothing to trace: track a process (scry_session_track_pid) or set "
		    "options.system_wide");
		return -EINVAL;
	}
	if (scry_check_privileges("libscry", buf, sizeof(buf))) {
		SAY("scry_session_start: %s", buf);
		return -EPERM;
	}
	so.output = s->output;
	if (s->opts.relay_url) {
		so.relay = &s->relay;
		so.relay_session = s->relay_name;
	}
	so.channels = ch;
	so.nchannels = n;
	so.target_all = s->opts.system_wide;
	so.track_uids = s->uids;
	so.ntrack_uids = s->nuids;
	so.track_gids = s->gids;
	so.ntrack_gids = s->ngids;
	so.track_vpids = s->vpids;
	so.ntrack_vpids = s->nvpids;
	so.track_cgroups = (const char *const *)s->cgroups;
	so.ntrack_cgroups = s->ncgroups;
	so.fixed_events = true;
	if ((ret = scry_session_create(&s->engine, &so, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		s->engine = NULL;
	}
	return ret;
}

int scry_session_start(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_channel_opts *ch;
	char buf[1024];
	int ret;

	if (!api_check_session(s, true, "scry_session_start", err, errlen, &ret))
		return ret;
	if (!(ch = calloc(s->nchans ? s->nchans : 1, sizeof(*ch)))) {
		SAY("scry_session_start: out of memory");
		return -ENOMEM;
	}
	ret = create(s, ch, err, errlen);
	free(ch);                    /* the engine's channels hold copies */
	if (ret)
		return ret;
	for (size_t i = 0; i < s->nchans && s->cb && s->output; i++)
		if (s->chans[i]->nrules && (ret = scry_session_set_sink(s->engine, s->chans[i]->index, sink, s->chans[i]))) {
			SAY("scry_session_start: the callback: %s", strerror(-ret));
			return start_fail(s, ret);
		}
	if ((ret = scry_session_load(s->engine, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		return start_fail(s, ret);
	}
	for (size_t i = 0; i < s->nchans && s->cb; i++)
		if (s->chans[i]->nrules &&
		    (ret = scry_api_decoder_init(&s->chans[i]->dec, s->engine, s->chans[i]->index, buf, sizeof(buf)))) {
			SAY("scry_session_start: %s", buf);
			return start_fail(s, ret);
		} else
			s->chans[i]->dec.channel = s->chans[i]->name;
	for (size_t i = 0; i < s->npids; i++)
		if ((ret = scry_session_track(s->engine, s->pids[i], buf, sizeof(buf)))) {
			SAY("scry_session_start: %s", buf);
			return start_fail(s, ret);
		}
	if ((ret = scry_engine_session_start(s->engine, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		return start_fail(s, ret);
	}
	return 0;
}

/* scry_session_run and _run_for: 1 when timeout_ns (0: none) ran out. */
static int run(struct scry_session *s, const volatile sig_atomic_t *stop, uint64_t timeout_ns, const char *what,
	       char *err, size_t errlen)
{
	struct scry_run_opts ro = { 0 };
	struct scry_run_end end = { 0 };
	char buf[1024];
	int ret;

	if (!api_check_session(s, false, what, err, errlen, &ret))
		return ret;
	if (!s->engine || s->stopped) {
		SAY("%s: the session is not recording (scry_session_start first)", what);
		return -EINVAL;
	}
	if (!stop && !timeout_ns && s->opts.system_wide) {
		SAY("%s: a system-wide session runs until its stop flag: give one", what);
		return -EINVAL;
	}
	ro.stop = (volatile sig_atomic_t *)stop;
	ro.duration_ns = timeout_ns;
	if (!s->opts.system_wide) {
		ro.pids = s->pids;
		ro.npids = s->npids;
	}
	ro.after_poll = after_poll;
	ro.ctx = s;
	ro.max_poll_delay_ns = 100 * 1000 * 1000ULL;   /* the stop flag seen within 0.1 s */
	if ((ret = scry_engine_session_run(s->engine, &ro, &end, buf, sizeof(buf)))) {
		SAY("%s: %s", what, buf);
		return ret;
	}
	return end.deadline ? 1 : 0;
}

int scry_session_run(struct scry_session *s, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	return run(s, stop, 0, "scry_session_run", err, errlen);
}

int scry_session_run_for(struct scry_session *s, const volatile sig_atomic_t *stop, uint32_t timeout_ms, char *err,
			 size_t errlen)
{
	if (!timeout_ms) {
		SAY("scry_session_run_for: a timeout of 0 ms (scry_session_run has none)");
		return -EINVAL;
	}
	return run(s, stop, timeout_ms * 1000000ULL, "scry_session_run_for", err, errlen);
}

int scry_session_stop(struct scry_session *s, struct scry_session_stats *stats, char *err, size_t errlen)
{
	struct scry_session_summary sum;
	uint64_t lost_packets;
	char buf[1024];
	int ret, pret;

	if (!api_check_session(s, false, "scry_session_stop", err, errlen, &ret))
		return ret;
	if (!s->engine || s->stopped) {
		SAY("scry_session_stop: the session is not recording");
		return -EINVAL;
	}
	if (stats && (stats->size < sizeof(size_t) || stats->size > 4096)) {
		SAY("scry_session_stop: stats of size %zu: initialise them with SCRY_SESSION_STATS_INIT", stats->size);
		return -EINVAL;
	}
	if ((pret = api_channels_pause(s, &lost_packets, buf, sizeof(buf))))
		SAY("scry_session_stop: %s", buf);
	ret = scry_engine_session_stop(s->engine, &sum, buf, sizeof(buf));
	s->stopped = true;
	if (ret)
		SAY("scry_session_stop: %s", buf);
	else if (pret)
		ret = pret;
	else if (s->opts.relay_url && sum.relay_lost_packets) {
		const char *why = scry_session_relay_error(s->engine);

		SAY("scry_session_stop: %llu packets (%llu events) not delivered to the relay%s%s",
		    (unsigned long long)sum.relay_lost_packets, (unsigned long long)sum.relay_lost_events,
		    *why ? ": " : "", why);
		ret = -EIO;
	}
	report_loss(s, sum.discarded + sum.lost);   /* stop's totals: the last losses counted */
	if (stats) {
		struct scry_session_stats st = {
			.size = sizeof(st), .events = sum.events, .discarded = sum.discarded, .lost = sum.lost,
			.bytes = s->output ? sum.bytes : 0, .relay_lost = sum.relay_lost_events,
			.lost_packets = lost_packets,
		};
		size_t n = stats->size < sizeof(st) ? stats->size : sizeof(st);

		memcpy((char *)stats + sizeof(size_t), (char *)&st + sizeof(size_t), n - sizeof(size_t));
	}
	return ret;
}

void scry_session_destroy(struct scry_session *s)
{
	if (!s)
		return;
	s->cb = NULL;                /* the events drained by this stop are not handed over */
	if (s->engine && !s->stopped) {
		struct scry_session_summary sum;
		char buf[256];

		scry_engine_session_stop(s->engine, &sum, buf, sizeof(buf));
	}
	scry_engine_session_destroy(s->engine);
	for (size_t i = 0; i < s->nchans; i++)
		api_channel_free(s->chans[i]);
	free(s->chans);
	for (size_t i = 0; i < s->ncgroups; i++)
		free(s->cgroups[i]);
	free(s->cgroups);
	free(s->vpids);
	free(s->pids);
	free(s->uids);
	free(s->gids);
	free(s->output);
	free(s->relay_name);
	free(s);
}

const char *scry_session_trace_dir(const struct scry_session *s)
{
	return s && s->engine && s->output ? scry_session_dir(s->engine) : NULL;
}
