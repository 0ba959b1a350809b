/* record_metrics.h — `scry record --metrics FILE --spans FILE`: one capture, several
 * outputs.  Beside the CTF trace, the metrics FILE declares are kept in the kernel by a
 * metrics channel (last, with no stream of its own) and written at the end, in Prometheus'
 * text format, to DIR/metrics.prom; the spans the --spans FILE declares (tracing: spans:)
 * are sent over OTLP as the recording goes (OTEL_EXPORTER_OTLP_* as scry serve).  Process
 * spans are built from the records of a recording channel that has their events (execve,
 * sched_process_fork, sched_process_exit; the pid and tid contexts): the very records the
 * trace holds; when no channel has them, a channel "spans" of those events is added to the
 * trace.  Kernel spans come from the metrics channel's programs. */
#ifndef SCRY_CLI_RECORD_METRICS_H
#define SCRY_CLI_RECORD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include "cli/metrics_cli.h"
#include "session/session.h"

struct cli_record_metrics {
	struct cli_metrics m;
	const char *metrics, *spans;        /* the files (NULL: not asked) */
	struct scry_channel_opts *chans;    /* the recording's channels, then ours */
	bool own_spans_chan;                /* the channel "spans" was added */
	bool *want;                         /* per event id of the sink's channel: a span's */
	size_t nwant;
};

/* After so's channels are set: the catalog (so->catalog), the configs, the channels.  0, or
 * -1 with a one-line err. */
int cli_record_metrics_prepare(struct cli_record_metrics *rm, const char *metrics, const char *spans,
			       struct scry_session_opts *so, char *err, size_t errlen);
/* Before the session is created: the span exporter started.  0, or -1 with err. */
int cli_record_spans_start(struct cli_record_metrics *rm, char *err, size_t errlen);
/* After the session is created, before load: the process spans fed by a channel of s.  0;
 * 1 when no channel has their events: so now has a channel "spans" too, and the session
 * must be created again (then this called again); -1 with err. */
int cli_record_spans_bind(struct cli_record_metrics *rm, struct scry_session *s, struct scry_session_opts *so,
			  char *err, size_t errlen);
/* After load: the kernel spans' ring.  0, or -1 with err. */
int cli_record_spans_open(struct cli_record_metrics *rm, struct scry_session *s, char *err, size_t errlen);
/* The run loop's after_poll (ctx: rm): spans handed to the exporter. */
void cli_record_spans_pump(struct cli_record_metrics *rm, uint64_t now);
/* After the session stopped: DIR/metrics.prom, the last spans sent, what was sent and lost
 * reported.  0, or -1 with err. */
int cli_record_metrics_write(struct cli_record_metrics *rm, struct scry_session *s, const char *dir,
			     char *err, size_t errlen);
void cli_record_metrics_free(struct cli_record_metrics *rm);

#endif /* SCRY_CLI_RECORD_METRICS_H */
