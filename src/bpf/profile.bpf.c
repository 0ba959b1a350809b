// SPDX-License-Identifier: GPL-2.0
/* profile.bpf.c — scry profile's kernel side, an object of its own (profile.h: what it
 * shares with src/kernel/profiler.c).  scry_prof_sample runs on a cpu-clock perf event of
 * each CPU at the profile's frequency: for a target task it takes the kernel and user
 * stacks (bpf_get_stackid into the stack map; frame pointers for the user side) and counts
 * the sample in a hash keyed by thread, process, command name and both stack ids; every
 * stack or sample it cannot keep is counted in stats.  A process's first sample (after its
 * start or exec) sends a note so that user space reads its mappings while it lives.
 * Targets (-p, the command): a set of processes and the children they fork. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "profile.h"

#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef EFAULT
#define EFAULT 14
#endif
#define PF_KTHREAD 0x00200000

const volatile bool target_all = false;    /* -a: every task but the idle ones */
const volatile __u32 self_tgid = 0;        /* scry itself, never sampled */

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

/* processes whose mappings user space was told to read (tgid -> 1) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, 65536);
} noted SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} notes SEC(".maps");

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

SEC("perf_event")
int scry_prof_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, pid = (__u32)id;
	struct task_struct *task;
	struct scry_prof_key key = {};
	__u64 one = 1, *n;
	__u8 yes = 1;

	if (tgid == self_tgid)
		return 0;
	if (pid == 0) {
		if (target_all)
			stat_add(SCRY_PROF_IDLE);
		return 0;
	}
	if (!target_all && !bpf_map_lookup_elem(&targets, &tgid))
		return 0;
	stat_add(SCRY_PROF_SAMPLES);
	task = (struct task_struct *)bpf_get_current_task_btf();
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
	if (task->flags & PF_KTHREAD) {
		key.ustack = -EFAULT;
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
	if (!(task->flags & PF_KTHREAD) && !bpf_map_lookup_elem(&noted, &tgid)) {
		struct scry_prof_note *note;

		bpf_map_update_elem(&noted, &tgid, &yes, BPF_ANY);
		note = bpf_ringbuf_reserve(&notes, sizeof(*note), 0);
		if (!note) {
			stat_add(SCRY_PROF_NOTES_LOST);
			return 0;
		}
		note->tgid = tgid;
		note->pid = pid;
		bpf_ringbuf_submit(note, 0);
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
