/* record_metrics.h — `scry record --metrics FILE`: one capture, two outputs: beside the CTF
 * trace, the metrics FILE declares are kept in the kernel by a metrics channel (last, with
 * no stream of its own) and written at the end, in Prometheus' text format, to
 * DIR/metrics.prom. */
#ifndef SCRY_CLI_RECORD_METRICS_H
#define SCRY_CLI_RECORD_METRICS_H

#include <stddef.h>
#include "cli/metrics_cli.h"
#include "session/session.h"

struct cli_record_metrics {
	struct cli_metrics m;
	struct scry_channel_opts *chans;    /* the recording's channels, then the metrics one */
};

/* After so's channels are set: the catalog (so->catalog), the config, the channels.  0, or
 * -1 with a one-line err. */
int cli_record_metrics_prepare(struct cli_record_metrics *rm, const char *path, struct scry_session_opts *so,
			       char *err, size_t errlen);
/* After the session stopped: DIR/metrics.prom.  0, or -1 with err. */
int cli_record_metrics_write(struct cli_record_metrics *rm, struct scry_session *s, const char *dir,
			     char *err, size_t errlen);
void cli_record_metrics_free(struct cli_record_metrics *rm);

#endif /* SCRY_CLI_RECORD_METRICS_H */
