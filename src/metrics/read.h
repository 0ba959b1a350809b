/* read.h — a snapshot of the metrics the kernel keeps (src/bpf/metrics.bpf.h): each
 * metric's per-CPU hash read and summed over the CPUs, its keys decoded into label values
 * (config.h), series that decode alike merged, sorted by their label values.  Series
 * whose labels cannot be decoded are counted, never shown half-named. */
#ifndef SCRY_METRICS_READ_H
#define SCRY_METRICS_READ_H

#include <stddef.h>
#include <stdint.h>
#include "metrics/config.h"

struct scry_series {
	char **values;                   /* one per label of the metric */
	uint64_t value;                  /* counter */
	uint64_t count, sum;             /* histogram (raw units) */
	uint64_t *buckets;               /* histogram: bucket_max - bucket_min + 1, not cumulative */
};

struct scry_metric_snap {
	const struct scry_metric *m;
	struct scry_series *series;
	size_t n;
	uint64_t decode_errors;          /* kernel series whose labels could not be decoded */
	uint64_t skipped;                /* kernel series left out by a regexp decoder */
	int error;                       /* -errno: the map could not be read */
};

struct scry_metrics_snap {
	struct scry_metric_snap *m;      /* one per metric of the config, in its order */
	size_t n;
};

/* fds[i]: metric i's map (a dense counter's: the table whose row i is its, kernel/metrics.c).
 * 0, or -ENOMEM. */
int scry_metrics_read(const struct scry_metrics_config *c, const int *fds, const struct scry_syscall_names *sn,
		      struct scry_metrics_snap *out);
void scry_metrics_snap_free(struct scry_metrics_snap *s);

/* Bucket i's upper bound (raw units) of histogram m. */
double scry_metric_bucket_le(const struct scry_metric *m, size_t i);
/* The q-quantile (0..1) of a histogram series, in raw units: the upper bound of the bucket
 * that holds it (Prometheus' histogram_quantile without interpolation); -1 when empty or
 * beyond the last bucket (+Inf). */
double scry_metric_quantile(const struct scry_metric *m, const struct scry_series *s, double q);

#endif /* SCRY_METRICS_READ_H */
