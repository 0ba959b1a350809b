/* probes.c — load, configure, attach and take down scry's BPF programs (see probes.h). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "scry.skel.h"
#include "catalog/catalog.h"
#include "filter/bpf_gen.h"
#include "kernel/ctx_paths.h"
#include "kernel/features.h"
#include "kernel/probes.h"

#define MAX_LINKS (SCRY_MAX_TP + 8)

struct scry_probes {
	struct scry_bpf *skel;
	struct scry_probes_opts opts;
	unsigned ncpus;
	int *ring_fds;
	struct bpf_link **links;
	size_t nlinks;
	unsigned next_tp_slot;
	int tp_link[SCRY_MAX_TP];  /* a tracepoint slot's index in links, -1: a front's */
	uint8_t *stages;           /* the stages map, mmapped read-only */
	size_t stages_len, stage_stride;
	bool btf_tp;               /* kernel has BTF tracepoints (tp_btf) */
	int strnstr_id;            /* vmlinux BTF id of kfunc bpf_strnstr, 0 if none */
	struct loaded_filter *filters;   /* filter fronts loaded (closed with the probes) */
	size_t nfilters, capfilters;
	int sys_front[2];          /* fds of the sys_enter / sys_exit fronts, -1: none */
	int *front_links;          /* links of the fronts attached (fds) */
	size_t nfront_links;
	struct scry_ctx_layout layout;   /* contexts and registers in kernel BTF */
	bool prepare_exec;         /* scry_prepare_exec is loaded */
	bool memo_by_regs;         /* the memo keeps the current task (untrusted kptr) */
};

struct loaded_filter {
	unsigned kind;
	struct bpf_insn *insns;
	size_t n;
	int fd;
};

static bool verbose_print;

static int attach_front_tp(struct scry_probes *p, int prog_fd, const char *system, const char *name, __u64 cookie,
			   char *err, size_t errlen);
static int add_front_link(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen);

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose_print)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The memo map (struct scry_memo): with its kptr as the object declares it, or, on a
 * kernel without untrusted kptrs (or SCRY_NO_KPTR=1, for tests), created here without BTF
 * and used by tgid only (rodata memo_by_regs = 0). */
static int prepare_memo(struct scry_probes *p, char *err, size_t errlen)
{
	int fd, ret;

	p->memo_by_regs = !getenv("SCRY_NO_KPTR") && scry_feature_kptr_untrusted();
	p->skel->rodata->memo_by_regs = p->memo_by_regs;
	if (p->memo_by_regs)
		return 0;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "memo", 4, sizeof(struct scry_memo), 1, NULL);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create the memo map: %s", strerror(-ret));
		return ret;
	}
	ret = bpf_map__reuse_fd(p->skel->maps.memo, fd);
	close(fd);
	if (ret)
		snprintf(err, errlen, "cannot use the memo map: %s", strerror(-ret));
	return ret;
}

static int add_link(struct scry_probes *p, struct bpf_link *l, const char *what, char *err, size_t errlen)
{
	int e = -errno;

	if (!l) {
		snprintf(err, errlen, "cannot attach %s: %s", what, strerror(-e));
		return e ? e : -EINVAL;
	}
	if (p->nlinks >= MAX_LINKS) {
		bpf_link__destroy(l);
		snprintf(err, errlen, "too many probes (limit %d)", MAX_LINKS);
		return -E2BIG;
	}
	p->links[p->nlinks++] = l;
	return 0;
}

static int fill_set(int fd, const uint32_t *keys, size_t n, const char *what, char *err, size_t errlen)
{
	__u8 one = 1;

	for (size_t i = 0; i < n; i++) {
		if (bpf_map_update_elem(fd, &keys[i], &one, BPF_ANY)) {
			int e = -errno;
			snprintf(err, errlen, "cannot track %s %u: %s", what, keys[i], strerror(-e));
			return e;
		}
	}
	return 0;
}

