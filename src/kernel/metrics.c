/* metrics.c — the loader's part of the in-kernel metrics (src/bpf/metrics.bpf.h): the
 * metrics programs loaded only when metrics are asked for, each metric's per-CPU hash
 * created with its bound and put in its outer map, the descriptors and the per-syscall
 * masks filled; the maps' fds and the programs' counters for the readers (see probes.h);
 * the probe of the application's span marks (tracing: parent:) attached. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "catalog/catalog.h"
#include "kernel/probes_int.h"

_Static_assert(offsetof(struct scry_metric_key, cgroup) == SCRY_METRIC_KEY_NARROW, "narrow keys: the fields before cgroup");

/* SCRY_ML_ADDR: the syscalls with a struct sockaddr argument (1 + its index). */
static void metric_addr_args(struct scry_probes *p)
{
	static const struct { const char *name; uint8_t arg; } calls[] = {
		{ "connect", 2 }, { "bind", 2 }, { "accept", 2 }, { "accept4", 2 }, { "sendto", 5 }, { "recvfrom", 5 },
	};
	const struct scry_syscall *sc;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (p->opts.cat && (sc = scry_catalog_syscall_by_name(p->opts.cat, calls[i].name)) &&
		    sc->nr >= 0 && sc->nr < SCRY_MAX_SYSCALLS)
			((volatile uint8_t *)p->skel->rodata->metric_sc_addr_arg)[sc->nr] = calls[i].arg;
}

/* SCRY_ML_WCHAN: the scheduler's and the locking functions' text, from /proc/kallsyms (the
 * kernel's own in_sched_functions()). */
static int sched_text(struct scry_probes *p, char *err, size_t errlen)
{
	static const char *const names[4] = { "__sched_text_start", "__sched_text_end", "__lock_text_start",
					      "__lock_text_end" };
	uint64_t v[4] = { 0 };
	char line[512], name[256], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "re");
	int found = 0;

	while (f && found < 4 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3)
			for (int i = 0; i < 4; i++)
				if (!v[i] && !strcmp(name, names[i]) && a) {
					v[i] = a;
					found++;
				}
	if (f)
		fclose(f);
	if (found < 2 || !v[0] || !v[1]) {
		snprintf(err, errlen, "the wchan label needs the scheduler's text in /proc/kallsyms "
			 "(__sched_text_start: missing, or hidden by kernel.kptr_restrict)");
		return -1;
	}
	for (int i = 0; i < 4; i++)
		((volatile uint64_t *)p->skel->rodata->metric_sched_text)[i] = v[i];
	return 0;
}

/* Before load: the programs' autoload and the load-time settings (the metrics' descriptors
 * and the per-syscall masks among them). */
void probes_metrics_smallest(struct scry_probes *p)
{
	if (p->opts.nmetrics)
		return;
	/* the dense metrics' tables at their smallest */
	bpf_map__set_max_entries(p->skel->maps.metric_dense_counters, 1);
	bpf_map__set_max_entries(p->skel->maps.metric_dense_hists, 1);
}

