/* attach.c — attaching scry's programs (syscalls, fork and exit, each generic tracepoint by
 * its slot, uprobes one by one or many in one uprobe_multi link), detaching one tracepoint, and
 * taking everything down (see probes.h).  A program of the object is attached from its fd
 * (probes_attach_prog), so that one loaded here and one scryd loaded (warm.c) take the same
 * way: tp_btf/raw_tp by BPF_RAW_TRACEPOINT_OPEN, a tracefs tracepoint by a perf event and a
 * BPF link with its cookie. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "catalog/catalog.h"
#include "kernel/features.h"
#include "kernel/probes_int.h"

static int link_slot(struct scry_probes *p, const char *what, char *err, size_t errlen)
{
	if (p->nlinks >= MAX_LINKS) {
		snprintf(err, errlen, "too many probes (limit %d) to attach %s", MAX_LINKS, what);
		return -E2BIG;
	}
	return 0;
}

int probes_add_link(struct scry_probes *p, struct bpf_link *l, const char *what, char *err, size_t errlen)
{
	int e = -errno, ret;

	if (!l) {
		snprintf(err, errlen, "cannot attach %s: %s", what, strerror(-e));
		return e ? e : -EINVAL;
	}
	if ((ret = link_slot(p, what, err, errlen))) {
		bpf_link__destroy(l);
		return ret;
	}
	p->links[p->nlinks++] = (struct probe_link){ .bl = l, .fd = -1 };
	return 0;
}

int probes_add_link_fd(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen)
{
	int e = -errno, ret;

	if (fd < 0) {
		snprintf(err, errlen, "cannot attach %s: %s", what, strerror(-e));
		return e ? e : -EINVAL;
	}
	if ((ret = link_slot(p, what, err, errlen))) {
		close(fd);
		return ret;
	}
	p->links[p->nlinks++] = (struct probe_link){ .fd = fd };
	return 0;
}

static bool link_live(const struct probe_link *l)
{
	return l->bl || l->fd >= 0;
}

static void link_destroy(struct probe_link *l)
{
	bpf_link__destroy(l->bl);     /* NULL: nothing */
	if (l->fd >= 0)
		close(l->fd);
	*l = (struct probe_link){ .fd = -1 };
}

/* The tracefs id of tracepoint system:name: the catalog's, or read from tracefs (names of
 * the object's own sections, or checked: no path of our choosing). */
static int tracefs_id(const struct scry_probes *p, const char *system, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[512], buf[32];
	int id = -1;

	if (p->opts.cat)
		return scry_catalog_tracepoint_id(p->opts.cat, system, name);
	if (!*system || !*name || strchr(system, '/') || strchr(name, '/') || system[0] == '.' || name[0] == '.')
		return -1;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		int fd;
		ssize_t n;

		if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], system, name) >= (int)sizeof(path) ||
		    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			id = atoi(buf);
		}
	}
	return id;
}

/* prog_fd on tracefs tracepoint system:name (every process: pid -1 on CPU 0, as libbpf opens
 * it) with a BPF cookie: the link's fd (which holds the perf event), or -1 with errno. */
static int tracefs_link(struct scry_probes *p, int prog_fd, const char *system, const char *name, __u64 cookie)
{
	/* a counting event, as libbpf opens it: a sampling one (sample_period 1) is refused with
	 * EPERM on some tracepoints (irq_vectors:irq_work_exit here) */
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	int id = tracefs_id(p, system, name), pfd, link, e;

	if (id < 0) {
		errno = ENOENT;
		return -1;
	}
	a.config = (__u64)id;
	if ((pfd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC)) < 0)
		return -1;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	if ((link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo)) >= 0 && ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		e = errno;
		close(link);
		link = -1;
		errno = e;
	}
	e = errno;
	close(pfd);
	errno = e;
	return link;
}

