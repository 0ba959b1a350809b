/* bpf_gen.h — compile a filter's IR (filter.h) to eBPF instructions.
 *
 * Live programs are filter fronts (scry_abi.h): attached to the hook in place of the
 * dispatcher, they read the event's values where the hook has them (the syscall's
 * registers, the tracepoint's raw record, the current task through kernel BTF offsets),
 * return at once when the expression is false, and tail-call the dispatcher (prog array
 * `back`, index 0, a direct jump) when it is true.  A syscall front holds the filters of
 * every filtered call, chosen by a binary search on the syscall number (calls without a
 * filter pass); identical filters share their code.
 * Test programs (fgen_target.test) read the values from this CPU's filter environment
 * (struct scry_filter_env, filled by the test) and return 1 (accept) or 0 (reject).
 *
 * Registers: r6 ctx, r7 the environment (scratch for strings), r8/r9 the two lowest
 * stack-machine slots (the others live on the BPF stack).  Strings are read into env->str
 * (as the event writer reads them: same bounds, "(null)"/"(fault)" for unreadable user
 * strings), then compared against the literal with word loads; a glob is split at its
 * stars into segments: the first is a prefix, the last a suffix, the middle ones are
 * searched in order with the kfunc bpf_strnstr (when the kernel lacks it, such globs are
 * not compiled).  A program that uses the environment owns it while it runs; a second
 * one on the same CPU (preemption, interrupt) counts its event as nested and drops it. */
#ifndef SCRY_FILTER_BPF_GEN_H
#define SCRY_FILTER_BPF_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "filter/filter.h"

/* Where the value of one access is. */
enum fgen_kind {
	FGEN_NONE,        /* not expressible in the kernel */
	FGEN_ARG,         /* int: argument register arg (ext: 0, FGEN_EXT_S32, FGEN_EXT_U32) */
	FGEN_RET,         /* int: the syscall's return value */
	FGEN_NR,          /* int: the syscall's number */
	FGEN_CTX,         /* int: context ctx (test: env ctx[ctx]); ctx cgroup_id with level > 0:
	                   * bpf_get_current_ancestor_cgroup_id(level) (live programs only) */
	FGEN_COMM,        /* string: procname (test: env comm) */
	FGEN_USTR,        /* string: user string at argument arg (uprobes: register arg), at most
	                   * max bytes with NUL */
	FGEN_REC_INT,     /* int: size bytes at off in the raw record, is_signed, + adjust */
	FGEN_REC_TEXT,    /* string: char[max] at off in the raw record */
	FGEN_REC_LOC,     /* string: __data_loc u32 at off (rel: __rel_loc) */
	FGEN_UREG,        /* int: size bytes of user register arg (SCRY_UREG_*) from byte shift,
	                   * is_signed (uprobes) */
};

enum { FGEN_EXT_S32 = 1, FGEN_EXT_U32 = 2 };

struct fgen_loc {
	uint8_t kind;              /* enum fgen_kind */
	uint8_t arg;
	uint8_t ext;
	uint8_t size;
	uint8_t shift;
	bool is_signed;
	bool rel;
	uint16_t off;
	int16_t adjust;
	uint16_t ctx;
	uint8_t level;             /* FGEN_CTX of the cgroup id: the ancestor's level (0: none) */
	uint32_t max;
};

/* Where a live program finds the values. */
enum fgen_src {
	FGEN_SRC_SYSCALL_BTF,      /* tp_btf sys_enter/sys_exit: ctx[0] pt_regs *, ctx[1] nr / ret */
	FGEN_SRC_SYSCALL_TP,       /* raw_syscalls record: nr at 8, args at 16 / ret at 16 */
	FGEN_SRC_TP,               /* a tracepoint's raw record */
	FGEN_SRC_UPROBE,           /* a uprobe: ctx the probed thread's struct pt_regs */
};

/* How a live program computes a context from the current task (kernel BTF offsets). */
enum fgen_ctxp_how {
	FGEN_CTXP_NONE,            /* not available: filters reading it are not compiled */
	FGEN_CTXP_LOAD,            /* steps pointer loads from the task, then the field at off */
	FGEN_CTXP_CPU,             /* bpf_get_smp_processor_id() */
	FGEN_CTXP_CGROUP,          /* bpf_get_current_cgroup_id() */
	FGEN_CTXP_PIDNR,           /* struct pid * at off (after steps): numbers[level].nr */
	FGEN_CTXP_PIDNS,           /* ... numbers[level].ns->ns.inum */
};