static struct bpf_program *dispatcher(struct scry_probes *p, unsigned kind)
{
	switch (kind) {
	case SCRY_FENV_ENTER: return p->btf_tp ? p->skel->progs.scry_sys_enter_btf : p->skel->progs.scry_sys_enter_tp;
	case SCRY_FENV_EXIT: return p->btf_tp ? p->skel->progs.scry_sys_exit_btf : p->skel->progs.scry_sys_exit_tp;
	case SCRY_FENV_TP: return p->skel->progs.scry_tp;
	case SCRY_FENV_FORK: return p->skel->progs.scry_fork;
	default: return NULL;
	}
}

/* The prog array through which a front of kind reaches its dispatcher. */
static struct bpf_map *back_map(struct scry_probes *p, unsigned kind)
{
	struct bpf_map *back[SCRY_FENV_NR] = { p->skel->maps.back_enter, p->skel->maps.back_exit, p->skel->maps.back_tp,
					       p->skel->maps.back_fork };
	return kind < SCRY_FENV_NR ? back[kind] : NULL;
}

/* Tracker maps, and each dispatcher at index 0 of its back_* array (for the filters; the
 * fork front goes on to scry_fork_write, past the fork tracking). */
static int fill_trackers(struct scry_probes *p, const struct scry_probes_opts *o, char *err, size_t errlen)
{
	struct bpf_program *resume = p->btf_tp ? p->skel->progs.scry_sys_exit_resume_btf : p->skel->progs.scry_sys_exit_resume_tp;
	int ret;

	if ((ret = fill_set(bpf_map__fd(p->skel->maps.track_vpid), o->track_vpids, o->ntrack_vpids, "vpid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_uid), o->track_uids, o->ntrack_uids, "uid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_gid), o->track_gids, o->ntrack_gids, "gid", err, errlen)))
		return ret;
	for (size_t i = 0; i < o->ntrack_cgroups; i++) {
		__u32 key = i;
		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.track_cgroup), &key, &o->track_cgroup_fds[i], BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot track cgroup #%zu: %s", i + 1, strerror(-ret));
			return ret;
		}
	}
	for (int k = 0; k < SCRY_FENV_NR; k++) {
		__u32 zero = 0;
		int fd = bpf_program__fd(k == SCRY_FENV_FORK ? p->skel->progs.scry_fork_write : dispatcher(p, (unsigned)k));
		if (fd >= 0 && bpf_map_update_elem(bpf_map__fd(back_map(p, (unsigned)k)), &zero, &fd, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot prepare the filter dispatch: %s", strerror(-ret));
			return ret;
		}
	}
	__u32 one = 1;
	int rfd = bpf_program__fd(resume);
	if (rfd >= 0 && bpf_map_update_elem(bpf_map__fd(p->skel->maps.back_exit), &one, &rfd, BPF_ANY)) {
		ret = -errno;
		snprintf(err, errlen, "cannot prepare the filter dispatch: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* Every key 0..n-1 of an array map at once: one syscall, and for a map of maps one wait for
 * the programs (an update at a time waits a grace period each, ~7 ms per CPU's ring). */
static int update_all(int map_fd, const void *values, unsigned n)
{
	__u32 *keys = malloc(n * sizeof(*keys));
	__u32 count = n;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		keys[i] = i;
	if (bpf_map_update_batch(map_fd, keys, values, &count, NULL) || count != n)
		ret = errno ? -errno : -EIO;
	free(keys);
	return ret;
}

static int install_rings(struct scry_probes *p)
{
	return update_all(bpf_map__fd(p->skel->maps.rings), p->ring_fds, p->ncpus);
}

int scry_probes_load(struct scry_probes **out, const struct scry_probes_opts *o, char *err, size_t errlen)
{
	struct scry_probes *p;
	int ret = -ENOMEM;

	verbose_print = o->verbose;
	libbpf_set_print(print_fn);
	p = calloc(1, sizeof(*p));
	if (!p)
		goto fail_msg;
	p->opts = *o;
	p->sys_front[0] = p->sys_front[1] = -1;
	p->links = calloc(MAX_LINKS, sizeof(*p->links));
	if (!p->links)
		goto fail_msg;
	ret = libbpf_num_possible_cpus();
	if (ret <= 0) {
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(-ret));
		goto fail;
	}
	p->ncpus = ret;
	p->ring_fds = malloc(p->ncpus * sizeof(int));
	if (!p->ring_fds) {
		ret = -ENOMEM;
		goto fail_msg;
	}
	for (unsigned i = 0; i < p->ncpus; i++)
		p->ring_fds[i] = -1;

	if (!scry_feature_btf()) {
		snprintf(err, errlen, "this kernel has no BTF (/sys/kernel/btf/vmlinux): scry needs CONFIG_DEBUG_INFO_BTF");
		ret = -ENOTSUP;
		goto fail;
	}
	p->skel = scry_bpf__open();
	if (!p->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		goto fail;
	}
	struct btf *vmlinux = btf__load_vmlinux_btf();   /* parsed once for both probes */
	p->btf_tp = scry_feature_tp_btf(vmlinux, "sys_enter");
	bool btf_fork = scry_feature_tp_btf(vmlinux, "sched_process_fork");
	/* kfunc bpf_strnstr (6.17): glob middles; without it (or SCRY_NO_STRNSTR=1, for tests)
	 * such filters are decided in user space */
	p->strnstr_id = getenv("SCRY_NO_STRNSTR") ? 0 : scry_feature_strnstr(vmlinux);
	/* sched_prepare_exec (Linux 6.10) lets a deferred execve entry be read from the old
	 * image; without it, it is read from the new one (SCRY_NO_PREPARE_EXEC=1 forces this,
	 * for tests) */
	p->prepare_exec = o->syscalls && p->btf_tp && scry_feature_prepare_exec(vmlinux) &&
			  !getenv("SCRY_NO_PREPARE_EXEC");
	scry_ctx_layout(vmlinux, &p->layout);
	btf__free(vmlinux);

	p->skel->rodata->ctx_mask = o->ctx_mask;
	p->skel->rodata->head_bytes = SCRY_EVENT_HEADER_SIZE + scry_context_size(o->ctx_mask);
	p->skel->rodata->self_tgid = getpid();
	p->skel->rodata->target_all = o->target_all;
	p->skel->rodata->fork_event_id = o->fork_event_id;
	p->skel->rodata->unknown_entry_id = o->unknown_entry_id;
	p->skel->rodata->unknown_exit_id = o->unknown_exit_id;
	p->skel->rodata->track_mask = (o->track_vpid ? SCRY_TRACK_VPID : 0) | (o->track_uid ? SCRY_TRACK_UID : 0) |
				      (o->track_gid ? SCRY_TRACK_GID : 0) | (o->ntrack_cgroups ? SCRY_TRACK_CGROUP : 0);
	p->skel->rodata->n_track_cgroups = o->ntrack_cgroups;
	if (o->ntrack_cgroups > SCRY_MAX_TRACK_CGROUPS) {
		snprintf(err, errlen, "at most %d cgroups can be tracked", SCRY_MAX_TRACK_CGROUPS);
		ret = -E2BIG;
		goto fail;
	}

	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_btf, o->syscalls && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_btf, o->syscalls && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_tp, o->syscalls && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_tp, o->syscalls && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_resume_btf, o->syscalls && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_resume_tp, o->syscalls && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_prepare_exec, p->prepare_exec);
	bool need_fork = !o->target_all || o->fork_event_id != 0xffff || o->track_vpid;
	if (need_fork && !btf_fork) {
		snprintf(err, errlen, "this kernel lacks the BTF tracepoint sched_process_fork needed to follow children and record forks");
		ret = -ENOTSUP;
		goto fail;
	}
	bpf_program__set_autoload(p->skel->progs.scry_fork, need_fork);
	bpf_program__set_autoload(p->skel->progs.scry_fork_write, need_fork);
	/* followed processes leave the follow sets at exit */
	bpf_program__set_autoload(p->skel->progs.scry_exit, !o->target_all || o->track_vpid);
	if (getenv("SCRY_FOLLOW_MAX")) {          /* tests: a small follow set, to fill it */
		unsigned max = (unsigned)strtoul(getenv("SCRY_FOLLOW_MAX"), NULL, 0);

		if (max) {
			bpf_map__set_max_entries(p->skel->maps.tracked, max);
			bpf_map__set_max_entries(p->skel->maps.vpid_followed, max);
		}
	}

	bpf_map__set_max_entries(p->skel->maps.rings, p->ncpus);
	bpf_map__set_max_entries(p->skel->maps.areas, p->ncpus * SCRY_AREAS_PER_CPU);
	bpf_map__set_max_entries(p->skel->maps.stages, p->ncpus);
	bpf_program__set_autoload(p->skel->progs.scry_flush, true);
	ret = prepare_memo(p, err, errlen);
	if (ret)
		goto fail;
	/* The inner ring template keeps its size: ring buffers of any size may be inserted
	 * (libbpf 1.1 cannot resize an inner map template). */

	ret = scry_bpf__load(p->skel);
	if (ret) {
		snprintf(err, errlen, "the kernel refused scry's BPF programs: %s%s", strerror(-ret),
			 o->verbose ? "" : " (--verbose shows the verifier log)");
		goto fail;
	}
	ret = fill_trackers(p, o, err, errlen);
	if (ret)
		goto fail;
	p->stage_stride = (sizeof(struct scry_stage) + 7) & ~(size_t)7;
	p->stages_len = p->stage_stride * p->ncpus;
	p->stages_len = (p->stages_len + (size_t)sysconf(_SC_PAGESIZE) - 1) & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	p->stages = mmap(NULL, p->stages_len, PROT_READ, MAP_SHARED, bpf_map__fd(p->skel->maps.stages), 0);
	if (p->stages == MAP_FAILED) {
		p->stages = NULL;
		ret = -errno;
		snprintf(err, errlen, "cannot map the staging buffers: %s", strerror(-ret));
		goto fail;
	}
	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "scry_ring", 0, 0, o->ring_size, NULL);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot create a %zu-byte ring buffer for CPU %u: %s",
				 o->ring_size, cpu, strerror(-ret));
			goto fail;
		}
		p->ring_fds[cpu] = fd;
	}
	if ((ret = install_rings(p)) < 0) {
		snprintf(err, errlen, "cannot install the ring buffers: %s", strerror(-ret));
		goto fail;
	}
	*out = p;
	return 0;
