/* summary.c — see summary.h.  The arithmetic follows strace's count.c so that the same
 * nanoseconds give the same digits: seconds as sec + nsec / 1e9 printed with %.6f, the
 * average per call an integer division in nanoseconds, then microseconds truncated,
 * percentages 100 * time / total (0 when the total is 0). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "trace/summary.h"

struct row {
	int nr;                 /* < 0: unknown */
	char *name;
	uint64_t calls, errors, ns;
	uint64_t min_ns, max_ns;    /* -U min-time, max-time: of the calls seen one by one */
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
	if (calls == 1) {
		if (r->calls == 1 || total_ns < r->min_ns)
			r->min_ns = total_ns;
		if (total_ns > r->max_ns)
			r->max_ns = total_ns;
	}
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

/* strace's -U names (count.c), '_' read as '-'. */
int trace_summary_columns(const char *spec, int *cols, size_t max, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		int col;
	} names[] = {
		{ "avg-time", TRACE_COL_AVG }, { "calls", TRACE_COL_CALLS }, { "count", TRACE_COL_CALLS },
		{ "error", TRACE_COL_ERRORS }, { "errors", TRACE_COL_ERRORS }, { "longest", TRACE_COL_MAX },
		{ "max-time", TRACE_COL_MAX }, { "min-time", TRACE_COL_MIN }, { "name", TRACE_COL_NAME },
		{ "shortest", TRACE_COL_MIN }, { "syscall", TRACE_COL_NAME }, { "syscall-name", TRACE_COL_NAME },
		{ "time", TRACE_COL_PERCENT }, { "time-avg", TRACE_COL_AVG }, { "time-max", TRACE_COL_MAX },
		{ "time-min", TRACE_COL_MIN }, { "time-percent", TRACE_COL_PERCENT }, { "time-total", TRACE_COL_TOTAL },
		{ "total-time", TRACE_COL_TOTAL },
	};
	size_t n = 0;
	bool name = false;
	const char *p = spec;

	while (*p) {
		size_t len = strcspn(p, ","), k;
		char tok[32];

		if (len >= sizeof(tok) || !len) {
			snprintf(err, errlen, "unknown column name '%.*s' in -U", (int)len, p);
			return -1;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		for (char *c = tok; *c; c++)
			if (*c == '_')
				*c = '-';
		for (k = 0; k < sizeof(names) / sizeof(names[0]) && strcmp(names[k].name, tok); k++)
			;
		if (k == sizeof(names) / sizeof(names[0])) {
			snprintf(err, errlen, "unknown column name '%s' in -U (expected time-percent, total-time, "
				 "min-time, max-time, avg-time, calls, errors, name)", tok);
			return -1;
		}
		if (n == max) {
			snprintf(err, errlen, "too many columns in -U");
			return -1;
		}
		name |= names[k].col == TRACE_COL_NAME;
		cols[n++] = names[k].col;
		p += len + (p[len] == ',');
	}
	if (!name && n < max)       /* strace: the name column always, last when not given */
		cols[n++] = TRACE_COL_NAME;
	return (int)n;
}

static void dashes(FILE *f, const int *cols, size_t n, const int *w)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(' ', f);
		for (int j = 0; j < w[cols[i]]; j++)
			fputc('-', f);
	}
	fputc('\n', f);
}

/* One row's cells; name NULL: the total row. */
struct cells {
	double pct, secs, min, max;
	uint64_t avg, calls, errors;
	const char *name;
};

static void put_row(FILE *f, const int *cols, size_t n, const int *w, const struct cells *c)
{
	for (size_t i = 0; i < n; i++) {
		int k = cols[i];

		if (i)
			fputc(' ', f);
		switch (k) {
		case TRACE_COL_PERCENT: fprintf(f, "%*.2f", w[k], c->pct); break;
		case TRACE_COL_TOTAL: fprintf(f, "%*.6f", w[k], c->secs); break;
		case TRACE_COL_MIN: fprintf(f, "%*.6f", w[k], c->min); break;
		case TRACE_COL_MAX: fprintf(f, "%*.6f", w[k], c->max); break;
		case TRACE_COL_AVG: fprintf(f, "%*llu", w[k], (unsigned long long)c->avg); break;
		case TRACE_COL_CALLS: fprintf(f, "%*llu", w[k], (unsigned long long)c->calls); break;
		case TRACE_COL_ERRORS: fprintf(f, "%*.0llu", w[k], (unsigned long long)c->errors); break;
		default: fprintf(f, "%-*s", i + 1 < n ? w[k] : 0, c->name); break;
		}
	}
	fputc('\n', f);
}

