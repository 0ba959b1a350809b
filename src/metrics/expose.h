/* expose.h — a metrics snapshot (read.h) and scry's own counters in Prometheus' text
 * exposition format 0.0.4, or OpenMetrics 1.0 (counters' families without _total, "# EOF"). */
#ifndef SCRY_METRICS_EXPOSE_H
#define SCRY_METRICS_EXPOSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "metrics/read.h"
#include "scry_abi.h"

#define SCRY_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define SCRY_OPENMETRICS_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct scry_expose_prog {
	const char *name;
	uint64_t run_cnt, run_time_ns, recursion_misses;
};

/* What scry itself counted (self metrics). */
struct scry_expose_self {
	/* the kernel's counters (scry_abi.h): syscall exits that fed a metric, latencies not
	 * measured, per metric the updates lost by reason, span marks lost; NULL: all zero */
	const struct scry_metric_stats *ks;
	const struct scry_expose_prog *progs;
	size_t nprogs;
	bool bpf_stats;                  /* run_cnt and run_time_ns are counted */
	double last_scrape_seconds;      /* the previous scrape's duration */
	bool spans;                      /* spans are exported (the counters below) */
	uint64_t spans_sent, spans_dropped, spans_retries;
	uint64_t scrapes;
};

/* Write the snapshot and self (may be NULL) to f; -errno when writing fails. */
int scry_metrics_expose(FILE *f, const struct scry_metrics_snap *snap, const struct scry_expose_self *self,
			bool openmetrics);

/* Does an HTTP Accept header ask for OpenMetrics? */
bool scry_accepts_openmetrics(const char *accept);

#endif /* SCRY_METRICS_EXPOSE_H */