fail_msg:
	snprintf(err, errlen, "out of memory");
fail:
	scry_probes_close(p);
	return ret < 0 ? ret : -EINVAL;
}

int scry_probes_set_syscalls(struct scry_probes *p, const struct scry_sc_desc *d, unsigned n)
{
	if (n > SCRY_MAX_SYSCALLS)
		return -ERANGE;
	return update_all(bpf_map__fd(p->skel->maps.syscalls), d, n);
}

int scry_probes_sc_count(struct scry_probes *p, unsigned nr, struct scry_sc_count *out)
{
	struct scry_sc_count *percpu;
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = nr;

	memset(out, 0, sizeof(*out));
	if (ncpus <= 0)
		return -EINVAL;
	if (!(percpu = calloc((size_t)ncpus, sizeof(*percpu))))
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.sc_counts), &key, percpu)) {
		int ret = -errno;
		free(percpu);
		return ret;
	}
	for (int i = 0; i < ncpus; i++) {
		out->calls += percpu[i].calls;
		out->errors += percpu[i].errors;
		out->ns += percpu[i].ns;
	}
	free(percpu);
	return 0;
}

int scry_probes_track(struct scry_probes *p, pid_t tgid)
{
	__u32 key = tgid, zero = 0;
	__u8 one = 1;
	__u64 gen = 0;
	int gen_fd = bpf_map__fd(p->skel->maps.tracked_gen);

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tracked), &key, &one, BPF_ANY))
		return -errno;
	/* invalidate the programs' per-CPU "not followed" memos (see target_ok) */
	if (bpf_map_lookup_elem(gen_fd, &zero, &gen))
		return -errno;
	gen += 1ULL << 32;
	if (bpf_map_update_elem(gen_fd, &zero, &gen, BPF_ANY))
		return -errno;
	return 0;
}