int trace_summary_print(const struct trace_summary *s, FILE *f, enum trace_sort sortby)
{
	static const int def[] = { TRACE_COL_PERCENT, TRACE_COL_TOTAL, TRACE_COL_AVG, TRACE_COL_CALLS,
				   TRACE_COL_ERRORS, TRACE_COL_NAME };

	return trace_summary_print_cols(s, f, sortby, def, sizeof(def) / sizeof(def[0]));
}

int trace_summary_print_cols(const struct trace_summary *s, FILE *f, enum trace_sort sortby, const int *cols,
			     size_t ncols)
{
	static const char *const heads[TRACE_COL_NR] = {
		[TRACE_COL_PERCENT] = "% time", [TRACE_COL_TOTAL] = "seconds", [TRACE_COL_MIN] = "shortest",
		[TRACE_COL_MAX] = "longest", [TRACE_COL_AVG] = "usecs/call", [TRACE_COL_CALLS] = "calls",
		[TRACE_COL_ERRORS] = "errors", [TRACE_COL_NAME] = "syscall",
	};
	const struct row **v = NULL;
	uint64_t tot_ns = 0, tot_calls = 0, tot_err = 0, max_avg = 0, min_ns = UINT64_MAX, max_ns = 0;
	size_t n = 0, name_max = 0;
	double tot;
	int w[TRACE_COL_NR];
	struct cells c;

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
		if (r->min_ns < min_ns)
			min_ns = r->min_ns;
		if (r->max_ns > max_ns)
			max_ns = r->max_ns;
		if (avg_us(r) > max_avg)
			max_avg = avg_us(r);
		if (strlen(r->name) > name_max)
			name_max = strlen(r->name);
	}
	if (!n)
		min_ns = 0;
	if (n)
		qsort_r(v, n, sizeof(*v), cmp_rows, &sortby);
	tot = secs(tot_ns);
	w[TRACE_COL_PERCENT] = 6;
	w[TRACE_COL_TOTAL] = max_int(11, snprintf(NULL, 0, "%.6f", tot));
	w[TRACE_COL_MIN] = max_int(8, snprintf(NULL, 0, "%.6f", secs(max_ns)));
	w[TRACE_COL_MAX] = w[TRACE_COL_MIN];
	w[TRACE_COL_AVG] = max_int(11, digits(max_avg));
	w[TRACE_COL_CALLS] = max_int(9, digits(tot_calls));
	w[TRACE_COL_ERRORS] = max_int(9, digits(tot_err));
	w[TRACE_COL_NAME] = max_int(16, (int)name_max + 1);

	for (size_t i = 0; i < ncols; i++) {
		int k = cols[i];

		if (i)
			fputc(' ', f);
		fprintf(f, k == TRACE_COL_NAME ? "%-*s" : "%*s", k == TRACE_COL_NAME && i + 1 == ncols ? 0 : w[k],
			heads[k]);
	}
	fputc('\n', f);
	dashes(f, cols, ncols, w);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = v[i];

		c = (struct cells){ .pct = 100.0 * secs(r->ns), .secs = secs(r->ns), .min = secs(r->min_ns),
				    .max = secs(r->max_ns), .avg = avg_us(r), .calls = r->calls, .errors = r->errors,
				    .name = r->name };
		if (c.pct != 0.0)
			c.pct /= tot;
		put_row(f, cols, ncols, w, &c);
	}
	dashes(f, cols, ncols, w);
	c = (struct cells){ .pct = 100.0, .secs = tot, .min = secs(min_ns), .max = secs(max_ns),
			    .avg = tot_calls ? (uint64_t)(tot / (double)tot_calls * 1e6) : 0, .calls = tot_calls,
			    .errors = tot_err, .name = "total" };
	put_row(f, cols, ncols, w, &c);
	free(v);
	return ferror(f) ? -1 : 0;
}
