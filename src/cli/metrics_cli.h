/* metrics_cli.h — what `scry serve` and `scry top` share: their target options (-p, -a,
 * the trackers, --duration, -- CMD), the metrics config resolved against the catalog's
 * syscalls, and the session they read (no trace written): a metrics channel, and for a
 * config with tracing: spans:, an events channel whose live events make process spans
 * sent over OTLP (src/spans/). */
#ifndef SCRY_CLI_METRICS_CLI_H
#define SCRY_CLI_METRICS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "cli/track.h"
#include "kernel/probes.h"
#include "metrics/config.h"
#include "metrics/read.h"
#include "session/session.h"
#include "spans/exporter.h"
#include "spans/kernspans.h"
#include "spans/procspans.h"
#include "trace/live.h"
#include "util/spawn.h"

struct cli_metrics {
	struct scry_session_opts so;
	struct scry_channel_opts chans[2];   /* the metrics channel, the spans channel (if any) */
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
	pid_t *pids;
	size_t npids;
	bool all;
	struct cli_track track;
	double duration;
	char **cmd;
	struct scry_session *s;
	struct scry_child child;
	/* spans (config tracing: spans:) */
	struct trace_live *live;
	struct scry_procspans *spans;
	struct scry_kernspans *kspans;   /* syscall, block_io, sched_wait spans */
	struct scry_otlp_exporter *exp;
	struct scry_otlp_stats span_stats;   /* final, after cli_metrics_stop */
	struct scry_span_mark_probe mark;    /* tracing: parent: resolved (mark.path NULL: none) */
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
/* The config (file path, or text named name when path is NULL) resolved against cat (NULL:
 * one of its own) and its channels (chans, nchans), nothing else.  0, or -1 with err. */
int cli_metrics_config(struct cli_metrics *m, struct scry_catalog *cat, const char *path, const char *text,
		       const char *name, char *err, size_t errlen);
/* After cli_metrics_config: the spans of config file path (tracing: spans:) in place of
 * m's, its metrics ignored, the channels remade.  0, or -1 with err. */
int cli_metrics_config_spans(struct cli_metrics *m, const char *path, char *err, size_t errlen);
/* After the options: the catalog, the config (file path, or text named name when path is
 * NULL), the session options.  0, or -1 with a one-line err. */
int cli_metrics_prepare(struct cli_metrics *m, const char *path, const char *text, const char *name,
			char *err, size_t errlen);
/* Spans (tracing: spans:): the OTLP exporter started, the process spans' builder and its
 * live events (m->live: the caller gives a channel's records to trace_live_sink and binds
 * it), the kernel spans' queue.  Before the session is created.  0, or -1 with err. */
int cli_metrics_spans_new(struct cli_metrics *m, char *err, size_t errlen);
/* After the session m->s is loaded: the kernel spans' ring.  0, or -1 with err. */
int cli_metrics_spans_open(struct cli_metrics *m, char *err, size_t errlen);
/* cli_launch's on_child with ctx m->live: the command's events count from its execve. */
void cli_metrics_on_child(void *ctx, pid_t pid);
/* After the session stopped: the last events handed over, the process spans still open
 * ended now, the exporter flushed (5 s at most) and its counters reported (span_stats). */
void cli_metrics_spans_end(struct cli_metrics *m);
/* Create, load, follow -p, start CMD held, attach, release CMD. */
int cli_metrics_start(struct cli_metrics *m, void (*on_signal)(int), char *err, size_t errlen);
int cli_metrics_read(struct cli_metrics *m, struct scry_metrics_snap *out);
/* After each poll (scry_run_opts.after_poll, ctx = m): live events to the span builder. */
void cli_metrics_pump(void *ctx, uint64_t now);
/* Spans are on (the run loop must call cli_metrics_pump). */
bool cli_metrics_spans(const struct cli_metrics *m);
/* Stop the session (programs detached); spans: the last events handed over, the spans
 * still open ended now, the exporter flushed (5 s at most) and its counters reported. */
void cli_metrics_stop(struct cli_metrics *m);
void cli_metrics_free(struct cli_metrics *m);

#endif /* SCRY_CLI_METRICS_CLI_H */
