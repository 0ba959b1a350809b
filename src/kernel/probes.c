/* probes.c — loading scry's BPF object (see probes.h): the load-time settings, the programs
 * this kernel and session need, the rings and stages, the syscall table, the switch, and
 * closing it all.  The other roles: features.c (what the kernel offers), trackers.c,
 * fronts.c (filter fronts), attach.c, stats.c; their shared state in probes_int.h. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "scry_abi.h"    /* before the skeleton: its .bss holds scry_abi.h structs */
#include "scry.skel.h"
#include "catalog/catalog.h"
#include "filter/bpf_gen.h"
#include "kernel/btf_cache.h"
#include "kernel/ctx_paths.h"
#include "kernel/features.h"
#include "kernel/kfacts.h"
#include "kernel/probes_int.h"
#include "util/log.h"
#include "util/overrides.h"

/* libbpf's messages (and the verifier's logs): SCRY_LOG_VERBOSE. */
static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	scry_logv(SCRY_LOG_VERBOSE, fmt, ap);
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

/* The rings: one per CPU, in an array of maps created here (not by libbpf) so that they are
 * installed while the verifier checks the programs: installing waits a grace period
 * (update_all), which this thread spends beside the load instead of after it. */
struct ring_install {
	pthread_t th;
	int outer_fd;
	const int *fds;
	unsigned n;
	int ret;
};

static void *install_rings(void *arg)
{
	struct ring_install *ri = arg;

	ri->ret = update_all(ri->outer_fd, ri->fds, ri->n);
	return NULL;
}

static int create_rings(struct scry_probes *p, size_t size, struct ring_install *ri, char *err, size_t errlen)
{
	int ret;

	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "scry_ring", 0, 0, size, NULL);

		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot create a %zu-byte ring buffer for CPU %u: %s", size, cpu,
				 strerror(-ret));
			return ret;
		}
		p->ring_fds[cpu] = fd;
	}
	LIBBPF_OPTS(bpf_map_create_opts, mo, .inner_map_fd = p->ring_fds[0]);
	ri->outer_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "rings", 4, 4, p->ncpus, &mo);
	if (ri->outer_fd < 0 || bpf_map__reuse_fd(p->skel->maps.rings, ri->outer_fd)) {
		ret = -errno;
		snprintf(err, errlen, "cannot create the map of the ring buffers: %s", strerror(-ret));
		return ret;
	}
	ri->fds = p->ring_fds;
	ri->n = p->ncpus;
	if ((ret = -pthread_create(&ri->th, NULL, install_rings, ri))) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* The object opened ahead, in a thread, while the caller does other work (catalog, events:
 * libbpf's open of the ~7 MB object is ~10 ms of a start, the verifier aside); the first
 * load of the process takes it, if it was opened with the same CO-RE BTF.  Where scryd may
 * hand its object over, the shell (warm_shell.c) is opened instead. */
static struct {
	pthread_mutex_t lock;
	pthread_t th;
	bool started;
	bool shell;                    /* the shell, not the object */
	bool cached;                   /* opened with core (the BTF cache's file) */
	char core[512];
	struct scry_bpf *skel;
} pre = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The skeleton on the object's shell (warm_shell.c; here, where the skeleton's own copy of
 * the object is already embedded), or NULL (errno). */
