// SPDX-License-Identifier: GPL-2.0
/* profile.bpf.c — scry profile's kernel side, an object of its own (profile.h: what it
 * shares with src/kernel/profiler.c).  scry_prof_sample runs on a cpu-clock perf event of
 * each CPU at the profile's frequency: for a target task it takes the kernel and user
 * stacks (bpf_get_stackid into the stack map; frame pointers for the user side) and counts
 * the sample in a hash keyed by thread, process, command name and both stack ids; every
 * stack or sample it cannot keep is counted in stats, and each run (any task's: the samples
 * perf throttled are the event's time's worth less those).  A process's first sample (after its
 * start or exec) sends a note so that user space reads its mappings while it lives.
 * With --call-graph dwarf (ustack_size > 0) a user task's sample is not counted here: its
 * user registers and the ustack_size bytes of its stack above sp go through the ring to
 * user space, which unwinds them with the files' CFI (perf's method); a sample whose copy
 * finds no room in the ring is counted here, its user stack lost (-ENOSPC).
 * Targets (-p, the command): a set of processes and the children they fork. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "scry_abi.h"       /* SCRY_MAX_TRACK_CGROUPS: the trackers' bound */
#include "profile.h"
#include "lib/ustack.bpf.h"

#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef ENOSPC
#define ENOSPC 28
#endif
#define PF_KTHREAD 0x00200000

const volatile bool target_all = false;    /* -a: every task but the idle ones */
const volatile __u32 self_tgid = 0;        /* scry itself, never sampled */
const volatile __u32 ustack_size = 0;      /* --call-graph dwarf's window; 0: frame pointers */
const volatile __u64 min_block_ns = 0;     /* --off-cpu: shorter blocks are not counted */
const volatile __u32 n_cgroups = 0;        /* --track-cgroup/--track-container: cgroups[0..n) */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SCRY_PROF_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 16384);              /* set by the loader */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct scry_prof_key);
	__type(value, __u64);
	__uint(max_entries, 40960);              /* set by the loader */
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, SCRY_PROF_NSTATS);
} stats SEC(".maps");

/* the target processes (tgid -> 1) when not target_all */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} targets SEC(".maps");

/* the cgroups a task must be in (or below) when n_cgroups: the trackers' cgroup array */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, SCRY_MAX_TRACK_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} cgroups SEC(".maps");

/* Is the current task in one of the tracked cgroups (or below one)?  True without any. */
static __always_inline bool in_cgroups(void)
{
	if (!n_cgroups)
		return true;
	for (__u32 i = 0; i < SCRY_MAX_TRACK_CGROUPS; i++) {
		if (i >= n_cgroups)
			break;
		if (bpf_current_task_under_cgroup(&cgroups, i) == 1)
			return true;
	}
	return false;
}

/* processes whose mappings user space was told to read (tgid -> 1) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} noted SEC(".maps");

/* notes and, with dwarf, user stacks: one ring, so that a process's note comes before its
 * first stack */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);         /* set by the loader */
} notes SEC(".maps");

/* --off-cpu: a blocked target thread (pid) -> when it blocked and its stacks then */
struct block {
	__u64 ts;
	__s32 kstack, ustack;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct block);
	__uint(max_entries, 16384);
} blocked SEC(".maps");

static __always_inline void stat_add(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &k);

	if (v)
		*v += 1;
}

/* A stack id that is not a stack: none to take (-EFAULT) is not a loss; anything else
 * (-EEXIST: another stack in its bucket; -ENOMEM) is. */
static __always_inline void stack_check(long id, __u32 stat)
{
	if (id < 0 && id != -EFAULT)
		stat_add(stat);
}

/* Send the note of tgid's first sample (none yet since its start or exec). */
static __always_inline void note(__u32 tgid, __u32 pid)
{
	struct scry_prof_note *n;
	__u8 yes = 1;

	/* one note however many CPUs sample the process's threads at once: the CPU that
	 * adds it to noted sends it (each note makes user space start the process anew) */
	if (bpf_map_lookup_elem(&noted, &tgid) || bpf_map_update_elem(&noted, &tgid, &yes, BPF_NOEXIST) == -EEXIST)
		return;
	n = bpf_ringbuf_reserve(&notes, sizeof(*n), 0);
	if (!n) {
		stat_add(SCRY_PROF_NOTES_LOST);
		return;
	}
	n->type = SCRY_PROF_REC_NOTE;
	n->tgid = tgid;
	n->pid = pid;
	bpf_ringbuf_submit(n, 0);
}

/* dwarf: the sample's user registers (the task's, saved on entry to the kernel) and stack
 * to the ring.  false when the ring has no room. */
static __always_inline bool send_ustack(struct scry_prof_key *key, struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct scry_prof_ustack *r;

	r = bpf_ringbuf_reserve(&notes, sizeof(*r) + ustack_size, 0);
	if (!r)
		return false;
	r->type = SCRY_PROF_REC_USTACK;
	r->pid = key->pid;
	r->tgid = key->tgid;
	r->kstack = key->kstack;
	__builtin_memcpy(r->comm, key->comm, sizeof(r->comm));
	r->pad = 0;
	r->size = ustack_regs(r->regs, regs) ? ustack_copy(r->data, r->regs[SCRY_DWREG_SP], task, ustack_size) : 0;
	bpf_ringbuf_submit(r, 0);
	return true;
}

