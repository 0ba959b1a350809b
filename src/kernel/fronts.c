/* fronts.c — filter fronts in the kernel: where a front of each kind finds its values and
 * maps (scry_probes_filter_target), loading a front compiled by src/filter/bpf_gen.c once
 * per distinct program, the prog arrays through which an accepting front reaches its
 * dispatcher, attaching fronts in place of the dispatchers, and the doors' flip when the
 * syscall fronts change while recording (see probes.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/ptrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "catalog/catalog.h"
#include "filter/bpf_gen.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"

/* A metrics channel (it records no syscall): its exit front goes before the metrics' exit
 * program, which it reaches through back_exit as a recording's reaches its dispatcher. */
static bool metrics_front(const struct scry_probes *p)
{
	return p->opts.nmetrics && !p->opts.syscalls;
}

static struct bpf_program *dispatcher(struct scry_probes *p, unsigned kind)
{
	if (kind == SCRY_FENV_EXIT && metrics_front(p))
		return p->skel->progs.scry_metrics_exit;
	switch (kind) {
	case SCRY_FENV_ENTER: return p->btf_tp ? p->skel->progs.scry_sys_enter_btf : p->skel->progs.scry_sys_enter_tp;
	case SCRY_FENV_EXIT: return p->btf_tp ? p->skel->progs.scry_sys_exit_btf : p->skel->progs.scry_sys_exit_tp;
	case SCRY_FENV_TP: return p->skel->progs.scry_tp;
	case SCRY_FENV_FORK: return p->skel->progs.scry_fork;
	case SCRY_FENV_UPROBE: return p->skel->progs.scry_uprobe;
	default: return NULL;
	}
}

/* The prog array through which a front of kind reaches its dispatcher. */
static struct bpf_map *back_map(struct scry_probes *p, unsigned kind)
{
	struct bpf_map *back[SCRY_FENV_NR] = { p->skel->maps.back_enter, p->skel->maps.back_exit, p->skel->maps.back_tp,
					       p->skel->maps.back_fork, p->skel->maps.back_uprobe };
	return kind < SCRY_FENV_NR ? back[kind] : NULL;
}

/* Each dispatcher at index 0 of its back_* array, the resume program at back_exit's 1 (the
 * fork front goes on to scry_fork_write, past the fork tracking). */
