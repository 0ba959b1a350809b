/* read.c — a snapshot of the kernel's metrics (see read.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "metrics/read.h"

#define LABEL_TEXT_MAX 256

static size_t nbuckets(const struct scry_metric *m)
{
	return m->desc.bucket_max - m->desc.bucket_min + 1;
}

static void series_free(struct scry_series *s, size_t nlabels)
{
	for (size_t i = 0; s->values && i < nlabels; i++)
		free(s->values[i]);
	free(s->values);
	free(s->buckets);
}

static size_t g_nlabels;   /* qsort's comparison: the labels of the metric being sorted */

static int cmp_series(const void *a, const void *b)
{
	const struct scry_series *x = a, *y = b;

	for (size_t i = 0; i < g_nlabels; i++) {
		int c = strcmp(x->values[i], y->values[i]);
		if (c)
			return c;
	}
	return 0;
}

/* One kernel series: its labels decoded, its values summed over the CPUs. */
static int add_series(struct scry_metric_snap *ms, const struct scry_metric_key *k, const void *percpu,
		      unsigned ncpus, size_t stride, const struct scry_syscall_names *sn, size_t *cap)
{
	const struct scry_metric *m = ms->m;
	bool hist = m->desc.kind == SCRY_METRIC_HISTOGRAM;
	struct scry_series s = { 0 };
	char buf[LABEL_TEXT_MAX];

	if (!(s.values = calloc(m->nlabels ? m->nlabels : 1, sizeof(char *))))
		return -ENOMEM;
	for (size_t i = 0; i < m->nlabels; i++) {
		int r = scry_metric_decode(&m->labels[i], k, sn, buf, sizeof(buf));

		if (r <= 0) {
			if (r < 0)
				ms->decode_errors++;
			else
				ms->skipped++;
			series_free(&s, m->nlabels);
			return 0;
		}
		if (!(s.values[i] = strdup(buf))) {
			series_free(&s, m->nlabels);
			return -ENOMEM;
		}
	}
	if (hist && !(s.buckets = calloc(nbuckets(m), sizeof(uint64_t)))) {
		series_free(&s, m->nlabels);
		return -ENOMEM;
	}
	for (unsigned c = 0; c < ncpus; c++) {
		const uint8_t *v = (const uint8_t *)percpu + c * stride;

		if (hist) {
			const struct scry_metric_hist *h = (const void *)v;

			s.count += h->count;
			s.sum += h->sum;
			for (size_t b = 0; b < nbuckets(m) && b < SCRY_HIST_BUCKETS; b++)
				s.buckets[b] += h->buckets[b];
		} else {
			s.value += *(const uint64_t *)v;
		}
	}
	if (ms->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct scry_series *g = realloc(ms->series, ncap * sizeof(*g));

		if (!g) {
			series_free(&s, m->nlabels);
			return -ENOMEM;
		}
		ms->series = g;
		*cap = ncap;
	}
	ms->series[ms->n++] = s;
	return 0;
}

/* Series that decode alike (a static_map folding values together) summed into one. */
static void merge_series(struct scry_metric_snap *ms)
{
	const struct scry_metric *m = ms->m;
	size_t out = 0;

	g_nlabels = m->nlabels;
	qsort(ms->series, ms->n, sizeof(*ms->series), cmp_series);
	for (size_t i = 0; i < ms->n; i++) {
		if (out && !cmp_series(&ms->series[out - 1], &ms->series[i])) {
			struct scry_series *d = &ms->series[out - 1], *s = &ms->series[i];

			d->value += s->value;
			d->count += s->count;
			d->sum += s->sum;
			for (size_t b = 0; s->buckets && b < nbuckets(m); b++)
				d->buckets[b] += s->buckets[b];
			series_free(s, m->nlabels);
			continue;
		}
		ms->series[out++] = ms->series[i];
	}
	ms->n = out;
}

