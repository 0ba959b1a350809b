// SPDX-License-Identifier: GPL-2.0
/* syscalls.bpf.h — the syscall source: sys_enter and sys_exit (BTF tracepoints; the
 * classic raw_syscalls tracepoints where the kernel has no tp_btf), each call's
 * descriptor from the syscalls table, deferred entries written at the exit or before exec. */

/* A successful execve's deferred entry when sched_prepare_exec could not write it: the old
 * image is gone, so the strings are read where exec copied them into the new one: the
 * file name right after the environment strings (mm->env_end; fs/exec.c copies it first,
 * then envp, then argv, top down), argv and envp through the pointer arrays above the new
 * stack pointer (argc, argv[], NULL, envp[], NULL).  A script's argv then reads as its
 * interpreter's, and execveat's path relative to a directory fd as "/dev/fd/N/path".
 * procname is the name at entry (comm).  shape: as ops_run's. */
static __always_inline void enter_exec_image(const struct scry_sc_desc *d, const __u64 *args,
					     const __u64 *comm, struct task_struct *t, __u64 ts, const __u64 shape)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(current_trusted(t));
	__u64 sp = BPF_CORE_READ(regs, sp), argc = 0, name = BPF_CORE_READ(t, mm, env_end);
	struct area *a;
	bool argv_done = false;

	if (bpf_probe_read_user(&argc, 8, (void *)sp))
		argc = 0;
	a = area_get(AREA_SYS_ENTER);
	if (!a)
		return;
	ops_init(a, args, 0);
	for (int i = 0; i < SCRY_MAX_SC_OPS && i < d->n_entry_ops; i++) {
		const struct scry_sc_op *op = &d->entry_ops[i];

		if (op->kind == SCRY_SOP_STR) {
			a->src[op->arg & 7] = name;
		} else if (op->kind == SCRY_SOP_STRV) {
			a->src[op->arg & 7] = argv_done ? sp + 16 + 8 * argc : sp + 8;
			argv_done = true;
		}
	}
	ops_run(a, d->entry_id, d->entry_ops, d->n_entry_ops, t, ts, SCRY_SOP_ALL_KINDS, shape);
	if (ctx_mask_in(shape) & (1ULL << SCRY_CTX_PROCNAME)) {
		WR(__u64, a->buf, procname_offset_in(shape), comm[0]);
		WR(__u64, a->buf, procname_offset_in(shape) + 8, comm[1]);
	}
	submit_in(a, a->pos, shape);
	area_put(a);
}

/* The entry deferred by t, if any, written now with its entry time and its strings read
 * again (the syscall has faulted their pages in).  exit_nr, ret: the syscall exiting, or
 * -1 before an exec replaces the image (at_exec: only an exec's entry is written then;
 * another, left by a missed exit, is counted as lost).  The entry may be another syscall's than the one
 * exiting (its exit was missed): it is written all the same.  shape: as ops_run's. */
static __always_inline void resume_entry(struct task_struct *t, long exit_nr, long ret, bool at_exec,
					 const __u64 shape)
{
	struct deferred *de;
	struct scry_sc_desc *d;
	__u32 nr;

	/* no entry kept anywhere (the count a task's own deferral raised before its exit):
	 * no lookup (two helper calls at each exit of a call that may defer) */
	if (!*(volatile __u64 *)&deferred_waiting)
		return;
	de = bpf_task_storage_get(&deferred, current_trusted(t), 0, 0);
	if (!de || !de->pending)
		return;
	de->pending = 0;
	__sync_fetch_and_sub(&deferred_waiting, 1);
	nr = de->nr;
	d = nr < SCRY_MAX_SYSCALLS ? bpf_map_lookup_elem(&syscalls, &nr) : NULL;
	if (!d) {
		count_drop(false);
		return;
	}
	/* with sched_prepare_exec a successful exec's entry is written there, from the old
	 * image: this path is dropped at load (~5k instructions less to verify in two programs) */
	if (!prepare_exec_on &&
	    (d->flags & (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS)) == (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS) &&
	    exit_nr == nr && ret == 0)
		enter_exec_image(d, de->args, de->comm, t, de->ts, shape);
	else if (at_exec) {
		if ((d->flags & (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS)) == (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS))
			enter_ops(d, nr, de->args, t, de->ts, false, SCRY_SOP_EXEC_KINDS, shape);
		else
			count_drop(false);
	} else if (d->flags & SCRY_SC_ENTRY_OPS)
		enter_ops(d, nr, de->args, t, de->ts, false, SCRY_SOP_ALL_KINDS, shape);
	else
		enter_strings(d, nr, de->args, t, de->ts, false, false, shape);
}

