// SPDX-License-Identifier: GPL-2.0
/* signals.bpf.h — the signal source, from raw tracepoints (their detach waits for no grace
 * period), each event in lttng-modules' layout followed by the siginfo's union as the
 * views strace prints (pid, uid, status, utime, stime, addr, value: SIGNAL_VIEWS bytes).
 * signal_deliver: a signal whose default action kills the whole process is not delivered
 * as itself — the kernel marks the group dying and every thread dequeues a SIGKILL without
 * siginfo; the signal that killed it is the group's exit code, and its siginfo still sits
 * in the pending queue, where scry_signal finds it.
 * signal_generate: a signal sent to a followed process or by one (an ignored signal is
 * never delivered: this is the only place it is seen). */

#define SCRY_SIGKILL 9
#define SCRY_SIGNAL_GROUP_EXIT 0x00000004     /* include/linux/sched/signal.h */
#define SCRY_SI_USER 0
#define SCRY_SI_KERNEL 0x80
#define SIGNAL_VIEWS (3 * 4 + 4 * 8)

/* The pending siginfo of signal sig in list head (a sigpending's list), or NULL. */
static __always_inline struct kernel_siginfo *pending_info(struct list_head *head, int sig)
{
	struct list_head *pos = BPF_CORE_READ(head, next);

	for (int i = 0; i < 16 && pos && pos != head; i++) {
		struct sigqueue *q = (struct sigqueue *)pos;   /* list is its first member */

		if (BPF_CORE_READ(q, info.si_signo) == sig)
			return &q->info;
		pos = BPF_CORE_READ(pos, next);
	}
	return NULL;
}

/* The views of union __sifields (32 bytes read) at p + pos: pid, uid, status (s32, u32,
 * s32), utime, stime (s64), addr, value (u64). */
static __always_inline void write_signal_views(__u8 *p, __u32 pos, const struct kernel_siginfo *info)
{
	__u8 sif[32] = {};

	if (info)
		bpf_probe_read_kernel(sif, sizeof(sif), &info->_sifields);
	WR(__s32, p, pos, *(__s32 *)&sif[0]);          /* pid */
	WR(__u32, p, pos + 4, *(__u32 *)&sif[4]);      /* uid */
	WR(__s32, p, pos + 8, *(__s32 *)&sif[8]);      /* status */
	WR(__s64, p, pos + 12, *(__s64 *)&sif[16]);    /* utime */
	WR(__s64, p, pos + 20, *(__s64 *)&sif[24]);    /* stime */
	WR(__u64, p, pos + 28, *(__u64 *)&sif[0]);     /* addr */
	WR(__u64, p, pos + 36, *(__u64 *)&sif[8]);     /* value (sigval) */
}

SEC("raw_tp/signal_deliver") SCRY_LANE(0)
int BPF_PROG(scry_signal, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct task_struct *t = NULL;
	__s32 errno_ = 0, code = 0;
	__u64 handler = 0, flags = 0;
	__u32 hs;
	__u8 *p;

	if (!recording() || !target_ok(NULL, &t))
		return 0;
	if (sig == SCRY_SIGKILL && !info) {
		struct signal_struct *s = BPF_CORE_READ(t, signal);
		int code_ = BPF_CORE_READ(s, group_exit_code) & 0x7f;

		if ((BPF_CORE_READ(s, flags) & SCRY_SIGNAL_GROUP_EXIT) && code_ && code_ != SCRY_SIGKILL) {
			sig = code_;       /* the group dies of this signal, still pending */
			info = pending_info(&s->shared_pending.list, sig);
			if (!info)
				info = pending_info(&t->pending.list, sig);
			if (!info)
				return 0;  /* another thread dequeued and showed it: this is its SIGKILL */
		} else {
			info = pending_info(&s->shared_pending.list, SCRY_SIGKILL);
			if (!info)
				info = pending_info(&t->pending.list, SCRY_SIGKILL);
		}
	} else if (ka) {
		handler = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
		flags = BPF_CORE_READ(ka, sa.sa_flags);
	}
	if (info) {
		errno_ = BPF_CORE_READ(info, si_errno);
		code = BPF_CORE_READ(info, si_code);
	}
	hs = head_size();
	p = ring_reserve(hs + 3 * 4 + 2 * 8 + SIGNAL_VIEWS);
	if (!p)
		return 0;
	write_head(p, signal_event_id, t);
	WR(__s32, p, hs, sig);
	WR(__s32, p, hs + 4, errno_);
	WR(__s32, p, hs + 8, code);
	WR(__u64, p, hs + 12, handler);
	WR(__u64, p, hs + 20, flags);
	write_signal_views(p, hs + 28, info);
	ring_commit(p, hs + 3 * 4 + 2 * 8 + SIGNAL_VIEWS);
	return 0;
}

SEC("raw_tp/signal_generate") SCRY_LANE(1)
int BPF_PROG(scry_signal_gen, int sig, struct kernel_siginfo *info, struct task_struct *task, int group,
	     int result)
{
	struct task_struct *t = NULL;
	__s32 errno_ = 0, code = SCRY_SI_USER;
	__u32 hs, pos;
	__u8 *p;

	if (!recording())
		return 0;
	if (!target_ok(NULL, &t) && !task_followed(task))
		return 0;
	if (!t)
		t = bpf_get_current_task_btf();
	/* scry's own: the SIGCONT that releases the command it started, and the SIGCHLD back */
	if (t->tgid == self_tgid || BPF_CORE_READ(task, tgid) == self_tgid)
		return 0;
	/* SEND_SIG_NOINFO (0): from user space, the sender is current; SEND_SIG_PRIV (1): the kernel */
	if ((__u64)info == 1) {
		code = SCRY_SI_KERNEL;
		info = NULL;
	} else if (info) {
		errno_ = BPF_CORE_READ(info, si_errno);
		code = BPF_CORE_READ(info, si_code);
	}
	hs = head_size();
	p = ring_reserve(hs + 3 * 4 + SCRY_COMM_LEN + 4 * 4 + SIGNAL_VIEWS);
	if (!p)
		return 0;
	write_head(p, signal_gen_event_id, t);
	WR(__s32, p, hs, sig);
	WR(__s32, p, hs + 4, errno_);
	WR(__s32, p, hs + 8, code);
	pos = hs + 12;
	bpf_probe_read_kernel(p + pos, SCRY_COMM_LEN, task->comm);
	pos += SCRY_COMM_LEN;
	WR(__s32, p, pos, BPF_CORE_READ(task, pid));
	WR(__s32, p, pos + 4, group);
	WR(__s32, p, pos + 8, result);
	WR(__s32, p, pos + 12, BPF_CORE_READ(task, tgid));
	pos += 16;
	write_signal_views(p, pos, info);
	if (!info && code == SCRY_SI_USER) {   /* as the kernel fills it when it queues one */
		__u32 uid = BPF_CORE_READ(t, cred, uid.val);

		WR(__s32, p, pos, t->tgid);
		WR(__u32, p, pos + 4, uid);
		WR(__u64, p, pos + 28, (__u64)uid << 32 | (__u32)t->tgid);
	}
	ring_commit(p, hs + 3 * 4 + SCRY_COMM_LEN + 4 * 4 + SIGNAL_VIEWS);
	return 0;
}
