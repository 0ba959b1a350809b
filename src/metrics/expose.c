/* expose.c — Prometheus and OpenMetrics text (see expose.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/expose.h"

/* The shortest text that reads back as v. */
static void fmt_double(char *buf, size_t len, double v)
{
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* A label value escaped: \ " and newline. */
static void put_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void put_help(FILE *f, const char *family, const char *help)
{
	fprintf(f, "# HELP %s ", family);
	for (; *help; help++) {
		if (*help == '\\')
			fputs("\\\\", f);
		else if (*help == '\n')
			fputs("\\n", f);
		else
			fputc(*help, f);
	}
	fputc('\n', f);
}

static void put_labels(FILE *f, const struct scry_metric *m, const struct scry_series *s, const char *le)
{
	bool any = false;

	if (!m->nlabels && !le)
		return;
	fputc('{', f);
	for (size_t i = 0; i < m->nlabels; i++) {
		fprintf(f, "%s%s=\"", any ? "," : "", m->labels[i].name);
		put_value(f, s->values[i]);
		fputc('"', f);
		any = true;
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", any ? "," : "", le);
	fputc('}', f);
}

/* A counter family's name: OpenMetrics names the family without _total. */
static void family_name(char *buf, size_t len, const char *name, bool counter, bool om)
{
	size_t n = strlen(name);

	if (counter && om && n > 6 && !strcmp(name + n - 6, "_total"))
		snprintf(buf, len, "%.*s", (int)(n - 6), name);
	else
		snprintf(buf, len, "%s", name);
}

static void put_metric(FILE *f, const struct scry_metric_snap *ms, bool om)
{
	const struct scry_metric *m = ms->m;
	bool counter = m->desc.kind == SCRY_METRIC_COUNTER;
	char fam[256], num[64];

	family_name(fam, sizeof(fam), m->name, counter, om);
	put_help(f, fam, m->help);
	fprintf(f, "# TYPE %s %s\n", fam, counter ? "counter" : "histogram");
	for (size_t i = 0; i < ms->n; i++) {
		const struct scry_series *s = &ms->series[i];

		if (counter) {
			fprintf(f, "%s%s", fam, om ? "_total" : "");
			put_labels(f, m, s, NULL);
			fprintf(f, " %" PRIu64 "\n", s->value);
			continue;
		}
		uint64_t cum = 0;
		for (size_t b = 0; b <= m->desc.bucket_max - m->desc.bucket_min; b++) {
			cum += s->buckets[b];
			fmt_double(num, sizeof(num), scry_metric_bucket_le(m, b) * m->multiplier);
			fprintf(f, "%s_bucket", fam);
			put_labels(f, m, s, num);
			fprintf(f, " %" PRIu64 "\n", cum);
		}
		fprintf(f, "%s_bucket", fam);
		put_labels(f, m, s, "+Inf");
		fprintf(f, " %" PRIu64 "\n", s->count);
		fmt_double(num, sizeof(num), (double)s->sum * m->multiplier);
		fprintf(f, "%s_sum", fam);
		put_labels(f, m, s, NULL);
		fprintf(f, " %s\n", num);
		fprintf(f, "%s_count", fam);
		put_labels(f, m, s, NULL);
		fprintf(f, " %" PRIu64 "\n", s->count);
	}
}

/* A counter family of one sample per metric (label metric="NAME"), or none. */
static void put_per_metric(FILE *f, const struct scry_metrics_snap *snap, const char *name, const char *help,
			   const uint64_t *vals, bool om)
{
	char fam[128];

	family_name(fam, sizeof(fam), name, true, om);
	put_help(f, fam, help);
	fprintf(f, "# TYPE %s counter\n", fam);
	for (size_t i = 0; i < snap->n; i++)
		fprintf(f, "%s%s{metric=\"%s\"} %" PRIu64 "\n", fam, om ? "_total" : "", snap->m[i].m->name, vals[i]);
}

static void put_counter(FILE *f, const char *name, const char *help, uint64_t v, bool om)
{
	char fam[128];

	family_name(fam, sizeof(fam), name, true, om);
	put_help(f, fam, help);
	fprintf(f, "# TYPE %s counter\n%s%s %" PRIu64 "\n", fam, fam, om ? "_total" : "", v);
}

static void put_self(FILE *f, const struct scry_metrics_snap *snap, const struct scry_expose_self *self, bool om)
{
	uint64_t *v = calloc(snap->n ? snap->n : 1, sizeof(uint64_t));
	char num[64], fam[128];

	if (!v)
		return;
	static const struct scry_metric_stats none;
	const struct scry_metric_stats *ks = self->ks ? self->ks : &none;
	static const struct { const char *reason; size_t off; } why[] = {
		{ "no_memory", offsetof(struct scry_metric_stats, no_memory) },
		{ "busy", offsetof(struct scry_metric_stats, busy) },
		{ "other", offsetof(struct scry_metric_stats, failed) },
	};

	put_counter(f, "scry_events_total", "Syscall exits that updated at least one metric.", ks->events, om);
	put_counter(f, "scry_latency_unmeasured_total",
		    "Calls whose latency was not measured (their entry came before the start).", ks->no_entry, om);
	put_counter(f, "scry_span_marks_lost_total",
		    "Span marks lost (tracing: parent:): no storage for a thread's mark, or too many block requests in "
		    "flight.", ks->marks_lost, om);
	for (size_t i = 0; i < snap->n; i++)
		v[i] = i < SCRY_METRICS_MAX ? ks->overflow[i] : 0;
	put_per_metric(f, snap, "scry_metric_overflow_total",
		       "Updates lost because the metric's map was full (max_entries series).", v, om);
	family_name(fam, sizeof(fam), "scry_metric_insert_failures_total", true, om);
	put_help(f, fam, "Updates lost because a new series could not be inserted, the map not full: no_memory (the "
		 "kernel's BPF allocator had none at hand: a burst of new series), busy (the map's lock held by the "
		 "program this one interrupted), other.");
	fprintf(f, "# TYPE %s counter\n", fam);
	for (size_t i = 0; i < snap->n; i++)
		for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++)
			fprintf(f, "%s%s{metric=\"%s\",reason=\"%s\"} %" PRIu64 "\n", fam, om ? "_total" : "",
				snap->m[i].m->name, why[k].reason,
				i < SCRY_METRICS_MAX ? (uint64_t)((const __u64 *)((const char *)ks + why[k].off))[i] : 0);
	for (size_t i = 0; i < snap->n; i++)
		v[i] = snap->m[i].decode_errors;
	put_per_metric(f, snap, "scry_decoder_errors_total",
		       "Kernel series left out because a label could not be decoded.", v, om);
	for (size_t i = 0; i < snap->n; i++)
		v[i] = snap->m[i].error ? 1 : 0;
	put_help(f, "scry_metric_read_errors", "1 when the metric's map could not be read whole at this scrape.");
	fprintf(f, "# TYPE scry_metric_read_errors gauge\n");
	for (size_t i = 0; i < snap->n; i++)
		fprintf(f, "scry_metric_read_errors{metric=\"%s\"} %" PRIu64 "\n", snap->m[i].m->name, v[i]);
	free(v);

	put_help(f, "scry_bpf_stats_enabled", "1 when the kernel counts BPF program runs (BPF_ENABLE_STATS).");
	fprintf(f, "# TYPE scry_bpf_stats_enabled gauge\nscry_bpf_stats_enabled %d\n", self->bpf_stats ? 1 : 0);
	family_name(fam, sizeof(fam), "scry_bpf_program_runs_total", true, om);
	put_help(f, fam, "Runs of each scry BPF program (counted while BPF stats are enabled).");
	fprintf(f, "# TYPE %s counter\n", fam);
	for (size_t i = 0; i < self->nprogs; i++)
		fprintf(f, "%s%s{program=\"%s\"} %" PRIu64 "\n", fam, om ? "_total" : "", self->progs[i].name,
			self->progs[i].run_cnt);
	family_name(fam, sizeof(fam), "scry_bpf_program_run_seconds_total", true, om);
	put_help(f, fam, "Time spent in each scry BPF program (counted while BPF stats are enabled).");
	fprintf(f, "# TYPE %s counter\n", fam);
	for (size_t i = 0; i < self->nprogs; i++) {
		fmt_double(num, sizeof(num), (double)self->progs[i].run_time_ns * 1e-9);
		fprintf(f, "%s%s{program=\"%s\"} %s\n", fam, om ? "_total" : "", self->progs[i].name, num);
	}
	family_name(fam, sizeof(fam), "scry_bpf_program_recursion_misses_total", true, om);
	put_help(f, fam, "Runs of each scry BPF program the kernel skipped (it was already running on that CPU).");
	fprintf(f, "# TYPE %s counter\n", fam);
	for (size_t i = 0; i < self->nprogs; i++)
		fprintf(f, "%s%s{program=\"%s\"} %" PRIu64 "\n", fam, om ? "_total" : "", self->progs[i].name,
			self->progs[i].recursion_misses);
	put_counter(f, "scry_scrapes_total", "Scrapes served.", self->scrapes, om);
	if (self->spans) {
		put_counter(f, "scry_spans_sent_total", "Spans the OTLP collector accepted.", self->spans_sent, om);
		put_counter(f, "scry_spans_dropped_total",
			    "Spans lost: the queue was full, or the collector failed after every retry.",
			    self->spans_dropped, om);
		put_counter(f, "scry_span_export_retries_total", "OTLP requests sent again.", self->spans_retries, om);
	}
	put_help(f, "scry_last_scrape_duration_seconds", "How long the previous scrape took to read and render.");
	fmt_double(num, sizeof(num), self->last_scrape_seconds);
	fprintf(f, "# TYPE scry_last_scrape_duration_seconds gauge\nscry_last_scrape_duration_seconds %s\n", num);
}

int scry_metrics_expose(FILE *f, const struct scry_metrics_snap *snap, const struct scry_expose_self *self,
			bool openmetrics)
{
	for (size_t i = 0; i < snap->n; i++)
		put_metric(f, &snap->m[i], openmetrics);
	if (self)
		put_self(f, snap, self, openmetrics);
	if (openmetrics)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

bool scry_accepts_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text");
}