static __always_inline void enter_unknown(long id, const __u64 *args, __u16 ev, struct task_struct *t,
					  const __u64 shape)
{
	__u32 hs = head_size_in(shape);
	__u8 *p = ring_reserve_in(hs + 8 + 8 * SCRY_MAX_ARGS, shape);

	if (!p)
		return;
	write_head_in(p, ev, t, shape);
	WR(__s64, p, hs, id);
	for (int i = 0; i < SCRY_MAX_ARGS; i++)
		WR(__u64, p, hs + 8 + 8 * i, args[i]);
	ring_commit_in(p, hs + 8 + 8 * SCRY_MAX_ARGS, shape);
}

/* Is the entry of syscall id recorded for current?  *tp: current when yes (regs and *tp as
 * for target_ok); *dp: its descriptor, NULL for a call the table does not know (recorded
 * as syscall_entry_unknown if selected).  Nothing else is read before this answer: a
 * rejected event costs only the target check. */
static __always_inline bool enter_wanted(const void *regs, struct task_struct **tp, long id,
					 struct scry_sc_desc **dp, const int mode)
{
	struct scry_sc_desc *d = NULL;
	__u32 nr = id;

	if (!recording() || !target_ok_in(regs, tp, mode))
		return false;
	if (id >= 0 && id < SCRY_MAX_SYSCALLS)
		d = bpf_map_lookup_elem(&syscalls, &nr);
	*dp = d;
	if (!d)
		return unknown_entry_id != SCRY_NO_EVENT;
	if (d->flags & SCRY_SC_COUNT) {
		count_enter(*tp, id);
		return false;
	}
	/* per-process sets' only (never with SCRY_SC_ENTRY): off the path of the others */
	if (__builtin_expect(d->flags & SCRY_SC_PIDSET, 0))
		return pid_set_has(*tp, false, nr);
	return d->flags & SCRY_SC_ENTRY;
}

/* Is d's entry of fixed layout (enter_fixed: no strings, no operations, a known call)? */
static __always_inline bool enter_is_fixed(const struct scry_sc_desc *d)
{
	return d && !(d->flags & (SCRY_SC_UNKNOWN | SCRY_SC_ENTRY_OPS)) && !d->str_mask;
}

/* fixed_seen (a constant): the caller wrote d's entry already if it was of fixed layout
 * (enter_btf, from the registers), so that none is written here: the verifier, which cannot
 * know that d did not become fixed between the two reads of the table, would otherwise check
 * a second enter_fixed in the same program (~1.1k of sys_enter's instructions). */
static __always_inline void sys_enter(long id, const __u64 *args, struct task_struct *t, struct scry_sc_desc *d,
				      const bool fixed_seen, const __u64 shape)
{
	if (!d) {
		enter_unknown(id, args, unknown_entry_id, t, shape);
		return;
	}
	if (d->flags & SCRY_SC_UNKNOWN) {
		enter_unknown(id, args, d->entry_id, t, shape);
		return;
	}
	if (d->flags & SCRY_SC_ENTRY_OPS) {
		enter_ops(d, id, args, t, scry_now(), d->flags & SCRY_SC_DEFER, SCRY_SOP_ENTRY_KINDS, shape);
		return;
	}
	if (d->str_mask) {
		enter_strings(d, id, args, t, scry_now(), d->flags & SCRY_SC_DEFER, true, shape);
		return;
	}
	if (!fixed_seen)
		enter_fixed(d, args, NULL, t, shape);
}

/* The descriptor of syscall id at its exit for current, the deferred entry of the call
 * written first; NULL when current is not a target or the table does not know the call.
 * (regs and *tp as for target_ok) */
static __always_inline struct scry_sc_desc *exit_resume(const void *regs, struct task_struct **tp, long id,
							long ret, bool *target, const int mode)
{
	struct scry_sc_desc *d = NULL;
	__u32 nr = id;

	*target = recording() && target_ok_in(regs, tp, mode);
	if (!*target)
		return NULL;
	if (id >= 0 && id < SCRY_MAX_SYSCALLS)
		d = bpf_map_lookup_elem(&syscalls, &nr);
	if (d && (d->flags & SCRY_SC_DEFER))
		resume_entry(*tp, id, ret, false, disp_shape(mode));
	return d;
}

