// SPDX-License-Identifier: GPL-2.0
/* statedump.bpf.h — the statedump source: lttng-modules' lttng_statedump_* events
 * (include/instrumentation/events/lttng-statedump.h and src/lttng-statedump-impl.c: the
 * same names, fields, types and values), written by BPF iterators that scry's thread runs
 * once the session's switch is on (src/kernel/statedump.c): every thread of the machine
 * (process_state and its namespaces), every file table (file_descriptor), every process's
 * memory maps (vm_map), and the items user space read from /proc and /sys (start, end,
 * network interfaces, block devices, interrupts, CPU topology: struct scry_sd_item).
 * Events go through the statedump's own build area and the CPU's ring, with the usual
 * header and contexts (those of scry's thread, as LTTng's are its session daemon's).
 * scry's own process (self_tgid) is left out, as every other source leaves it out.
 * Each program writes SD_TICK bytes per object to its seq file, so that a read() of the
 * iterator returns every few objects and scry can drain the rings between reads. */

static __always_inline struct area *sd_area_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sd_area, &zero);
}

/* Bytes written to the seq file per object: a read() of 4 KiB returns every 16 objects, so
 * that the rings are drained before a dump of many objects fills them (~100 bytes an event,
 * up to ~10 events an object). */
#define SD_TICK 256

static __always_inline void sd_tick(struct seq_file *seq)
{
	struct area *a = sd_area_get();

	if (a)
		bpf_seq_write(seq, a->buf + SCRY_EVENT_MAX, SD_TICK);
}

/* lttng-statedump-impl.c's enum lttng_process_status and its choice of it */
enum { LTTNG_UNNAMED, LTTNG_WAIT_FORK, LTTNG_WAIT_CPU, LTTNG_EXIT, LTTNG_ZOMBIE, LTTNG_WAIT, LTTNG_RUN,
       LTTNG_DEAD };
#define SD_MODE_UNKNOWN 5          /* enum lttng_execution_mode: LTTNG_MODE_UNKNOWN */
#define SD_SUBMODE_NONE 0          /* enum lttng_execution_submode: LTTNG_NONE */
#define SD_EXIT_DEAD 0x10
#define SD_EXIT_ZOMBIE 0x20

static __always_inline __s32 sd_status(struct task_struct *p)
{
	int exit_state = BPF_CORE_READ(p, exit_state);
	unsigned int state = BPF_CORE_READ(p, __state);
	struct list_head *rl = &p->rt.run_list;

	if (exit_state == SD_EXIT_ZOMBIE)
		return LTTNG_ZOMBIE;
	if (exit_state == SD_EXIT_DEAD)
		return LTTNG_DEAD;
	if (state == 0)   /* running: "a forked child that has not run yet?" as LTTng asks it */
		return BPF_CORE_READ(p, rt.run_list.next) == rl ? LTTNG_WAIT_FORK : LTTNG_WAIT_CPU;
	if (state & (1 | 2))   /* TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE */
		return LTTNG_WAIT;
	return LTTNG_UNNAMED;
}

/* The contexts of a thread's events (process_state and its namespaces, ~40 events with
 * nested ones): those of scry's thread, written once per thread at SD_TMPL and copied behind
 * each event's id and time by sd_head.  A write_head per event put the program past the
 * verifier's million instructions with many contexts (record -a -c with 19 of them). */
#define SD_TMPL (SCRY_EVENT_MAX + SD_TICK)
#define SD_TMPL_MAX (SCRY_SCRATCH_SIZE - SD_TMPL)

static __always_inline void sd_tmpl(struct area *a, struct task_struct *cur)
{
	write_head(a->buf + SD_TMPL, SCRY_NO_EVENT, cur);
}

/* The header of event id in a->buf from the template: the end of its contexts. */
static __always_inline __u32 sd_head(struct area *a, __u16 id)
{
	__u32 n = head_bytes - SCRY_EVENT_HEADER_SIZE;

	if (n > SD_TMPL_MAX - SCRY_EVENT_HEADER_SIZE)
		n = SD_TMPL_MAX - SCRY_EVENT_HEADER_SIZE;
	WR(__u16, a->buf, 0, id);
	WR(__u64, a->buf, 2, scry_now());
	if (n)
		bpf_probe_read_kernel(a->buf + SCRY_EVENT_HEADER_SIZE, n, a->buf + SD_TMPL + SCRY_EVENT_HEADER_SIZE);
	return SCRY_EVENT_HEADER_SIZE + n;
}

