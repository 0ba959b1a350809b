/* capture.c — see capture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "feed/capture.h"
#include "metrics/expose.h"
#include "util/dirh.h"

int scry_capture_config(struct scry_capture *c, struct scry_catalog *cat, const char *metrics, const char *spans,
			char *err, size_t errlen)
{
	const char *path = metrics ? metrics : spans;
	struct scry_metrics_config *cfg;

	scry_feed_init(&c->m);
	c->metrics = metrics;
	c->spans = spans;
	if (!cat) {
		if (!(cat = scry_catalog_open(NULL, err, errlen)))
			return -1;
		c->own_cat = true;
	}
	if (scry_feed_config(&c->m, cat, path, NULL, NULL, err, errlen))
		return -1;
	cfg = c->m.cfg;
	if (!spans && (cfg->process_spans || cfg->nspans)) {
		snprintf(err, errlen, "%s: declares spans (tracing:): give it to --spans too, or leave them out", path);
		return -1;
	}
	if (!metrics && cfg->nmetrics) {
		snprintf(err, errlen, "%s: declares metrics: give it to --metrics too, or leave them out", path);
		return -1;
	}
	if (metrics && spans && strcmp(metrics, spans)) {
		if (cfg->process_spans || cfg->nspans) {
			snprintf(err, errlen, "%s: declares spans (tracing:) but --spans is %s: leave them out", metrics,
				 spans);
			return -1;
		}
		if (scry_feed_config_spans(&c->m, spans, err, errlen))
			return -1;
	}
	cfg = c->m.cfg;
	if (metrics && !cfg->nmetrics) {
		snprintf(err, errlen, "%s: no metrics", metrics);
		return -1;
	}
	if (spans && !cfg->process_spans && !cfg->nspans) {
		snprintf(err, errlen, "%s: no spans (tracing: spans:)", spans);
		return -1;
	}
	return 0;
}

int scry_capture_channels(struct scry_capture *c, struct scry_session_opts *so, char *err, size_t errlen)
{
	const struct scry_metrics_config *cfg = c->m.cfg;
	size_t n = so->nchannels;
	struct scry_channel_opts *v = calloc(n + 2, sizeof(*v));

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(v, so->channels, n * sizeof(*v));
	if (cfg->nmetrics + cfg->nspans)   /* the metrics channel: the last of m's */
		v[n++] = c->m.chans[c->m.nchans - 1];
	free(c->chans);
	c->chans = v;
	c->own_spans_chan = false;
	so->channels = c->chans;
	so->nchannels = n;
	so->catalog = c->m.cat;
	return 0;
}

int scry_capture_prepare(struct scry_capture *c, const char *metrics, const char *spans,
			 struct scry_session_opts *so, char *err, size_t errlen)
{
	if (scry_capture_config(c, NULL, metrics, spans, err, errlen))
		return -1;
	return scry_capture_channels(c, so, err, errlen);
}

int scry_capture_spans_start(struct scry_capture *c, const char *const *env, char *err, size_t errlen)
{
	return c->spans ? scry_feed_spans_new(&c->m, env, err, errlen) : 0;
}

/* The sink of the recording channel: the records of the process spans' events to the
 * live decoder, the others skipped at once. */
static void spans_sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct scry_capture *c = ctx;
	uint16_t id;

	if (size < 2)
		return;
	memcpy(&id, ev, 2);
	if (id < c->nwant && c->want[id])
		trace_live_sink(c->m.live, cpu, ev, size);
}

static bool is_span_event(const char *name)
{
	static const char *const names[] = {
		"syscall_entry_execve", "syscall_exit_execve", "syscall_entry_execveat", "syscall_exit_execveat",
		"syscall_entry_exit_group", "sched_process_fork", "sched_process_exit",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* Does channel chan record what process spans are built from? */
static bool has_span_events(struct scry_session *s, unsigned chan)
{
	static const char *const needed[] = {
		"syscall_entry_execve", "syscall_exit_execve", "sched_process_fork", "sched_process_exit",
	};
	const uint64_t ctx = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID);
	const struct scry_event *const *evs;
	size_t n = scry_session_events(s, chan, &evs), found = 0;

	if ((scry_session_ctx_mask(s, chan) & ctx) != ctx)
		return false;
	for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(evs[i]->name, needed[k])) {
				found++;
				break;
			}
	return found == sizeof(needed) / sizeof(needed[0]);
}

static int bind_channel(struct scry_capture *c, struct scry_session *s, unsigned chan, bool loaded, char *err,
			size_t errlen);

int scry_capture_bind(struct scry_capture *c, struct scry_session *s, struct scry_session_opts *so,
		      char *err, size_t errlen)
{
	size_t nchan = scry_session_nchannels(s);
	unsigned chan;

	if (!c->m.live)
		return 0;
	for (chan = 0; chan < nchan; chan++)
		if (has_span_events(s, chan))
			break;
	if (chan == nchan) {
		if (c->own_spans_chan) {
			snprintf(err, errlen, "the channel of the process spans lacks their events");
			return -1;
		}
		/* a channel "spans" of their events, before the metrics channel (the last) */
		if (c->m.cfg->nmetrics + c->m.cfg->nspans) {
			c->chans[so->nchannels] = c->chans[so->nchannels - 1];
			c->chans[so->nchannels - 1] = c->m.chans[0];
		} else {
			c->chans[so->nchannels] = c->m.chans[0];
		}
		so->nchannels++;
		c->own_spans_chan = true;
		return 1;
	}
	return bind_channel(c, s, chan, false, err, errlen);
}

/* The sink set on channel chan of s (before load; a loaded session keeps it), the live
 * decoder bound to its events. */
