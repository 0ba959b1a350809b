/* capture.h — one capture, several outputs: a session that writes a CTF trace and, from the
 * same BPF programs, feeds the metrics a --metrics FILE declares (kept in the kernel by a
 * metrics channel, last, with no stream of its own; written in Prometheus' text format to
 * DIR/metrics.prom) and the spans a --spans FILE declares (tracing: spans:, sent over OTLP
 * as the session runs).  Process spans are built from the records of a recording channel
 * that has their events (execve, sched_process_fork, sched_process_exit; the pid and tid
 * contexts): the very records the trace holds; when no channel has them, a channel "spans"
 * of those events is added to the trace.  Kernel spans come from the metrics channel's
 * programs.  `scry record --metrics --spans` (src/cli/record.c) and a daemon's session
 * created with them (src/daemon/) are both this. */
#ifndef SCRY_FEED_CAPTURE_H
#define SCRY_FEED_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include "feed/feed.h"
#include "session/session.h"

struct scry_capture {
	struct scry_feed m;
	const char *metrics, *spans;        /* the files (NULL: not asked) */
	struct scry_channel_opts *chans;    /* the session's channels, then ours */
	bool own_spans_chan;                /* the channel "spans" was added */
	bool own_cat;                       /* m.cat opened by scry_capture_config */
	unsigned chan;                      /* the sink's channel */
	bool *want;                         /* per event id of the sink's channel: a span's */
	size_t nwant;
};

/* The configs (the files metrics, spans, either NULL) loaded and checked against cat (NULL:
 * a catalog of its own, closed by scry_capture_free): each file must declare what it is
 * given for, and only that.  0, or -1 with a one-line err naming the file (and its line and
 * key). */
int scry_capture_config(struct scry_capture *c, struct scry_catalog *cat, const char *metrics, const char *spans,
			char *err, size_t errlen);
/* so's channels, then the capture's (so->channels points into c until the next call);
 * so->catalog set.  0, or -1 with err. */
int scry_capture_channels(struct scry_capture *c, struct scry_session_opts *so, char *err, size_t errlen);
/* Both of the above: after so's channels are set.  0, or -1 with err. */
int scry_capture_prepare(struct scry_capture *c, const char *metrics, const char *spans,
			 struct scry_session_opts *so, char *err, size_t errlen);
/* Before the session is created: the span exporter started (its variables from env, as
 * scry_otlp_start; NULL: this process's).  0, or -1 with err. */
int scry_capture_spans_start(struct scry_capture *c, const char *const *env, char *err, size_t errlen);
/* After the session is created, before load: the process spans fed by a channel of s.  0;
 * 1 when no channel has their events: so now has a channel "spans" too, and the session
 * must be created again (then this called again); -1 with err. */
int scry_capture_bind(struct scry_capture *c, struct scry_session *s, struct scry_session_opts *so,
		      char *err, size_t errlen);
/* After events were added to a loaded session s: the process spans' decoder bound again to
 * their channel's events (its array of events may have moved).  0, or -1 with err. */
int scry_capture_rebind(struct scry_capture *c, struct scry_session *s, char *err, size_t errlen);
/* After load: the kernel spans' ring.  0, or -1 with err. */
int scry_capture_open(struct scry_capture *c, struct scry_session *s, char *err, size_t errlen);
/* The run loop's after_poll (ctx: c): spans handed to the exporter. */
void scry_capture_pump(void *ctx, uint64_t now);
/* DIR/metrics.prom: the metrics of s as they are now, with the self metrics.  0, or -1 with
 * err. */
int scry_capture_write_prom(struct scry_capture *c, struct scry_session *s, const char *dir, char *err,
			    size_t errlen);
/* The kernel spans lost so far (their ring buffer was full): the metrics channel's overflow
 * of the span descriptors. */
uint64_t scry_capture_kspans_lost(struct scry_capture *c, const struct scry_metric_stats *ks);
/* After the session stopped: the last spans sent (flush_ns at most), what was sent and
 * lost reported (report as scry_feed_spans_end). */
void scry_capture_spans_end(struct scry_capture *c, struct scry_session *s, uint64_t flush_ns,
			    void (*report)(void *ctx, const char *line), void *ctx);
/* scry record's end: the spans ended and reported on stderr, DIR/metrics.prom written.  0,
 * or -1 with err. */
int scry_capture_write(struct scry_capture *c, struct scry_session *s, const char *dir, char *err, size_t errlen);
void scry_capture_free(struct scry_capture *c);

#endif /* SCRY_FEED_CAPTURE_H */
