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

static int sc_nr(void *ctx, const char *name)
{
	struct cli_metrics *m = ctx;
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(m->cat, name);

	if (sc)
		return sc->nr;
	for (int nr = 0; nr < SCRY_MAX_SYSCALLS; nr++)
		if (m->sc_names[nr] && !strcmp(m->sc_names[nr], name))
			return nr;
	return -1;
}

static const char *sc_name(void *ctx, unsigned nr)
{
	struct cli_metrics *m = ctx;

	return nr < SCRY_MAX_SYSCALLS ? m->sc_names[nr] : NULL;
}

void cli_metrics_init(struct cli_metrics *m)
{
	memset(m, 0, sizeof(*m));
	m->child = (struct scry_child){ .pid = -1, .status_fd = -1 };
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		m->fds[i] = -1;
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
	case CLI_OPT_FILTER:
		snprintf(err, errlen, "--filter is not supported with metrics (use the trackers)");
		return -1;
	default:
		return cli_track_option(&m->track, opt, arg, err, errlen);
	}
}

int cli_metrics_prepare(struct cli_metrics *m, const char *path, const char *text, const char *name,
			char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	size_t n;
	int ret;

	if (m->all && m->npids) {
		snprintf(err, errlen, "-a and -p are exclusive: -a already covers every process");
		return -1;
	}
	if (m->cmd && (m->all || m->npids || m->track.npids)) {
		snprintf(err, errlen, "a command cannot be combined with -a, -p or --track-pid");
		return -1;
	}
	m->so.target_all = !m->cmd && !m->npids;
	if (cli_track_apply(&m->track, &m->so, &m->pids, &m->npids))
		goto oom;
	if (cli_resolve_pids(m->pids, m->npids, false, err, errlen))
		return -1;
	if (!(m->cat = scry_catalog_open(NULL, err, errlen)))
		return -1;
	if (!(m->sc_names = calloc(SCRY_MAX_SYSCALLS, sizeof(char *))) ||
	    !(m->sc_masks = calloc(SCRY_MAX_SYSCALLS, sizeof(uint32_t))))
		goto oom;
	n = scry_catalog_syscalls(m->cat, &scs);
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS)
			m->sc_names[scs[i].nr] = (char *)scry_syscall_user_name(scs[i].name);
	m->sn = (struct scry_syscall_names){ .nr = sc_nr, .name = sc_name, .ctx = m };
	ret = path ? scry_metrics_config_load(path, &m->sn, &m->cfg, err, errlen) :
		     scry_metrics_config_parse(text, strlen(text), name, &m->sn, &m->cfg, err, errlen);
	if (ret)
		return -1;
	scry_metrics_abi(m->cfg, m->descs, m->max_entries, m->sc_masks);
	m->chan = (struct scry_channel_opts){
		.name = "metrics", .kind = SCRY_CHANNEL_METRICS, .metrics = m->descs,
		.metric_max_entries = m->max_entries, .nmetrics = (unsigned)m->cfg->nmetrics, .metric_sc = m->sc_masks,
	};
	m->so.channels = &m->chan;
	m->so.nchannels = 1;
	m->so.catalog = m->cat;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int cli_metrics_start(struct cli_metrics *m, void (*on_signal)(int), char *err, size_t errlen)
{
	if (scry_check_privileges("scry", err, errlen))
		return -1;
	scry_features_prefetch();
	if (m->cmd && scry_spawn_check(m->cmd[0], err, errlen))
		return -1;
	if (scry_session_create(&m->s, &m->so, err, errlen) || scry_session_load(m->s, err, errlen))
		return -1;
	for (unsigned i = 0; i < m->cfg->nmetrics; i++)
		m->fds[i] = scry_session_metric_fd(m->s, i);
	if (cli_launch(m->s, m->pids, m->npids, m->cmd, &m->child, on_signal, NULL, NULL, err, errlen)) {
		if (m->child.pid > 0 && m->child.held)
			scry_spawn_abort(&m->child);
		return -1;
	}
	return 0;
}

int cli_metrics_read(struct cli_metrics *m, struct scry_metrics_snap *out)
{
	return scry_metrics_read(m->cfg, m->fds, &m->sn, out);
}

void cli_metrics_stop(struct cli_metrics *m)
{
	struct scry_session_summary sum;
	char err[256];

	if (m->s && scry_session_stop(m->s, &sum, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
}

void cli_metrics_free(struct cli_metrics *m)
{
	scry_session_destroy(m->s);
	scry_metrics_config_free(m->cfg);
	free(m->sc_names);
	free(m->sc_masks);
	free(m->pids);
	cli_track_free(&m->track);
	scry_catalog_close(m->cat);
	memset(m, 0, sizeof(*m));
}