int probes_attach_prog(struct scry_probes *p, struct bpf_program *prog, const char *system, const char *name,
		       __u64 cookie, const char *what, char *err, size_t errlen)
{
	const char *sec = bpf_program__section_name(prog), *slash;
	int fd = probes_prog_fd(p, prog), link = -1, ret;
	bool raw = false;
	char sys[128];

	if (fd < 0) {
		snprintf(err, errlen, "cannot attach %s: its program is not loaded", what);
		return -ENOENT;
	}
	if (system && name)
		link = tracefs_link(p, fd, system, name, cookie);
	else if ((raw = !strncmp(sec, "tp_btf/", 7)))
		link = bpf_raw_tracepoint_open(NULL, fd);      /* the hook of its attach_btf_id */
	else if ((raw = !strncmp(sec, "raw_tp/", 7)))
		link = bpf_raw_tracepoint_open(sec + 7, fd);
	else if (!strncmp(sec, "tracepoint/", 11) && (slash = strchr(sec + 11, '/')) &&
		 (size_t)(slash - sec - 11) < sizeof(sys)) {
		snprintf(sys, sizeof(sys), "%.*s", (int)(slash - sec - 11), sec + 11);
		link = tracefs_link(p, fd, sys, slash + 1, cookie);
	} else {
		snprintf(err, errlen, "cannot attach %s: no hook in its section '%s'", what, sec);
		return -ENOTSUP;
	}
	if (!(ret = probes_add_link_fd(p, link, what, err, errlen)))
		p->links[p->nlinks - 1].raw = raw;
	return ret;
}

/* scry_exit attached once, for the follow sets and sched_process_exit's event both. */
static int exit_attach(struct scry_probes *p, char *err, size_t errlen)
{
	int ret;

	if (p->exit_link >= 0)
		return 0;
	ret = probes_attach_prog(p, p->skel->progs.scry_exit, NULL, NULL, 0, "tp_btf/sched_process_exit", err, errlen);
	if (!ret)
		p->exit_link = (int)p->nlinks - 1;
	return ret;
}

struct bpf_program *probes_btf_tp_prog(struct scry_probes *p, int k)
{
	struct bpf_program *prog[SCRY_BTF_TP_NR] = {
		[SCRY_BTF_TP_EXIT] = p->skel->progs.scry_exit,
		[SCRY_BTF_TP_SWITCH] = p->skel->progs.scry_btf_switch,
		[SCRY_BTF_TP_WAKEUP] = p->skel->progs.scry_btf_wake,
		[SCRY_BTF_TP_WAKEUP_NEW] = p->skel->progs.scry_btf_wake_new,
		[SCRY_BTF_TP_EXEC] = p->skel->progs.scry_btf_exec,
	};

	return k >= 0 && k < SCRY_BTF_TP_NR ? prog[k] : NULL;
}

/* The program of BTF tracepoint k (SCRY_BTF_TP_*), its slot set: scry_exit once, whatever
 * else it serves */
static int btf_tp_attach(struct scry_probes *p, int k, const char *what, char *err, size_t errlen)
{
	if (k == SCRY_BTF_TP_EXIT)
		return exit_attach(p, err, errlen);
	return probes_attach_prog(p, probes_btf_tp_prog(p, k), NULL, NULL, 0, what, err, errlen);
}

