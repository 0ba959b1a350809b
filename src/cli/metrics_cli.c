/* metrics_cli.c — see metrics_cli.h. */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/catalog.h"
#include "catalog/elfsyms.h"
#include "catalog/usdt.h"
#include "cli/launch.h"
#include "cli/metrics_cli.h"
#include "kernel/features.h"
#include "util/parse.h"
#include "util/privs.h"

static int sc_nr(void *ctx, const char *name)
{
	struct cli_metrics *m = ctx;
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(m->cat, name);

	if (sc)
		return sc->nr;
	for (int nr = 0; nr < SCRY_MAX_SYSCALLS; nr++)
		if (m->sc_names[nr] && !strcmp(m->sc_names[nr], name))
			return nr;
	return -1;
}

static const char *sc_name(void *ctx, unsigned nr)
{
	struct cli_metrics *m = ctx;

	return nr < SCRY_MAX_SYSCALLS ? m->sc_names[nr] : NULL;
}

void cli_metrics_init(struct cli_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->child = (struct scry_child){ .pid = -1, .status_fd = -1 };
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		m->fds[i] = -1;
}

int cli_metrics_option(struct cli_metrics *m, int opt, const char *arg, char *err, size_t errlen)
{
	switch (opt) {
	case 'p':
		if (scry_parse_pids(arg, &m->pids, &m->npids)) {
			snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", arg);
			return -1;
		}
		return 0;
	case 'a':
		m->all = true;
		return 0;
	case CLI_METRICS_OPT_DURATION:
		if (scry_parse_duration(arg, &m->duration)) {
			snprintf(err, errlen, "invalid duration '%s' (expected seconds, e.g. 5, 0.5, 500ms, 2m)", arg);
			return -1;
		}
		return 0;
	default:
		return cli_track_option(&m->track, opt, arg, err, errlen);
	}
}

static void metrics_channels(struct cli_metrics *m);

/* tracing: parent: the file found, the probe or function checked in it. */
static int resolve_mark(struct cli_metrics *m, char *err, size_t errlen)
{
	const struct scry_metrics_config *c = m->cfg;
	char why[512];
	char *path;

	free((char *)m->mark.path);
	memset(&m->mark, 0, sizeof(m->mark));
	if (!c->parent_path)
		return 0;
	if (!(path = scry_elf_find(c->parent_path, why, sizeof(why)))) {
		snprintf(err, errlen, "%s: tracing.parent: %s", c->file, why);
		return -1;
	}
	m->mark = (struct scry_span_mark_probe){ .path = path, .provider = c->parent_provider, .name = c->parent_name };
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
	const struct scry_elf_func *f;

	if (scry_elf_load(&e, path, why, sizeof(why))) {
		snprintf(err, errlen, "%s: tracing.parent: %s", c->file, why);
		return -1;
	}
	if (!(f = scry_elf_func(&e, c->parent_name))) {
		snprintf(err, errlen, "%s: tracing.parent: %s has no function %s", c->file, path, c->parent_name);
		scry_elf_free(&e);
		return -1;
	}
	m->mark.offset = f->offset;
	scry_elf_free(&e);
	return 0;
}

int cli_metrics_config(struct cli_metrics *m, struct scry_catalog *cat, const char *path, const char *text,
		       const char *name, char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	size_t n;
	int ret;

	if (cat)
		m->shared_cat = true;
	else if (!(cat = scry_catalog_open(NULL, err, errlen)))
		return -1;
	m->cat = cat;
	if (!(m->sc_names = calloc(SCRY_MAX_SYSCALLS, sizeof(char *))) ||
	    !(m->sc_masks = calloc(SCRY_MAX_SYSCALLS, sizeof(uint32_t))))
		goto oom;
	n = scry_catalog_syscalls(m->cat, &scs);
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS)
			m->sc_names[scs[i].nr] = (char *)scry_syscall_user_name(scs[i].name);
	m->sn = (struct scry_syscall_names){ .nr = sc_nr, .name = sc_name, .ctx = m };
	ret = path ? scry_metrics_config_load(path, &m->sn, &m->cfg, err, errlen) :
		     scry_metrics_config_parse(text, strlen(text), name, &m->sn, &m->cfg, err, errlen);
	if (ret || resolve_mark(m, err, errlen))
		return -1;
	metrics_channels(m);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int cli_metrics_config_spans(struct cli_metrics *m, const char *path, char *err, size_t errlen)
{
	struct scry_metrics_config *c;

	if (scry_metrics_config_load(path, &m->sn, &c, err, errlen))
		return -1;
	if (m->cfg->nmetrics + c->nspans > SCRY_METRICS_MAX) {
		snprintf(err, errlen, "%s: more than %d metrics and kernel spans in all", path, SCRY_METRICS_MAX);
		scry_metrics_config_free(c);
		return -1;
	}
	/* the spans' descriptors moved after m's metrics (m's own spans, if any, replaced) */
	for (size_t i = 0; i < m->cfg->nspans; i++) {
		struct scry_metric *d = &m->cfg->metrics[m->cfg->nmetrics + i];

		free(d->name);
		free(d->help);
		memset(d, 0, sizeof(*d));
	}
	for (size_t i = 0; i < c->nspans; i++) {
		m->cfg->metrics[m->cfg->nmetrics + i] = c->metrics[c->nmetrics + i];
		memset(&c->metrics[c->nmetrics + i], 0, sizeof(c->metrics[0]));
	}
	m->cfg->nspans = c->nspans;
	m->cfg->process_spans = c->process_spans;
	memcpy(m->cfg->kspans, c->kspans, sizeof(c->kspans));
	m->cfg->nkspans = c->nkspans;
	free(m->cfg->parent_path);
	free(m->cfg->parent_provider);
	free(m->cfg->parent_name);
	m->cfg->parent_path = c->parent_path;
	m->cfg->parent_provider = c->parent_provider;
	m->cfg->parent_name = c->parent_name;
	c->parent_path = c->parent_provider = c->parent_name = NULL;
	scry_metrics_config_free(c);
	if (resolve_mark(m, err, errlen))
		return -1;
	metrics_channels(m);
	return 0;
}