static struct scry_bpf *open_shell(void)
{
	struct scry_bpf *obj = calloc(1, sizeof(*obj));
	int err;

	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(err = scry_bpf__create_skeleton(obj))) {
		obj->skeleton->data = probes_warm_shell_elf(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		scry_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

static void *open_ahead(void *arg)
{
	(void)arg;
	if (pre.shell) {
		pre.skel = open_shell();
		return NULL;
	}
	pre.cached = scry_btf_cache_lookup(pre.core, sizeof(pre.core));
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = pre.cached ? pre.core : NULL);
	pre.skel = scry_bpf__open_opts(&oo);     /* read by others only after the join */
	return NULL;
}

void scry_probes_prefetch(bool warm)
{
	pthread_mutex_lock(&pre.lock);
	if (!pre.started && scry_feature_btf()) {
		libbpf_set_print(print_fn);
		pre.shell = warm && probes_warm_likely();
		pre.started = pthread_create(&pre.th, NULL, open_ahead, NULL) == 0;
	}
	pthread_mutex_unlock(&pre.lock);
}

/* The object opened ahead for core_btf (shell: the shell), or NULL (none, or opened for
 * another BTF or the other kind). */
static struct scry_bpf *take_ahead(const char *core_btf, bool shell)
{
	struct scry_bpf *skel = NULL;

	pthread_mutex_lock(&pre.lock);
	if (pre.started) {
		pthread_join(pre.th, NULL);
		pre.started = false;
		skel = pre.skel;
		pre.skel = NULL;
		if (skel && (pre.shell != shell ||
			     (!shell && (core_btf ? !pre.cached || strcmp(core_btf, pre.core) : pre.cached)))) {
			scry_bpf__destroy(skel);
			skel = NULL;
		}
	}
	pthread_mutex_unlock(&pre.lock);
	return skel;
}

/* An empty struct scry_probes for o (nothing opened yet), or NULL: out of memory. */
static struct scry_probes *probes_new(const struct scry_probes_opts *o, char *err, size_t errlen)
{
	struct scry_probes *p = calloc(1, sizeof(*p));
	int n;

	if (!p)
		goto oom;
	p->opts = *o;
	p->sys_front[0] = p->sys_front[1] = -1;
	p->exit_link = -1;
	for (unsigned i = 0; i < SCRY_METRICS_MAX; i++)
		p->metric_fds[i] = -1;
	p->links = calloc(MAX_LINKS, sizeof(*p->links));
	if (!p->links)
		goto oom;
	n = libbpf_num_possible_cpus();
	if (n <= 0) {
		snprintf(err, errlen, "cannot count the possible CPUs: %s", strerror(n ? -n : EINVAL));
		free(p->links);
		free(p);
		return NULL;
	}
	p->ncpus = (unsigned)n;
	p->ring_fds = malloc(p->ncpus * sizeof(int));
	if (!p->ring_fds)
		goto oom;
	for (unsigned i = 0; i < p->ncpus; i++)
		p->ring_fds[i] = -1;
	return p;
oom:
	if (p) {
		free(p->links);
		free(p);
	}
	snprintf(err, errlen, "out of memory");
	return NULL;
}

/* The BTF dispatchers made for a mode (SCRY_DISP_ALL, _TRK) and a context shape (the
 * generic copy, _dflt_, _pt_): tab[mode][shape][enter, exit]. */
static void dispatchers_made(struct scry_bpf *skel, struct bpf_program *tab[2][3][2])
{
	__typeof__(skel->progs) *g = &skel->progs;
	struct bpf_program *t[2][3][2] = {
		{ { g->scry_sys_enter_all_btf, g->scry_sys_exit_all_btf },
		  { g->scry_sys_enter_all_dflt_btf, g->scry_sys_exit_all_dflt_btf },
		  { g->scry_sys_enter_all_pt_btf, g->scry_sys_exit_all_pt_btf } },
		{ { g->scry_sys_enter_trk_btf, g->scry_sys_exit_trk_btf },
		  { g->scry_sys_enter_trk_dflt_btf, g->scry_sys_exit_trk_dflt_btf },
		  { g->scry_sys_enter_trk_pt_btf, g->scry_sys_exit_trk_pt_btf } },
	};

	memcpy(tab, t, sizeof(t));
}

struct bpf_program *probes_dispatcher_btf(struct scry_probes *p, bool exit)
{
	struct bpf_program *tab[2][3][2];

	if (!p->sys_all && !p->sys_trk)
		return exit ? p->skel->progs.scry_sys_exit_btf : p->skel->progs.scry_sys_enter_btf;
	dispatchers_made(p->skel, tab);
	return tab[p->sys_all ? 0 : 1][p->sys_shape][exit];
}

/* The BTF syscall dispatchers' autoload: the pair probes_dispatcher_btf names for the
 * session's mode when on, none of the others. */
static void set_dispatchers_btf(struct scry_probes *p, bool on)
{
	struct bpf_program *tab[2][3][2], **made = &tab[0][0][0];
	struct bpf_program *enter = probes_dispatcher_btf(p, false), *exit = probes_dispatcher_btf(p, true);

	dispatchers_made(p->skel, tab);
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0][0][0]); i++)
		bpf_program__set_autoload(made[i], on && (made[i] == enter || made[i] == exit));
	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_btf, on && p->skel->progs.scry_sys_enter_btf == enter);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_btf, on && p->skel->progs.scry_sys_exit_btf == exit);
}

