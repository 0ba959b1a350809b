/* session.c — libscry's in-process sessions (include/scry/scry.h) over the engine's
 * (session/session.h), the same code `scry record` runs: the rules, contexts and tracked
 * processes gathered before start, then one channel made of them; the events handed to the
 * caller's callback by the channel's record sink (event.c decodes them), the losses as
 * loss records after each poll of the rings. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/engine.h"
#include "api/event.h"
#include <scry/scry.h>

#define DEFAULT_CTX ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME))

struct scry_session {
	struct scry_session_options opts;   /* the known members; output copied */
	char *output;
	char *relay_name;
	struct relay_url relay;             /* opts.relay_url parsed */
	char **specs, **filters;            /* the rules, in order (filters[i] NULL: none) */
	size_t nrules;
	uint64_t ctx_mask;
	pid_t *pids;
	size_t npids;
	scry_event_cb cb;
	void *cb_ctx;
	struct scry_engine_session *engine; /* from start */
	bool stopped;
	struct scry_api_decoder dec;        /* the callback's events (event.c) */
	uint64_t lost_reported;             /* losses given to the callback so far */
};

const char *scry_version(void)
{
	return "0.1.0";
}

/* err may be NULL when errlen is 0 */
#define SAY(...) ((void)(errlen ? snprintf(err, errlen, __VA_ARGS__) : 0))