int probes_prepare_dispatch(struct scry_probes *p, char *err, size_t errlen)
{
	struct bpf_program *resume = p->btf_tp ? p->skel->progs.scry_sys_exit_resume_btf : p->skel->progs.scry_sys_exit_resume_tp;
	int ret;

	for (int k = 0; k < SCRY_FENV_NR; k++) {
		__u32 zero = 0;
		int fd = probes_prog_fd(p, k == SCRY_FENV_FORK ? p->skel->progs.scry_fork_write : dispatcher(p, (unsigned)k));
		if (fd >= 0 && bpf_map_update_elem(bpf_map__fd(back_map(p, (unsigned)k)), &zero, &fd, BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot prepare the filter dispatch: %s", strerror(-ret));
			return ret;
		}
	}
	__u32 one = 1;
	int rfd = probes_prog_fd(p, resume);
	if (rfd >= 0 && bpf_map_update_elem(bpf_map__fd(p->skel->maps.back_exit), &one, &rfd, BPF_ANY)) {
		ret = -errno;
		snprintf(err, errlen, "cannot prepare the filter dispatch: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

int scry_probes_filter_target(struct scry_probes *p, unsigned kind, struct fgen_target *t)
{
	if (kind >= SCRY_FENV_NR)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->src = kind == SCRY_FENV_UPROBE ? FGEN_SRC_UPROBE : kind >= SCRY_FENV_TP ? FGEN_SRC_TP :
		 p->btf_tp ? FGEN_SRC_SYSCALL_BTF : FGEN_SRC_SYSCALL_TP;
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
	/* a uprobe program's context: the user registers, in the uapi's struct pt_regs (x86-64,
	 * as src/bpf/uprobes.bpf.h reads them) */
	static const int16_t uregs[7] = {
		offsetof(struct pt_regs, rdi), offsetof(struct pt_regs, rsi), offsetof(struct pt_regs, rdx),
		offsetof(struct pt_regs, rcx), offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, rax),
	};
	memcpy(t->uregs_off, uregs, sizeof(uregs));
	t->ctx = p->layout.ctx;
	t->comm_off = p->layout.comm_off;
	t->pid = p->layout.pid;
	/* the front takes current from the memo, and fills it for the dispatcher behind,
	 * unless the helper is the cheaper way (current_by_helper: -5.3 ns a rejected event,
	 * bench/progpair.sh on an Intel host) */
	t->memo = t->src == FGEN_SRC_SYSCALL_BTF && p->memo_by_regs && p->layout.memo_ok && !p->current_by_helper;
	t->memo_fd = bpf_map__fd(p->skel->maps.memo);
	t->task_stack_off = p->layout.stack_off;
	t->task_exit_state_off = p->layout.exit_state_off;
	t->memo_gen = t->memo && p->skel->rodata->memo_by_gen;
	t->gen_off = (uint32_t)((char *)&p->skel->bss->tracked_gen - (char *)p->skel->bss);
	return 0;
}

int scry_probes_load_front(struct scry_probes *p, unsigned kind, const struct bpf_insn *insns, size_t n,
			   char *log, size_t logsize)
{
	struct bpf_program *d = dispatcher(p, kind);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = -1;

	if (!d || probes_prog_fd(p, d) < 0)
		return -EINVAL;
	for (size_t i = 0; i < p->nfilters && fd < 0; i++) {
		struct loaded_filter *lf = &p->filters[i];
		if (lf->kind == kind && lf->n == n && !memcmp(lf->insns, insns, n * sizeof(*insns)))
			fd = lf->fd;
	}
	if (fd < 0) {
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(probes_prog_fd(p, d), &info, &len))
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

/* The syscall front of kind 0 (entry) or 1 (exit) on its hook. */
int probes_attach_front_sys(struct scry_probes *p, int kind, char *err, size_t errlen)
{
	const char *what = kind ? (metrics_front(p) ? "sys_exit (metrics)" : "sys_exit") : "sys_enter";

	if (p->btf_tp)
		return probes_add_front_link(p, bpf_raw_tracepoint_open(NULL, p->sys_front[kind]), what, err, errlen);
	return probes_attach_front_tp(p, p->sys_front[kind], "raw_syscalls", what, 0, err, errlen);
}

/* Remember a front's link (an fd) to close it with the probes. */
int probes_add_front_link(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen)
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

/* A front on the perf event a opens (every process: pid -1 on CPU 0, as libbpf opens
 * tracepoints and uprobes) with a BPF cookie, what libbpf does for the programs it loaded
 * itself. */
static int attach_front_perf(struct scry_probes *p, int prog_fd, struct perf_event_attr *a, __u64 cookie,
			     const char *what, char *err, size_t errlen)
{
	int pfd = (int)syscall(__NR_perf_event_open, a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC), link;

	if (probes_add_front_link(p, pfd, what, err, errlen))
		return -errno;
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo);
	if (probes_add_front_link(p, link, what, err, errlen))
		return -errno;
	if (ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		int e = -errno;
		snprintf(err, errlen, "cannot enable the filter of %s: %s", what, strerror(-e));
		return e;
	}
	return 0;
}

/* A front on tracefs tracepoint system:name with a BPF cookie. */
int probes_attach_front_tp(struct scry_probes *p, int prog_fd, const char *system, const char *name, __u64 cookie,
			   char *err, size_t errlen)
{
	char what[256];
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };   /* as tracefs_link */
	int id = p->opts.cat ? scry_catalog_tracepoint_id(p->opts.cat, system, name) : -1;

	snprintf(what, sizeof(what), "tracepoint %s:%s", system, name);
	if (id < 0) {
		snprintf(err, errlen, "cannot attach the filter of %s: no tracefs id", what);
		return -ENOENT;
	}
	a.config = (__u64)id;
	return attach_front_perf(p, prog_fd, &a, cookie, what, err, errlen);
}

/* An integer the uprobe PMU describes in sysfs (its type, the bit of its retprobe flag). */
static int uprobe_pmu_value(const char *file, const char *prefix)
{
	char path[128], buf[64];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/uprobe/%s", file);
	if (!(f = fopen(path, "re")))
		return -1;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, strlen(prefix)))
		v = atoi(buf + strlen(prefix));
	fclose(f);
	return v;
}