/* A namespace event of the (tid, ns_inum) layout (the template written). */
static __always_inline void sd_ns_event(struct area *a, struct task_struct *p, int k, __u32 inum)
{
	__u32 pos;

	if (sd_ids[k] == SCRY_NO_EVENT)
		return;
	pos = sd_head(a, sd_ids[k]);
	if (pos > 1024)
		return;
	WR(__s32, a->buf, pos, p->pid);
	WR(__u32, a->buf, pos + 4, inum);
	submit(a, pos + 8);
}

/* from_kuid_munged / from_kgid_munged: id mapped into the namespace of map (its extents
 * held inline: at most 5), 65534 (the overflow id) when it has no mapping there. */
static __always_inline __u32 sd_map_id(struct uid_gid_map *map, __u32 id)
{
	__u32 n = BPF_CORE_READ(map, nr_extents);

	for (__u32 i = 0; i < 5; i++) {
		__u32 first, lower, count;

		if (i >= n)
			break;
		first = BPF_CORE_READ(map, extent[i].first);
		lower = BPF_CORE_READ(map, extent[i].lower_first);
		count = BPF_CORE_READ(map, extent[i].count);
		if (id >= lower && id - lower < count)
			return first + (id - lower);
	}
	return 65534;
}

/* What the namespace walks of a task read (on scry_sd_task's stack: its values are the
 * same at every step but uns, an unknown scalar, so the verifier checks each callback once). */
struct sd_ns_walk {
	struct area *a;
	struct task_struct *p;
	struct pid *tp, *gp, *pp;          /* the thread's, its leader's and its parent's pids */
	__u32 level;                      /* tp's level: the walk goes from it (at most
					   * SCRY_MAX_PIDNS_LEVEL - 1) to 0 */
	__u32 uid, gid;
	struct user_namespace *uns;       /* the user namespace of the next step */
};

/* Step k of the pid namespaces, from the task's own (level) up to the root
 * (lttng_statedump_process_pid_ns). */
static long sd_pid_ns_one(__u32 k, struct sd_ns_walk *w)
{
	/* the walk's fields in locals: a CO-RE read through w-> would name sd_ns_walk */
	struct pid *tp = w->tp, *gp = w->gp, *pp = w->pp;
	struct task_struct *p = w->p;
	struct area *a = w->a;
	struct pid_namespace *ns;
	/* the first SCRY_MAX_PIDNS_LEVEL levels of a deeper task, as the loop this replaced */
	__u32 pos, top = w->level < SCRY_MAX_PIDNS_LEVEL ? w->level : SCRY_MAX_PIDNS_LEVEL - 1, i = top - k;

	if (k > top || i >= SCRY_MAX_PIDNS_LEVEL || !a)
		return 1;
	ns = BPF_CORE_READ(tp, numbers[i].ns);
	pos = sd_head(a, sd_ids[SCRY_SD_PID_NS]);
	if (pos > 1024)
		return 1;
	WR(__s32, a->buf, pos, BPF_CORE_READ(p, pid));
	WR(__s32, a->buf, pos + 4, BPF_CORE_READ(tp, numbers[i].nr));
	WR(__s32, a->buf, pos + 8,
	   gp && BPF_CORE_READ(gp, level) >= i && BPF_CORE_READ(gp, numbers[i].ns) == ns ?
	   BPF_CORE_READ(gp, numbers[i].nr) : 0);
	WR(__s32, a->buf, pos + 12,
	   pp && BPF_CORE_READ(pp, level) >= i && BPF_CORE_READ(pp, numbers[i].ns) == ns ?
	   BPF_CORE_READ(pp, numbers[i].nr) : 0);
	WR(__s32, a->buf, pos + 16, i);
	WR(__u32, a->buf, pos + 20, BPF_CORE_READ(ns, ns.inum));
	submit(a, pos + 24);
	return 0;
}

/* A step of the user namespaces, from the task's up to the root (lttng_statedump_process_
 * user_ns). */
static long sd_user_ns_one(__u32 k, struct sd_ns_walk *w)
{
	struct user_namespace *uns = w->uns;
	struct task_struct *p = w->p;
	struct area *a = w->a;
	__u32 pos;

	if (!uns || !a)
		return 1;
	pos = sd_head(a, sd_ids[SCRY_SD_USER_NS]);
	if (pos > 1024)
		return 1;
	WR(__s32, a->buf, pos, BPF_CORE_READ(p, pid));
	WR(__u32, a->buf, pos + 4, sd_map_id(&uns->uid_map, w->uid));
	WR(__u32, a->buf, pos + 8, sd_map_id(&uns->gid_map, w->gid));
	WR(__s32, a->buf, pos + 12, BPF_CORE_READ(uns, level));
	WR(__u32, a->buf, pos + 16, BPF_CORE_READ(uns, ns.inum));
	submit(a, pos + 20);
	w->uns = BPF_CORE_READ(uns, parent);
	return 0;
}

