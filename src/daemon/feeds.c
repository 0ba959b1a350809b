/* feeds.c — a daemon session's metrics and spans (`scry create NAME --metrics FILE
 * --spans FILE`): the same capture as `scry record --metrics --spans` (feed/capture.h), its
 * metrics channel and span sink added to the engine session each time it is built, its
 * metrics written to DIR/metrics.prom at each stop, its spans sent over OTLP while it runs
 * to where the creating command's OTEL_* variables say (the protocol's env=). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/daemon_int.h"
#include "util/log.h"

static void free_env(char **env)
{
	for (char **e = env; e && *e; e++)
		free(*e);
	free(env);
}

int dfeed_attach(struct daemon *d, struct dsession *s, const char *metrics, const char *spans,
		 const char *const *env, char *err, size_t errlen)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	if (!(s->cap = calloc(1, sizeof(*s->cap))) || !(s->env = calloc(n + 1, sizeof(char *))) ||
	    (metrics && !(s->metrics_file = strdup(metrics))) || (spans && !(s->spans_file = strdup(spans))))
		goto oom;
	for (size_t i = 0; i < n; i++)
		if (!(s->env[i] = strdup(env[i])))
			goto oom;
	if (scry_capture_config(s->cap, d->cat, s->metrics_file, s->spans_file, err, errlen) ||
	    scry_capture_spans_start(s->cap, (const char *const *)s->env, err, errlen))
		return -1;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int dfeed_listen(struct dsession *s, const char *listen, char *err, size_t errlen)
{
	if (!(s->listen = strdup(listen))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* no per-program self metrics: the daemon's loop may change the programs meanwhile */
	return scry_http_start(&s->http, listen, &s->cap->m, false, false, err, errlen);
}

void dfeed_serving(struct dsession *s, bool on)
{
	scry_http_ready(s->http, on);
}

int dfeed_channels(struct dsession *s, struct scry_session_opts *so, char *err, size_t errlen)
{
	return s->cap ? scry_capture_channels(s->cap, so, err, errlen) : 0;
}

int dfeed_bind(struct dsession *s, struct scry_session_opts *so, char *err, size_t errlen)
{
	return s->cap && s->spans_file ? scry_capture_bind(s->cap, s->eng, so, err, errlen) : 0;
}

int dfeed_rebind(struct dsession *s)
{
	char err[256];

	return s->cap && s->spans_file && s->eng ? scry_capture_rebind(s->cap, s->eng, err, sizeof(err)) : 0;
}

int dfeed_open(struct dsession *s, char *err, size_t errlen)
{
	if (!s->cap)
		return 0;
	for (size_t i = 0; i < s->cap->m.cfg->nmetrics; i++)
		s->cap->m.fds[i] = scry_session_metric_fd(s->eng, (unsigned)i);
	return scry_capture_open(s->cap, s->eng, err, errlen);
}

uint64_t dfeed_poll_delay(const struct dsession *s)
{
	return s->cap && s->spans_file ? 50 * 1000 * 1000ULL : 0;   /* spans leave within 50 ms */
}

void (*dfeed_after_poll(const struct dsession *s))(void *ctx, uint64_t now)
{
	return s->cap && s->spans_file ? scry_capture_pump : NULL;
}

/* What was sent and lost so far, in one line. */
static void spans_line(struct dsession *s, char *buf, size_t len)
{
	struct scry_capture *c = s->cap;
	struct scry_otlp_stats st = c->m.span_stats;
	struct scry_metric_stats ks;

	if (c->m.exp)
		scry_otlp_stats(c->m.exp, &st);
	if (!s->eng || scry_session_metric_stats(s->eng, &ks))
		memset(&ks, 0, sizeof(ks));
	snprintf(buf, len, "%llu process, %llu kernel; %llu sent, %llu dropped (queue full %llu, collector failed "
		 "%llu, unsent at exit %llu), %llu kernel spans lost (ring full), %llu span marks lost",
		 (unsigned long long)(c->m.spans ? scry_procspans_started(c->m.spans) : 0),
		 (unsigned long long)(c->m.kspans ? scry_kernspans_sent(c->m.kspans) : 0), (unsigned long long)st.sent,
		 (unsigned long long)(st.dropped_queue_full + st.dropped_failed + st.dropped_at_exit),
		 (unsigned long long)st.dropped_queue_full, (unsigned long long)st.dropped_failed,
		 (unsigned long long)st.dropped_at_exit, (unsigned long long)scry_capture_kspans_lost(c, &ks),
		 (unsigned long long)ks.marks_lost);
}

