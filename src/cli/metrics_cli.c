/* metrics_cli.c — see metrics_cli.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/catalog.h"
#include "cli/launch.h"
#include "cli/metrics_cli.h"
#include "kernel/features.h"
#include "util/parse.h"
#include "util/privs.h"

void cli_metrics_init(struct cli_metrics *m)
{
	memset(m, 0, sizeof(*m));
	scry_feed_init(&m->f);
	m->child = (struct scry_child){ .pid = -1, .status_fd = -1 };
}

int cli_metrics_option(struct cli_metrics *m, int opt, const char *arg, char *err, size_t errlen)
{
	switch (opt) {
	case 'p':
		if (scry_parse_pids(arg, &m->pids, &m->npids)) {
			snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", arg);
			return -1;
		}
		return 0;
	case 'a':
		m->all = true;
		return 0;
	case CLI_METRICS_OPT_DURATION:
		if (scry_parse_duration(arg, &m->duration)) {
			snprintf(err, errlen, "invalid duration '%s' (expected seconds, e.g. 5, 0.5, 500ms, 2m)", arg);
			return -1;
		}
		return 0;
	default:
		return cli_track_option(&m->track, opt, arg, err, errlen);
	}
}

int cli_metrics_prepare(struct cli_metrics *m, const char *path, const char *text, const char *name,
			char *err, size_t errlen)
{
	if (m->all && m->npids) {
		snprintf(err, errlen, "-a and -p are exclusive: -a already covers every process");
		return -1;
	}
	if (m->cmd && (m->all || m->npids || m->track.npids)) {
		snprintf(err, errlen, "a command cannot be combined with -a, -p or --track-pid");
		return -1;
	}
	m->so.target_all = !m->cmd && !m->npids;
	if (cli_track_apply(&m->track, &m->so, &m->pids, &m->npids)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (cli_resolve_pids(m->pids, m->npids, false, err, errlen) ||
	    scry_feed_config(&m->f, NULL, path, text, name, err, errlen))
		return -1;
	if (m->track.filter && m->f.cfg->process_spans) {   /* the filter would decide their events too */
		snprintf(err, errlen, "--filter decides the metrics' syscalls: it cannot be combined with process spans "
			 "(tracing: spans: - name: process)");
		return -1;
	}
	m->so.channels = m->f.chans;
	m->so.nchannels = m->f.nchans;
	m->so.catalog = m->f.cat;
	m->so.fixed_events = true;
	return 0;
}

int cli_metrics_start(struct cli_metrics *m, void (*on_signal)(int), char *err, size_t errlen)
{
	struct scry_feed *f = &m->f;

	if (scry_check_privileges("scry", err, errlen))
		return -1;
	scry_features_prefetch();
	if (m->cmd && scry_spawn_check(m->cmd[0], err, errlen))
		return -1;
	if (scry_feed_spans_new(f, NULL, err, errlen))
		return -1;
	if (f->live) {       /* the process spans' events channel is the first */
		f->chans[0].sink = trace_live_sink;
		f->chans[0].sink_ctx = f->live;
	}
	if (scry_session_create(&f->s, &m->so, err, errlen) ||
	    (f->live && trace_live_bind(f->live, f->s, err, errlen)) || scry_session_load(f->s, err, errlen))
		return -1;
	for (unsigned i = 0; i < f->cfg->nmetrics; i++)
		f->fds[i] = scry_session_metric_fd(f->s, i);
	if (scry_feed_spans_open(f, err, errlen))
		return -1;
	if (cli_launch(f->s, m->pids, m->npids, m->cmd, &m->child, on_signal, f->live ? scry_feed_on_child : NULL,
		       f->live, err, errlen)) {
		if (m->child.pid > 0 && m->child.held)
			scry_spawn_abort(&m->child);
		return -1;
	}
	return 0;
}

void cli_metrics_stop(struct cli_metrics *m)
{
	struct scry_session_summary sum;
	char err[256];

	if (m->f.s && scry_session_stop(m->f.s, &sum, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	scry_feed_spans_end(&m->f, 5 * 1000000000ULL, NULL, NULL);
}

void cli_metrics_free(struct cli_metrics *m)
{
	scry_session_destroy(m->f.s);
	m->f.s = NULL;
	scry_feed_free(&m->f);
	free(m->pids);
	cli_track_free(&m->track);
	memset(m, 0, sizeof(*m));
}
