/* record_metrics.c — see record_metrics.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "cli/record_metrics.h"
#include "metrics/expose.h"

int cli_record_metrics_prepare(struct cli_record_metrics *rm, const char *metrics, const char *spans,
			       struct scry_session_opts *so, char *err, size_t errlen)
{
	const char *path = metrics ? metrics : spans;
	struct scry_catalog *cat;
	struct scry_metrics_config *c;
	size_t n = so->nchannels;

	cli_metrics_init(&rm->m);
	rm->metrics = metrics;
	rm->spans = spans;
	if (!(cat = scry_catalog_open(NULL, err, errlen)))
		return -1;
	so->catalog = cat;           /* the session's too; closed by cli_record_metrics_free */
	if (cli_metrics_config(&rm->m, cat, path, NULL, NULL, err, errlen))
		return -1;
	c = rm->m.cfg;
	if (!spans && (c->process_spans || c->nspans)) {
		snprintf(err, errlen, "%s: declares spans (tracing:): give it to --spans too, or leave them out", path);
		return -1;
	}
	if (!metrics && c->nmetrics) {
		snprintf(err, errlen, "%s: declares metrics: give it to --metrics too, or leave them out", path);
		return -1;
	}
	if (metrics && spans && strcmp(metrics, spans)) {
		if (c->process_spans || c->nspans) {
			snprintf(err, errlen, "%s: declares spans (tracing:) but --spans is %s: leave them out", metrics,
				 spans);
			return -1;
		}
		if (cli_metrics_config_spans(&rm->m, spans, err, errlen))
			return -1;
	}
	c = rm->m.cfg;
	if (metrics && !c->nmetrics) {
		snprintf(err, errlen, "%s: no metrics", metrics);
		return -1;
	}
	if (spans && !c->process_spans && !c->nspans) {
		snprintf(err, errlen, "%s: no spans (tracing: spans:)", spans);
		return -1;
	}
	if (!(rm->chans = calloc(n + 2, sizeof(*rm->chans)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(rm->chans, so->channels, n * sizeof(*rm->chans));
	if (c->nmetrics + c->nspans)   /* the metrics channel: the last of m's */
		rm->chans[n++] = rm->m.chans[rm->m.nchans - 1];
	so->channels = rm->chans;
	so->nchannels = n;
	return 0;
}

int cli_record_spans_start(struct cli_record_metrics *rm, char *err, size_t errlen)
{
	return rm->spans ? cli_metrics_spans_new(&rm->m, err, errlen) : 0;
}

/* The sink of the recording channel: the records of the process spans' events to the
 * live decoder, the others skipped at once. */
static void spans_sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct cli_record_metrics *rm = ctx;
	uint16_t id;

	if (size < 2)
		return;
	memcpy(&id, ev, 2);
	if (id < rm->nwant && rm->want[id])
		trace_live_sink(rm->m.live, cpu, ev, size);
}

static bool is_span_event(const char *name)
{
	static const char *const names[] = {
		"syscall_entry_execve", "syscall_exit_execve", "syscall_entry_execveat", "syscall_exit_execveat",
		"syscall_entry_exit_group", "sched_process_fork", "sched_process_exit",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* Does channel chan record what process spans are built from? */
static bool has_span_events(struct scry_session *s, unsigned chan)
{
	static const char *const needed[] = {
		"syscall_entry_execve", "syscall_exit_execve", "sched_process_fork", "sched_process_exit",
	};
	const uint64_t ctx = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID);
	const struct scry_event *const *evs;
	size_t n = scry_session_events(s, chan, &evs), found = 0;

	if ((scry_session_ctx_mask(s, chan) & ctx) != ctx)
		return false;
	for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(evs[i]->name, needed[k])) {
				found++;
				break;
			}
	return found == sizeof(needed) / sizeof(needed[0]);
}

int cli_record_spans_bind(struct cli_record_metrics *rm, struct scry_session *s, struct scry_session_opts *so,
			  char *err, size_t errlen)
{
	const struct scry_event *const *evs;
	size_t nchan = scry_session_nchannels(s), n;
	unsigned chan;

	if (!rm->m.live)
		return 0;
	for (chan = 0; chan < nchan; chan++)
		if (has_span_events(s, chan))
			break;
	if (chan == nchan) {
		if (rm->own_spans_chan) {
			snprintf(err, errlen, "the channel of the process spans lacks their events");
			return -1;
		}
		/* a channel "spans" of their events, before the metrics channel (the last) */
		if (rm->m.cfg->nmetrics + rm->m.cfg->nspans) {
			rm->chans[so->nchannels] = rm->chans[so->nchannels - 1];
			rm->chans[so->nchannels - 1] = rm->m.chans[0];
		} else {
			rm->chans[so->nchannels] = rm->m.chans[0];
		}
		so->nchannels++;
		rm->own_spans_chan = true;
		return 1;
	}
	n = scry_session_events(s, chan, &evs);
	free(rm->want);
	if (!(rm->want = calloc(n ? n : 1, sizeof(*rm->want)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rm->nwant = n;
	for (size_t i = 0; i < n; i++)
		rm->want[i] = is_span_event(evs[i]->name);
	if (scry_session_set_sink(s, chan, spans_sink, rm)) {
		snprintf(err, errlen, "cannot feed the process spans from channel %u", chan);
		return -1;
	}
	return trace_live_bind_channel(rm->m.live, s, chan, err, errlen) ? -1 : 0;
}

int cli_record_spans_open(struct cli_record_metrics *rm, struct scry_session *s, char *err, size_t errlen)
{
	if (!rm->spans)
		return 0;
	rm->m.s = s;
	return cli_metrics_spans_open(&rm->m, err, errlen);
}

void cli_record_spans_pump(struct cli_record_metrics *rm, uint64_t now)
{
	cli_metrics_pump(&rm->m, now);
}

static int write_prom(struct cli_record_metrics *rm, struct scry_session *s, const struct scry_metric_stats *ks,
		      const char *dir, char *err, size_t errlen)
{
	struct scry_metrics_snap snap;
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
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		overflow[i] = ks->overflow[i];
	struct scry_expose_self self = { .events = ks->events, .no_entry = ks->no_entry, .overflow = overflow };
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

int cli_record_metrics_write(struct cli_record_metrics *rm, struct scry_session *s, const char *dir,
			     char *err, size_t errlen)
{
	struct scry_metric_stats ks;
	uint64_t lost = 0;

	if (scry_session_metric_stats(s, &ks))
		memset(&ks, 0, sizeof(ks));
	if (rm->spans) {
		const struct scry_metrics_config *c = rm->m.cfg;

		for (size_t i = c->nmetrics; i < c->nmetrics + c->nspans; i++)
			lost += ks.overflow[i];
		cli_metrics_spans_end(&rm->m);
		fprintf(stderr, "scry: spans: %llu process, %llu kernel, %llu kernel spans lost (their ring buffer "
			"was full)\n", (unsigned long long)(rm->m.spans ? scry_procspans_started(rm->m.spans) : 0),
			(unsigned long long)(rm->m.kspans ? scry_kernspans_sent(rm->m.kspans) : 0),
			(unsigned long long)lost);
	}
	return rm->metrics ? write_prom(rm, s, &ks, dir, err, errlen) : 0;
}

void cli_record_metrics_free(struct cli_record_metrics *rm)
{
	struct scry_catalog *cat = rm->m.cat;

	rm->m.s = NULL;                 /* the recording's: destroyed by record */
	cli_metrics_free(&rm->m);      /* the catalog is shared: closed here, after the session */
	scry_catalog_close(cat);
	free(rm->chans);
	free(rm->want);
	rm->chans = NULL;
	rm->want = NULL;
}
