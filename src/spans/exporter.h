/* exporter.h — spans sent to an OpenTelemetry collector over OTLP/HTTP (protobuf, libcurl)
 * by a thread of their own: the producer only queues (never blocked by the network); a
 * bounded queue (its overflow counted as dropped), batches, retries with exponential
 * backoff while the collector is down or busy (429, 502, 503, 504, no connection), and a
 * batch given up after the retries counted as dropped too.  Configured by OpenTelemetry's
 * variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the URL as is) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (+ "/v1/traces"; default http://localhost:4318),
 * OTEL_EXPORTER_OTLP_HEADERS / _TRACES_HEADERS ("k=v,k2=v2"), OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES. */
#ifndef SCRY_SPANS_EXPORTER_H
#define SCRY_SPANS_EXPORTER_H

#include <stddef.h>
#include <stdint.h>
#include "spans/span.h"

struct scry_otlp_stats {
	uint64_t queued;                 /* spans handed to the exporter */
	uint64_t sent;                   /* accepted by the collector (2xx) */
	uint64_t dropped_queue_full;     /* the queue was full */
	uint64_t dropped_failed;         /* their batch failed after every retry, or was refused */
	uint64_t dropped_at_exit;        /* still queued when the flush at stop timed out */
	uint64_t retries;                /* requests sent again */
	uint64_t requests;               /* requests made */
};

struct scry_otlp_exporter;

/* Read the variables (from env, "NAME=value" strings NULL-terminated: the environment of
 * the command that configured a daemon's session; NULL: this process's), start the thread.
 * 0, or -EINVAL/-ENOMEM with a one-line err. */
int scry_otlp_start(struct scry_otlp_exporter **out, const char *const *env, char *err, size_t errlen);
const char *scry_otlp_endpoint(const struct scry_otlp_exporter *e);
/* Queue a copy of s (never blocks). */
void scry_otlp_submit(struct scry_otlp_exporter *e, const struct scry_span *s);
void scry_otlp_stats(struct scry_otlp_exporter *e, struct scry_otlp_stats *out);
/* Send what is queued (retrying until flush_ns has passed), stop the thread; the spans not
 * sent by then are counted (dropped_at_exit).  The final counters in *out. */
void scry_otlp_stop(struct scry_otlp_exporter *e, uint64_t flush_ns, struct scry_otlp_stats *out);

#endif /* SCRY_SPANS_EXPORTER_H */
