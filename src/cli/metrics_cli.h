/* metrics_cli.h — what `scry serve` and `scry top` share: their target options (-p, -a,
 * the trackers, --duration, -- CMD), and the session they read (no trace written) from
 * their config's feed (src/feed/feed.h): a metrics channel, and for a config with tracing:
 * spans:, an events channel whose live events make process spans sent over OTLP. */
#ifndef SCRY_CLI_METRICS_CLI_H
#define SCRY_CLI_METRICS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "cli/track.h"
#include "feed/feed.h"
#include "util/spawn.h"

struct cli_metrics {
	struct scry_feed f;              /* the config, its channels, the spans (src/feed/) */
	struct scry_session_opts so;
	pid_t *pids;
	size_t npids;
	bool all;
	struct cli_track track;
	double duration;
	char **cmd;
	struct scry_child child;
};

#define CLI_METRICS_TARGET_USAGE \
	"  -p, --pid PID[,PID]    only these processes and their future children\n" \
	"  -a, --all              the whole system (the default without -p or CMD)\n" \
	"      --duration TIME    stop after TIME (seconds, or 500ms, 2m)\n" \
	"      --track-pid LIST   only these processes and their children\n" \
	"      --track-vpid LIST  only these pids as seen in their pid namespace\n" \
	"      --track-uid LIST   only processes of these users (names or uids)\n" \
	"      --track-gid LIST   only processes of these groups (names or gids)\n" \
	"      --track-cgroup DIR only processes in this cgroup v2 directory or below it\n" \
	"      --filter EXPR      only syscalls for which EXPR (LTTng's filter language) is true,\n" \
	"                         decided in the kernel at the exit before any metric sees the\n" \
	"                         call: 'ret < 0', 'fd == 1', '$ctx.procname == \"make\"'\n"

enum { CLI_METRICS_OPT_DURATION = 450 };

void cli_metrics_init(struct cli_metrics *m);
/* -p, -a, --duration, the trackers (CLI_TRACK_CASES): 0, or -1 with err. */
int cli_metrics_option(struct cli_metrics *m, int opt, const char *arg, char *err, size_t errlen);
/* After the options: the catalog, the config (file path, or text named name when path is
 * NULL), the session options.  0, or -1 with a one-line err. */
int cli_metrics_prepare(struct cli_metrics *m, const char *path, const char *text, const char *name,
			char *err, size_t errlen);
/* Create, load, follow -p, start CMD held, attach, release CMD. */
int cli_metrics_start(struct cli_metrics *m, void (*on_signal)(int), char *err, size_t errlen);
/* Stop the session (programs detached); spans: the last events handed over, the spans
 * still open ended now, the exporter flushed (5 s at most) and its counters reported. */
void cli_metrics_stop(struct cli_metrics *m);
void cli_metrics_free(struct cli_metrics *m);

#endif /* SCRY_CLI_METRICS_CLI_H */