/* The object opened (with core_btf, the cached BTF of its CO-RE relocations, if not NULL;
 * shell: its shell, to take scryd's object only) and set for p->opts: its load-time
 * settings, the programs to load, the maps' sizes.  Nothing is made in the kernel yet (but
 * the memo map, on a kernel without untrusted kptrs); with want_fp, the fingerprint of all
 * that (kernel/fingerprint.c). */
static int probes_prepare(struct scry_probes *p, const char *core_btf, bool shell, bool want_fp, char *err,
			  size_t errlen)
{
	const struct scry_probes_opts *o = &p->opts;
	int ret;

	if (!scry_feature_btf()) {
		snprintf(err, errlen, "this kernel has no BTF (/sys/kernel/btf/vmlinux): scry needs CONFIG_DEBUG_INFO_BTF");
		return -ENOTSUP;
	}
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = core_btf);
	if (!(p->skel = take_ahead(core_btf, shell)))
		p->skel = shell ? open_shell() : scry_bpf__open_opts(&oo);
	p->shell = shell;
	if (!p->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	/* what is read of the kernel's BTF: kept per kernel (kfacts.c) */
	const struct scry_kfacts *kf = scry_kfacts();
	p->btf_tp = kf->tp_sys_enter;
	bool btf_fork = kf->tp_fork;
	/* kfunc bpf_strnstr (6.17): glob middles; without it (or SCRY_NO_STRNSTR=1, for tests)
	 * such filters are decided in user space */
	p->strnstr_id = scry_overrides()->no_strnstr ? 0 : kf->strnstr_id;
	/* sched_prepare_exec (Linux 6.10) lets a deferred execve entry be read from the old
	 * image; without it, it is read from the new one (SCRY_NO_PREPARE_EXEC=1 forces this,
	 * for tests) */
	p->prepare_exec = o->syscalls && p->btf_tp && kf->prepare_exec &&
			  !scry_overrides()->no_prepare_exec;
	p->layout = kf->layout;
	struct scry_ctx_kernel ck;
	if (scry_ctx_kernel(&kf->ctx, o->ctx_mask, &ck, err, errlen))
		return -ENOTSUP;
	p->skel->rodata->tif_need_resched = ck.tif_need_resched;
	p->skel->rodata->ovf_uid = ck.ovf_uid;
	p->skel->rodata->ovf_gid = ck.ovf_gid;
	p->skel->rodata->preempt_delta = ck.preempt_delta;
	p->skel->rodata->stack_max = ck.stack_max;

	p->skel->rodata->ctx_mask = o->ctx_mask;
	for (unsigned c = SCRY_CTX_VPPID; c < SCRY_CTX_NR; c++)
		if (o->ctx_mask & (1ULL << c))
			((__u8 *)p->skel->rodata->ext_ctx)[p->skel->rodata->n_ext_ctx++] = (__u8)c;
	p->skel->rodata->scry_clock = (__u8)o->clock;
	p->skel->rodata->head_bytes = SCRY_EVENT_HEADER_SIZE + scry_context_size(o->ctx_mask);
	p->skel->rodata->target_all = o->target_all;
	p->skel->rodata->follow_forks = !o->no_follow;
	p->skel->rodata->fork_event_id = o->fork_event_id;
	p->skel->rodata->signal_event_id = o->signal_event_id;
	p->skel->rodata->signal_gen_event_id = o->signal_gen_event_id;
	p->skel->rodata->unknown_entry_id = o->unknown_entry_id;
	p->skel->rodata->unknown_exit_id = o->unknown_exit_id;
	p->skel->rodata->track_mask = (o->track_vpid ? SCRY_TRACK_VPID : 0) | (o->track_uid ? SCRY_TRACK_UID : 0) |
				      (o->track_gid ? SCRY_TRACK_GID : 0) | (o->ntrack_cgroups ? SCRY_TRACK_CGROUP : 0) |
				      (o->track_vuid ? SCRY_TRACK_VUID : 0) | (o->track_vgid ? SCRY_TRACK_VGID : 0);
	p->skel->rodata->n_track_cgroups = o->ntrack_cgroups;
	probes_track_blooms(p, o);
	if (o->ntrack_cgroups > SCRY_MAX_TRACK_CGROUPS) {
		snprintf(err, errlen, "at most %d cgroups can be tracked", SCRY_MAX_TRACK_CGROUPS);
		return -E2BIG;
	}

	probes_memo_modes(p);
	/* the resume program serves only the exit filter front (a rejected exit whose entry was
	 * deferred): not verified when there is no filter (~35 ms of a start-up) */
	bool fronts = o->filter || o->live_filters;
	/* record -a's dispatchers, made for its mode (syscalls.bpf.h), where nothing stands
	 * before them on the hooks; else the plain ones, which fronts and doors tail-call */
	p->sys_all = o->syscalls && p->btf_tp && !fronts && p->skel->rodata->memo_all_gen;
	/* ... and the trackers', made for their mode: the memo proved by the generation, a
	 * tracker narrowing the session (the pid tracker's follow set, or another) */
	p->sys_trk = o->syscalls && p->btf_tp && !fronts && p->skel->rodata->memo_by_gen && !p->skel->rodata->memo_all_gen;
	/* ... each in its copy made for the session's contexts when they are record's defaults
	 * or scry trace's */
	p->sys_shape = o->ustack_window ? SYS_SHAPE_ANY
		       : o->ctx_mask == SCRY_CTX_BASIC_MASK ? SYS_SHAPE_DFLT
		       : o->ctx_mask == ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID)) ? SYS_SHAPE_PT
		       : SYS_SHAPE_ANY;
	set_dispatchers_btf(p, o->syscalls && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_tp, o->syscalls && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_tp, o->syscalls && !p->btf_tp);

	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_resume_btf, o->syscalls && fronts && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_resume_tp, o->syscalls && fronts && !p->btf_tp);
	/* the doors, when the fronts may change while recording (fronts.c): the dispatchers'
	 * copies opening with theirs go on the hooks, the plain dispatchers behind the fronts */
	bool doors = o->syscalls && o->live_filters;

	p->skel->rodata->doors_on = doors;
	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_door_btf, doors && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_door_btf, doors && p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_enter_door_tp, doors && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_sys_exit_door_tp, doors && !p->btf_tp);
	bpf_program__set_autoload(p->skel->progs.scry_prepare_exec, p->prepare_exec);
	p->skel->rodata->prepare_exec_on = p->prepare_exec;
	p->btf_tps = o->btf_tps & kf->btf_tps & ~scry_btf_tps_overridden();
	bpf_program__set_autoload(p->skel->progs.scry_tp, o->tracepoints || (o->btf_tps & ~p->btf_tps));
	for (int k = 0; k < SCRY_BTF_TP_NR; k++)     /* scry_exit: below */
		if (k != SCRY_BTF_TP_EXIT)
			bpf_program__set_autoload(probes_btf_tp_prog(p, k), p->btf_tps & 1u << k);
	/* sched_process_exec's per-CPU record: only for its program (lanes.c follows) */
	bpf_map__set_autocreate(p->skel->maps.exec_recs, p->btf_tps & 1u << SCRY_BTF_TP_EXEC);
	bool need_fork = !o->target_all || o->fork_event_id != 0xffff || o->track_vpid;
	if (need_fork && !btf_fork) {
		snprintf(err, errlen, "this kernel lacks the BTF tracepoint sched_process_fork needed to follow children and record forks");
		return -ENOTSUP;
	}
	bpf_program__set_autoload(p->skel->progs.scry_fork, need_fork);
	/* the fork filter front's way on (fronts.c): only with a filter (~2 ms of a start) */
	bpf_program__set_autoload(p->skel->progs.scry_fork_write, need_fork && o->filter);
	/* followed processes leave the follow sets at exit; sched_process_exit's event */
	p->exit_follow = !o->target_all || o->track_vpid;
	bpf_program__set_autoload(p->skel->progs.scry_exit, p->exit_follow || (p->btf_tps & 1u << SCRY_BTF_TP_EXIT));
	bpf_program__set_autoload(p->skel->progs.scry_signal, o->signal_event_id != 0xffff);
	bpf_program__set_autoload(p->skel->progs.scry_signal_gen, o->signal_gen_event_id != 0xffff);
	bpf_program__set_autoload(p->skel->progs.scry_uprobe, o->uprobes);
	/* globs: one uprobe_multi link per file (libbpf 1.1 knows no such section: its attach
	 * type is set here; SCRY_NO_UPROBE_MULTI=1: one link per function, for tests) */
	p->uprobe_multi = o->uprobes && kf->uprobe_multi && !scry_overrides()->no_uprobe_multi;
	bpf_program__set_autoload(p->skel->progs.scry_uprobe_multi, p->uprobe_multi);
	if (p->uprobe_multi)
		bpf_program__set_expected_attach_type(p->skel->progs.scry_uprobe_multi, SCRY_BPF_TRACE_UPROBE_MULTI);
	bpf_program__set_autoload(p->skel->progs.scry_usdt, o->usdt);
	/* the profile source's sampling program: only when its event is recorded */
	bool prof = o->profile_freq && o->profile_event_id != SCRY_NO_EVENT;
	bpf_program__set_autoload(p->skel->progs.scry_profile_sample, prof);
	if (prof)
		p->skel->rodata->profile_event_id = o->profile_event_id;
	/* the net source's programs, and its connections' map at full size: only when recorded */
	bpf_program__set_autoload(p->skel->progs.scry_net_state, o->net_conns);
	bpf_program__set_autoload(p->skel->progs.scry_net_accept, o->net_conns);
	bpf_program__set_autoload(p->skel->progs.scry_net_accept4, o->net_conns);
	if (o->net_conns) {
		p->skel->rodata->net_conn_event_id = o->net_conn_event_id;
		bpf_map__set_max_entries(p->skel->maps.net_conns, SCRY_NET_CONNS);
	}
	/* the statedump's iterators: only when it is recorded */
	bool sd = o->sd_ids != NULL;
	bpf_program__set_autoload(p->skel->progs.scry_sd_task, sd);
	bpf_program__set_autoload(p->skel->progs.scry_sd_file, sd);
	bpf_program__set_autoload(p->skel->progs.scry_sd_vma, sd && o->sd_ids[SCRY_SD_VM_MAP] != SCRY_NO_EVENT);
	bpf_program__set_autoload(p->skel->progs.scry_sd_items, sd);
	if (sd) {
		memcpy((void *)p->skel->rodata->sd_ids, o->sd_ids, sizeof(p->skel->rodata->sd_ids));
		bpf_map__set_max_entries(p->skel->maps.sd_items, SCRY_SD_ITEMS);
	}
	if (scry_overrides()->follow_max) {       /* tests: a small follow set, to fill it */
		bpf_map__set_max_entries(p->skel->maps.tracked, scry_overrides()->follow_max);
		bpf_map__set_max_entries(p->skel->maps.vpid_followed, scry_overrides()->follow_max);
	}
	/* the vpid tracker's maps only with it: a hash's bucket array is allocated whole at
	 * creation (~2 MiB for the follow set's 131072: ms of start-up) */
	if (!o->track_vpid) {
		bpf_map__set_max_entries(p->skel->maps.vpid_followed, 1);
		bpf_map__set_max_entries(p->skel->maps.track_vpid, 1);
	}
	if (!o->track_uid)      /* and the uid and gid sets (4096 entries each) */
		bpf_map__set_max_entries(p->skel->maps.track_uid, 1);
	if (!o->track_gid)
		bpf_map__set_max_entries(p->skel->maps.track_gid, 1);
	if (o->target_all)      /* system-wide: no follow set */
		bpf_map__set_max_entries(p->skel->maps.tracked, 1);
	if (o->max_pid_sets) {  /* per-process event sets (pid_sets.c): as many as the bound */
		unsigned n = o->max_pid_sets < SCRY_PID_SETS_MAX ? o->max_pid_sets : SCRY_PID_SETS_MAX;

		bpf_map__set_max_entries(p->skel->maps.pid_set_of, n);
		bpf_map__set_max_entries(p->skel->maps.pid_set_hits, n);
	}

	if (o->ustack_window) {   /* scry trace -k's user stack copies */
		if (o->ustack_window > SCRY_USTACK_MAX || !o->ustack_ids) {
			snprintf(err, errlen, "a user stack window of %u bytes: at most %d", o->ustack_window,
				 SCRY_USTACK_MAX);
			return -EINVAL;
		}
		p->skel->rodata->ustack_window = o->ustack_window;
		memcpy((void *)p->skel->rodata->ustack_ids, o->ustack_ids, sizeof(p->skel->rodata->ustack_ids));
		bpf_map__set_max_entries(p->skel->maps.ustacks, (uint32_t)o->ustack_ring);
		bpf_map__set_max_entries(p->skel->maps.ustack_areas, p->ncpus);
	}
	if (!o->counts)   /* a per-CPU array: ~1 ms to create at full size */
		bpf_map__set_max_entries(p->skel->maps.sc_counts, 1);
	bpf_map__set_max_entries(p->skel->maps.areas, p->ncpus * SCRY_AREAS_PER_CPU);
	bpf_map__set_max_entries(p->skel->maps.stages, p->ncpus);
	bpf_program__set_autoload(p->skel->progs.scry_flush, true);
	probes_prepare_perf(p);
	ret = probes_prepare_memo(p, err, errlen);
	if (!ret)
		ret = probes_prepare_metrics(p, err, errlen);
	if (!ret && o->counts)   /* the entries counted keep to the latency slots (syscall_count.bpf.h) */
		bpf_program__set_autoload(p->skel->progs.scry_metrics_lat_switch, true);
	if (!ret && want_fp)
		probes_fingerprint(p, p->fp);
	return ret;
}

