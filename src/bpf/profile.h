/* profile.h — what scry profile's BPF program (profile.bpf.c) and its loader
 * (src/kernel/profiler.c) share: the key samples are counted by in the kernel, the loss
 * counters, and the note a process's first sample sends to user space (its mappings are
 * read then, while it lives). */
#ifndef SCRY_BPF_PROFILE_H
#define SCRY_BPF_PROFILE_H

#define SCRY_PROF_MAX_DEPTH 127      /* PERF_MAX_STACK_DEPTH: frames per stack map entry */
#define SCRY_PROF_COMM 16

/* counts: one entry per thread, command name and pair of stacks */
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
	SCRY_PROF_NSTATS,
};

/* notes (ring buffer): a process's first sample since it started or exec'ed */
struct scry_prof_note {
	__u32 tgid;
	__u32 pid;
};

#endif
