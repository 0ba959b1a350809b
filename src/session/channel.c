/* channel.c — a session's channel (LTTng's): one stream class of the trace, its events and
 * contexts, its own BPF object (whose load-time settings are the channel's), its per-CPU
 * rings and the consumer that moves them into its streams (NAME_<cpu>) and its record sink.
 * A channel of kind COUNT writes nothing: its syscalls are counted in the kernel; one of
 * kind METRICS neither: it has no events, its metrics are updated in the kernel.
 * Several channels cost nothing on the paths of one: each has its programs, and a program
 * whose channel does not record an event returns at its descriptor. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "catalog/symbolize.h"
#include "consumer/consumer.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "session/user_filter.h"
#include "util/clock.h"
#include "util/log.h"

/* A channel given no event records these (`scry record`'s defaults): with lttng-modules'
 * statedump, written at start as LTTng writes it at every session start, so that a kernel
 * analysis knows every thread, its name and its files (it adds ~50 ms to a start:
 * bench/statedump.sh) — all of it but lttng_statedump_vm_map, which lttng-modules defines
 * and never emits.  `scry trace` and scryd's sessions always name their events. */
static const char *const default_events[] = {
	"syscall:*", "sched:sched_switch", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit", "lttng_statedump_[!v]*",
	/* with opts.sched_everyone only */
	"sched:sched_wakeup", "sched:sched_wakeup_new",
};
#define DEFAULT_EVENTS_ALWAYS 6

/* A channel name names files (NAME_<cpu>, index/NAME_<cpu>.idx): LTTng's characters. */
static bool valid_name(const char *n)
{
	if (!*n || strlen(n) > 200 || n[0] == '.')
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
		      *n == '_' || *n == '-' || *n == '.'))
			return false;
	return true;
}

size_t scry_default_ring_size(void)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t size = SCRY_DEFAULT_RING_SIZE;

	while (ncpus > 0 && size > SCRY_MIN_RING_SIZE && size * (size_t)ncpus > SCRY_DEFAULT_RING_TOTAL)
		size /= 2;
	return size;
}

size_t scry_default_ring_size_for(uint64_t ctx_mask)
{
	size_t size = scry_default_ring_size();

	if (ctx_mask & ((1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER)))
		size *= SCRY_STACK_RING_FACTOR;
	return size;
}

/* A metrics channel: the filter decides each syscall exit before the metrics see it, on
 * the call's arguments and return value (scry_filters_prepare_calls); scheduler and block
 * I/O observations are no syscall: refused. */