int scry_probes_attach_tracepoint(struct scry_probes *p, const char *system, const char *name,
				  const struct scry_tp_desc *d, int front_fd, char *err, size_t errlen)
{
	char what[256];
	__u32 slot = p->next_tp_slot;
	/* the scheduler's from their BTF tracepoints (tracepoints.bpf.h), once each, without a
	 * filter front; else a tracefs one */
	int k = scry_btf_tp_index(system, name);
	bool by_btf = front_fd < 0 && k >= 0 && (p->btf_tps & 1u << k) && !p->skel->bss->btf_tp_slot[k];

	if (slot >= SCRY_MAX_TP) {
		snprintf(err, errlen, "too many tracepoints (limit %d)", SCRY_MAX_TP);
		return -E2BIG;
	}
	if (!by_btf && !bpf_program__autoload(p->skel->progs.scry_tp)) {   /* a front tail-calls it */
		snprintf(err, errlen, "%s:%s: tracepoints cannot be added to a session loaded without one", system, name);
		return -ENOTSUP;
	}
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tps), &slot, d, BPF_ANY)) {
		int e = -errno;
		snprintf(err, errlen, "cannot store the descriptor of %s:%s: %s", system, name, strerror(-e));
		return e;
	}
	snprintf(what, sizeof(what), "tracepoint %s:%s", system, name);
	int ret;

	if (front_fd >= 0)
		ret = probes_attach_front_tp(p, front_fd, system, name, slot, err, errlen);
	else if (by_btf) {
		p->skel->bss->btf_tp_slot[k] = slot + 1;
		if ((ret = btf_tp_attach(p, k, what, err, errlen)))
			p->skel->bss->btf_tp_slot[k] = 0;
	} else
		ret = probes_attach_prog(p, p->skel->progs.scry_tp, system, name, slot, what, err, errlen);
	if (ret)
		return ret;
	p->tp_link[slot] = front_fd >= 0 ? -1 : by_btf && k == SCRY_BTF_TP_EXIT ? p->exit_link : (int)p->nlinks - 1;
	p->next_tp_slot++;
	return (int)slot;
}

int scry_probes_detach_tracepoint(struct scry_probes *p, int slot)
{
	struct scry_tp_desc off = { .event_id = SCRY_NO_EVENT };
	__u32 k = (__u32)slot;
	int l;

	if (slot < 0 || (unsigned)slot >= p->next_tp_slot || ((l = p->tp_link[slot]) >= 0 && !link_live(&p->links[l])))
		return -ENOENT;
	/* written no more from now on, then detached (which waits for the tracepoint) */
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tps), &k, &off, BPF_ANY))
		return -errno;
	if (l < 0)
		return 0;   /* a front's: it stays on its hook until the probes close, as a uprobe's */
	for (int b = 0; b < SCRY_BTF_TP_NR; b++) {
		if (p->skel->bss->btf_tp_slot[b] != k + 1)
			continue;
		p->skel->bss->btf_tp_slot[b] = 0;   /* free for its tracepoint again */
		if (b == SCRY_BTF_TP_EXIT) {
			if (p->exit_follow)
				return 0;           /* scry_exit stays for the follow sets */
			p->exit_link = -1;
		}
	}
	link_destroy(&p->links[l]);
	return 0;
}

/* The descriptor's flags (SCRY_UPD_*), from its operations: what the program must fetch,
 * and whether the event fits the stage (src/bpf/uprobes.bpf.h); each string's max within
 * 8..SCRY_STR_MAX, as the program takes it (up_str: no clamp of its own). */
static __u8 up_flags(struct scry_up_desc *d)
{
	unsigned nstr = 0;
	__u8 f = 0;

	for (unsigned i = 0; i < d->nops && i < SCRY_MAX_UP_OPS; i++) {
		struct scry_up_op *op = &d->ops[i];

		op->max = op->max < 8 ? 8 : op->max > SCRY_STR_MAX ? SCRY_STR_MAX : op->max;

		if (op->kind == SCRY_UOP_USTR || op->kind == SCRY_UOP_STACK_STR || op->kind == SCRY_UOP_MEM_STR)
			nstr++;
		if (op->kind != SCRY_UOP_USDT && op->kind != SCRY_UOP_STACK && op->kind != SCRY_UOP_STACK_STR &&
		    op->reg > SCRY_UREG_SP)
			f |= SCRY_UPD_ALL_REGS;
	}
	if (nstr > 1)
		f |= SCRY_UPD_STRINGS;
	return f;
}