/* The namespace walks are bpf_loop callbacks, checked once: as loops in the program (8
 * pid levels, 33 user namespaces, each step an event) the verifier went through every step
 * apart, ~160 ms of every scry record's start (strace -T of its load). */
SEC("iter/task") SCRY_LANE(1)
int scry_sd_task(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task, *cur = bpf_get_current_task_btf();
	struct sd_ns_walk w = {};
	const struct cred *cred;
	struct pid *tp;
	struct nsproxy *nsp;
	struct area *a;
	__u32 pos;

	if (!p)
		return 0;
	sd_tick(ctx->meta->seq);
	if (p->tgid == self_tgid)   /* scry itself: never recorded, in the dump as in -a */
		return 0;
	a = sd_area_get();
	if (!a)
		return 0;
	sd_tmpl(a, cur);
	if (sd_ids[SCRY_SD_PROCESS_STATE] != SCRY_NO_EVENT) {
		pos = sd_head(a, sd_ids[SCRY_SD_PROCESS_STATE]);
		if (pos > 1024)
			return 0;
		WR(__s32, a->buf, pos, p->pid);
		WR(__s32, a->buf, pos + 4, p->tgid);
		WR(__s32, a->buf, pos + 8, BPF_CORE_READ(p, real_parent, tgid));
		bpf_probe_read_kernel(a->buf + pos + 12, SCRY_COMM_LEN, p->comm);
		pos += 12 + SCRY_COMM_LEN;
		WR(__s32, a->buf, pos, BPF_CORE_READ(p, mm) ? 0 : 1);   /* LTTNG_USER_THREAD, _KERNEL_THREAD */
		WR(__s32, a->buf, pos + 4, SD_MODE_UNKNOWN);
		WR(__s32, a->buf, pos + 8, SD_SUBMODE_NONE);
		WR(__s32, a->buf, pos + 12, sd_status(p));
		WR(__u32, a->buf, pos + 16, BPF_CORE_READ(p, thread_info.cpu));
		WR(__u64, a->buf, pos + 20, (__u64)BPF_CORE_READ(p, files));
		submit(a, pos + 28);
	}
	w.a = a;
	w.p = p;
	w.tp = tp = BPF_CORE_READ(p, thread_pid);
	w.gp = BPF_CORE_READ(p, group_leader, thread_pid);
	w.pp = BPF_CORE_READ(p, real_parent, group_leader, thread_pid);
	w.level = BPF_CORE_READ(tp, level);
	if (sd_ids[SCRY_SD_PID_NS] != SCRY_NO_EVENT && tp)
		bpf_loop(SCRY_MAX_PIDNS_LEVEL, sd_pid_ns_one, &w, 0);
	cred = BPF_CORE_READ(p, real_cred);
	w.uns = BPF_CORE_READ(cred, user_ns);
	w.uid = BPF_CORE_READ(cred, uid.val);
	w.gid = BPF_CORE_READ(cred, gid.val);
	if (sd_ids[SCRY_SD_USER_NS] != SCRY_NO_EVENT)
		bpf_loop(33, sd_user_ns_one, &w, 0);   /* user namespaces nest 32 deep at most */
	nsp = BPF_CORE_READ(p, nsproxy);
	if (nsp) {
		sd_ns_event(a, p, SCRY_SD_CGROUP_NS, BPF_CORE_READ(nsp, cgroup_ns, ns.inum));
		sd_ns_event(a, p, SCRY_SD_IPC_NS, BPF_CORE_READ(nsp, ipc_ns, ns.inum));
		sd_ns_event(a, p, SCRY_SD_MNT_NS, BPF_CORE_READ(nsp, mnt_ns, ns.inum));
		sd_ns_event(a, p, SCRY_SD_NET_NS, BPF_CORE_READ(nsp, net_ns, ns.inum));
		sd_ns_event(a, p, SCRY_SD_UTS_NS, BPF_CORE_READ(nsp, uts_ns, ns.inum));
		sd_ns_event(a, p, SCRY_SD_TIME_NS, BPF_CORE_READ(nsp, time_ns, ns.inum));
	}
	return 0;
}

/* Every open file of every file table (threads sharing their leader's table are skipped by
 * the iterator, as LTTng skips a table it has just dumped). */
