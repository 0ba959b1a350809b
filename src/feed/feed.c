/* feed.c — see feed.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "catalog/catalog.h"
#include "catalog/elfsyms.h"
#include "catalog/usdt.h"
#include "feed/feed.h"

static int sc_nr(void *ctx, const char *name)
{
	struct scry_feed *f = ctx;
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(f->cat, name);

	if (sc)
		return sc->nr;
	for (int nr = 0; nr < SCRY_MAX_SYSCALLS; nr++)
		if (f->sc_names[nr] && !strcmp(f->sc_names[nr], name))
			return nr;
	return -1;
}

static const char *sc_name(void *ctx, unsigned nr)
{
	struct scry_feed *f = ctx;

	return nr < SCRY_MAX_SYSCALLS ? f->sc_names[nr] : NULL;
}

void scry_feed_init(struct scry_feed *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		f->fds[i] = -1;
}

static void metrics_channels(struct scry_feed *f);

/* tracing: parent: the file found, the probe or function checked in it. */
static int resolve_mark(struct scry_feed *f, char *err, size_t errlen)
{
	const struct scry_metrics_config *c = f->cfg;
	char why[512];
	char *path;

	free((char *)f->mark.path);
	memset(&f->mark, 0, sizeof(f->mark));
	if (!c->parent_path)
		return 0;
	if (!(path = scry_elf_find(c->parent_path, why, sizeof(why)))) {
		snprintf(err, errlen, "%s: tracing.parent: %s", c->file, why);
		return -1;
	}
	f->mark = (struct scry_span_mark_probe){ .path = path, .provider = c->parent_provider, .name = c->parent_name };
	if (c->parent_provider) {
		struct scry_usdt_note *v;
		size_t n;
		int found = -1;

		if (scry_usdt_notes(path, &v, &n, why, sizeof(why))) {
			snprintf(err, errlen, "%s: tracing.parent: %s", c->file, why);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v[i].provider, c->parent_provider) && !strcmp(v[i].name, c->parent_name))
				found = (int)v[i].nargs;
		scry_usdt_notes_free(v, n);
		if (found < 3) {
			snprintf(err, errlen, found < 0 ? "%s: tracing.parent: %s has no USDT probe %s:%s" :
				 "%s: tracing.parent: %s: USDT probe %s:%s has fewer than 3 arguments (trace id high, "
				 "low, span id)", c->file, path, c->parent_provider, c->parent_name);
			return -1;
		}
		return 0;
	}
	struct scry_elf e;
	const struct scry_elf_func *fn;

	if (scry_elf_load(&e, path, why, sizeof(why))) {
		snprintf(err, errlen, "%s: tracing.parent: %s", c->file, why);
		return -1;
	}
	if (!(fn = scry_elf_func(&e, c->parent_name))) {
		snprintf(err, errlen, "%s: tracing.parent: %s has no function %s", c->file, path, c->parent_name);
		scry_elf_free(&e);
		return -1;
	}
	f->mark.offset = fn->offset;
	scry_elf_free(&e);
	return 0;
}