#define FGEN_CTXP_MAX_STEPS 4

struct fgen_ctx_path {
	uint8_t how;               /* enum fgen_ctxp_how */
	uint8_t nsteps;
	uint8_t size;              /* LOAD: bytes of the field */
	bool is_signed;
	int16_t adjust;            /* added to the value (prio - 100) */
	uint16_t step[FGEN_CTXP_MAX_STEPS];
	uint16_t off;
};

/* struct pid / upid / pid_namespace offsets for FGEN_CTXP_PIDNR and _PIDNS. */
struct fgen_pid_layout {
	uint16_t level, numbers, upid_size, upid_nr, upid_ns, ns_inum;
};

struct fgen_target {
	bool test;                 /* test program: values from the environment, returns 1/0 */
	uint8_t src;               /* enum fgen_src (live programs) */
	bool exit;                 /* syscall exit (FGEN_RET readable) */
	uint32_t env_kind;         /* SCRY_FENV_*: the environment's index in filter_env */
	int env_fd;                /* filter_env map */
	int back_fd;               /* back_* prog array: 0 the dispatcher, 1 (exit) the resume program */
	int waiting_fd;            /* exits: map (.bss) holding the u64 count of deferred entries, */
	uint32_t waiting_off;      /* at this offset: a rejected exit runs the resume program
				    * while it is not 0 */
	int stats_fd;              /* stats map (nested drops), live programs */
	int strnstr_btf_id;        /* vmlinux BTF id of kfunc bpf_strnstr, 0: none */
	int16_t regs_off[6];       /* FGEN_SRC_SYSCALL_BTF: argument registers in struct pt_regs */
	int16_t orig_ax_off;       /* ... and the syscall number (exits) */
	int16_t uregs_off[7];      /* FGEN_SRC_UPROBE: SCRY_UREG_* in the context (struct pt_regs) */
	const struct fgen_ctx_path *ctx;   /* [SCRY_CTX_NR], live programs; NULL: no contexts */
	uint16_t comm_off;         /* task_struct.comm (0: unknown) */
	struct fgen_pid_layout pid;
	bool memo;                 /* FGEN_SRC_SYSCALL_BTF: the current task from the memo map */
	int memo_fd;               /* (struct scry_memo, its kptr usable) when the registers */
	int16_t task_stack_off;    /* match; task_struct.stack and .exit_state prove it, or */
	int16_t task_exit_state_off;
	bool memo_gen;             /* the generation (the u64 at gen_off in waiting_fd's map, */
	uint32_t gen_off;          /* the .bss: tracked_gen) does: rodata memo_by_gen */
};

/* What a syscall front does for a number. */
enum fgen_action {
	FGEN_FILTER,               /* evaluate ir */
	FGEN_PASS,                 /* no filter: the dispatcher decides */
	FGEN_DROP,                 /* the filter is never true: return */
};

/* One event of a front. */
struct fgen_case {
	uint32_t key;              /* syscall fronts: the syscall number */
	bool dflt;                 /* syscall fronts: numbers without a case (unknown calls) */
	uint8_t action;            /* enum fgen_action */
	const struct filter_ir *ir;        /* status MATCHABLE */
	const struct fgen_loc *locs;       /* [ir->naccess] */
};

struct fgen_prog {
	struct bpf_insn *insns;
	size_t n;
};

/* Compile cases[0..n) into one program: syscall sources switch on the number (numbers
 * without a case take the dflt case, or pass), a tracepoint front or a test program has
 * exactly one case, a FGEN_FILTER one.
 * 0, or -1 with why filled when something cannot be expressed (an access of kind
 * FGEN_NONE, a context the target has no path for, a glob needing bpf_strnstr on a kernel
 * without it, a jump too long) or memory runs out. */
int fgen_compile(const struct fgen_case *cases, size_t n, const struct fgen_target *t, struct fgen_prog *out,
		 char *why, size_t whylen);
void fgen_prog_free(struct fgen_prog *p);

/* A star-glob pattern cut at its unescaped stars into unescaped segments (a trailing lone
 * backslash is literal, as in filter_glob_match).  Returns the number of segments (stars + 1)
 * or -1 when there are more than max; seg[i] points into buf (NUL-terminated copies). */
int fgen_glob_segments(const char *pat, size_t plen, char *buf, const char **seg, size_t *seglen, int max);

#endif