int probes_prepare_metrics(struct scry_probes *p, char *err, size_t errlen)
{
	const struct scry_probes_opts *o = &p->opts;
	uint32_t labels = 0, latency = 0, events = 0, rows = 1, hists = 0;
	bool dense_only = true;   /* every syscall metric dense, none a span */

	for (unsigned i = 0; i < SCRY_METRICS_MAX; i++)
		p->metric_fds[i] = -1;
	if (o->nmetrics > SCRY_METRICS_MAX) {
		snprintf(err, errlen, "at most %d metrics", SCRY_METRICS_MAX);
		return -E2BIG;
	}
	if (o->nmetrics && !p->btf_tp) {
		snprintf(err, errlen, "this kernel lacks the BTF tracepoints sys_enter/sys_exit that metrics need");
		return -ENOTSUP;
	}
	for (unsigned i = 0; i < o->nmetrics; i++) {
		labels |= o->metrics[i].labels;
		events |= 1u << o->metrics[i].event;
		if (o->metrics[i].value == SCRY_MV_LATENCY && o->metrics[i].event == SCRY_ME_SYSCALL)
			latency |= 1u << i;
		memcpy((void *)&p->skel->rodata->metric_desc[i], &o->metrics[i], sizeof(o->metrics[i]));
		if (o->metrics[i].event == SCRY_ME_SYSCALL && (!o->metrics[i].dense || o->metrics[i].kind == SCRY_METRIC_SPAN))
			dense_only = false;
		if (o->metrics[i].dense && o->metrics[i].kind == SCRY_METRIC_COUNTER)
			rows = i + 1;
		if (o->metrics[i].dense && o->metrics[i].kind == SCRY_METRIC_HISTOGRAM)   /* metrics/read.c: the same order */
			p->skel->rodata->metric_hist_base[i] = hists++ * SCRY_MAX_SYSCALLS;
	}
	/* the dense counters' table: a row (8 KiB a CPU) up to the last of them; the dense
	 * histograms', SCRY_MAX_SYSCALLS entries each */
	bpf_map__set_max_entries(p->skel->maps.metric_dense_counters, rows);
	bpf_map__set_max_entries(p->skel->maps.metric_dense_hists, hists ? hists * SCRY_MAX_SYSCALLS : 1);
	if (o->nmetrics && o->metric_sc)
		memcpy((void *)p->skel->rodata->metric_sc_mask, o->metric_sc, sizeof(p->skel->rodata->metric_sc_mask));
	if (labels & SCRY_ML_ADDR)
		metric_addr_args(p);
	if ((labels & SCRY_ML_WCHAN) && sched_text(p, err, errlen))
		return -ENOENT;
	p->skel->rodata->n_metrics = o->nmetrics;
	p->skel->rodata->metrics_label_union = labels;
	p->skel->rodata->metrics_latency_mask = latency;
	p->skel->rodata->metrics_dense_only = dense_only;
	p->skel->rodata->metrics_event_mask = events;
	if ((events & ~(1u << SCRY_ME_SYSCALL)) && o->ntrack_cgroups) {
		snprintf(err, errlen, "run-queue, off-CPU and block I/O metrics cannot be restricted to cgroups (--track-cgroup)");
		return -ENOTSUP;
	}
	bpf_program__set_autoload(p->skel->progs.scry_metrics_exit, (events & (1u << SCRY_ME_SYSCALL)) != 0);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_enter, latency != 0);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_lat_switch, latency != 0);
	bool sched = events & (1u << SCRY_ME_RUNQUEUE | 1u << SCRY_ME_OFFCPU);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_wakeup, (events & (1u << SCRY_ME_RUNQUEUE)) != 0);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_wakeup_new, (events & (1u << SCRY_ME_RUNQUEUE)) != 0);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_switch, sched);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_rq_issue, (events & (1u << SCRY_ME_BLOCK_IO)) != 0);
	bpf_program__set_autoload(p->skel->progs.scry_metrics_rq_complete, (events & (1u << SCRY_ME_BLOCK_IO)) != 0);
	/* the application's marks: read by the span programs only when a probe sets them */
	bool marks = o->nmetrics && o->span_mark, spans = false;
	p->skel->rodata->span_marks = marks;
	for (unsigned i = 0; i < o->nmetrics; i++)
		spans |= o->metrics[i].kind == SCRY_METRIC_SPAN;
	/* the maps of what is not measured at their smallest: creating them is ~5 ms of a
	 * start-up (per-CPU tables, preallocated hashes; probes_metrics_smallest) */
	if (!(events & (1u << SCRY_ME_BLOCK_IO)))
		bpf_map__set_max_entries(p->skel->maps.blk_start, 1);
	if (!marks)
		bpf_map__set_max_entries(p->skel->maps.blk_mark, 1);
	if (!spans)
		bpf_map__set_max_entries(p->skel->maps.span_rb, (uint32_t)sysconf(_SC_PAGESIZE));
	bpf_program__set_autoload(p->skel->progs.scry_span_mark_uprobe, marks && !o->span_mark->provider);
	bpf_program__set_autoload(p->skel->progs.scry_span_mark_usdt, marks && o->span_mark->provider);
	bpf_program__set_autoload(p->skel->progs.scry_span_mark_rq_issue, marks && (events & (1u << SCRY_ME_BLOCK_IO)));
	bpf_program__set_autoload(p->skel->progs.scry_span_mark_rq_complete, marks && (events & (1u << SCRY_ME_BLOCK_IO)));
	return 0;
}

int probes_attach_span_mark(struct scry_probes *p, char *err, size_t errlen)
{
	const struct scry_span_mark_probe *m = p->opts.span_mark;
	char what[700];

	int ret;

	if (!p->opts.nmetrics || !m)
		return 0;
	if (bpf_program__autoload(p->skel->progs.scry_span_mark_rq_issue) &&
	    (ret = probes_attach_prog(p, p->skel->progs.scry_span_mark_rq_issue, NULL, NULL, 0,
				      "tp_btf/block_rq_issue (span marks)", err, errlen)))
		return ret;
	if (m->provider) {
		snprintf(what, sizeof(what), "usdt %s:%s:%s (span marks)", m->path, m->provider, m->name);
		return probes_add_link(p, bpf_program__attach_usdt(p->skel->progs.scry_span_mark_usdt, -1, m->path,
								    m->provider, m->name, NULL), what, err, errlen);
	}
	snprintf(what, sizeof(what), "uprobe %s:%s (span marks)", m->path, m->name);
	return probes_add_link(p, bpf_program__attach_uprobe(p->skel->progs.scry_span_mark_uprobe, false, -1, m->path,
							     (size_t)m->offset), what, err, errlen);
}

