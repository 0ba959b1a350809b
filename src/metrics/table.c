/* table.c — scry top's table (see table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/table.h"

const char scry_top_config[] =
	"metrics:\n"
	"  counters:\n"
	"    - name: scry_top_calls_total\n"
	"      max_entries: 65536\n"
	"      labels: &labels\n"
	"        - {name: pid, source: pid}\n"
	"        - {name: comm, source: comm}\n"
	"        - {name: syscall, source: syscall}\n"
	"        - {name: container, source: container}\n"
	"        - {name: tid, source: tid}\n"
	"    - name: scry_top_errors_total\n"
	"      when: error\n"
	"      max_entries: 65536\n"
	"      labels: *labels\n"
	"    - name: scry_top_bytes_total\n"
	"      value: ret\n"
	"      when: success\n"
	"      max_entries: 65536\n"
	"      syscalls: [read, write, pread64, pwrite64, readv, writev, preadv, pwritev, preadv2, pwritev2,\n"
	"                 recvfrom, sendto, recvmsg, sendmsg, sendfile, splice, copy_file_range]\n"
	"      labels: *labels\n"
	"  histograms:\n"
	"    - name: scry_top_latency_seconds\n"
	"      bucket_min: 0\n"
	"      bucket_max: 40\n"
	"      max_entries: 65536\n"
	"      labels: *labels\n";

struct entry {
	unsigned metric;
	const struct scry_series *s;      /* values: pid, comm, syscall, container, tid */
};

#define NKEYS 5

static bool g_threads;                /* the build's: rows per thread (tid in the key) */

/* Rows and entries are ordered by (pid, comm, syscall, container[, tid]), compared as
 * strings; without threads the tids' series fall in one row. */
static int cmp_keys(const char *const a[NKEYS], const char *const b[NKEYS])
{
	for (int i = 0; i < (g_threads ? NKEYS : NKEYS - 1); i++) {
		int c = strcmp(a[i], b[i]);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return cmp_keys((const char *const *)x->s->values, (const char *const *)y->s->values);
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct scry_top_row *x = a, *y = b;
	const char *kx[NKEYS] = { x->pid, x->comm, x->syscall, x->container, x->tid },
		   *ky[NKEYS] = { y->pid, y->comm, y->syscall, y->container, y->tid };

	return cmp_keys(kx, ky);
}

static const struct scry_top_row *find(const struct scry_top_table *t, const struct scry_top_row *r)
{
	return t && t->n && t->threads == g_threads ? bsearch(r, t->rows, t->n, sizeof(*t->rows), cmp_row_key) : NULL;
}

/* The p50 and p99 of r's latency buckets (merged over its threads' series). */
static void quantiles(struct scry_top_row *r, const struct scry_metric *lat, uint64_t *buckets, uint64_t count)
{
	struct scry_series s = { .count = count, .buckets = buckets };

	r->p50_ns = scry_metric_quantile(lat, &s, 0.5);
	r->p99_ns = scry_metric_quantile(lat, &s, 0.99);
}

int scry_top_table_build(struct scry_top_table *out, const struct scry_metrics_snap *snap, uint64_t t_ns,
			 const struct scry_top_table *prev, bool threads)
{
	struct entry *e;
	size_t ne = 0, total = 0, nb = 0;
	double dt = prev && prev->t_ns && t_ns > prev->t_ns ? (t_ns - prev->t_ns) / 1e9 : 0;
	const struct scry_metric *lat = snap->n > SCRY_TOP_LATENCY ? snap->m[SCRY_TOP_LATENCY].m : NULL;
	uint64_t *buckets = NULL, count = 0;   /* the current row's latency, merged */

	memset(out, 0, sizeof(*out));
	out->t_ns = t_ns;
	out->threads = threads;
	g_threads = threads;
	if (lat)
		nb = (size_t)(lat->desc.bucket_max - lat->desc.bucket_min + 1);
	for (size_t i = 0; i < snap->n && i < SCRY_TOP_NMETRICS; i++)
		total += snap->m[i].n;
	if (!(e = calloc(total ? total : 1, sizeof(*e))) || !(buckets = calloc(nb ? nb : 1, sizeof(*buckets)))) {
		free(e);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < snap->n && i < SCRY_TOP_NMETRICS; i++)
		for (size_t j = 0; j < snap->m[i].n; j++) {
			const struct scry_series *s = &snap->m[i].series[j];

			e[ne].metric = i;
			e[ne++].s = s;
		}
	qsort(e, ne, sizeof(*e), cmp_entry);
	if (!(out->rows = calloc(ne ? ne : 1, sizeof(*out->rows))))
		goto oom;
	for (size_t i = 0; i < ne; i++) {
		struct scry_top_row *r;

		if (!i || cmp_entry(&e[i - 1], &e[i])) {
			if (out->n && count)
				quantiles(&out->rows[out->n - 1], lat, buckets, count);
			memset(buckets, 0, (nb ? nb : 1) * sizeof(*buckets));
			count = 0;
			r = &out->rows[out->n++];
			r->pid = strdup(e[i].s->values[0]);
			r->comm = strdup(e[i].s->values[1]);
			r->syscall = strdup(e[i].s->values[2]);
			r->container = strdup(e[i].s->values[3]);
			r->tid = strdup(threads ? e[i].s->values[4] : "");
			r->p50_ns = r->p99_ns = -1;
			if (!r->pid || !r->comm || !r->syscall || !r->container || !r->tid)
				goto oom;
		} else {
			r = &out->rows[out->n - 1];
		}
		switch (e[i].metric) {
		case SCRY_TOP_CALLS: r->calls += e[i].s->value; break;
		case SCRY_TOP_ERRORS: r->errors += e[i].s->value; break;
		case SCRY_TOP_BYTES: r->bytes += e[i].s->value; break;
		case SCRY_TOP_LATENCY:
			for (size_t k = 0; e[i].s->buckets && k < nb; k++)
				buckets[k] += e[i].s->buckets[k];
			count += e[i].s->count;
			break;
		}
	}
	if (out->n && count)
		quantiles(&out->rows[out->n - 1], lat, buckets, count);
	for (size_t i = 0; i < out->n; i++) {
		struct scry_top_row *r = &out->rows[i];
		const struct scry_top_row *p = find(prev, r);

		if (dt > 0) {
			r->calls_rate = (double)(r->calls - (p ? p->calls : 0)) / dt;
			r->errors_rate = (double)(r->errors - (p ? p->errors : 0)) / dt;
			r->bytes_rate = (double)(r->bytes - (p ? p->bytes : 0)) / dt;
		}
	}
	free(e);
	free(buckets);
	return 0;
oom:
	free(e);
	free(buckets);
	scry_top_table_free(out);
	return -ENOMEM;
}

static enum scry_top_sort g_by;

static int cmp_rows(const void *a, const void *b)
{
	const struct scry_top_row *x = a, *y = b;
	double vx, vy;

	switch (g_by) {
	case SCRY_TOP_BY_ERRORS: vx = x->errors_rate + x->errors * 1e-12; vy = y->errors_rate + y->errors * 1e-12; break;
	case SCRY_TOP_BY_LATENCY: vx = x->p99_ns; vy = y->p99_ns; break;
	case SCRY_TOP_BY_BYTES: vx = x->bytes_rate + x->bytes * 1e-12; vy = y->bytes_rate + y->bytes * 1e-12; break;
	default: vx = x->calls_rate + x->calls * 1e-12; vy = y->calls_rate + y->calls * 1e-12; break;
	}
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return cmp_row_key(x, y);
}

void scry_top_table_sort(struct scry_top_table *t, enum scry_top_sort by)
{
	g_by = by;
	g_threads = t->threads;
	qsort(t->rows, t->n, sizeof(*t->rows), cmp_rows);
}

void scry_top_table_sort_keys(struct scry_top_table *t)
{
	g_threads = t->threads;
	qsort(t->rows, t->n, sizeof(*t->rows), cmp_row_key);
}

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.3gus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gs", ns / 1e9);
}

