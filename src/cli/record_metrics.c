/* record_metrics.c — see record_metrics.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "cli/record_metrics.h"
#include "metrics/expose.h"

int cli_record_metrics_prepare(struct cli_record_metrics *rm, const char *path, struct scry_session_opts *so,
			       char *err, size_t errlen)
{
	struct scry_catalog *cat;

	cli_metrics_init(&rm->m);
	if (!(cat = scry_catalog_open(NULL, err, errlen)))
		return -1;
	so->catalog = cat;           /* the session's too; closed by cli_record_metrics_free */
	if (cli_metrics_config(&rm->m, cat, path, NULL, NULL, err, errlen))
		return -1;
	if (rm->m.cfg->process_spans || rm->m.cfg->nspans) {
		snprintf(err, errlen, "%s: spans are sent by scry serve, not recorded (yet): leave out tracing:", path);
		return -1;
	}
	if (!rm->m.cfg->nmetrics) {
		snprintf(err, errlen, "%s: no metrics", path);
		return -1;
	}
	if (!(rm->chans = calloc(so->nchannels + 1, sizeof(*rm->chans)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(rm->chans, so->channels, so->nchannels * sizeof(*rm->chans));
	rm->chans[so->nchannels] = rm->m.chans[0];
	so->channels = rm->chans;
	so->nchannels++;
	return 0;
}

int cli_record_metrics_write(struct cli_record_metrics *rm, struct scry_session *s, const char *dir,
			     char *err, size_t errlen)
{
	struct scry_metrics_snap snap;
	struct scry_metric_stats ks;
	uint64_t overflow[SCRY_METRICS_MAX];
	char path[4096];
	FILE *f;
	int ret;

	for (unsigned i = 0; i < rm->m.cfg->nmetrics; i++)
		rm->m.fds[i] = scry_session_metric_fd(s, i);
	if ((ret = cli_metrics_read(&rm->m, &snap))) {
		snprintf(err, errlen, "reading the metrics: %s", strerror(-ret));
		return -1;
	}
	if (scry_session_metric_stats(s, &ks))
		memset(&ks, 0, sizeof(ks));
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		overflow[i] = ks.overflow[i];
	struct scry_expose_self self = { .events = ks.events, .no_entry = ks.no_entry, .overflow = overflow };
	snprintf(path, sizeof(path), "%s/metrics.prom", dir);
	if (!(f = fopen(path, "we"))) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		scry_metrics_snap_free(&snap);
		return -1;
	}
	ret = scry_metrics_expose(f, &snap, &self, false);
	if (fclose(f) || ret) {
		snprintf(err, errlen, "%s: writing failed", path);
		scry_metrics_snap_free(&snap);
		return -1;
	}
	scry_metrics_snap_free(&snap);
	fprintf(stderr, "scry: metrics written to %s\n", path);
	return 0;
}

void cli_record_metrics_free(struct cli_record_metrics *rm)
{
	struct scry_catalog *cat = rm->m.cat;

	cli_metrics_free(&rm->m);      /* the catalog is shared: closed here, after the session */
	scry_catalog_close(cat);
	free(rm->chans);
	rm->chans = NULL;
}