static int bind_channel(struct scry_capture *c, struct scry_session *s, unsigned chan, bool loaded, char *err,
			size_t errlen)
{
	const struct scry_event *const *evs;
	size_t n = scry_session_events(s, chan, &evs);

	free(c->want);
	if (!(c->want = calloc(n ? n : 1, sizeof(*c->want)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->nwant = n;
	c->chan = chan;
	for (size_t i = 0; i < n; i++)
		c->want[i] = is_span_event(evs[i]->name);
	if (!loaded && scry_session_set_sink(s, chan, spans_sink, c)) {
		snprintf(err, errlen, "cannot feed the process spans from channel %u", chan);
		return -1;
	}
	return trace_live_bind_channel(c->m.live, s, chan, err, errlen) ? -1 : 0;
}

int scry_capture_rebind(struct scry_capture *c, struct scry_session *s, char *err, size_t errlen)
{
	/* the channel whose sink is set (the events of another may have become the spans' too) */
	return c->m.live ? bind_channel(c, s, c->chan, true, err, errlen) : 0;
}

int scry_capture_open(struct scry_capture *c, struct scry_session *s, char *err, size_t errlen)
{
	c->m.s = s;
	if (!c->spans)
		return 0;
	return scry_feed_spans_open(&c->m, err, errlen);
}

void scry_capture_pump(void *ctx, uint64_t now)
{
	scry_feed_pump(&((struct scry_capture *)ctx)->m, now);
}

static int write_prom(struct scry_capture *c, struct scry_session *s, const struct scry_metric_stats *ks,
		      const char *dir, char *err, size_t errlen)
{
	struct scry_metrics_snap snap;
	char path[4096], *text = NULL;
	size_t len = 0;
	struct scry_dirh *root;
	FILE *f;
	int ret;

	for (unsigned i = 0; i < c->m.cfg->nmetrics; i++)
		c->m.fds[i] = scry_session_metric_fd(s, i);
	if ((ret = scry_feed_read(&c->m, &snap))) {
		snprintf(err, errlen, "reading the metrics: %s", strerror(-ret));
		return -1;
	}
	struct scry_expose_self self = { .ks = ks };
	snprintf(path, sizeof(path), "%s/metrics.prom", dir);
	if (!(f = open_memstream(&text, &len))) {
		snprintf(err, errlen, "out of memory");
		scry_metrics_snap_free(&snap);
		return -1;
	}
	ret = scry_metrics_expose(f, &snap, &self, false);
	scry_metrics_snap_free(&snap);
	if (fclose(f) || ret) {
		snprintf(err, errlen, "%s: writing failed", path);
		free(text);
		return -1;
	}
	/* beside the trace, through its directory handle (the owner's rights, whole or not at all) */
	if (!(root = scry_session_root_dir(s))) {
		snprintf(err, errlen, "%s: the session has no trace directory", path);
		ret = -1;
	} else if (scry_dirh_write_file(root, "metrics.prom", text, len, true, err, errlen)) {
		ret = -1;
	}
	free(text);
	return ret;
}

int scry_capture_write_prom(struct scry_capture *c, struct scry_session *s, const char *dir, char *err,
			    size_t errlen)
{
	struct scry_metric_stats ks;

	if (scry_session_metric_stats(s, &ks))
		memset(&ks, 0, sizeof(ks));
	return write_prom(c, s, &ks, dir, err, errlen);
}

uint64_t scry_capture_kspans_lost(struct scry_capture *c, const struct scry_metric_stats *ks)
{
	const struct scry_metrics_config *cfg = c->m.cfg;
	uint64_t lost = 0;

	for (size_t i = cfg->nmetrics; i < cfg->nmetrics + cfg->nspans; i++)
		lost += ks->overflow[i];
	return lost;
}

void scry_capture_spans_end(struct scry_capture *c, struct scry_session *s, uint64_t flush_ns,
			    void (*report)(void *ctx, const char *line), void *ctx)
{
	struct scry_metric_stats ks;
	char line[256];

	if (!c->spans)
		return;
	if (scry_session_metric_stats(s, &ks))
		memset(&ks, 0, sizeof(ks));
	scry_feed_spans_end(&c->m, flush_ns, report, ctx);
	snprintf(line, sizeof(line), "spans: %llu process, %llu kernel, %llu kernel spans lost (their ring buffer "
		 "was full)", (unsigned long long)(c->m.spans ? scry_procspans_started(c->m.spans) : 0),
		 (unsigned long long)(c->m.kspans ? scry_kernspans_sent(c->m.kspans) : 0),
		 (unsigned long long)scry_capture_kspans_lost(c, &ks));
	if (report)
		report(ctx, line);
	else
		fprintf(stderr, "scry: %s\n", line);
}

int scry_capture_write(struct scry_capture *c, struct scry_session *s, const char *dir, char *err, size_t errlen)
{
	char path[4096];

	scry_capture_spans_end(c, s, 5 * 1000000000ULL, NULL, NULL);
	if (!c->metrics)
		return 0;
	if (scry_capture_write_prom(c, s, dir, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/metrics.prom", dir);
	fprintf(stderr, "scry: metrics written to %s\n", path);
	return 0;
}

void scry_capture_free(struct scry_capture *c)
{
	struct scry_catalog *cat = c->own_cat ? c->m.cat : NULL;

	c->m.s = NULL;                 /* the session's owner destroys it */
	scry_feed_free(&c->m);         /* a catalog of its own: closed after the session */
	scry_catalog_close(cat);
	free(c->chans);
	free(c->want);
	memset(c, 0, sizeof(*c));
}