static bool check_session(const struct scry_session *s, bool before_start, const char *what, char *err,
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
	if (opts && opts->buffer_size && (opts->buffer_size & (opts->buffer_size - 1))) {
		SAY("scry_session_new: buffer_size %zu is not a power of two", opts->buffer_size);
		return NULL;
	}
	if (opts && opts->buffer_size && (opts->buffer_size < SCRY_MIN_RING_SIZE || opts->buffer_size > SCRY_RING_MAX)) {
		SAY("scry_session_new: buffer_size %zu is out of range (%u to %llu bytes)", opts->buffer_size,
		    SCRY_MIN_RING_SIZE, (unsigned long long)SCRY_RING_MAX);
		return NULL;
	}
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

int scry_session_enable_event(struct scry_session *s, const char *spec, const char *filter, char *err,
			      size_t errlen)
{
	char **sp, **fp, *a = NULL, *b = NULL;
	int ret;

	if (!check_session(s, true, "scry_session_enable_event", err, errlen, &ret))
		return ret;
	if (!spec || !*spec) {
		SAY("scry_session_enable_event: no event spec (e.g. \"syscall:openat\")");
		return -EINVAL;
	}
	if (filter && !*filter)
		filter = NULL;
	if (!(sp = realloc(s->specs, (s->nrules + 1) * sizeof(*sp))))
		goto oom;
	s->specs = sp;
	if (!(fp = realloc(s->filters, (s->nrules + 1) * sizeof(*fp))))
		goto oom;
	s->filters = fp;
	if (!(a = strdup(spec)) || (filter && !(b = strdup(filter))))
		goto oom;
	s->specs[s->nrules] = a;
	s->filters[s->nrules++] = b;
	return 0;
oom:
	free(a);
	SAY("scry_session_enable_event: out of memory");
	return -ENOMEM;
}

int scry_session_add_context(struct scry_session *s, const char *name, char *err, size_t errlen)
{
	int ret, c;

	if (!check_session(s, true, "scry_session_add_context", err, errlen, &ret))
		return ret;
	if (!name || (c = scry_context_by_name(name)) < 0) {
		if (errlen)
			scry_context_unknown(name ? name : "(NULL)", err, errlen);
		return -EINVAL;
	}
	s->ctx_mask |= 1ULL << c;
	return 0;
}

int scry_session_track_pid(struct scry_session *s, pid_t pid, char *err, size_t errlen)
{
	pid_t *v;
	int ret;

	if (!check_session(s, true, "scry_session_track_pid", err, errlen, &ret))
		return ret;
	if (pid <= 0) {
		SAY("scry_session_track_pid: %d is no process id", (int)pid);
		return -EINVAL;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		SAY("scry_session_track_pid: no process %d", (int)pid);
		return -ESRCH;
	}
	if (!(v = realloc(s->pids, (s->npids + 1) * sizeof(*v)))) {
		SAY("scry_session_track_pid: out of memory");
		return -ENOMEM;
	}
	(s->pids = v)[s->npids++] = pid;
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

/* The channel's record sink: each record decoded and given to the callback. */
static void sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct scry_session *s = ctx;
	const struct scry_event *e = scry_api_decode(&s->dec, cpu, ev, size);

	if (e && s->cb)              /* none during destroy */
		s->cb(e, s->cb_ctx);
}

/* A loss record for what was lost since the last one (total: the session's losses so far),
 * if anything was. */
static void report_loss(struct scry_session *s, uint64_t total)
{
	if (s->cb && total > s->lost_reported) {
		s->cb(scry_api_loss(&s->dec, total - s->lost_reported, scry_monotonic_ns()), s->cb_ctx);
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

static int start_fail(struct scry_session *s, int ret)
{
	scry_engine_session_destroy(s->engine);
	s->engine = NULL;
	return ret;
}

int scry_session_start(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_channel_opts ch = { 0 };
	struct scry_session_opts so = { 0 };
	char buf[1024];
	int ret;

	if (!check_session(s, true, "scry_session_start", err, errlen, &ret))
		return ret;
	if (!s->nrules) {
		SAY("scry_session_start: no event enabled (scry_session_enable_event)");
		return -EINVAL;
	}
	if (!s->output && !s->cb && !s->opts.relay_url) {
		SAY("scry_session_start: nowhere for the events to go: give options.output, options.relay_url "
		    "or a callback (scry_session_on_event)");
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
	ch.events = (const char *const *)s->specs;
	ch.event_filters = (const char *const *)s->filters;
	ch.nevents = s->nrules;
	ch.ctx_mask = s->ctx_mask;
	ch.ring_size = s->opts.buffer_size;
	if (s->cb && !s->output) {     /* no trace directory: the sink (and the relay) */
		ch.sink = sink;
		ch.sink_ctx = s;
	}
	so.output = s->output;
	if (s->opts.relay_url) {
		so.relay = &s->relay;
		so.relay_session = s->relay_name;
	}
	so.channels = &ch;
	so.nchannels = 1;
	so.target_all = s->opts.system_wide;
	so.fixed_events = true;
	if ((ret = scry_session_create(&s->engine, &so, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		s->engine = NULL;
		return ret;
	}
	if (s->cb && s->output && (ret = scry_session_set_sink(s->engine, 0, sink, s))) {
		SAY("scry_session_start: the callback: %s", strerror(-ret));
		return start_fail(s, ret);
	}
	if ((ret = scry_session_load(s->engine, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		return start_fail(s, ret);
	}
	if (s->cb && (ret = scry_api_decoder_init(&s->dec, s->engine, buf, sizeof(buf)))) {
		SAY("scry_session_start: %s", buf);
		return start_fail(s, ret);
	}
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

int scry_session_run(struct scry_session *s, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct scry_run_opts ro = { 0 };
	struct scry_run_end end;
	char buf[1024];
	int ret;

	if (!check_session(s, false, "scry_session_run", err, errlen, &ret))
		return ret;
	if (!s->engine || s->stopped) {
		SAY("scry_session_run: the session is not recording (scry_session_start first)");
		return -EINVAL;
	}
	if (!stop && s->opts.system_wide) {
		SAY("scry_session_run: a system-wide session runs until its stop flag: give one");
		return -EINVAL;
	}
	ro.stop = (volatile sig_atomic_t *)stop;
	if (!s->opts.system_wide) {
		ro.pids = s->pids;
		ro.npids = s->npids;
	}
	ro.after_poll = after_poll;
	ro.ctx = s;
	ro.max_poll_delay_ns = 100 * 1000 * 1000ULL;   /* the stop flag seen within 0.1 s */
	if ((ret = scry_engine_session_run(s->engine, &ro, &end, buf, sizeof(buf))))
		SAY("scry_session_run: %s", buf);
	return ret;
}

int scry_session_stop(struct scry_session *s, struct scry_session_stats *stats, char *err, size_t errlen)
{
	struct scry_session_summary sum;
	char buf[1024];
	int ret;

	if (!check_session(s, false, "scry_session_stop", err, errlen, &ret))
		return ret;
	if (!s->engine || s->stopped) {
		SAY("scry_session_stop: the session is not recording");
		return -EINVAL;
	}
	if (stats && (stats->size < sizeof(size_t) || stats->size > 4096)) {
		SAY("scry_session_stop: stats of size %zu: initialise them with SCRY_SESSION_STATS_INIT", stats->size);
		return -EINVAL;
	}
	ret = scry_engine_session_stop(s->engine, &sum, buf, sizeof(buf));
	s->stopped = true;
	if (ret)
		SAY("scry_session_stop: %s", buf);
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
	scry_api_decoder_free(&s->dec);
	for (size_t i = 0; i < s->nrules; i++) {
		free(s->specs[i]);
		free(s->filters[i]);
	}
	free(s->specs);
	free(s->filters);
	free(s->pids);
	free(s->output);
	free(s->relay_name);
	free(s);
}

const char *scry_session_trace_dir(const struct scry_session *s)
{
	return s && s->engine && s->output ? scry_session_dir(s->engine) : NULL;
}