/* The next uprobe slot with its descriptor stored, or -errno. */
static int up_slot(struct scry_probes *p, struct bpf_program *prog, const char *what, const struct scry_up_desc *desc,
		   char *err, size_t errlen)
{
	__u32 slot = p->next_up_slot;
	struct scry_up_desc dd = *desc, *d = &dd;

	if (!bpf_program__autoload(prog)) {
		snprintf(err, errlen, "%s: such probes cannot be added to a session loaded without one", what);
		return -ENOTSUP;
	}
	if (slot >= SCRY_MAX_UPROBES) {
		snprintf(err, errlen, "too many uprobes and USDT probes (limit %d)", SCRY_MAX_UPROBES);
		return -E2BIG;
	}
	d->flags = up_flags(d);
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.uprobes), &slot, d, BPF_ANY)) {
		int e = -errno;
		snprintf(err, errlen, "cannot store the descriptor of %s: %s", what, strerror(-e));
		return e;
	}
	return (int)slot;
}

static int up_link(struct scry_probes *p, struct bpf_link *l, int slot, const char *what, char *err, size_t errlen)
{
	int r = probes_add_link(p, l, what, err, errlen);

	if (r)
		return r;
	p->up_link[slot] = (int)p->nlinks - 1;
	p->next_up_slot++;
	return slot;
}

int scry_probes_attach_uprobe(struct scry_probes *p, const char *path, uint64_t offset, bool ret,
			      const struct scry_up_desc *d, int front_fd, char *err, size_t errlen)
{
	char what[600];
	int slot, r;

	snprintf(what, sizeof(what), "%s %s+0x%llx", ret ? "uretprobe" : "uprobe", path, (unsigned long long)offset);
	if ((slot = up_slot(p, p->skel->progs.scry_uprobe, what, d, err, errlen)) < 0)
		return slot;
	if (front_fd >= 0) {      /* the front on the probe, scry_uprobe behind it */
		if ((r = probes_attach_front_uprobe(p, front_fd, path, offset, ret, (__u64)slot, what, err, errlen)))
			return r;
		p->up_link[slot] = -1;
		p->next_up_slot++;
		return slot;
	}
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .bpf_cookie = (__u64)slot, .retprobe = ret);
	return up_link(p, bpf_program__attach_uprobe_opts(p->skel->progs.scry_uprobe, -1, path, (size_t)offset, &uopts),
		       slot, what, err, errlen);
}

bool scry_probes_uprobe_multi(const struct scry_probes *p)
{
	return p->uprobe_multi;
}

int scry_probes_attach_uprobes(struct scry_probes *p, const char *path, bool ret, const uint64_t *offsets,
			       const struct scry_up_desc *descs, size_t n, int *slots, char *err, size_t errlen)
{
	char what[600];
	uint64_t *cookies = calloc(n ? n : 1, sizeof(*cookies));
	int fd, prog = probes_prog_fd(p, p->skel->progs.scry_uprobe_multi);

	snprintf(what, sizeof(what), "%s %s (%zu functions in one uprobe_multi link)", ret ? "uretprobes" : "uprobes",
		 path, n);
	if (!cookies) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!p->uprobe_multi || prog < 0) {
		free(cookies);
		snprintf(err, errlen, "%s: this session was loaded without uprobe_multi", what);
		return -ENOTSUP;
	}
	for (size_t i = 0; i < n; i++) {
		int slot = up_slot(p, p->skel->progs.scry_uprobe_multi, what, &descs[i], err, errlen);

		if (slot < 0) {
			free(cookies);
			return slot;
		}
		p->up_link[slot] = -1;        /* detached by its descriptor: the link is shared */
		p->next_up_slot++;
		slots[i] = slot;
		cookies[i] = (uint64_t)slot;
	}
	/* BPF_LINK_CREATE with link_create.uprobe_multi (Linux 6.6: not in libbpf 1.1 nor in
	 * Debian 12's uapi headers, laid out here as the kernel's union bpf_attr has it) */
	struct {
		__u32 prog_fd, target_fd, attach_type, flags;
		__u64 path, offsets, ref_ctr_offsets, cookies;
		__u32 cnt, flags2, pid;
	} attr = {
		.prog_fd = (__u32)prog, .attach_type = SCRY_BPF_TRACE_UPROBE_MULTI,
		.path = (__u64)(uintptr_t)path, .offsets = (__u64)(uintptr_t)offsets,
		.cookies = (__u64)(uintptr_t)cookies, .cnt = (__u32)n,
		.flags2 = ret ? SCRY_BPF_F_UPROBE_MULTI_RETURN : 0,
	};
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	free(cookies);
	return probes_add_front_link(p, fd, what, err, errlen);
}