/* Is the exit of syscall id recorded?  (*dp as for enter_wanted) */
static __always_inline bool exit_wanted(const void *regs, struct task_struct **tp, long id, long ret,
					struct scry_sc_desc **dp, const int mode)
{
	bool target;
	struct scry_sc_desc *d = exit_resume(regs, tp, id, ret, &target, mode);

	*dp = d;
	if (!target)
		return false;
	if (!d)
		return unknown_exit_id != SCRY_NO_EVENT;
	if (d->flags & SCRY_SC_COUNT) {
		count_exit(*tp, id, ret);
		return false;
	}
	if (__builtin_expect(d->flags & SCRY_SC_PIDSET, 0))
		return pid_set_has(*tp, false, (__u32)id);
	return d->flags & SCRY_SC_EXIT;
}

/* Exit of fixed layout with arguments (lttng-modules' read: ret, buf): ret, then each
 * argument of d->exit_args as a uint64, in place in the stage (or in the build area when
 * the stage is held, as enter_fixed; shape as there). */
static __always_inline void exit_fixed_args(const struct scry_sc_desc *d, long ret, const __u64 *args,
					    struct task_struct *t, const __u64 shape)
{
	__u32 hs = head_size_in(shape), end = hs + 8;
	struct scry_stage *st = NULL;
	struct area *a = NULL;
	__u8 *p = stage_begin_in(&st, hs + 8 + 8 * SCRY_MAX_ARGS, shape), mask = d->exit_args;

	if (!p) {
		if (!(a = area_get(AREA_SYS_EXIT)))
			return;
		p = a->buf;
	}
	write_head_in(p, d->exit_id, t, shape);
	WR(__s64, p, hs, ret);
	for (int i = 0; i < SCRY_MAX_ARGS; i++) {
		if (!(mask & (1 << i)))
			continue;
		WR(__u64, p, end, args[i]);
		end += 8;
	}
	if (st) {
		stage_commit_in(st, end, shape);
	} else {
		submit_in(a, end, shape);
		area_put(a);
	}
}

/* Write the exit of syscall id; args (read only for exit captures and exit_args) may be NULL
 * otherwise.  shape (a constant): the contexts the program was made for, or 0 (ctx_mask_in). */
static __always_inline void sys_exit(long id, long ret, const __u64 *args, struct task_struct *t,
				     struct scry_sc_desc *d, const __u64 shape)
{
	__u32 hs = head_size_in(shape);
	__u8 *p;

	if (d && (d->flags & (SCRY_SC_UNKNOWN | SCRY_SC_EXIT_OPS)) == SCRY_SC_EXIT_OPS) {
		if (args)
			exit_ops(d, args, ret, t, shape);
		return;
	}
	if (d && !(d->flags & SCRY_SC_UNKNOWN) && d->exit_args) {
		if (args)
			exit_fixed_args(d, ret, args, t, shape);
		return;
	}
	if (d && !(d->flags & SCRY_SC_UNKNOWN)) {
		struct scry_stage *st = NULL;

		p = stage_begin_in(&st, hs + 8, shape);
		if (!p && !(p = ring_reserve_in(hs + 8, shape)))
			return;
		write_head_in(p, d->exit_id, t, shape);
		WR(__s64, p, hs, ret);
		if (st)
			stage_commit_in(st, hs + 8, shape);
		else
			ring_commit_in(p, hs + 8, shape);
		return;
	}
	__u16 ev = d ? d->exit_id : unknown_exit_id;
	if (ev == SCRY_NO_EVENT)
		return;
	p = ring_reserve_in(hs + 16, shape);
	if (!p)
		return;
	write_head_in(p, ev, t, shape);
	WR(__s64, p, hs, id);
	WR(__s64, p, hs + 8, ret);
	ring_commit_in(p, hs + 16, shape);
}

/* Does the exit read the arguments (its operations, or a fixed layout with some)? */
static __always_inline bool exit_captures(const struct scry_sc_desc *d)
{
	return d && !(d->flags & SCRY_SC_UNKNOWN) && ((d->flags & SCRY_SC_EXIT_OPS) || d->exit_args);
}

/* rt_sigreturn: its argument (catalog/syscalls.c) is the signal frame's uc_sigmask.  At the
 * call the handler has returned into the frame's restorer, popping pretcode: the stack
 * pointer is at the frame's ucontext, and uc_sigmask follows uc_flags, uc_link, uc_stack
 * (24 bytes) and uc_mcontext (struct sigcontext, 256 bytes).  After the call orig_ax is -1
 * (restore_sigcontext): an exit with id -1 is rt_sigreturn's. */