/* Key by key (kernels without batch operations on hashes). */
static int read_by_key(struct scry_metric_snap *ms, int fd, unsigned ncpus, size_t stride,
		       const struct scry_syscall_names *sn, size_t *cap)
{
	struct scry_metric_key key = { 0 }, next = { 0 };   /* narrow: the map writes its bytes only */
	void *values = malloc((size_t)ncpus * stride);
	bool first = true;
	int ret = 0;

	if (!values)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, values))
			continue;   /* removed meanwhile (never: series are not deleted) */
		if ((ret = add_series(ms, &key, values, ncpus, stride, sn, cap)))
			break;
	}
	if (!ret && errno != ENOENT)
		ms->error = -errno;
	free(values);
	return ret;
}

#define BATCH 1024

/* In batches of up to BATCH series (one syscall each); -EOPNOTSUPP when the kernel has no
 * batch lookup for this map. */
static int read_batched(struct scry_metric_snap *ms, int fd, unsigned ncpus, size_t stride,
			const struct scry_syscall_names *sn, size_t *cap)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	size_t ksize = ms->m->desc.wide ? sizeof(struct scry_metric_key) : SCRY_METRIC_KEY_NARROW;
	uint8_t *keys = malloc(BATCH * ksize);
	uint8_t *values = malloc((size_t)BATCH * ncpus * stride);
	uint64_t in_batch[8], out_batch[8];   /* the hash's bucket cursor (a u32) */
	bool first = true;
	int ret = 0;

	if (!keys || !values) {
		free(keys);
		free(values);
		return -ENOMEM;
	}
	for (;;) {
		__u32 count = BATCH;
		int r = bpf_map_lookup_batch(fd, first ? NULL : in_batch, out_batch, keys, values, &count, &opts);
		int e = r ? errno : 0;

		if (r && e != ENOENT) {
			ret = first && (e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP) ? -EOPNOTSUPP : 0;
			if (!ret)
				ms->error = -e;
			break;
		}
		for (__u32 i = 0; i < count && !ret; i++) {
			struct scry_metric_key k = { 0 };

			memcpy(&k, keys + (size_t)i * ksize, ksize);
			ret = add_series(ms, &k, values + (size_t)i * ncpus * stride, ncpus, stride, sn, cap);
		}
		if (ret || r)
			break;
		memcpy(in_batch, out_batch, sizeof(in_batch));
		first = false;
	}
	free(keys);
	free(values);
	return ret;
}

/* A dense counter (metric idx): its row of the kernel's per-CPU table (one slot per syscall
 * number, src/bpf/maps.bpf.h metric_dense_counters), read in one lookup: the slots that
 * were ever added to. */
static int read_dense_row(struct scry_metric_snap *ms, int fd, __u32 idx, unsigned ncpus,
			  const struct scry_syscall_names *sn, size_t *cap)
{
	const size_t row = SCRY_MAX_SYSCALLS * sizeof(uint64_t);   /* a CPU's copy */
	unsigned nslots = ms->m->desc.labels & SCRY_ML_SYSCALL ? SCRY_MAX_SYSCALLS : 1;
	uint8_t *values = malloc((size_t)ncpus * row);
	int ret = 0;

	if (!values)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &idx, values)) {
		ms->error = -errno;
		free(values);
		return 0;
	}
	for (__u32 slot = 0; slot < nslots && !ret; slot++) {
		struct scry_metric_key key = { .nr = ms->m->desc.labels & SCRY_ML_SYSCALL ? slot : 0 };
		const uint8_t *v = values + slot * sizeof(uint64_t);   /* CPU c's at v + c * row */
		bool used = false;

		for (unsigned c = 0; c < ncpus && !used; c++)
			used = *(const uint64_t *)(v + c * row) != 0;
		if (used)
			ret = add_series(ms, &key, v, ncpus, row, sn, cap);
	}
	free(values);
	return ret;
}

/* A dense histogram: its SCRY_MAX_SYSCALLS entries of the kernel's per-CPU table from base
 * (one per syscall number, src/bpf/maps.bpf.h metric_dense_hists): the slots that were ever
 * added to. */
