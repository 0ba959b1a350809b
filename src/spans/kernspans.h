/* kernspans.h — kernel spans: a syscall that took at least its threshold, a block I/O
 * request (issue to completion), a wait on a run queue (wake-up or preemption to the switch
 * in), each written by the metrics channel's programs to its ring buffer (struct
 * scry_span_rec, src/bpf/metrics.bpf.h) and made an OTLP span here.  Its parent is the
 * process span (procspans.h) of its process at its start, when process spans are on and the
 * process has one; else it starts a trace of its own.  Records are queued and handed over
 * in start order, the process spans' events pumped up to each start first, so that a span's
 * parent is the program its process ran then.  A span of a thread the application had marked
 * with its own span (tracing: parent:, struct scry_span_parent) is that span's child, in its
 * trace, instead. */
#ifndef SCRY_SPANS_KERNSPANS_H
#define SCRY_SPANS_KERNSPANS_H

#include <stddef.h>
#include <stdint.h>
#include "metrics/config.h"
#include "spans/exporter.h"
#include "spans/procspans.h"

struct scry_kernspans;

/* parents: NULL when process spans are off; sn: syscall names. */
struct scry_kernspans *scry_kernspans_new(struct scry_otlp_exporter *exp, struct scry_procspans *parents,
					  const struct scry_syscall_names *sn);
/* Read the records of ring buffer fd (the session's span ring). */
int scry_kernspans_open(struct scry_kernspans *k, int fd, char *err, size_t errlen);
/* Queue what the ring holds. */
void scry_kernspans_poll(struct scry_kernspans *k);
/* Queue one record (a ring buffer callback's data). */
int scry_kernspans_add(struct scry_kernspans *k, const void *rec, size_t size);
/* Export the queued spans that started before horizon (CLOCK_MONOTONIC ns; UINT64_MAX: all),
 * calling pump(pump_ctx, start) before each (pump may be NULL). */
void scry_kernspans_flush(struct scry_kernspans *k, uint64_t horizon, void (*pump)(void *, uint64_t), void *pump_ctx);
uint64_t scry_kernspans_sent(const struct scry_kernspans *k);
/* Records that were not the size of a struct scry_span_rec (a bug if ever nonzero). */
uint64_t scry_kernspans_malformed(const struct scry_kernspans *k);
void scry_kernspans_free(struct scry_kernspans *k);

#endif /* SCRY_SPANS_KERNSPANS_H */
