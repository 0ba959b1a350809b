// SPDX-License-Identifier: GPL-2.0
/* ustack.bpf.h — a task's user stack copied for unwinding in user space (bpf/ustack.h),
 * shared by scry profile's sampler (profile.bpf.c) and scry trace -k (record.bpf.h): its
 * user registers, saved on its entry to the kernel, and the bytes of its stack from the
 * stack pointer up. */
#ifndef SCRY_BPF_LIB_USTACK_H
#define SCRY_BPF_LIB_USTACK_H

#define USTACK_PAGE 4096ULL

/* The user registers of regs (bpf_task_pt_regs: read directly) in DWARF's numbering; false where this
 * architecture is not known (the loaders refuse the copy elsewhere). */
static __always_inline bool ustack_regs(__u64 *out, struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	out[0] = regs->ax;
	out[1] = regs->dx;
	out[2] = regs->cx;
	out[3] = regs->bx;
	out[4] = regs->si;
	out[5] = regs->di;
	out[6] = regs->bp;
	out[7] = regs->sp;
	out[8] = regs->r8;
	out[9] = regs->r9;
	out[10] = regs->r10;
	out[11] = regs->r11;
	out[12] = regs->r12;
	out[13] = regs->r13;
	out[14] = regs->r14;
	out[15] = regs->r15;
	out[16] = regs->ip;
	return true;
#else
	return false;
#endif
}

/* The bytes of task's user stack from sp up into data, at most max (<= SCRY_USTACK_MAX):
 * all of them in one read when they are mapped; the main thread's stack ends above its
 * environment strings (env_end), so the window stops there; else a read that fails is
 * retried without its last page, until one succeeds.  Returns the bytes read. */
static __always_inline __u32 ustack_copy(__u8 *data, __u64 sp, struct task_struct *task, __u32 max)
{
	__u64 env_end = BPF_CORE_READ(task, mm, env_end);
	__u32 len = max;

	if (sp < env_end && env_end - sp < len)
		len = (__u32)(env_end - sp);
	for (int i = 0; i < SCRY_USTACK_MAX / USTACK_PAGE + 1; i++) {
		__u64 last;

		if (!len || len > max)            /* (never above max: for the verifier) */
			return 0;
		if (!bpf_probe_read_user(data, len, (void *)sp))
			return len;
		last = (sp + len - 1) & ~(USTACK_PAGE - 1);   /* the start of the last page read */
		len = last > sp ? (__u32)(last - sp) : 0;
	}
	return 0;
}

#endif