static int prepare_metrics_filter(struct scry_channel *c, char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	const struct scry_event **entries;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs), k = 0;

	for (unsigned i = 0; i < c->opts.nmetrics; i++)
		if (c->opts.metrics[i].event != SCRY_ME_SYSCALL) {
			snprintf(err, errlen, "--filter decides syscalls: it cannot be combined with run-queue, off-CPU "
				 "or block I/O metrics");
			return -EINVAL;
		}
	if (!(entries = calloc(n ? n : 1, sizeof(*entries)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS && c->opts.metric_sc && c->opts.metric_sc[scs[i].nr] &&
		    (entries[k] = scry_catalog_syscall_entry(c->s->cat, &scs[i])))
			k++;
	c->filters = scry_filters_prepare_calls(c->s->opts.filter, entries, k, err, errlen);
	free(entries);
	if (!c->filters && !strncmp(err, "filter:", 7)) {   /* say whose: a recording's channels may take it */
		char *why = strdup(err);

		if (why)
			snprintf(err, errlen, "metrics' %s", why);
		free(why);
	}
	return c->filters ? 0 : -EINVAL;
}

static int prepare_filter(struct scry_channel *c, char *err, size_t errlen)
{
	const struct scry_session_opts *so = &c->s->opts;

	if (c->opts.kind == SCRY_CHANNEL_METRICS)
		return prepare_metrics_filter(c, err, errlen);
	if (c->opts.kind == SCRY_CHANNEL_COUNT) {
		snprintf(err, errlen, "a filter cannot be combined with counting (-c)");
		return -EINVAL;
	}
	c->filters = scry_filters_prepare(so->filter, (const struct scry_event *const *)c->events, c->nevents,
					  so->filter_entries_only, err, errlen);
	if (!c->filters)
		return -EINVAL;
	return scry_user_filter_new(&c->ufilter, c->filters, (const struct scry_event *const *)c->events,
				    c->nevents, c->opts.ctx_mask, err, errlen);
}

int channel_new(struct scry_channel **out, struct scry_session *s, const struct scry_channel_opts *o,
		unsigned id, char *err, size_t errlen)
{
	struct scry_channel *c = calloc(1, sizeof(*c));
	const char *const *specs = o->events;
	size_t nspecs = o->nevents;
	int ret = -ENOMEM;

	*out = c;
	if (!c)
		goto oom;
	c->s = s;
	c->id = id;
	c->opts = *o;
	c->name = strdup(o->name ? o->name : SCRY_DEFAULT_CHANNEL);
	if (!c->name)
		goto oom;
	c->opts.name = c->name;
	if (!valid_name(c->name)) {
		snprintf(err, errlen, "invalid channel name '%s' (letters, digits, '_', '-', '.')", c->name);
		return -EINVAL;
	}
	c->ring_default = !c->opts.ring_size;
	if (!c->opts.ring_size)
		c->opts.ring_size = scry_default_ring_size();
	c->unknown_entry = c->unknown_exit = c->fork_id = c->signal_id = c->signal_gen_id = NO_EVENT;
	for (int k = 0; k < SCRY_SD_NR; k++)
		c->sd_ids[k] = NO_EVENT;
	c->profile_id = NO_EVENT;
	c->net_conn_id = NO_EVENT;
	c->sc_entry = malloc(SCRY_MAX_SYSCALLS * sizeof(uint16_t));
	c->sc_exit = malloc(SCRY_MAX_SYSCALLS * sizeof(uint16_t));
	c->sc_off = calloc(SCRY_MAX_SYSCALLS, sizeof(bool));
	if (!c->sc_entry || !c->sc_exit || !c->sc_off)
		goto oom;
	for (int i = 0; i < SCRY_MAX_SYSCALLS; i++)
		c->sc_entry[i] = c->sc_exit[i] = NO_EVENT;
	if (o->kind == SCRY_CHANNEL_METRICS) {
		if (!o->nmetrics || nspecs) {
			snprintf(err, errlen, "a metrics channel has metrics and no events");
			return -EINVAL;
		}
	} else if (!nspecs && !o->no_events) {
		specs = default_events;
		nspecs = s->opts.sched_everyone ? sizeof(default_events) / sizeof(default_events[0])
						: DEFAULT_EVENTS_ALWAYS;
	}
	for (size_t i = 0; i < nspecs; i++) {
		err[0] = 0;
		ret = channel_enable_rule(c, specs[i], specs == o->events && o->event_filters ? o->event_filters[i] : NULL,
					  err, errlen);
		if (ret)
			return ret;
	}
	return s->opts.filter ? prepare_filter(c, err, errlen) : channel_rules_prepare(c, err, errlen);
oom:
	snprintf(err, errlen, "out of memory");
	return ret;
}

/* Its BPF object, loaded with the channel's settings and the session's trackers; its
 * filter fronts; its syscall table. */
int channel_load(struct scry_channel *c, char *err, size_t errlen)
{
	const struct scry_session_opts *so = &c->s->opts;
	bool tracepoints = !so->fixed_events || c->filters;   /* fronts: tracefs */
	unsigned btf_tps = 0;

	if (c->ring_default)   /* its contexts are known now (scry_session_add_context) */
		c->opts.ring_size = scry_default_ring_size_for(c->opts.ctx_mask);

	for (size_t i = 0; i < c->ntps; i++) {
		int k = scry_btf_tp_index(c->tps[i].system, c->tps[i].name);

		if (k >= 0)
			btf_tps |= 1u << k;
		else
			tracepoints = true;
	}
	uint64_t *ustack_ids = NULL;
	bool live = c->opts.kind == SCRY_CHANNEL_EVENTS && !so->fixed_events && !so->filter && c->any_syscall;

	if (c->opts.ustack_window) {   /* scry trace -k: the syscall exits send their stacks */
		if (!(ustack_ids = calloc(SCRY_USTACK_IDS / 64, sizeof(*ustack_ids)))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		/* the exits, and the entries of the calls that never return (strace -k prints
		 * exit_group's stack) */
		for (size_t i = 0; i < c->nevents && i < SCRY_USTACK_IDS; i++)
			if (c->events[i]->kind == SCRY_EV_SYSCALL_EXIT ||
			    (c->events[i]->kind == SCRY_EV_SYSCALL_ENTRY && c->events[i]->tp &&
			     (!strcmp(c->events[i]->tp, "exit_group") || !strcmp(c->events[i]->tp, "exit"))))
				ustack_ids[i / 64] |= 1ULL << (i % 64);
	}
	struct scry_probes_opts po = {
		.ustack_window = c->opts.ustack_window,
		.ustack_ids = ustack_ids,
		.ustack_ring = c->opts.ustack_ring,
		.cat = c->s->cat,
		.ctx_mask = c->opts.ctx_mask,
		.clock = so->clock,
		.target_all = so->target_all,
		.no_follow = so->no_follow,
		/* per-process event sets: an events channel without a filter (pid_sets.c) */
		.max_pid_sets = c->opts.kind == SCRY_CHANNEL_EVENTS && !so->filter && !c->filters ? c->s->max_psets : 0,
		.fork_event_id = c->fork_id,
		.signal_event_id = c->signal_id,
		.signal_gen_event_id = c->signal_gen_id,
		.unknown_entry_id = c->unknown_entry,
		.unknown_exit_id = c->unknown_exit,
		.syscalls = c->any_syscall,
		.uprobes = c->any_uprobe,
		.usdt = c->any_usdt,
		.filter = c->filters != NULL,
		/* a daemon's events channel (its events change once loaded): its rules' filters too */
		.live_filters = live,
		.btf_tps = btf_tps,
		.tracepoints = tracepoints,
		.counts = c->opts.kind == SCRY_CHANNEL_COUNT,
		.ring_size = c->opts.ring_size,
		.nevent_ids = (unsigned)c->nevents,
		.track_vpids = so->track_vpids, .ntrack_vpids = so->ntrack_vpids, .track_vpid = so->track_vpids != NULL,
		.track_uids = so->track_uids, .ntrack_uids = so->ntrack_uids, .track_uid = so->track_uids != NULL,
		.track_gids = so->track_gids, .ntrack_gids = so->ntrack_gids, .track_gid = so->track_gids != NULL,
		.track_vuids = so->track_vuids, .ntrack_vuids = so->ntrack_vuids, .track_vuid = so->track_vuids != NULL,
		.track_vgids = so->track_vgids, .ntrack_vgids = so->ntrack_vgids, .track_vgid = so->track_vgids != NULL,
		.track_cgroup_fds = c->s->cgroup_fds, .ntrack_cgroups = so->ntrack_cgroups,
		.metrics = c->opts.metrics, .metric_max_entries = c->opts.metric_max_entries,
		.nmetrics = c->opts.kind == SCRY_CHANNEL_METRICS ? c->opts.nmetrics : 0, .metric_sc = c->opts.metric_sc,
		.sd_ids = c->statedump ? c->sd_ids : NULL,
		.profile_event_id = c->profile_id, .profile_freq = c->profile_freq,
		.net_conns = c->net_conn_id != NO_EVENT, .net_conn_event_id = c->net_conn_id,
		.metric_bounds = c->opts.metric_bounds,
		.span_mark = c->opts.kind == SCRY_CHANNEL_METRICS ? c->opts.span_mark : NULL,
	};
	int ret = scry_probes_load(&c->probes, &po, err, errlen);

	free(ustack_ids);
	c->live_filters = !ret && live;

	c->tp_writer = tracepoints;

	if (ret)
		return ret;
	if (c->filters) {
		size_t moved;

		ret = scry_filters_install(c->filters, c->probes, scry_log_verbose(), &moved, err, errlen);
		if (ret)
			return ret;
		if (moved) {   /* filters this kernel cannot run: decided in user space too */
			scry_user_filter_free(c->ufilter);
			c->ufilter = NULL;
			ret = scry_user_filter_new(&c->ufilter, c->filters, (const struct scry_event *const *)c->events,
						   c->nevents, c->opts.ctx_mask, err, errlen);
			if (ret)
				return ret;
		}
		if (c->ufilter)
			scry_user_filter_explain(c->ufilter);
	}
	return channel_describe(c, err, errlen);
}

/* Its consumer, then its programs attached (recording starts with the session's switch). */
int channel_start(struct scry_channel *c, char *err, size_t errlen)
{
	struct scry_session *s = c->s;
	struct scry_consumer_opts co = {
		.probes = c->probes, .tdir = session_has_trace(s) ? s->tdir : NULL, .channel = c->name,
		.uuid = s->uuid, .stream_id = c->id,
		.packet_size = c->opts.packet_size ? c->opts.packet_size : s->opts.packet_size,
		.keep_packets = s->opts.snapshot ? (c->opts.keep_packets ? c->opts.keep_packets : 4) : 0,
		.overwrite_packets = s->opts.snapshot ? 0 : c->opts.overwrite_packets,
		.ring_size = c->opts.ring_size, .start_ts = s->start_ts,
		.tracefile_size = c->opts.tracefile_size, .tracefile_count = c->opts.tracefile_count,
		.sink = c->opts.sink, .sink_ctx = c->opts.sink_ctx,
		.stage_max_age_ns = c->opts.sink ? 2 * 1000 * 1000ULL : 0,
		.pred = c->ufilter ? scry_user_filter_match : NULL, .pred_ctx = c->ufilter,
		.pred_ids = c->ufilter ? scry_user_filter_ids(c->ufilter) : NULL,
		.ctx_mask = c->opts.ctx_mask, .maps_dir = s->root,
		.sinks = s->relay ? scry_relay_sinks(s->relay) : NULL,
	};
	int ret;

	if (c->opts.kind == SCRY_CHANNEL_EVENTS && (ret = scry_consumer_open(&c->consumer, &co, err, errlen)))
		return ret;
	ret = channel_attach(c, err, errlen);
	if (ret)
		return ret;
	return scry_probes_attach(c->probes, err, errlen);
}

int scry_session_add_context(struct scry_session *s, const char *channel, unsigned ctx, char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);

	if (!c)
		return -ENOENT;
	if (ctx >= SCRY_CTX_NR) {
		snprintf(err, errlen, "unknown context %u", ctx);
		return -EINVAL;
	}
	if (c->probes) {
		snprintf(err, errlen, "cannot add context '%s' to channel '%s': the session is loaded",
			 scry_context(ctx)->name, c->name);
		return -EBUSY;
	}
	c->opts.ctx_mask |= 1ULL << ctx;
	if (c->ufilter) {   /* the user-space filter reads records: their layout changed */
		scry_user_filter_free(c->ufilter);
		c->ufilter = NULL;
		return scry_user_filter_new(&c->ufilter, c->filters, (const struct scry_event *const *)c->events,
					    c->nevents, c->opts.ctx_mask, err, errlen);
	}
	return 0;
}

void channel_free(struct scry_channel *c)
{
	if (!c)
		return;
	if (c->consumer) {
		struct scry_consumer_stats cs;
		scry_consumer_close(c->consumer, session_now(c->s), &cs);
	}
	scry_probes_close(c->probes);
	scry_user_filter_free(c->ufilter);
	scry_filters_free(c->filters);
	channel_rules_free(c);
	for (size_t i = 0; i < c->ntps; i++) {
		free(c->tps[i].system);
		free(c->tps[i].name);
	}
	free(c->tps);
	for (size_t i = 0; i < c->nups; i++) {
		free(c->ups[i].u.path);
		free(c->ups[i].u.func);
		free(c->ups[i].u.provider);
	}
	free(c->ups);
	free(c->events);
	free(c->sd_items);
	free(c->sc_entry);
	free(c->sc_exit);
	free(c->sc_off);
	free(c->name);
	free(c);
}