int scry_probes_attach_usdt(struct scry_probes *p, const char *path, const char *provider, const char *name,
			    const struct scry_up_desc *d, char *err, size_t errlen)
{
	char what[700];
	int slot;

	snprintf(what, sizeof(what), "usdt %s:%s:%s", path, provider, name);
	if ((slot = up_slot(p, p->skel->progs.scry_usdt, what, d, err, errlen)) < 0)
		return slot;
	LIBBPF_OPTS(bpf_usdt_opts, uopts, .usdt_cookie = (__u64)slot);
	return up_link(p, bpf_program__attach_usdt(p->skel->progs.scry_usdt, -1, path, provider, name, &uopts),
		       slot, what, err, errlen);
}

int scry_probes_detach_uprobe(struct scry_probes *p, int slot)
{
	struct scry_up_desc off = { .event_id = SCRY_NO_EVENT };
	__u32 k = (__u32)slot;
	int l;

	if (slot < 0 || (unsigned)slot >= p->next_up_slot)
		return -ENOENT;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.uprobes), &k, &off, BPF_ANY))
		return -errno;
	/* written no more from now on; a front stays on its probe until the probes close */
	if ((l = p->up_link[slot]) >= 0)
		link_destroy(&p->links[l]);
	return 0;
}

/* prog attached where its SEC names, if it was loaded (what: its hook, for the error). */
static int attach_loaded(struct scry_probes *p, struct bpf_program *prog, const char *what, char *err,
			 size_t errlen)
{
	return bpf_program__autoload(prog) ? probes_attach_prog(p, prog, NULL, NULL, 0, what, err, errlen) : 0;
}

int scry_probes_attach(struct scry_probes *p, char *err, size_t errlen)
{
	/* before any program that fills the memo: its hits are proved by the exits seen */
	int ret = attach_loaded(p, p->skel->progs.scry_memo_exit, "tp_btf/sched_process_exit (memo)", err, errlen);

	if (ret)
		return ret;
	if (p->opts.syscalls && p->opts.live_filters) {
		/* the dispatchers, their doors set for the fronts (fronts.c) */
		ret = probes_attach_doors(p, err, errlen);
		if (!ret && p->prepare_exec)
			ret = attach_loaded(p, p->skel->progs.scry_prepare_exec, "tp_btf/sched_prepare_exec", err, errlen);
		if (ret)
			return ret;
	} else if (p->opts.syscalls) {
		/* a filter front replaces its dispatcher on the hook (it tail-calls it) */
		if (p->sys_front[0] >= 0)
			ret = probes_attach_front_sys(p, 0, err, errlen);
		else if (p->btf_tp)
			ret = attach_loaded(p, probes_dispatcher_btf(p, false), "tp_btf/sys_enter", err, errlen);
		else
			ret = attach_loaded(p, p->skel->progs.scry_sys_enter_tp, "raw_syscalls:sys_enter", err, errlen);
		if (ret)
			return ret;
		if (p->sys_front[1] >= 0)
			ret = probes_attach_front_sys(p, 1, err, errlen);
		else if (p->btf_tp)
			ret = attach_loaded(p, probes_dispatcher_btf(p, true), "tp_btf/sys_exit", err, errlen);
		else
			ret = attach_loaded(p, p->skel->progs.scry_sys_exit_tp, "raw_syscalls:sys_exit", err, errlen);
		if (!ret && p->prepare_exec)
			ret = attach_loaded(p, p->skel->progs.scry_prepare_exec, "tp_btf/sched_prepare_exec", err, errlen);
		if (ret)
			return ret;
	}
	/* the latency slots' switch program before the entry program that fills them: every
	 * entry kept is moved when its task leaves the CPU (metrics.bpf.h) */
	ret = attach_loaded(p, p->skel->progs.scry_metrics_lat_switch, "tp_btf/sched_switch (metric latency)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_enter, "tp_btf/sys_enter (metrics)", err, errlen);
	if (!ret && bpf_program__autoload(p->skel->progs.scry_metrics_exit) && !p->opts.syscalls && p->sys_front[1] >= 0)
		ret = probes_attach_front_sys(p, 1, err, errlen);   /* --filter: its front tail-calls it */
	else if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_exit, "tp_btf/sys_exit (metrics)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_wakeup, "tp_btf/sched_wakeup (metrics)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_wakeup_new, "tp_btf/sched_wakeup_new (metrics)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_switch, "tp_btf/sched_switch (metrics)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_rq_issue, "tp_btf/block_rq_issue (metrics)", err, errlen);
	/* before the metrics' program: a tracepoint's programs run in the order they were
	 * attached, and this one hands a request's mark to the other (metrics.bpf.h) */
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_span_mark_rq_complete, "tp_btf/block_rq_complete (span marks)", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_metrics_rq_complete, "tp_btf/block_rq_complete (metrics)", err, errlen);
	if (!ret)
		ret = probes_attach_span_mark(p, err, errlen);
	if (ret)
		return ret;
	ret = attach_loaded(p, p->skel->progs.scry_fork, "tp_btf/sched_process_fork", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_perf_switch, "tp_btf/sched_switch", err, errlen);
	if (!ret && p->exit_follow)
		ret = exit_attach(p, err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_signal, "raw_tp/signal_deliver", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_signal_gen, "raw_tp/signal_generate", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_net_state, "tp_btf/inet_sock_set_state", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_net_accept, "syscalls/sys_exit_accept", err, errlen);
	if (!ret)
		ret = attach_loaded(p, p->skel->progs.scry_net_accept4, "syscalls/sys_exit_accept4", err, errlen);
	if (!ret)
		ret = scry_probes_attach_samples(p, err, errlen);
	return ret;
}

