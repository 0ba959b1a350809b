/* summary.c — see summary.h.  The arithmetic follows strace's count.c so that the same
 * nanoseconds give the same digits: seconds as sec + nsec / 1e9 printed with %.6f, the
 * average per call an integer division in nanoseconds, then microseconds truncated,
 * percentages 100 * time / total (0 when the total is 0). */
#include <stdlib.h>
#include <string.h>
#include "trace/summary.h"

struct row {
	int nr;                 /* < 0: unknown */
	char *name;
	uint64_t calls, errors, ns;
	size_t order;           /* insertion order, for rows without a number */
};

struct trace_summary {
	struct row *rows;
	size_t n, cap;
	int by_nr[TRACE_NR_MAX];    /* row index + 1, 0 if none */
};

struct trace_summary *trace_summary_new(void)
{
	return calloc(1, sizeof(struct trace_summary));
}

void trace_summary_free(struct trace_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->rows[i].name);
	free(s->rows);
	free(s);
}

static struct row *find_row(struct trace_summary *s, int nr, const char *name)
{
	struct row *r;

	if (nr >= 0 && nr < TRACE_NR_MAX && s->by_nr[nr])
		return &s->rows[s->by_nr[nr] - 1];
	if (nr < 0 || nr >= TRACE_NR_MAX)
		for (size_t i = 0; i < s->n; i++)
			if (s->rows[i].nr == nr && !strcmp(s->rows[i].name, name))
				return &s->rows[i];
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct row *nr_ = realloc(s->rows, ncap * sizeof(*nr_));

		if (!nr_)
			return NULL;
		s->rows = nr_;
		s->cap = ncap;
	}
	r = &s->rows[s->n];
	memset(r, 0, sizeof(*r));
	if (!(r->name = strdup(name ? name : "?")))
		return NULL;
	r->nr = nr;
	r->order = s->n++;
	if (nr >= 0 && nr < TRACE_NR_MAX)
		s->by_nr[nr] = (int)s->n;
	return r;
}

int trace_summary_add(struct trace_summary *s, int nr, const char *name, uint64_t calls, uint64_t errors,
		      uint64_t total_ns)
{
	struct row *r = find_row(s, nr, name);

	if (!r)
		return -1;
	r->calls += calls;
	r->errors += errors;
	r->ns += total_ns;
	return 0;
}

void trace_summary_call(struct trace_summary *s, const struct trace_call *c)
{
	uint64_t ns = 0;

	if (!c->have_exit)
		return;
	if (c->have_entry && c->ts_exit > c->ts_entry)
		ns = (uint64_t)(c->ts_exit - c->ts_entry);
	trace_summary_add(s, c->nr, c->name, 1, c->ret >= -4095 && c->ret <= -1, ns);
}

/* strace's ts_float */
static double secs(uint64_t ns)
{
	return (double)(ns / 1000000000u) + (double)(ns % 1000000000u) / 1e9;
}

static uint64_t avg_us(const struct row *r)
{
	return r->calls ? (uint64_t)(secs(r->ns / r->calls) * 1e6) : 0;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	enum trace_sort sort_key = *(const enum trace_sort *)arg;
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	int c = 0;

	switch (sort_key) {
	case TRACE_SORT_TIME:
		c = (x->ns < y->ns) - (x->ns > y->ns);
		break;
	case TRACE_SORT_AVG: {
		uint64_t ax = x->calls ? x->ns / x->calls : 0, ay = y->calls ? y->ns / y->calls : 0;
		c = (ax < ay) - (ax > ay);
		break;
	}
	case TRACE_SORT_CALLS:
		c = (x->calls < y->calls) - (x->calls > y->calls);
		break;
	case TRACE_SORT_ERRORS:
		c = (x->errors < y->errors) - (x->errors > y->errors);
		break;
	case TRACE_SORT_NAME:
		c = strcmp(x->name, y->name);
		break;
	case TRACE_SORT_NOTHING:
		break;
	}
	if (c)
		return c;
	/* syscall number order (strace's table order), unknown numbers after, as added */
	if ((x->nr < 0) != (y->nr < 0))
		return x->nr < 0 ? 1 : -1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int digits(uint64_t v)
{
	return snprintf(NULL, 0, "%llu", (unsigned long long)v);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void dashes(FILE *f, const int *w)
{
	for (int i = 0; i < 6; i++) {
		if (i)
			fputc(' ', f);
		for (int j = 0; j < w[i]; j++)
			fputc('-', f);
	}
	fputc('\n', f);
}

int trace_summary_print(const struct trace_summary *s, FILE *f, enum trace_sort sortby)
{
	const struct row **v = NULL;
	uint64_t tot_ns = 0, tot_calls = 0, tot_err = 0, max_avg = 0;
	size_t n = 0, name_max = 0;
	double tot;
	int w[6];

	if (s->n && !(v = malloc(s->n * sizeof(*v))))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct row *r = &s->rows[i];

		if (!r->calls)
			continue;
		v[n++] = r;
		tot_ns += r->ns;
		tot_calls += r->calls;
		tot_err += r->errors;
		if (avg_us(r) > max_avg)
			max_avg = avg_us(r);
		if (strlen(r->name) > name_max)
			name_max = strlen(r->name);
	}
	if (n)
		qsort_r(v, n, sizeof(*v), cmp_rows, &sortby);
	tot = secs(tot_ns);
	w[0] = 6;
	w[1] = max_int(11, snprintf(NULL, 0, "%.6f", tot));
	w[2] = max_int(11, digits(max_avg));
	w[3] = max_int(9, digits(tot_calls));
	w[4] = max_int(9, digits(tot_err));
	w[5] = max_int(16, (int)name_max + 1);

	fprintf(f, "%*s %*s %*s %*s %*s %s\n", w[0], "% time", w[1], "seconds", w[2], "usecs/call",
		w[3], "calls", w[4], "errors", "syscall");
	dashes(f, w);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = v[i];
		double t = secs(r->ns), pct = 100.0 * t;

		if (pct != 0.0)
			pct /= tot;
		fprintf(f, "%*.2f %*.6f %*llu %*llu %*.0llu %s\n", w[0], pct, w[1], t, w[2],
			(unsigned long long)avg_us(r), w[3], (unsigned long long)r->calls, w[4],
			(unsigned long long)r->errors, r->name);
	}
	dashes(f, w);
	fprintf(f, "%*.2f %*.6f %*llu %*llu %*.0llu %s\n", w[0], 100.0, w[1], tot, w[2],
		(unsigned long long)(tot_calls ? (uint64_t)(tot / (double)tot_calls * 1e6) : 0), w[3],
		(unsigned long long)tot_calls, w[4], (unsigned long long)tot_err, "total");
	free(v);
	return ferror(f) ? -1 : 0;
}