int scry_feed_config(struct scry_feed *f, struct scry_catalog *cat, const char *path, const char *text,
		       const char *name, char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	size_t n;
	int ret;

	if (cat)
		f->shared_cat = true;
	else if (!(cat = scry_catalog_open(NULL, err, errlen)))
		return -1;
	f->cat = cat;
	if (!(f->sc_names = calloc(SCRY_MAX_SYSCALLS, sizeof(char *))) ||
	    !(f->sc_masks = calloc(SCRY_MAX_SYSCALLS, sizeof(uint32_t))))
		goto oom;
	n = scry_catalog_syscalls(f->cat, &scs);
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS)
			f->sc_names[scs[i].nr] = (char *)scry_syscall_user_name(scs[i].name);
	f->sn = (struct scry_syscall_names){ .nr = sc_nr, .name = sc_name, .ctx = f };
	ret = path ? scry_metrics_config_load(path, &f->sn, &f->cfg, err, errlen) :
		     scry_metrics_config_parse(text, strlen(text), name, &f->sn, &f->cfg, err, errlen);
	if (ret || resolve_mark(f, err, errlen))
		return -1;
	metrics_channels(f);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int scry_feed_config_spans(struct scry_feed *f, const char *path, char *err, size_t errlen)
{
	struct scry_metrics_config *c;

	if (scry_metrics_config_load(path, &f->sn, &c, err, errlen))
		return -1;
	if (f->cfg->nmetrics + c->nspans > SCRY_METRICS_MAX) {
		snprintf(err, errlen, "%s: more than %d metrics and kernel spans in all", path, SCRY_METRICS_MAX);
		scry_metrics_config_free(c);
		return -1;
	}
	/* the spans' descriptors moved after f's metrics (f's own spans, if any, replaced) */
	for (size_t i = 0; i < f->cfg->nspans; i++) {
		struct scry_metric *d = &f->cfg->metrics[f->cfg->nmetrics + i];

		free(d->name);
		free(d->help);
		memset(d, 0, sizeof(*d));
	}
	for (size_t i = 0; i < c->nspans; i++) {
		f->cfg->metrics[f->cfg->nmetrics + i] = c->metrics[c->nmetrics + i];
		memset(&c->metrics[c->nmetrics + i], 0, sizeof(c->metrics[0]));
	}
	f->cfg->nspans = c->nspans;
	f->cfg->process_spans = c->process_spans;
	memcpy(f->cfg->kspans, c->kspans, sizeof(c->kspans));
	f->cfg->nkspans = c->nkspans;
	free(f->cfg->parent_path);
	free(f->cfg->parent_provider);
	free(f->cfg->parent_name);
	f->cfg->parent_path = c->parent_path;
	f->cfg->parent_provider = c->parent_provider;
	f->cfg->parent_name = c->parent_name;
	c->parent_path = c->parent_provider = c->parent_name = NULL;
	scry_metrics_config_free(c);
	if (resolve_mark(f, err, errlen))
		return -1;
	metrics_channels(f);
	return 0;
}

/* The session's channels of f->cfg: the process spans' events, the metrics. */
static void metrics_channels(struct scry_feed *f)
{
	f->nchans = 0;
	scry_metrics_abi(f->cfg, f->descs, f->max_entries, f->sc_masks, f->bounds);
	/* the events channel of the process spans first: a metrics channel comes last */
	if (f->cfg->process_spans)   /* its sink: the caller's (trace_live_sink) */
		f->chans[f->nchans++] = (struct scry_channel_opts){
			.name = "spans", .kind = SCRY_CHANNEL_EVENTS, .events = scry_procspans_events,
			.nevents = scry_procspans_nevents,
			.ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID),
		};
	if (f->cfg->nmetrics + f->cfg->nspans)
		f->chans[f->nchans++] = (struct scry_channel_opts){
			.name = "metrics", .kind = SCRY_CHANNEL_METRICS, .metrics = f->descs,
			.metric_max_entries = f->max_entries, .nmetrics = (unsigned)(f->cfg->nmetrics + f->cfg->nspans),
			.metric_sc = f->sc_masks, .metric_bounds = f->bounds,
			.span_mark = f->mark.path ? &f->mark : NULL,
		};
}