/* The prepared object loaded here: its rings, its programs verified (lanes.c), its maps
 * filled. */
static int probes_load_cold(struct scry_probes *p, const char *core_btf, char *err, size_t errlen)
{
	const struct scry_probes_opts *o = &p->opts;
	struct ring_install ri = { .outer_fd = -1 };
	bool installing = false;     /* ri.th runs */
	int ret;

	probes_metrics_smallest(p);
	if ((ret = create_rings(p, o->ring_size, &ri, err, errlen)))
		goto fail;
	installing = true;
	ret = probes_load_lanes(p, core_btf, err, errlen);
	installing = false;
	pthread_join(ri.th, NULL);
	if (ret)
		goto fail;
	if ((ret = ri.ret) < 0) {
		snprintf(err, errlen, "cannot install the ring buffers: %s", strerror(-ret));
		goto fail;
	}
	ret = probes_fill_trackers(p, o, err, errlen);
	if (!ret)
		ret = probes_prepare_dispatch(p, err, errlen);
	if (!ret)
		ret = probes_install_metrics(p, err, errlen);
	if (!ret)
		ret = probes_open_perf(p, err, errlen);
fail:
	if (installing)
		pthread_join(ri.th, NULL);
	if (ri.outer_fd >= 0)
		close(ri.outer_fd);     /* libbpf holds its own */
	return ret;
}