SEC("perf_event")
int scry_prof_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id;
	struct task_struct *task;
	struct scry_prof_key key = {};
	__u64 one = 1, *n;
	bool kthread;

	stat_add(SCRY_PROF_FIRED);
	if (tgid == self_tgid)
		return 0;
	if (pid == 0) {
		if (target_all)
			stat_add(SCRY_PROF_IDLE);
		return 0;
	}
	if ((!target_all && !bpf_map_lookup_elem(&targets, &tgid)) || !in_cgroups())
		return 0;
	stat_add(SCRY_PROF_SAMPLES);
	task = (struct task_struct *)bpf_get_current_task_btf();
	kthread = task->flags & PF_KTHREAD;
	key.pid = pid;
	key.tgid = tgid;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
#if defined(__TARGET_ARCH_x86)
	/* interrupted in user mode: no kernel stack (the context is read a word at a time) */
	if (*(__u64 *)((void *)ctx + __builtin_offsetof(struct pt_regs, cs)) & 3)
		key.kstack = -EFAULT;
	else
#endif
		key.kstack = bpf_get_stackid(ctx, &stacks, 0);
	stack_check(key.kstack, SCRY_PROF_KSTACK_LOST);
	if (!kthread)
		note(tgid, pid);           /* before the first stack in the ring */
	if (kthread) {
		key.ustack = -EFAULT;
	} else if (ustack_size) {
		if (send_ustack(&key, task)) {
			stat_add(SCRY_PROF_USTACK_SENT);
			return 0;
		}
		key.ustack = -ENOSPC;
		stat_add(SCRY_PROF_RING_FULL);
	} else {
		key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		stack_check(key.ustack, SCRY_PROF_USTACK_LOST);
	}
	n = bpf_map_lookup_elem(&counts, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
	} else if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&counts, &key);   /* another CPU added it meanwhile */
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			stat_add(SCRY_PROF_COUNTS_FULL);
	}
	return 0;
}

/* A target thread's key: the idle tasks never, kernel threads with -a; t is the current
 * task (its cgroups are checked). */
static __always_inline bool targeted(struct task_struct *t)
{
	__u32 tgid = t->tgid;

	if (t->pid == 0 || tgid == self_tgid)
		return false;
	return (target_all || bpf_map_lookup_elem(&targets, &tgid)) && in_cgroups();
}

/* --off-cpu (offcputime's method): a target thread that blocks (switched out not runnable:
 * asleep, waiting; a preempted one is not blocked) has its time and both stacks kept (it
 * is the current task here: bpf_get_stackid takes its stacks); when it runs again, the
 * time since is added to its key's count, if at least min_block_ns. */
SEC("tp_btf/sched_switch")
int BPF_PROG(scry_prof_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), *n;
	__u32 pid = prev->pid;
	struct block *b, nb;

	if (!preempt && prev->__state != 0 && targeted(prev)) {
		bool kthread = prev->flags & PF_KTHREAD;

		nb.ts = now;
		nb.kstack = bpf_get_stackid(ctx, &stacks, 0);
		stack_check(nb.kstack, SCRY_PROF_KSTACK_LOST);
		if (kthread) {
			nb.ustack = -EFAULT;
		} else {
			nb.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
			stack_check(nb.ustack, SCRY_PROF_USTACK_LOST);
			note(prev->tgid, pid);
		}
		if (bpf_map_update_elem(&blocked, &pid, &nb, BPF_ANY))
			stat_add(SCRY_PROF_BLOCKS_LOST);
	}
	pid = next->pid;
	b = bpf_map_lookup_elem(&blocked, &pid);
	if (!b)
		return 0;
	struct scry_prof_key key = { .pid = pid, .tgid = next->tgid, .kstack = b->kstack, .ustack = b->ustack };
	__u64 d = now - b->ts;

	bpf_map_delete_elem(&blocked, &pid);
	if (d < min_block_ns)
		return 0;
	stat_add(SCRY_PROF_BLOCKS);
	bpf_probe_read_kernel(key.comm, sizeof(key.comm), next->comm);
	n = bpf_map_lookup_elem(&counts, &key);
	if (n) {
		__sync_fetch_and_add(n, d);
	} else if (bpf_map_update_elem(&counts, &key, &d, BPF_NOEXIST)) {
		n = bpf_map_lookup_elem(&counts, &key);
		if (n)
			__sync_fetch_and_add(n, d);
		else
			stat_add(SCRY_PROF_COUNTS_FULL);
	}
	return 0;
}

/* The targets' children are targets. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(scry_prof_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 yes = 1;

	if (!target_all && ctgid != ptgid && bpf_map_lookup_elem(&targets, &ptgid))
		bpf_map_update_elem(&targets, &ctgid, &yes, BPF_ANY);
	return 0;
}

/* An exec maps another program: its next sample notes it again. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(scry_prof_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = p->tgid;

	bpf_map_delete_elem(&noted, &tgid);
	return 0;
}

/* A process's end: its pid may come back as another process. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(scry_prof_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;

	if (p->pid != p->tgid)
		return 0;
	bpf_map_delete_elem(&targets, &tgid);
	bpf_map_delete_elem(&noted, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