SEC("iter/task_file") SCRY_LANE(0)
int scry_sd_file(struct bpf_iter__task_file *ctx)
{
	struct task_struct *p = ctx->task;
	struct file *f = ctx->file;
	struct files_struct *files;
	unsigned long *coe, word = 0;
	__u32 fd = ctx->fd, flags, pos;
	struct area *a;
	long n;

	if (!p || !f)
		return 0;
	sd_tick(ctx->meta->seq);
	if (sd_ids[SCRY_SD_FILE_DESCRIPTOR] == SCRY_NO_EVENT || p->tgid == self_tgid || !(a = sd_area_get()))
		return 0;
	files = BPF_CORE_READ(p, files);
	pos = write_head(a->buf, sd_ids[SCRY_SD_FILE_DESCRIPTOR], bpf_get_current_task_btf());
	if (pos > 1024)
		return 0;
	flags = BPF_CORE_READ(f, f_flags) & ~0x4000000u;   /* not FMODE_NONOTIFY, as LTTng */
	coe = BPF_CORE_READ(files, fdt, close_on_exec);
	bpf_probe_read_kernel(&word, sizeof(word), coe + fd / 64);
	if ((word >> (fd % 64)) & 1)
		flags |= 02000000;   /* O_CLOEXEC */
	WR(__u64, a->buf, pos, (__u64)files);
	WR(__s32, a->buf, pos + 8, fd);
	WR(__u32, a->buf, pos + 12, flags);
	WR(__u32, a->buf, pos + 16, BPF_CORE_READ(f, f_mode));
	pos += 20;
	n = bpf_d_path((struct path *)&f->f_path, (char *)a->buf + pos, SCRY_SD_PATH_MAX);
	if (n <= 0) {   /* as LTTng: the dentry's name when d_path fails */
		n = bpf_probe_read_kernel_str(a->buf + pos, 256, BPF_CORE_READ(f, f_path.dentry, d_name.name));
		if (n <= 0) {
			a->buf[pos] = 0;
			n = 1;
		}
	}
	if (n > SCRY_SD_PATH_MAX)
		n = SCRY_SD_PATH_MAX;
	submit(a, pos + n);
	return 0;
}

/* Every memory map of every process (its leader's view). */
SEC("iter/task_vma") SCRY_LANE(1)
int scry_sd_vma(struct bpf_iter__task_vma *ctx)
{
	struct task_struct *p = ctx->task;
	struct vm_area_struct *v = ctx->vma;
	struct file *f;
	struct area *a;
	__u32 pos;

	if (!p || !v)
		return 0;
	sd_tick(ctx->meta->seq);
	if (sd_ids[SCRY_SD_VM_MAP] == SCRY_NO_EVENT || p->pid != p->tgid || p->tgid == self_tgid || !(a = sd_area_get()))
		return 0;
	pos = write_head(a->buf, sd_ids[SCRY_SD_VM_MAP], bpf_get_current_task_btf());
	if (pos > 1024)
		return 0;
	f = BPF_CORE_READ(v, vm_file);
	WR(__s32, a->buf, pos, p->tgid);
	WR(__u64, a->buf, pos + 4, BPF_CORE_READ(v, vm_start));
	WR(__u64, a->buf, pos + 12, BPF_CORE_READ(v, vm_end));
	WR(__u64, a->buf, pos + 20, BPF_CORE_READ(v, vm_flags));
	WR(__u64, a->buf, pos + 28, f ? BPF_CORE_READ(f, f_path.dentry, d_inode, i_ino) : 0);
	WR(__u64, a->buf, pos + 36, BPF_CORE_READ(v, vm_pgoff) << 12);
	submit(a, pos + 44);
	return 0;
}

/* The events user space prepared (struct scry_sd_item), in slot order: written when the
 * task iterator reaches scry's own thread (sd_tid). */
static long sd_item_one(__u32 k, void *data)
{
	struct scry_sd_item *it;
	struct area *a;
	__u32 pos, len;

	if (k >= sd_nitems)
		return 1;
	it = bpf_map_lookup_elem(&sd_items, &k);
	if (!it || !(a = sd_area_get()))
		return 1;
	if (it->event_id == SCRY_NO_EVENT)
		return 0;
	pos = write_head(a->buf, it->event_id, bpf_get_current_task_btf());
	len = it->len;
	if (pos > 1024 || len > SCRY_SD_ITEM_MAX)
		return 0;
	if (len)
		bpf_probe_read_kernel(a->buf + pos, len, it->data);
	submit(a, pos + len);
	return 0;
}

SEC("iter/task") SCRY_LANE(0)
int scry_sd_items(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;

	if (!p || p->pid != sd_tid)
		return 0;
	bpf_loop(SCRY_SD_ITEMS, sd_item_one, NULL, 0);
	return 0;
}