#define SCRY_NR_RT_SIGRETURN 15
#define SCRY_SIGFRAME_MASK_OFF (8 + 8 + 24 + 256)

/* The door (maps.bpf.h: door_enter, door_exit) of a dispatcher on its hook when the
 * filters may change while recording (doors_on, set at load): door_sel 0, on; 1 or 2, a
 * tail call to index 0 or 1 of doors (a front, or the dispatcher itself, whose copy without
 * the door is the one on the hook otherwise), one read of door_sel deciding.  Constant indexes: the JIT makes each a direct
 * jump, patched as the array changes (a computed index is an indirect jump: ~30 ns with
 * retpolines).  Only in the *_door programs, loaded with doors_on alone. */
static __always_inline bool door(void *ctx, void *doors)
{
	__u32 d;

	if (!doors_on)
		return false;
	d = door_sel;
	if (!d)
		return false;
	if (d == 1)
		bpf_tail_call_static(ctx, doors, 0);
	else
		bpf_tail_call_static(ctx, doors, 1);
	return true;     /* an empty index: nothing (not reached while the session runs) */
}

static __always_inline int enter_btf(struct pt_regs *regs, long id, const int mode)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!enter_wanted(regs, &t, id, &d, mode))
		return 0;
	if (enter_is_fixed(d)) {   /* the arguments it writes, from the registers */
		enter_fixed(d, NULL, regs, t, disp_shape(mode));
		return 0;
	}
	__u64 args[SCRY_MAX_ARGS] = {
		regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9,
	};
	if (id == SCRY_NR_RT_SIGRETURN)
		args[0] = regs->sp + SCRY_SIGFRAME_MASK_OFF;
	sys_enter(id, args, t, d, true, disp_shape(mode));
	return 0;
}

/* The dispatcher: on the hook, or behind a filter front or a door (a front's way on). */
SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_ANY);
}

/* The dispatcher made for memo_all_gen's mode (system-wide, no tracker, the memo proved by
 * its generation: record -a's), on the hook instead of the plain one when no filter front
 * or door stands before it (src/kernel/probes.c): with the mode a compile-time constant
 * the compiler keeps no other target check in it, and its code for the rest is its own
 * (bench/progpair.sh: see docs/ENGINE.md).  Its copies made for a context set as well
 * (_dflt_: SCRY_DISP_DFLT, record's defaults SCRY_CTX_BASIC_MASK; _pt_: SCRY_DISP_PT, scry
 * trace's pid and tid; no user stack copies) go on the hook instead when the settings are
 * those: programs of their own, not copies in one program behind a test of the rodata, whose
 * dead part the verifier removes range by range (+17 ms of a start-up, measured; the
 * generic copy's context code at each of its ~20 event writers is ~40% of what it sends,
 * sys_exit 15.3k instructions against 8.9k, 10 ms more to verify). */
SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_all_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_ALL);
}

SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_all_dflt_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_ALL | SCRY_DISP_DFLT);
}

SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_all_pt_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_ALL | SCRY_DISP_PT);
}

/* The dispatcher made for the trackers' mode (the memo proved by its generation, the
 * session narrowed by the pid tracker's follow set or another tracker: SCRY_DISP_TRK), on
 * the hook instead of the plain one as the one above: an event pays the memo's test
 * without the tests of the other modes. */
SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_trk_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_TRK);
}

SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_trk_dflt_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_TRK | SCRY_DISP_DFLT);
}

SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_sys_enter_trk_pt_btf, struct pt_regs *regs, long id)
{
	return enter_btf(regs, id, SCRY_DISP_TRK | SCRY_DISP_PT);
}

/* The dispatcher opening with its door, on the hook instead when the filters may change
 * while recording (doors_on).  A program of its own: a tail call anywhere in a program,
 * even one the verifier drops, gives its JIT code the tail-call counter's prologue and
 * epilogue (x86: ~8 instructions a run), which the plain dispatcher is spared. */
SEC("tp_btf/sys_enter") SCRY_LANE(0)
int BPF_PROG(scry_sys_enter_door_btf, struct pt_regs *regs, long id)
{
	if (door(ctx, &door_enter))
		return 0;
	return enter_btf(regs, id, SCRY_DISP_ANY);
}

/* At sys_exit the saved user registers still hold the arguments (nothing between the
 * syscall and this tracepoint rewrites them, except execve/rt_sigreturn, which have no
 * exit captures): out-structs are read from the pointers the caller passed. */
