/* feed.h — what a session feeds beside (or instead of) its trace: the metrics a config
 * declares, kept in the kernel by a metrics channel, and the spans it declares (tracing:
 * spans:), sent over OTLP.  The config resolved against the catalog's syscalls, the
 * channels that make them, the process spans' builder and its live events, the kernel
 * spans' queue, the exporter.  Shared by scry serve, top and record (src/cli/) and by the
 * daemon's sessions (src/daemon/): one way of doing each. */
#ifndef SCRY_FEED_FEED_H
#define SCRY_FEED_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "kernel/probes.h"
#include "metrics/config.h"
#include "metrics/read.h"
#include "session/session.h"
#include "spans/exporter.h"
#include "spans/kernspans.h"
#include "spans/procspans.h"
#include "trace/live.h"

struct scry_feed {
	struct scry_channel_opts chans[2];   /* the spans channel (if any), the metrics channel */
	size_t nchans;
	bool shared_cat;                 /* cat is the caller's */
	struct scry_catalog *cat;
	struct scry_syscall_names sn;
	char **sc_names;                 /* per syscall number: the name users know, or NULL */
	struct scry_metrics_config *cfg;
	struct scry_metric_desc descs[SCRY_METRICS_MAX];
	uint32_t max_entries[SCRY_METRICS_MAX];
	uint32_t *sc_masks;
	struct scry_metric_bounds bounds[SCRY_METRICS_MAX];
	int fds[SCRY_METRICS_MAX];
	struct scry_session *s;          /* the session read (the caller's: never destroyed here) */
	/* spans (config tracing: spans:) */
	struct trace_live *live;
	struct scry_procspans *spans;
	struct scry_kernspans *kspans;   /* syscall, block_io, sched_wait spans */
	struct scry_otlp_exporter *exp;
	struct scry_otlp_stats span_stats;   /* final, after scry_feed_spans_end */
	struct scry_span_mark_probe mark;    /* tracing: parent: resolved (mark.path NULL: none) */
};

void scry_feed_init(struct scry_feed *f);
/* The config (file path, or text named name when path is NULL) resolved against cat (NULL:
 * one of its own) and its channels (chans, nchans), nothing else.  0, or -1 with err. */
int scry_feed_config(struct scry_feed *f, struct scry_catalog *cat, const char *path, const char *text,
		     const char *name, char *err, size_t errlen);
/* After scry_feed_config: the spans of config file path (tracing: spans:) in place of f's,
 * its metrics ignored, the channels remade.  0, or -1 with err. */
int scry_feed_config_spans(struct scry_feed *f, const char *path, char *err, size_t errlen);
/* Spans: the OTLP exporter started (its variables from env, as scry_otlp_start), the
 * process spans' builder and its live events (f->live: the caller gives a channel's records
 * to trace_live_sink and binds it), the kernel spans' queue.  Before the session is
 * created.  0, or -1 with err. */
int scry_feed_spans_new(struct scry_feed *f, const char *const *env, char *err, size_t errlen);
/* After the session f->s is loaded: the kernel spans' ring.  0, or -1 with err. */
int scry_feed_spans_open(struct scry_feed *f, char *err, size_t errlen);
/* cli_launch's on_child with ctx f->live: the command's events count from its execve. */
void scry_feed_on_child(void *ctx, pid_t pid);
/* After each poll (scry_run_opts.after_poll, ctx = f): live events to the span builder. */
void scry_feed_pump(void *ctx, uint64_t now);
/* Every event read so far handed to the span builders (at a session's stop). */
void scry_feed_pump_all(struct scry_feed *f);
/* Spans are on (the run loop must call scry_feed_pump). */
bool scry_feed_has_spans(const struct scry_feed *f);
int scry_feed_read(struct scry_feed *f, struct scry_metrics_snap *out);
/* After the session stopped: the last events handed over, the process spans still open
 * ended now, the exporter flushed (flush_ns at most) and its counters kept (span_stats);
 * what was sent and dropped said in one line to report (a NULL report: stderr, "scry: ..."). */
void scry_feed_spans_end(struct scry_feed *f, uint64_t flush_ns, void (*report)(void *ctx, const char *line),
			 void *ctx);
/* Frees what f holds (f->s excepted). */
void scry_feed_free(struct scry_feed *f);

#endif /* SCRY_FEED_FEED_H */