/* Detaching a tracefs tracepoint waits for RCU grace periods (tens of ms): those links
 * are destroyed by several threads at once, whose waits overlap only in part (the kernel's
 * perf_trace_destroy holds event_mutex around each tracepoint's unregistration and its
 * waits: record's four took ~120 ms together, one after the other, in session 23's trace;
 * they are BTF tracepoints now, tracepoints.bpf.h, unless the kernel lacks them).  A raw tracepoint's link
 * (tp_btf, raw_tp) frees what it held after a grace period without waiting for it: those are
 * destroyed first, here (a thread for each of scry trace's 7 such links took ~1-2 ms more
 * than closing them in turn), in the reverse of their attach order: the kernel waits for a
 * grace period (synchronize_rcu in tracepoint_probe_unregister, ~16 ms here) when a
 * tracepoint left with one probe of two keeps the later one (its first probe changed), as
 * sched_process_exit would (scry_memo_exit attached first, scry_exit after it): the first
 * close of scry trace took 16-20 ms in that order, the whole detach ~1 ms in this one. */
struct detach_work {
	struct probe_link *links;
	size_t n;
	size_t next;               /* atomic */
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n)
		link_destroy(&w->links[i]);   /* detached already: nothing */
	return NULL;
}

void scry_probes_detach(struct scry_probes *p)
{
	struct detach_work w = { .links = p->links, .n = p->nlinks };
	pthread_t th[16];
	size_t nth = 0, slow = 0;

	/* (the switch is off: the order in which events stop coming does not matter) */
	for (size_t i = p->nlinks; i-- > 0;)
		if (p->links[i].raw)
			link_destroy(&p->links[i]);
		else
			slow++;
	while (nth < sizeof(th) / sizeof(th[0]) && nth + 1 < slow &&
	       pthread_create(&th[nth], NULL, detach_worker, &w) == 0)
		nth++;
	detach_worker(&w);
	for (size_t i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	p->nlinks = 0;
	/* links first, then the perf events they were on (attach order reversed) */
	for (size_t i = p->nfront_links; i-- > 0;)
		close(p->front_links[i]);
	p->nfront_links = 0;
}