/* Updates lost because a metric's map was full or a new series could not be inserted (no
 * memory, its lock busy), over the metrics. */
static uint64_t metrics_lost(struct dsession *s)
{
	struct scry_metric_stats ks;
	uint64_t n = 0;

	if (!s->eng || scry_session_metric_stats(s->eng, &ks))
		return 0;
	for (size_t i = 0; i < s->cap->m.cfg->nmetrics; i++)
		n += ks.overflow[i] + ks.no_memory[i] + ks.busy[i] + ks.failed[i];
	return n;
}

void dfeed_stopped(struct dsession *s)
{
	char err[512], line[512];

	if (!s->cap || !s->eng)
		return;
	if (s->spans_file) {
		scry_feed_pump_all(&s->cap->m);
		spans_line(s, line, sizeof(line));
		scry_log(SCRY_LOG_INFO, "scryd: session %s: spans: %s", s->name, line);
	}
	if (!s->metrics_file)
		return;
	if (scry_capture_write_prom(s->cap, s->eng, s->dir, err, sizeof(err))) {
		scry_log(SCRY_LOG_INFO, "scryd: session %s: %s", s->name, err);
		return;
	}
	s->prom_written = true;
	scry_log(SCRY_LOG_INFO, "scryd: session %s: metrics written to %s/metrics.prom (%llu updates lost: a "
		 "metric's map full, or a new series not inserted)", s->name, s->dir, (unsigned long long)metrics_lost(s));
}

static void log_line(void *ctx, const char *line)
{
	scry_log(SCRY_LOG_INFO, "scryd: session %s: %s", ((struct dsession *)ctx)->name, line);
}

void dfeed_end(struct dsession *s)
{
	if (s->cap && s->spans_file && s->eng)
		scry_capture_spans_end(s->cap, s->eng, 2 * 1000000000ULL, log_line, s);
}

void dfeed_describe(struct dsession *s, FILE *out)
{
	char line[512];

	if (!s->cap)
		return;
	if (s->metrics_file)
		fprintf(out, "    Metrics: %s (%zu), written to %s/metrics.prom at stop%s; %llu updates lost (a "
			"metric's map full, or a new series not inserted)\n", s->metrics_file, s->cap->m.cfg->nmetrics, s->dir,
			s->prom_written ? " (written)" : "", (unsigned long long)metrics_lost(s));
	if (s->http)
		fprintf(out, "    Metrics served at http://%s/metrics (%llu scrapes), %llu connections closed for "
			"being too slow\n", s->listen, (unsigned long long)scry_http_scrapes(s->http),
			(unsigned long long)scry_http_too_slow(s->http));
	if (s->spans_file) {
		const char *url = s->cap->m.exp ? scry_otlp_endpoint(s->cap->m.exp) : NULL;

		spans_line(s, line, sizeof(line));
		fprintf(out, "    Spans: %s to %s: %s\n", s->spans_file, url ? url : "(exporter stopped)", line);
	}
}

void dfeed_free(struct dsession *s)
{
	scry_http_stop(s->http);
	s->http = NULL;
	free(s->listen);
	s->listen = NULL;
	if (s->cap)
		scry_capture_free(s->cap);
	free(s->cap);
	free(s->metrics_file);
	free(s->spans_file);
	free_env(s->env);
	s->cap = NULL;
	s->env = NULL;
	s->metrics_file = s->spans_file = NULL;
}