/* A front on a uprobe (or uretprobe) at the file offset of path, with the probe's slot as
 * its cookie (the front tail-calls scry_uprobe, which finds its descriptor by it). */
int probes_attach_front_uprobe(struct scry_probes *p, int prog_fd, const char *path, uint64_t offset, bool ret,
			       __u64 cookie, const char *what, char *err, size_t errlen)
{
	int type = uprobe_pmu_value("type", ""), bit = ret ? uprobe_pmu_value("format/retprobe", "config:") : 0;
	struct perf_event_attr a = { .size = sizeof(a), .sample_period = 1, .wakeup_events = 1 };

	if (type < 0 || bit < 0 || bit > 63) {
		snprintf(err, errlen, "cannot attach the filter of %s: no uprobe PMU in /sys/bus/event_source", what);
		return -ENOTSUP;
	}
	a.type = (__u32)type;
	a.config = ret ? 1ULL << bit : 0;
	a.config1 = (__u64)(uintptr_t)path;     /* uprobe_path */
	a.config2 = offset;                     /* probe_offset */
	return attach_front_perf(p, prog_fd, &a, cookie, what, err, errlen);
}

/* Index idx of the doors: each hook's front, or the plain dispatcher (without the door) where
 * it has none. */
static int fill_doors(struct scry_probes *p, __u32 idx)
{
	struct bpf_map *doors[2] = { p->skel->maps.door_enter, p->skel->maps.door_exit };

	for (int k = 0; k < 2; k++) {
		int fd = p->sys_front[k] >= 0 ? p->sys_front[k] : probes_prog_fd(p, dispatcher(p, (unsigned)k));

		if (fd < 0 || bpf_map_update_elem(bpf_map__fd(doors[k]), &idx, &fd, BPF_ANY))
			return fd < 0 ? -EINVAL : -errno;
	}
	return 0;
}

/* door_sel for the fronts now loaded: 0 (no front: each dispatcher goes on), else index
 * 0 or 1 (+ 1) of the doors, the one not in use, filled first. */
static int next_sel(struct scry_probes *p, __u32 *sel)
{
	__u32 cur = p->skel->bss->door_sel, idx = cur == 1 ? 1 : 0;

	*sel = 0;
	if (p->sys_front[0] < 0 && p->sys_front[1] < 0)
		return 0;
	*sel = idx + 1;
	return fill_doors(p, idx);
}

/* The dispatchers' copies opening with their doors on the syscall hooks, the door set for the
 * fronts loaded (scry_probes_attach). */
int probes_attach_doors(struct scry_probes *p, char *err, size_t errlen)
{
	struct bpf_program *enter = p->btf_tp ? p->skel->progs.scry_sys_enter_door_btf : p->skel->progs.scry_sys_enter_door_tp,
			   *ex = p->btf_tp ? p->skel->progs.scry_sys_exit_door_btf : p->skel->progs.scry_sys_exit_door_tp;
	__u32 sel;
	int ret = next_sel(p, &sel);

	if (ret) {
		snprintf(err, errlen, "cannot prepare the syscall doors: %s", strerror(-ret));
		return ret;
	}
	p->skel->bss->door_sel = sel;
	if ((ret = probes_attach_prog(p, enter, NULL, NULL, 0, "sys_enter", err, errlen)))
		return ret;
	return probes_attach_prog(p, ex, NULL, NULL, 0, "sys_exit", err, errlen);
}

void scry_probes_forget_fronts(struct scry_probes *p, int keep[2])
{
	keep[0] = p->sys_front[0];
	keep[1] = p->sys_front[1];
	p->sys_front[0] = p->sys_front[1] = -1;
}

void scry_probes_restore_fronts(struct scry_probes *p, const int keep[2])
{
	p->sys_front[0] = keep[0];
	p->sys_front[1] = keep[1];
}

int scry_probes_flip_fronts(struct scry_probes *p)
{
	__u32 sel;
	int ret;

	if (!p->opts.live_filters || !p->opts.syscalls)
		return -ENOTSUP;
	if ((ret = next_sel(p, &sel)))
		return ret;
	/* one store: each dispatcher reads it once per event */
	__atomic_store_n(&p->skel->bss->door_sel, sel, __ATOMIC_SEQ_CST);
	return 0;
}