static int read_dense(struct scry_metric_snap *ms, int fd, __u32 base, unsigned ncpus, size_t stride,
		      const struct scry_syscall_names *sn, size_t *cap)
{
	unsigned nslots = ms->m->desc.labels & SCRY_ML_SYSCALL ? SCRY_MAX_SYSCALLS : 1;
	uint8_t *values = malloc((size_t)ncpus * stride);
	int ret = 0;

	if (!values)
		return -ENOMEM;
	for (__u32 slot = 0; slot < nslots && !ret; slot++) {
		struct scry_metric_key key = { .nr = ms->m->desc.labels & SCRY_ML_SYSCALL ? slot : 0 };
		bool used = false;

		__u32 k = base + slot;

		if (bpf_map_lookup_elem(fd, &k, values)) {
			ms->error = -errno;
			break;
		}
		for (unsigned c = 0; c < ncpus && !used; c++)
			used = ((const struct scry_metric_hist *)(values + c * stride))->count != 0;
		if (used)
			ret = add_series(ms, &key, values, ncpus, stride, sn, cap);
	}
	free(values);
	return ret;
}

/* Metric idx (hbase: its first entry in the dense histograms' table, if it is one). */
static int read_metric(struct scry_metric_snap *ms, int fd, __u32 idx, __u32 hbase, const struct scry_syscall_names *sn)
{
	bool hist = ms->m->desc.kind == SCRY_METRIC_HISTOGRAM;
	int ncpus = libbpf_num_possible_cpus();
	size_t stride = hist ? sizeof(struct scry_metric_hist) : sizeof(uint64_t), cap = 0;
	int ret;

	if (ncpus <= 0 || fd < 0) {
		ms->error = -EBADF;
		return 0;
	}
	stride = (stride + 7) & ~(size_t)7;
	if (ms->m->desc.dense) {
		ret = hist ? read_dense(ms, fd, hbase, (unsigned)ncpus, stride, sn, &cap) :
			     read_dense_row(ms, fd, idx, (unsigned)ncpus, sn, &cap);
		if (!ret)
			merge_series(ms);
		return ret;
	}
	ret = read_batched(ms, fd, (unsigned)ncpus, stride, sn, &cap);
	if (ret == -EOPNOTSUPP)
		ret = read_by_key(ms, fd, (unsigned)ncpus, stride, sn, &cap);
	if (!ret)
		merge_series(ms);
	return ret;
}

int scry_metrics_read(const struct scry_metrics_config *c, const int *fds, const struct scry_syscall_names *sn,
		      struct scry_metrics_snap *out)
{
	__u32 hists = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!(out->m = calloc(c->nmetrics ? c->nmetrics : 1, sizeof(*out->m))))
		return -ENOMEM;
	out->n = c->nmetrics;
	for (size_t i = 0; i < c->nmetrics && !ret; i++) {
		out->m[i].m = &c->metrics[i];
		ret = read_metric(&out->m[i], fds[i], (__u32)i, hists * SCRY_MAX_SYSCALLS, sn);
		/* the kernel numbers the dense histograms in the same order (kernel/metrics.c) */
		if (c->metrics[i].desc.dense && c->metrics[i].desc.kind == SCRY_METRIC_HISTOGRAM)
			hists++;
	}
	if (ret)
		scry_metrics_snap_free(out);
	return ret;
}

void scry_metrics_snap_free(struct scry_metrics_snap *s)
{
	for (size_t i = 0; s->m && i < s->n; i++) {
		for (size_t j = 0; j < s->m[i].n; j++)
			series_free(&s->m[i].series[j], s->m[i].m ? s->m[i].m->nlabels : 0);
		free(s->m[i].series);
	}
	free(s->m);
	memset(s, 0, sizeof(*s));
}

double scry_metric_bucket_le(const struct scry_metric *m, size_t i)
{
	double k = (double)(m->desc.bucket_min + i);

	if (m->desc.bucket_type == SCRY_HB_FIXED)
		return i < SCRY_HIST_BUCKETS ? (double)m->bounds.b[i] : -1;
	if (m->desc.bucket_type == SCRY_HB_LINEAR)
		return k * (double)m->desc.bucket_width;
	return ldexp(1.0, (int)k);
}

double scry_metric_quantile(const struct scry_metric *m, const struct scry_series *s, double q)
{
	uint64_t rank, seen = 0;

	if (!s->count || !s->buckets)
		return -1;
	rank = (uint64_t)ceil(q * (double)s->count);
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < nbuckets(m); i++) {
		seen += s->buckets[i];
		if (seen >= rank)
			return scry_metric_bucket_le(m, i);
	}
	return -1;
}