/* The session's channels of m->cfg: the process spans' events, the metrics. */
static void metrics_channels(struct cli_metrics *m)
{
	m->nchans = 0;
	scry_metrics_abi(m->cfg, m->descs, m->max_entries, m->sc_masks, m->bounds);
	/* the events channel of the process spans first: a metrics channel comes last */
	if (m->cfg->process_spans)   /* its sink is set by cli_metrics_start */
		m->chans[m->nchans++] = (struct scry_channel_opts){
			.name = "spans", .kind = SCRY_CHANNEL_EVENTS, .events = scry_procspans_events,
			.nevents = scry_procspans_nevents,
			.ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID),
		};
	if (m->cfg->nmetrics + m->cfg->nspans)
		m->chans[m->nchans++] = (struct scry_channel_opts){
			.name = "metrics", .kind = SCRY_CHANNEL_METRICS, .metrics = m->descs,
			.metric_max_entries = m->max_entries, .nmetrics = (unsigned)(m->cfg->nmetrics + m->cfg->nspans),
			.metric_sc = m->sc_masks, .metric_bounds = m->bounds,
			.span_mark = m->mark.path ? &m->mark : NULL,
		};
}

int cli_metrics_prepare(struct cli_metrics *m, const char *path, const char *text, const char *name,
			char *err, size_t errlen)
{
	if (m->all && m->npids) {
		snprintf(err, errlen, "-a and -p are exclusive: -a already covers every process");
		return -1;
	}
	if (m->cmd && (m->all || m->npids || m->track.npids)) {
		snprintf(err, errlen, "a command cannot be combined with -a, -p or --track-pid");
		return -1;
	}
	m->so.target_all = !m->cmd && !m->npids;
	if (cli_track_apply(&m->track, &m->so, &m->pids, &m->npids)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (cli_resolve_pids(m->pids, m->npids, false, err, errlen) ||
	    cli_metrics_config(m, NULL, path, text, name, err, errlen))
		return -1;
	if (m->track.filter && m->cfg->process_spans) {   /* the filter would decide their events too */
		snprintf(err, errlen, "--filter decides the metrics' syscalls: it cannot be combined with process spans "
			 "(tracing: spans: - name: process)");
		return -1;
	}
	m->so.channels = m->chans;
	m->so.nchannels = m->nchans;
	m->so.catalog = m->cat;
	return 0;
}

void cli_metrics_on_child(void *ctx, pid_t pid)
{
	trace_live_gate_exec(ctx, (int)pid);   /* its spans start at its execve */
}

int cli_metrics_spans_new(struct cli_metrics *m, char *err, size_t errlen)
{
	if ((m->cfg->process_spans || m->cfg->nspans) && scry_otlp_start(&m->exp, err, errlen))
		return -1;
	if (m->cfg->process_spans) {
		struct trace_live_ops ops;

		if (!(m->spans = scry_procspans_new(m->exp)))
			goto oom;
		scry_procspans_ops(m->spans, &ops);
		if (!(m->live = trace_live_new(&ops)))
			goto oom;
	}
	if (m->cfg->nspans && !(m->kspans = scry_kernspans_new(m->exp, m->spans, &m->sn)))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int cli_metrics_spans_open(struct cli_metrics *m, char *err, size_t errlen)
{
	if (m->kspans && scry_kernspans_open(m->kspans, scry_session_span_fd(m->s), err, errlen))
		return -1;
	return 0;
}

int cli_metrics_start(struct cli_metrics *m, void (*on_signal)(int), char *err, size_t errlen)
{
	if (scry_check_privileges("scry", err, errlen))
		return -1;
	scry_features_prefetch();
	if (m->cmd && scry_spawn_check(m->cmd[0], err, errlen))
		return -1;
	if (cli_metrics_spans_new(m, err, errlen))
		return -1;
	if (m->live) {       /* the process spans' events channel is the first */
		m->chans[0].sink = trace_live_sink;
		m->chans[0].sink_ctx = m->live;
	}
	if (scry_session_create(&m->s, &m->so, err, errlen) ||
	    (m->live && trace_live_bind(m->live, m->s, err, errlen)) || scry_session_load(m->s, err, errlen))
		return -1;
	for (unsigned i = 0; i < m->cfg->nmetrics; i++)
		m->fds[i] = scry_session_metric_fd(m->s, i);
	if (cli_metrics_spans_open(m, err, errlen))
		return -1;
	if (cli_launch(m->s, m->pids, m->npids, m->cmd, &m->child, on_signal, m->live ? cli_metrics_on_child : NULL,
		       m->live, err, errlen)) {
		if (m->child.pid > 0 && m->child.held)
			scry_spawn_abort(&m->child);
		return -1;
	}
	return 0;
}

#define LIVE_LAG_NS (4 * 1000 * 1000ULL)   /* events older than this are in time order */

static void pump_live(void *ctx, uint64_t horizon)
{
	trace_live_pump(ctx, horizon);
}

/* The kernel spans and the process spans' events up to horizon, in time order. */
static void pump_spans(struct cli_metrics *m, uint64_t horizon)
{
	if (m->kspans) {
		scry_kernspans_poll(m->kspans);
		scry_kernspans_flush(m->kspans, horizon, m->live ? pump_live : NULL, m->live);
	}
	if (m->live)
		trace_live_pump(m->live, horizon);
}

void cli_metrics_pump(void *ctx, uint64_t now)
{
	pump_spans(ctx, now > LIVE_LAG_NS ? now - LIVE_LAG_NS : 0);
}

bool cli_metrics_spans(const struct cli_metrics *m)
{
	return m->live || m->kspans;
}

int cli_metrics_read(struct cli_metrics *m, struct scry_metrics_snap *out)
{
	return scry_metrics_read(m->cfg, m->fds, &m->sn, out);
}

void cli_metrics_spans_end(struct cli_metrics *m)
{
	struct timespec now;
	struct scry_otlp_stats *st = &m->span_stats;
	uint64_t dropped;
	char *u;

	if (!m->exp)
		return;
	pump_spans(m, UINT64_MAX);
	clock_gettime(CLOCK_REALTIME, &now);
	if (m->spans)
		scry_procspans_finish(m->spans, (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec);
	u = strdup(scry_otlp_endpoint(m->exp) ? scry_otlp_endpoint(m->exp) : "?");
	scry_otlp_stop(m->exp, 5 * 1000000000ULL, st);
	m->exp = NULL;
	dropped = st->dropped_queue_full + st->dropped_failed + st->dropped_at_exit;
	fprintf(stderr, "scry: %llu spans sent to %s, %llu dropped (queue full %llu, collector failed %llu, "
		"unsent at exit %llu), %llu retries\n", (unsigned long long)st->sent, u ? u : "?",
		(unsigned long long)dropped, (unsigned long long)st->dropped_queue_full,
		(unsigned long long)st->dropped_failed, (unsigned long long)st->dropped_at_exit,
		(unsigned long long)st->retries);
	free(u);
	if (m->mark.path) {
		struct scry_metric_stats ks;

		if (m->s && !scry_session_metric_stats(m->s, &ks))
			fprintf(stderr, "scry: span marks: %llu lost (no memory for a thread's mark, or %u block "
				"requests in flight)\n", (unsigned long long)ks.marks_lost, SCRY_BLK_MARKS_MAX);
	}
}

void cli_metrics_stop(struct cli_metrics *m)
{
	struct scry_session_summary sum;
	char err[256];

	if (m->s && scry_session_stop(m->s, &sum, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	cli_metrics_spans_end(m);
}

void cli_metrics_free(struct cli_metrics *m)
{
	struct scry_otlp_stats st;

	scry_session_destroy(m->s);
	if (m->exp)
		scry_otlp_stop(m->exp, 0, &st);
	trace_live_free(m->live);
	scry_kernspans_free(m->kspans);
	scry_procspans_free(m->spans);
	scry_metrics_config_free(m->cfg);
	free((char *)m->mark.path);
	free(m->sc_names);
	free(m->sc_masks);
	free(m->pids);
	cli_track_free(&m->track);
	if (!m->shared_cat)
		scry_catalog_close(m->cat);
	memset(m, 0, sizeof(*m));
}