int scry_probes_attach_tracepoint(struct scry_probes *p, const char *system, const char *name,
				  const struct scry_tp_desc *d, int front_fd, char *err, size_t errlen)
{
	char what[256];
	__u32 slot = p->next_tp_slot;

	if (slot >= SCRY_MAX_TP) {
		snprintf(err, errlen, "too many tracepoints (limit %d)", SCRY_MAX_TP);
		return -E2BIG;
	}
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tps), &slot, d, BPF_ANY)) {
		int e = -errno;
		snprintf(err, errlen, "cannot store the descriptor of %s:%s: %s", system, name, strerror(-e));
		return e;
	}
	LIBBPF_OPTS(bpf_tracepoint_opts, topts, .bpf_cookie = slot);
	snprintf(what, sizeof(what), "tracepoint %s:%s", system, name);
	int ret = front_fd >= 0 ? attach_front_tp(p, front_fd, system, name, slot, err, errlen) :
		  add_link(p, bpf_program__attach_tracepoint_opts(p->skel->progs.scry_tp, system, name, &topts),
			   what, err, errlen);
	if (ret)
		return ret;
	p->tp_link[slot] = front_fd >= 0 ? -1 : (int)p->nlinks - 1;
	p->next_tp_slot++;
	return (int)slot;
}

