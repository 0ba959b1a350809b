/* profile.h — what scry profile's BPF program (profile.bpf.c) and its loader
 * (src/kernel/profiler.c) share: the key samples are counted by in the kernel, the loss
 * counters, and the records of the ring: the note a process's first sample sends to user
 * space (its mappings are read then, while it lives) and, with --call-graph dwarf, each
 * sample's user registers and a copy of its user stack, unwound in user space.  With --off-cpu
 * no sample is taken: a target thread's blocked time is counted by its stacks when it
 * blocked, from the scheduler's switches (offcputime's method). */
#ifndef SCRY_BPF_PROFILE_H
#define SCRY_BPF_PROFILE_H

#include "ustack.h"

#define SCRY_PROF_MAX_DEPTH 127      /* PERF_MAX_STACK_DEPTH: frames per stack map entry */
#define SCRY_PROF_COMM 16

/* counts: one entry per thread, command name and pair of stacks; the value is the samples
 * taken, or with --off-cpu the nanoseconds blocked */
struct scry_prof_key {
	__u32 pid;                   /* thread */
	__u32 tgid;                  /* process */
	__s32 kstack;                /* stack map ids; < 0: none (-EFAULT: no such stack, e.g. */
	__s32 ustack;                /*   a kernel thread's user stack) or lost (-EEXIST...) */
	char comm[SCRY_PROF_COMM];
};

/* stats (per-CPU array): the samples and what became of them */
enum scry_prof_stat {
	SCRY_PROF_SAMPLES,           /* the program ran for a sample of a target */
	SCRY_PROF_IDLE,              /* -a: the idle task's samples, not counted */
	SCRY_PROF_KSTACK_LOST,       /* the kernel stack lost: a stack map collision (-EEXIST) or full */
	SCRY_PROF_USTACK_LOST,       /* the user stack lost (same) */
	SCRY_PROF_COUNTS_FULL,       /* the sample itself lost: the counts hash was full */
	SCRY_PROF_NOTES_LOST,        /* a first-sample note lost (its ring full): mappings read at the end */
	SCRY_PROF_RING_FULL,         /* dwarf: no room in the ring for the user stack's copy; the sample
	                              *   counted in the kernel with its user stack lost (-ENOSPC) */
	SCRY_PROF_USTACK_SENT,       /* dwarf: user stacks copied to the ring */
	SCRY_PROF_BLOCKS,            /* --off-cpu: blocks of targets counted (at least min_block_ns) */
	SCRY_PROF_BLOCKS_LOST,       /* --off-cpu: a block not measured: no room for its start */
	SCRY_PROF_FIRED,             /* the program ran, for any task's sample: set against the event's
	                              *   time, the samples perf did not deliver (throttled) */
	SCRY_PROF_NSTATS,
};

/* The ring's records, told apart by their first word. */
enum scry_prof_rec {
	SCRY_PROF_REC_NOTE = 1,
	SCRY_PROF_REC_USTACK,
};

/* A process's first sample since it started or exec'ed. */
struct scry_prof_note {
	__u32 type;                  /* SCRY_PROF_REC_NOTE */
	__u32 tgid;
	__u32 pid;
};

/* A sample with its user stack to unwind (ustack.h): the user registers and the bytes of
 * the stack from regs[SCRY_DWREG_SP] up (size of them read; the record holds the window
 * asked for). */
struct scry_prof_ustack {
	__u32 type;                  /* SCRY_PROF_REC_USTACK */
	__u32 pid, tgid;
	__s32 kstack;                /* as in scry_prof_key */
	char comm[SCRY_PROF_COMM];
	__u64 regs[SCRY_DWREGS_N];
	__u32 size;
	__u32 pad;
	__u8 data[];
};

#endif
