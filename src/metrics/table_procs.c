/* table_procs.c — scry top's process view (see table.h): the (pid, comm, syscall) rows of a
 * table summed per pid, with the whole table's rates in a header, as top's summary area. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/table.h"

static bool g_threads;

/* The row's group: its process, or its thread. */
static const char *group(const struct scry_top_row *r)
{
	return g_threads ? r->tid : r->pid;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct scry_top_row *const *x = a, *const *y = b;
	long px = strtol(group(*x), NULL, 10), py = strtol(group(*y), NULL, 10);

	return px < py ? -1 : px > py;
}

/* Is r busier than the row of p's busiest so far? */
static bool busier(const struct scry_top_row *r, double rate, uint64_t calls)
{
	return r->calls_rate > rate || (r->calls_rate == rate && r->calls > calls);
}

int scry_top_procs_build(struct scry_top_procs *out, const struct scry_top_table *t,
			 bool (*exited)(const char *pid, void *ctx), void *ctx)
{
	const struct scry_top_row **rows;
	double best_rate = 0;
	uint64_t best_calls = 0;

	memset(out, 0, sizeof(*out));
	out->threads = g_threads = t->threads;
	if (!(rows = calloc(t->n ? t->n : 1, sizeof(*rows))) || !(out->p = calloc(t->n ? t->n : 1, sizeof(*out->p)))) {
		free(rows);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		rows[i] = &t->rows[i];
	qsort(rows, t->n, sizeof(*rows), cmp_pid);
	for (size_t i = 0; i < t->n; i++) {
		const struct scry_top_row *r = rows[i];
		struct scry_top_proc *p;

		if (!out->n || strcmp(out->p[out->n - 1].pid, group(r))) {
			p = &out->p[out->n++];
			p->pid = group(r);
			p->comm = r->comm;
			p->container = r->container;
			p->busiest = r->syscall;
			p->exited = r->exited || (exited && exited(r->pid, ctx));   /* (its process) */
			best_rate = r->calls_rate;
			best_calls = r->calls;
		} else {
			p = &out->p[out->n - 1];
			if (busier(r, best_rate, best_calls)) {
				p->busiest = r->syscall;
				p->comm = r->comm;     /* after an exec: the name it has now, mostly */
				best_rate = r->calls_rate;
				best_calls = r->calls;
			}
		}
		p->calls += r->calls;
		p->errors += r->errors;
		p->bytes += r->bytes;
		p->calls_rate += r->calls_rate;
		p->errors_rate += r->errors_rate;
		p->bytes_rate += r->bytes_rate;
		out->calls_rate += r->calls_rate;
		out->errors_rate += r->errors_rate;
	}
	free(rows);
	return 0;
}

static enum scry_top_sort g_by;

static int cmp_procs(const void *a, const void *b)
{
	const struct scry_top_proc *x = a, *y = b;
	double vx, vy;

	switch (g_by) {
	case SCRY_TOP_BY_ERRORS: vx = x->errors_rate + x->errors * 1e-12; vy = y->errors_rate + y->errors * 1e-12; break;
	case SCRY_TOP_BY_BYTES: vx = x->bytes_rate + x->bytes * 1e-12; vy = y->bytes_rate + y->bytes * 1e-12; break;
	default: vx = x->calls_rate + x->calls * 1e-12; vy = y->calls_rate + y->calls * 1e-12; break;
	}
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strtol(x->pid, NULL, 10) < strtol(y->pid, NULL, 10) ? -1 : 1;
}

void scry_top_procs_sort(struct scry_top_procs *p, enum scry_top_sort by)
{
	g_by = by;
	qsort(p->p, p->n, sizeof(*p->p), cmp_procs);
}

void scry_top_procs_print(FILE *f, const struct scry_top_procs *p, enum scry_top_sort by, size_t max_rows)
{
	static const char *const by_name[] = { "calls/s", "errors/s", "calls/s", "bytes/s" };

	fprintf(f, "scry top: %zu %s, %.1f calls/s, %.1f errors/s, sorted by %s "
		"(keys: s syscalls, H threads, c calls, e errors, b bytes, q quit)\n", p->n,
		p->threads ? "threads" : "processes", p->calls_rate, p->errors_rate, by_name[by]);
	fprintf(f, "%8s %-16s %10s %10s %8s %8s %12s %12s  %-12s  %s\n", p->threads ? "TID" : "PID", "COMM", "CALLS",
		"CALLS/s", "ERRORS",
		"ERRORS/s", "BYTES", "BYTES/s", "CONTAINER", "BUSIEST");
	for (size_t i = 0; i < p->n && (!max_rows || i < max_rows); i++) {
		const struct scry_top_proc *r = &p->p[i];

		fprintf(f, "%8s %-16s %10llu %10.1f %8llu %8.1f %12llu %12.0f  %-12s  %s%s\n", r->pid, r->comm,
			(unsigned long long)r->calls, r->calls_rate, (unsigned long long)r->errors, r->errors_rate,
			(unsigned long long)r->bytes, r->bytes_rate, r->container && r->container[0] ? r->container : "-",
			r->busiest, r->exited ? " (exited)" : "");
	}
}

void scry_top_procs_free(struct scry_top_procs *p)
{
	free(p->p);
	memset(p, 0, sizeof(*p));
}