int scry_probes_detach_tracepoint(struct scry_probes *p, int slot)
{
	struct scry_tp_desc off = { .event_id = SCRY_NO_EVENT };
	__u32 k = (__u32)slot;
	int l;

	if (slot < 0 || (unsigned)slot >= p->next_tp_slot || (l = p->tp_link[slot]) < 0 || !p->links[l])
		return -ENOENT;
	/* written no more from now on, then detached (which waits for the tracepoint) */
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tps), &k, &off, BPF_ANY))
		return -errno;
	bpf_link__destroy(p->links[l]);
	p->links[l] = NULL;
	return 0;
}

/* The syscall front of kind 0 (entry) or 1 (exit) on its hook. */
static int attach_front_sys(struct scry_probes *p, int kind, char *err, size_t errlen)
{
	const char *what = kind ? "sys_exit" : "sys_enter";

	if (p->btf_tp)
		return add_front_link(p, bpf_raw_tracepoint_open(NULL, p->sys_front[kind]), what, err, errlen);
	return attach_front_tp(p, p->sys_front[kind], "raw_syscalls", what, 0, err, errlen);
}

int scry_probes_attach(struct scry_probes *p, char *err, size_t errlen)
{
	int ret = 0;

	if (p->opts.syscalls) {
		/* a filter front replaces its dispatcher on the hook (it tail-calls it) */
		if (p->sys_front[0] >= 0)
			ret = attach_front_sys(p, 0, err, errlen);
		else if (p->btf_tp)
			ret = add_link(p, bpf_program__attach(p->skel->progs.scry_sys_enter_btf), "tp_btf/sys_enter", err, errlen);
		else
			ret = add_link(p, bpf_program__attach(p->skel->progs.scry_sys_enter_tp), "raw_syscalls:sys_enter", err, errlen);
		if (ret)
			return ret;
		if (p->sys_front[1] >= 0)
			ret = attach_front_sys(p, 1, err, errlen);
		else if (p->btf_tp)
			ret = add_link(p, bpf_program__attach(p->skel->progs.scry_sys_exit_btf), "tp_btf/sys_exit", err, errlen);
		else
			ret = add_link(p, bpf_program__attach(p->skel->progs.scry_sys_exit_tp), "raw_syscalls:sys_exit", err, errlen);
		if (!ret && p->prepare_exec)
			ret = add_link(p, bpf_program__attach(p->skel->progs.scry_prepare_exec),
				       "tp_btf/sched_prepare_exec", err, errlen);
		if (ret)
			return ret;
	}
	if (bpf_program__autoload(p->skel->progs.scry_fork))
		ret = add_link(p, bpf_program__attach(p->skel->progs.scry_fork), "tp_btf/sched_process_fork", err, errlen);
	if (!ret && bpf_program__autoload(p->skel->progs.scry_exit))
		ret = add_link(p, bpf_program__attach(p->skel->progs.scry_exit), "tp_btf/sched_process_exit", err, errlen);
	return ret;
}


