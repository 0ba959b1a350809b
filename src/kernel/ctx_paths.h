/* ctx_paths.h — where a filter front finds each context of the current task and the
 * syscall's registers: member offsets read from this kernel's BTF (task_struct, cred,
 * nsproxy, pid, pt_regs).  The counterpart of ctx_int() in src/bpf/lib/record.bpf.h, which the
 * event writer uses; the two must agree (tests/e2e/test_record_filter.py checks them). */
#ifndef SCRY_SESSION_CTX_PATHS_H
#define SCRY_SESSION_CTX_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "filter/bpf_gen.h"
#include "scry_abi.h"

struct btf;

struct scry_ctx_layout {
	struct fgen_ctx_path ctx[SCRY_CTX_NR];   /* how FGEN_CTXP_NONE: not found */
	uint16_t comm_off;
	struct fgen_pid_layout pid;
	int16_t regs_off[6];                     /* di, si, dx, r10, r8, r9 */
	int16_t orig_ax_off;
	bool regs_ok;                            /* pt_regs has the x86-64 argument registers */
	int16_t stack_off, exit_state_off;       /* task_struct.stack, .exit_state (struct scry_memo) */
	bool memo_ok;                            /* ... both found */
};

/* Fill out from btf (vmlinux).  0, or -1 when task_struct itself is missing. */
int scry_ctx_layout(const struct btf *btf, struct scry_ctx_layout *out);

/* Load-time settings of the contexts after uts_ns (src/bpf/lib/record.bpf.h). */
struct scry_ctx_kernel {
	uint8_t tif_need_resched;     /* TIF_NEED_RESCHED's bit */
	uint32_t ovf_uid, ovf_gid;    /* /proc/sys/kernel/overflow[ug]id */
	int64_t preempt_delta;        /* per-CPU __preempt_count - per-CPU runqueues, in bytes */
	uint32_t stack_max;           /* frames of a call stack: /proc/sys/kernel/perf_event_max_stack, at most 128 */
};

/* What scry_ctx_kernel reads from the kernel's BTF (kept with the other facts of a kernel,
 * kfacts.c): whether it has each member a context needs, and the per-CPU offsets. */
struct scry_ctx_btf {
	bool has_btf;
	bool migration_disabled, time_ns, cgroup_ns;   /* task_struct's path to each */
	bool preempt_ok;                               /* __preempt_count, runqueues, se.cfs_rq->rq */
	int64_t preempt_delta;
};
void scry_ctx_btf(const struct btf *btf, struct scry_ctx_btf *out);
/* What the kernel must offer for the contexts of mask, and their settings.  0, or -1 with
 * a one-line err naming the context and what this kernel lacks. */
int scry_ctx_kernel(const struct scry_ctx_btf *kb, uint64_t mask, struct scry_ctx_kernel *out, char *err,
		    size_t errlen);

#endif