static __always_inline int exit_btf(struct pt_regs *regs, long ret, const int mode)
{
	struct task_struct *t = NULL;
	long id = regs->orig_ax;
	struct scry_sc_desc *d;

	if (id == -1)
		id = SCRY_NR_RT_SIGRETURN;
	if (!exit_wanted(regs, &t, id, ret, &d, mode))
		return 0;
	if (exit_captures(d)) {
		__u64 args[SCRY_MAX_ARGS] = {
			regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9,
		};
		sys_exit(id, ret, args, t, d, disp_shape(mode));
	} else {
		sys_exit(id, ret, NULL, t, d, disp_shape(mode));
	}
	return 0;
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_ANY);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_all_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_ALL);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_all_dflt_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_ALL | SCRY_DISP_DFLT);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_all_pt_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_ALL | SCRY_DISP_PT);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_trk_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_TRK);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_trk_dflt_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_TRK | SCRY_DISP_DFLT);
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_trk_pt_btf, struct pt_regs *regs, long ret)
{
	return exit_btf(regs, ret, SCRY_DISP_TRK | SCRY_DISP_PT);
}

SEC("tp_btf/sys_exit") SCRY_LANE(1)
int BPF_PROG(scry_sys_exit_door_btf, struct pt_regs *regs, long ret)
{
	if (door(ctx, &door_exit))
		return 0;
	return exit_btf(regs, ret, SCRY_DISP_ANY);
}

/* A filter front rejected the exit of a call that deferred its entry: write the entry. */
SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_sys_exit_resume_btf, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	bool target;

	exit_resume(regs, &t, regs->orig_ax, ret, &target, SCRY_DISP_ANY);
	return 0;
}

/* exec is past its checks and about to replace the image (Linux 6.10): a deferred execve
 * entry is written now, its strings read from the old image, whose pages exec has just
 * faulted in by copying them. */
SEC("tp_btf/sched_prepare_exec") SCRY_LANE(0)
int BPF_PROG(scry_prepare_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	if (recording())
		resume_entry(bpf_get_current_task_btf(), -1, 0, true, 0);
	return 0;
}

struct raw_sys_enter {
	__u64 common;
	long id;
	unsigned long args[6];
};

struct raw_sys_exit {
	__u64 common;
	long id;
	long ret;
};

static __always_inline int enter_tp(struct raw_sys_enter *ctx)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!enter_wanted(NULL, &t, ctx->id, &d, SCRY_DISP_ANY))
		return 0;
	__u64 args[SCRY_MAX_ARGS] = {
		ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3], ctx->args[4], ctx->args[5],
	};
	sys_enter(ctx->id, args, t, d, false, 0);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter") SCRY_LANE(1)
int scry_sys_enter_tp(struct raw_sys_enter *ctx)
{
	return enter_tp(ctx);
}

SEC("tracepoint/raw_syscalls/sys_enter") SCRY_LANE(0)
int scry_sys_enter_door_tp(struct raw_sys_enter *ctx)
{
	if (door(ctx, &door_enter))
		return 0;
	return enter_tp(ctx);
}

static __always_inline int exit_tp(struct raw_sys_exit *ctx)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!exit_wanted(NULL, &t, ctx->id, ctx->ret, &d, SCRY_DISP_ANY))
		return 0;
	if (exit_captures(d)) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
		__u64 args[SCRY_MAX_ARGS] = {
			BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), BPF_CORE_READ(regs, dx),
			BPF_CORE_READ(regs, r10), BPF_CORE_READ(regs, r8), BPF_CORE_READ(regs, r9),
		};
		sys_exit(ctx->id, ctx->ret, args, t, d, 0);
	} else {
		sys_exit(ctx->id, ctx->ret, NULL, t, d, 0);
	}
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit") SCRY_LANE(0)
int scry_sys_exit_tp(struct raw_sys_exit *ctx)
{
	return exit_tp(ctx);
}

SEC("tracepoint/raw_syscalls/sys_exit") SCRY_LANE(1)
int scry_sys_exit_door_tp(struct raw_sys_exit *ctx)
{
	if (door(ctx, &door_exit))
		return 0;
	return exit_tp(ctx);
}

SEC("tracepoint/raw_syscalls/sys_exit") SCRY_LANE(0)
int scry_sys_exit_resume_tp(struct raw_sys_exit *ctx)
{
	struct task_struct *t = NULL;
	bool target;

	exit_resume(NULL, &t, ctx->id, ctx->ret, &target, SCRY_DISP_ANY);
	return 0;
}