int scry_probes_filter_target(struct scry_probes *p, unsigned kind, struct fgen_target *t)
{
	if (kind >= SCRY_FENV_NR)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->src = kind >= SCRY_FENV_TP ? FGEN_SRC_TP : p->btf_tp ? FGEN_SRC_SYSCALL_BTF : FGEN_SRC_SYSCALL_TP;
	if (t->src == FGEN_SRC_SYSCALL_BTF && !p->layout.regs_ok)
		return -ENOTSUP;
	t->exit = kind == SCRY_FENV_EXIT;
	t->env_kind = kind;
	t->env_fd = bpf_map__fd(p->skel->maps.filter_env);
	t->back_fd = bpf_map__fd(back_map(p, kind));
	t->waiting_fd = bpf_map__fd(p->skel->maps.bss);
	t->waiting_off = (uint32_t)((char *)&p->skel->bss->deferred_waiting - (char *)p->skel->bss);
	t->stats_fd = bpf_map__fd(p->skel->maps.stats);
	t->strnstr_btf_id = p->strnstr_id;
	memcpy(t->regs_off, p->layout.regs_off, sizeof(t->regs_off));
	t->orig_ax_off = p->layout.orig_ax_off;
	t->ctx = p->layout.ctx;
	t->comm_off = p->layout.comm_off;
	t->pid = p->layout.pid;
	t->memo = t->src == FGEN_SRC_SYSCALL_BTF && p->memo_by_regs && p->layout.memo_ok;
	t->memo_fd = bpf_map__fd(p->skel->maps.memo);
	t->task_stack_off = p->layout.stack_off;
	t->task_exit_state_off = p->layout.exit_state_off;
	return 0;
}

int scry_probes_load_front(struct scry_probes *p, unsigned kind, const struct bpf_insn *insns, size_t n,
			   char *log, size_t logsize)
{
	struct bpf_program *d = dispatcher(p, kind);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = -1;

	if (!d || bpf_program__fd(d) < 0)
		return -EINVAL;
	for (size_t i = 0; i < p->nfilters && fd < 0; i++) {
		struct loaded_filter *lf = &p->filters[i];
		if (lf->kind == kind && lf->n == n && !memcmp(lf->insns, insns, n * sizeof(*insns)))
			fd = lf->fd;
	}
	if (fd < 0) {
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(d), &info, &len))
			return -errno;
		LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = bpf_program__expected_attach_type(d),
			    .attach_btf_id = info.attach_btf_id);
		if (p->nfilters == p->capfilters) {
			size_t cap = p->capfilters ? 2 * p->capfilters : 16;
			struct loaded_filter *lf = realloc(p->filters, cap * sizeof(*lf));
			if (!lf)
				return -ENOMEM;
			p->filters = lf;
			p->capfilters = cap;
		}
		struct bpf_insn *copy = malloc(n * sizeof(*insns));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, insns, n * sizeof(*insns));
		fd = bpf_prog_load(bpf_program__type(d), "scry_filter", "GPL", insns, n, &lo);
		if (fd < 0) {
			int e = -errno;
			if (log && logsize) {   /* again with the verifier's log (a full log fails a load) */
				log[0] = 0;
				lo.log_buf = log;
				lo.log_size = (__u32)logsize;
				lo.log_level = 1;
				if ((fd = bpf_prog_load(bpf_program__type(d), "scry_filter", "GPL", insns, n, &lo)) >= 0)
					close(fd);
			}
			free(copy);
			return e;
		}
		p->filters[p->nfilters++] = (struct loaded_filter){ kind, copy, n, fd };
	}
	if (kind == SCRY_FENV_ENTER || kind == SCRY_FENV_EXIT)
		p->sys_front[kind] = fd;
	if (kind == SCRY_FENV_FORK) {
		__u32 zero = 0;
		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.flt_fork), &zero, &fd, BPF_ANY))
			return -errno;
	}
	return fd;
}

/* Remember a front's link (an fd) to close it with the probes. */
static int add_front_link(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen)
{
	int *l;

	if (fd < 0) {
		int e = -errno;
		snprintf(err, errlen, "cannot attach the filter of %s: %s", what, strerror(-e));
		return e ? e : -EINVAL;
	}
	l = realloc(p->front_links, (p->nfront_links + 1) * sizeof(*l));
	if (!l) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	p->front_links = l;
	l[p->nfront_links++] = fd;
	return 0;
}