/* What a loaded object needs, whoever loaded it: the stages mapped, scry's own process
 * left out. */
static int probes_finish(struct scry_probes *p, char *err, size_t errlen)
{
	int ret;

	p->stage_stride = (sizeof(struct scry_stage) + 7) & ~(size_t)7;
	p->stages_len = p->stage_stride * p->ncpus;
	p->stages_len = (p->stages_len + (size_t)sysconf(_SC_PAGESIZE) - 1) & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	p->stages = mmap(NULL, p->stages_len, PROT_READ, MAP_SHARED, bpf_map__fd(p->skel->maps.stages), 0);
	if (p->stages == MAP_FAILED) {
		p->stages = NULL;
		ret = -errno;
		snprintf(err, errlen, "cannot map the staging buffers: %s", strerror(-ret));
		return ret;
	}
	p->skel->bss->self_tgid = (__u32)getpid();
	return 0;
}

/* The object for o: prepared, then taken from scryd when warm and it has one made for the
 * very same settings (kernel/warm.c), else loaded here.  *tainted: a handed-over object
 * failed half-way (the caller loads again, cold). */
static int probes_load(struct scry_probes **out, const struct scry_probes_opts *o, const char *core_btf,
		       bool warm, bool *tainted, char *err, size_t errlen)
{
	struct scry_probes *p;
	bool taken = false;
	int ret;

	libbpf_set_print(print_fn);
	if (!(p = probes_new(o, err, errlen)))
		return -ENOMEM;
	/* scryd fingerprints only what it may hand over (the hash reads the whole ELF: ~7 MB of
	 * its pages resident) */
	ret = probes_prepare(p, core_btf, warm, warm || (probes_warm_exporting() && probes_warm_eligible(o)), err,
			     errlen);
	if (!ret && warm) {
		ret = probes_warm_take(p, err, errlen);
		taken = !ret;
		if (ret == -ENOENT) {     /* none for these settings: cold, the whole object */
			scry_probes_close(p);
			return probes_load(out, o, core_btf, false, tainted, err, errlen);
		} else if (ret)
			*tainted = true;
	}
	if (!ret && !taken)
		ret = probes_load_cold(p, core_btf, err, errlen);
	if (!ret)
		ret = probes_finish(p, err, errlen);
	if (ret) {
		scry_probes_close(p);
		return ret < 0 ? ret : -EINVAL;
	}
	*out = p;
	return 0;
}