/* After load: one map per metric (a hash; a dense metric's fd is its table's,
 * metric_dense_counters' row at the metric's index, metric_dense_hists' entries from
 * metric_hist_base), the bounds of fixed buckets (the descriptors and the per-syscall masks are load-time settings:
 * probes_prepare_metrics). */
int probes_install_metrics(struct scry_probes *p, char *err, size_t errlen)
{
	const struct scry_probes_opts *o = &p->opts;
	int ret;

	if (!o->nmetrics)
		return 0;
	for (unsigned i = 0; i < o->nmetrics; i++) {
		const struct scry_metric_desc *d = &o->metrics[i];
		bool hist = d->kind == SCRY_METRIC_HISTOGRAM;
		struct bpf_map *outer = d->wide ? (hist ? p->skel->maps.metric_hists_wide : p->skel->maps.metric_counters_wide) :
				    hist ? p->skel->maps.metric_hists : p->skel->maps.metric_counters;
		LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
		char name[16];
		__u32 key = i;
		int fd;

		if (d->kind == SCRY_METRIC_SPAN)    /* written to span_rb: no map of its own */
			continue;
		snprintf(name, sizeof(name), "scry_metric%u", i % SCRY_METRICS_MAX);
		if (d->dense) {   /* its part of a table (metrics/read.c) */
			fd = fcntl(bpf_map__fd(hist ? p->skel->maps.metric_dense_hists : p->skel->maps.metric_dense_counters),
				   F_DUPFD_CLOEXEC, 0);
			if (fd < 0) {
				ret = -errno;
				snprintf(err, errlen, "cannot install metric %u: %s", i, strerror(-ret));
				return ret;
			}
			p->metric_fds[i] = fd;
			if (d->bucket_type == SCRY_HB_FIXED && o->metric_bounds &&
			    bpf_map_update_elem(bpf_map__fd(p->skel->maps.metric_bounds), &key, &o->metric_bounds[i], BPF_ANY)) {
				ret = -errno;
				snprintf(err, errlen, "cannot install metric %u: %s", i, strerror(-ret));
				return ret;
			}
			continue;
		}
		fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, name,
				    d->wide ? sizeof(struct scry_metric_key) : SCRY_METRIC_KEY_NARROW,
				    hist ? sizeof(struct scry_metric_hist) : sizeof(__u64),
				    o->metric_max_entries[i], &mo);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot create the map of metric %u (%u series): %s", i,
				 o->metric_max_entries[i], strerror(-ret));
			return ret;
		}
		p->metric_fds[i] = fd;
		if (bpf_map_update_elem(bpf_map__fd(outer), &key, &fd, BPF_ANY) ||
		    (d->bucket_type == SCRY_HB_FIXED && o->metric_bounds &&
		     bpf_map_update_elem(bpf_map__fd(p->skel->maps.metric_bounds), &key, &o->metric_bounds[i], BPF_ANY))) {
			ret = -errno;
			snprintf(err, errlen, "cannot install metric %u: %s", i, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int scry_probes_span_fd(const struct scry_probes *p)
{
	return bpf_map__fd(p->skel->maps.span_rb);
}

int scry_probes_metric_fd(const struct scry_probes *p, unsigned id)
{
	return id < SCRY_METRICS_MAX ? p->metric_fds[id] : -1;
}

int scry_probes_metric_stats(struct scry_probes *p, struct scry_metric_stats *out)
{
	struct scry_metric_stats *percpu = calloc(p->ncpus, sizeof(*percpu));
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (!percpu)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.metric_stats), &zero, percpu)) {
		int ret = -errno;
		free(percpu);
		return ret;
	}
	for (unsigned c = 0; c < p->ncpus; c++) {
		out->events += percpu[c].events;
		out->no_entry += percpu[c].no_entry;
		for (int i = 0; i < SCRY_METRICS_MAX; i++) {
			out->overflow[i] += percpu[c].overflow[i];
			out->no_memory[i] += percpu[c].no_memory[i];
			out->busy[i] += percpu[c].busy[i];
			out->failed[i] += percpu[c].failed[i];
		}
		out->marks_lost += percpu[c].marks_lost;
	}
	free(percpu);
	return 0;
}

size_t scry_probes_prog_stats(struct scry_probes *p, struct scry_prog_stats *out, size_t max)
{
	struct bpf_program *prog;
	size_t n = 0;

	for (int i = 0; (prog = probes_prog(p, i)); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = probes_prog_fd(p, prog);

		if (fd < 0 || n >= max)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		out[n++] = (struct scry_prog_stats){
			.name = bpf_program__name(prog), .run_cnt = info.run_cnt,
			.run_time_ns = info.run_time_ns, .recursion_misses = info.recursion_misses,
		};
	}
	return n;
}
