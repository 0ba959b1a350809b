// SPDX-License-Identifier: GPL-2.0
/* lifecycle.bpf.h — the process lifecycle source: fork tracking of followed processes and
 * the fork event in lttng-modules' layout; followed processes leaving the follow sets at
 * exit. */

/* ---- process lifecycle ------------------------------------------------------------- */

#define FORK_HEAD_MAX 4096

/* The fork event (lttng-modules' layout) into the fork area. */
static __always_inline void write_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct area *a;
	__u32 pos, level;

	a = area_get(AREA_FORK);
	if (!a)
		return;
	pos = write_head(a->buf, fork_event_id, bpf_get_current_task_btf());
	/* a bound for the verifier above any header: with call stack contexts (two of
	 * 1,036 bytes) a header passes 512 bytes, and the event was left out (scry trace -k -f:
	 * no "Process N attached") */
	if (pos > FORK_HEAD_MAX)
		goto out;
	bpf_probe_read_kernel(a->buf + pos, SCRY_COMM_LEN, parent->comm);
	pos += SCRY_COMM_LEN;
	WR(__s32, a->buf, pos, parent->pid);
	WR(__s32, a->buf, pos + 4, ptgid);
	WR(__u32, a->buf, pos + 8, pid_ns_inum(parent));
	pos += 12;
	bpf_probe_read_kernel(a->buf + pos, SCRY_COMM_LEN, child->comm);
	pos += SCRY_COMM_LEN;
	WR(__s32, a->buf, pos, child->pid);
	pos += 4;
	level = BPF_CORE_READ(child, thread_pid, level);
	if (level >= SCRY_MAX_PIDNS_LEVEL)
		level = SCRY_MAX_PIDNS_LEVEL - 1;
	WR(__u8, a->buf, pos, level + 1);
	pos += 1;
	for (__u32 i = 0; i < SCRY_MAX_PIDNS_LEVEL; i++) {
		if (i > level || pos > FORK_HEAD_MAX + 128)
			break;
		WR(__s32, a->buf, pos, BPF_CORE_READ(child, thread_pid, numbers[i].nr));
		pos += 4;
	}
	if (pos > FORK_HEAD_MAX + 128)
		goto out;
	WR(__s32, a->buf, pos, ctgid);
	WR(__u32, a->buf, pos + 4, pid_ns_inum(child));
	pos += 8;
	submit(a, pos);
out:
	area_put(a);
}

/* Fork tracking (the command's or -p's children, --track-vpid), then the fork event of a
 * target (the parent is current): through its filter front when it has one (flt_fork[0],
 * which tail-calls scry_fork_write), else written here. */
SEC("tp_btf/sched_process_fork") SCRY_LANE(0)
int BPF_PROG(scry_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, pkey = follow_forks ? ptgid : parent->pid;

	if (ptgid == self_tgid)
		return 0;
	if (!target_all) {
		if (!bpf_map_lookup_elem(&tracked, &pkey))
			return 0;
		if (ctgid != ptgid && follow_forks)
			target_add(ctgid);
	}
	if ((track_mask & SCRY_TRACK_VPID) && ctgid != ptgid && vpid_ok(parent))
		follow_add(&vpid_followed, ctgid);
	struct task_struct *t = parent;   /* current */

	if (fork_event_id == SCRY_NO_EVENT || !recording() || !target_ok(NULL, &t))
		return 0;
	bpf_tail_call_static(ctx, &flt_fork, 0);
	write_fork(parent, child);
	return 0;
}

/* sched_process_exit: its event when recorded (tp_exit_write), written while the process
 * is still followed; then a followed process whose last thread exits leaves the follow
 * sets: its pid may be reused by any process.  (signal->live reached 0 in do_exit before
 * this tracepoint.)  Without fork following the set holds threads: each leaves as it
 * exits.  (system-wide without --track-vpid: no follow set, the event alone) */
SEC("tp_btf/sched_process_exit") SCRY_LANE(1)
int BPF_PROG(scry_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid, tid = p->pid;
	/* read once: each walk from a trusted pointer to a pointer costs the verifier a few
	 * searches of the kernel's BTF by name (is the field trusted?), and CO-RE's reads are
	 * never merged by the compiler */
	struct signal_struct *sig = p->signal;
	bool left = false;

	if (sig->live.counter == 0) {   /* the process's status, as wait(2) gets it */
		__u32 status = (sig->flags & 0x4 /* SIGNAL_GROUP_EXIT */) ? sig->group_exit_code : p->exit_code;

		bpf_map_update_elem(&exit_codes, &tgid, &status, BPF_ANY);
	}
	if (btf_tp_slot[SCRY_BTF_TP_EXIT])
		tp_exit_write(ctx, p);
	if (target_all && !(track_mask & SCRY_TRACK_VPID))
		return 0;

	if (!follow_forks && !target_all && !bpf_map_delete_elem(&tracked, &tid))
		left = true;
	if (sig->live.counter != 0) {
		if (left)
			target_gen_bump();
		return 0;
	}
	if (follow_forks && !target_all && !bpf_map_delete_elem(&tracked, &tgid))
		left = true;
	if ((track_mask & SCRY_TRACK_VPID) && !bpf_map_delete_elem(&vpid_followed, &tgid))
		left = true;
	if (left)
		target_gen_bump();     /* no memo keeps the answer for a pid reused later */
	return 0;
}

/* Every task's exit, before its stack and task_struct can be freed and reused: the memos
 * filled before prove nothing from now on (struct scry_memo).  Attached before every other
 * program (src/kernel/attach.c); detached with them once the recording switch is off,
 * after which no program asks who is current (each tests recording() first). */
SEC("tp_btf/sched_process_exit") SCRY_LANE(0)
int BPF_PROG(scry_memo_exit, struct task_struct *p)
{
	target_gen_bump();
	return 0;
}

SEC("tp_btf/sched_process_fork") SCRY_LANE(0)
int BPF_PROG(scry_fork_write, struct task_struct *parent, struct task_struct *child)
{
	write_fork(parent, child);
	return 0;
}