int scry_probes_load(struct scry_probes **out, const struct scry_probes_opts *o, char *err, size_t errlen)
{
	static bool filling;    /* once a process (scryd's threads included) */
	size_t objsz;
	const void *obj = scry_bpf__elf_bytes(&objsz);
	char core[512];
	bool cached = scry_btf_cache_lookup(core, sizeof(core)), tainted = false;
	int ret = probes_load(out, o, cached ? core : NULL, probes_warm_wanted(o), &tainted, err, errlen);

	if (ret && tainted) {      /* scryd's object failed half-way: loaded here instead */
		scry_log(SCRY_LOG_VERBOSE, "scry: the object from scryd failed (%s): loading it here", err);
		ret = probes_load(out, o, cached ? core : NULL, false, &tainted, err, errlen);
	}
	if (ret && cached) {       /* not with that BTF, perhaps: without it */
		scry_log(SCRY_LOG_VERBOSE, "scry: loading with the cached BTF %s failed (%s): without it", core, err);
		scry_btf_cache_drop(core);
		cached = false;
		ret = probes_load(out, o, NULL, false, &tainted, err, errlen);
	} else if (!ret && !cached && !scry_probes_warm(*out) && !__atomic_exchange_n(&filling, true, __ATOMIC_RELAXED)) {
		/* (an object from scryd needs no CO-RE BTF: the next cold load fills it) */
		scry_btf_cache_fill(obj, objsz);
	}
	if (!ret)
		scry_log(SCRY_LOG_VERBOSE, "scry: CO-RE relocations against %s", cached ? core : "the kernel's BTF");
	return ret;
}