/* A front on tracefs tracepoint system:name with a BPF cookie (what libbpf does for the
 * programs it loaded itself). */
static int attach_front_tp(struct scry_probes *p, int prog_fd, const char *system, const char *name, __u64 cookie,
			   char *err, size_t errlen)
{
	char what[256];
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .sample_period = 1, .wakeup_events = 1 };
	int id = p->opts.cat ? scry_catalog_tracepoint_id(p->opts.cat, system, name) : -1;
	int pfd, link;

	snprintf(what, sizeof(what), "tracepoint %s:%s", system, name);
	if (id < 0) {
		snprintf(err, errlen, "cannot attach the filter of %s: no tracefs id", what);
		return -ENOENT;
	}
	a.config = (__u64)id;
	pfd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (add_front_link(p, pfd, what, err, errlen))
		return -errno;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo);
	if (add_front_link(p, link, what, err, errlen))
		return -errno;
	if (ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = -errno;
		snprintf(err, errlen, "cannot enable the filter of %s: %s", what, strerror(-e));
		return e;
	}
	return 0;
}

unsigned scry_probes_ncpus(const struct scry_probes *p)
{
	return p->ncpus;
}

int scry_probes_ring_fd(const struct scry_probes *p, unsigned cpu)
{
	return cpu < p->ncpus ? p->ring_fds[cpu] : -1;
}

uint32_t scry_probes_staged(const struct scry_probes *p, unsigned cpu)
{
	const struct scry_stage *st;

	if (!p->stages || cpu >= p->ncpus)
		return 0;
	st = (const struct scry_stage *)(p->stages + (size_t)cpu * p->stage_stride);
	return __atomic_load_n(&st->len, __ATOMIC_RELAXED);
}

int scry_probes_flush_stage(struct scry_probes *p, unsigned cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	if (bpf_prog_test_run_opts(bpf_program__fd(p->skel->progs.scry_flush), &topts))
		return -errno;
	return 0;
}

int scry_probes_stats(struct scry_probes *p, struct scry_cpu_stats *out)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.stats), &zero, out))
		return -errno;
	return 0;
}

uint64_t scry_probes_recursion_misses(struct scry_probes *p)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	bpf_object__for_each_program(prog, p->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

uint64_t scry_probes_deferred_waiting(struct scry_probes *p)
{
	return __atomic_load_n(&p->skel->bss->deferred_waiting, __ATOMIC_RELAXED);
}

void scry_probes_set_recording(struct scry_probes *p, bool on)
{
	__atomic_store_n(&p->skel->bss->scry_recording, on ? 1 : 0, __ATOMIC_SEQ_CST);
}

/* Detaching a tracefs tracepoint waits for an RCU grace period (tens of ms): the links are
 * destroyed by several threads at once, whose waits overlap. */
struct detach_work {
	struct bpf_link **links;
	size_t n;
	size_t next;               /* atomic */
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n)
		bpf_link__destroy(w->links[i]);   /* NULL (detached already): nothing */
	return NULL;
}

void scry_probes_detach(struct scry_probes *p)
{
	struct detach_work w = { .links = p->links, .n = p->nlinks };
	pthread_t th[16];
	size_t nth = 0;

	/* (the switch is off: the order in which events stop coming does not matter) */
	while (nth < sizeof(th) / sizeof(th[0]) && nth + 1 < p->nlinks &&
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

void scry_probes_close(struct scry_probes *p)
{
	if (!p)
		return;
	if (p->links)
		scry_probes_detach(p);
	free(p->links);
	free(p->front_links);
	if (p->ring_fds)
		for (unsigned i = 0; i < p->ncpus; i++)
			if (p->ring_fds[i] >= 0)
				close(p->ring_fds[i]);
	free(p->ring_fds);
	if (p->stages)
		munmap(p->stages, p->stages_len);
	for (size_t i = 0; i < p->nfilters; i++) {
		close(p->filters[i].fd);
		free(p->filters[i].insns);
	}
	free(p->filters);
	scry_bpf__destroy(p->skel);
	free(p);
}