void scry_top_table_print(FILE *f, const struct scry_top_table *t, enum scry_top_sort by, size_t max_rows,
			  double interval_s)
{
	static const char *const by_name[] = { "calls/s", "errors/s", "p99 latency", "bytes/s" };
	char p50[16], p99[16];

	fprintf(f, "scry top: %zu rows, sorted by %s (keys: c calls, e errors, l latency, b bytes, q quit)\n", t->n,
		by_name[by]);
	fprintf(f, "%8s %-16s %-18s %10s %10s %8s %8s %8s %8s %12s %12s  %s\n", t->threads ? "TID" : "PID", "COMM",
		"SYSCALL", "CALLS",
		"CALLS/s", "ERRORS", "ERRORS/s", "P50<=", "P99<=", "BYTES", "BYTES/s", "CONTAINER");
	for (size_t i = 0; i < t->n && (!max_rows || i < max_rows); i++) {
		const struct scry_top_row *r = &t->rows[i];

		fmt_ns(p50, sizeof(p50), r->p50_ns);
		fmt_ns(p99, sizeof(p99), r->p99_ns);
		fprintf(f, "%8s %-16s %-18s %10llu %10.1f %8llu %8.1f %8s %8s %12llu %12.0f  %s\n",
			t->threads ? r->tid : r->pid, r->comm,
			r->syscall, (unsigned long long)r->calls, r->calls_rate, (unsigned long long)r->errors,
			r->errors_rate, p50, p99, (unsigned long long)r->bytes, r->bytes_rate,
			r->container[0] ? r->container : "-");
	}
	(void)interval_s;
}

void scry_top_table_free(struct scry_top_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].pid);
		free(t->rows[i].comm);
		free(t->rows[i].syscall);
		free(t->rows[i].container);
		free(t->rows[i].tid);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