int scry_probes_set_syscalls(struct scry_probes *p, const struct scry_sc_desc *d, unsigned n)
{
	if (n > SCRY_MAX_SYSCALLS)
		return -ERANGE;
	return update_all(bpf_map__fd(p->skel->maps.syscalls), d, n);
}

unsigned scry_probes_ncpus(const struct scry_probes *p)
{
	return p->ncpus;
}

int scry_probes_ring_fd(const struct scry_probes *p, unsigned cpu)
{
	return cpu < p->ncpus ? p->ring_fds[cpu] : -1;
}

void scry_probes_set_recording(struct scry_probes *p, bool on)
{
	__atomic_store_n(&p->skel->bss->scry_recording, on ? 1 : 0, __ATOMIC_SEQ_CST);
}

static bool exit_after_close;

void scry_probes_exit_after_close(void)
{
	exit_after_close = true;
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
	probes_close_perf(p);
	for (unsigned i = 0; i < SCRY_METRICS_MAX; i++)
		if (p->metric_fds[i] >= 0)
			close(p->metric_fds[i]);
	if (p->warm_prog_fds && p->skel)
		for (int i = 0; i < p->skel->skeleton->prog_cnt; i++)
			if (p->warm_prog_fds[i] >= 0)
				close(p->warm_prog_fds[i]);
	free(p->warm_prog_fds);
	if (!exit_after_close) {     /* (the lanes' copies too: ~150 descriptors and their memory) */
		scry_bpf__destroy(p->skel);
		probes_close_lanes(p);
	}
	free(p->pid_set_pids);
	free(p);
}