int scry_feed_spans_new(struct scry_feed *f, const char *const *env, char *err, size_t errlen)
{
	if ((f->cfg->process_spans || f->cfg->nspans) && scry_otlp_start(&f->exp, env, err, errlen))
		return -1;
	if (f->cfg->process_spans) {
		struct trace_live_ops ops;

		if (!(f->spans = scry_procspans_new(f->exp)))
			goto oom;
		scry_procspans_ops(f->spans, &ops);
		if (!(f->live = trace_live_new(&ops)))
			goto oom;
	}
	if (f->cfg->nspans && !(f->kspans = scry_kernspans_new(f->exp, f->spans, &f->sn)))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int scry_feed_spans_open(struct scry_feed *f, char *err, size_t errlen)
{
	if (f->kspans && scry_kernspans_open(f->kspans, scry_session_span_fd(f->s), err, errlen))
		return -1;
	return 0;
}

void scry_feed_on_child(void *ctx, pid_t pid)
{
	trace_live_gate_exec(ctx, (int)pid);   /* its spans start at its execve */
}

#define LIVE_LAG_NS (4 * 1000 * 1000ULL)   /* events older than this are in time order */

static void pump_live(void *ctx, uint64_t horizon)
{
	trace_live_pump(ctx, horizon);
}

/* The kernel spans and the process spans' events up to horizon, in time order. */
static void pump_spans(struct scry_feed *f, uint64_t horizon)
{
	if (f->kspans) {
		scry_kernspans_poll(f->kspans);
		scry_kernspans_flush(f->kspans, horizon, f->live ? pump_live : NULL, f->live);
	}
	if (f->live)
		trace_live_pump(f->live, horizon);
}

void scry_feed_pump(void *ctx, uint64_t now)
{
	pump_spans(ctx, now > LIVE_LAG_NS ? now - LIVE_LAG_NS : 0);
}

bool scry_feed_has_spans(const struct scry_feed *f)
{
	return f->live || f->kspans;
}

int scry_feed_read(struct scry_feed *f, struct scry_metrics_snap *out)
{
	return scry_metrics_read(f->cfg, f->fds, &f->sn, out);
}

void scry_feed_pump_all(struct scry_feed *f)
{
	pump_spans(f, UINT64_MAX);
}

static void report_stderr(void *ctx, const char *line)
{
	fprintf(stderr, "scry: %s\n", line);
}

void scry_feed_spans_end(struct scry_feed *f, uint64_t flush_ns, void (*report)(void *ctx, const char *line),
			 void *ctx)
{
	struct timespec now;
	struct scry_otlp_stats *st = &f->span_stats;
	uint64_t dropped;
	char *u, line[512];

	if (!f->exp)
		return;
	if (!report)
		report = report_stderr;
	pump_spans(f, UINT64_MAX);
	clock_gettime(CLOCK_REALTIME, &now);
	if (f->spans)
		scry_procspans_finish(f->spans, (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec);
	u = strdup(scry_otlp_endpoint(f->exp) ? scry_otlp_endpoint(f->exp) : "?");
	scry_otlp_stop(f->exp, flush_ns, st);
	f->exp = NULL;
	dropped = st->dropped_queue_full + st->dropped_failed + st->dropped_at_exit;
	snprintf(line, sizeof(line), "%llu spans sent to %s, %llu dropped (queue full %llu, collector failed %llu, "
		 "unsent at exit %llu), %llu retries", (unsigned long long)st->sent, u ? u : "?",
		 (unsigned long long)dropped, (unsigned long long)st->dropped_queue_full,
		 (unsigned long long)st->dropped_failed, (unsigned long long)st->dropped_at_exit,
		 (unsigned long long)st->retries);
	report(ctx, line);
	free(u);
	if (f->mark.path) {
		struct scry_metric_stats ks;

		if (f->s && !scry_session_metric_stats(f->s, &ks)) {
			snprintf(line, sizeof(line), "span marks: %llu lost (no memory for a thread's mark, or %u block "
				 "requests in flight)", (unsigned long long)ks.marks_lost, SCRY_BLK_MARKS_MAX);
			report(ctx, line);
		}
	}
}

void scry_feed_free(struct scry_feed *f)
{
	struct scry_otlp_stats st;

	if (f->exp)
		scry_otlp_stop(f->exp, 0, &st);
	trace_live_free(f->live);
	scry_kernspans_free(f->kspans);
	scry_procspans_free(f->spans);
	scry_metrics_config_free(f->cfg);
	free((char *)f->mark.path);
	free(f->sc_names);
	free(f->sc_masks);
	if (!f->shared_cat)
		scry_catalog_close(f->cat);
	memset(f, 0, sizeof(*f));
}
