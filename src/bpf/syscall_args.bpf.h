// SPDX-License-Identifier: GPL-2.0
/* syscall_args.bpf.h — syscall entries of fixed layout: integer arguments and user strings. */

/* ---- syscalls ---------------------------------------------------------------------- */

/* Argument i (a constant) of the syscall whose saved user registers are regs. */
static __always_inline __u64 reg_arg(const struct pt_regs *regs, const int i)
{
	switch (i) {
	case 0:  return regs->di;
	case 1:  return regs->si;
	case 2:  return regs->dx;
	case 3:  return regs->r10;
	case 4:  return regs->r8;
	default: return regs->r9;
	}
}

/* Argument value v of position i as its C type reads (d's s32_mask, u32_mask). */
static __always_inline __u64 fixed_arg(const struct scry_sc_desc *d, __u64 v, int i)
{
	if (d->s32_mask & (1 << i))
		return (__s64)(__s32)v;
	if (d->u32_mask & (1 << i))
		return (__u32)v;
	return v;
}

/* Entry of a syscall without string arguments: its d->nargs int64 values, written in
 * place in the stage (or, when the stage is held by the code this program interrupted, in
 * the build area, then copied to the ring).  One body for every argument count: seven
 * copies, one per count, cost ~15 ms of verification at every start.  The values come from
 * args, or (regs given: the BTF program) straight from the saved registers, only the
 * d->nargs it writes (getppid's entry reads none: the six loads and twelve stack stores of
 * an args array were ~1/5 of the entry's own instructions).  shape (a constant): the
 * contexts the program was made for, or 0 (ctx_mask_in). */
static __always_inline void enter_fixed(const struct scry_sc_desc *d, const __u64 *args,
					const struct pt_regs *regs, struct task_struct *t, const __u64 shape)
{
	__u32 hs = head_size_in(shape), n = d->nargs;
	struct scry_stage *st = NULL;
	struct area *a = NULL;
	__u8 *p = stage_begin_in(&st, hs + 8 * SCRY_MAX_ARGS, shape);

	if (!p) {
		if (!(a = area_get(AREA_SYS_ENTER)))
			return;
		p = a->buf;
	}
	write_head_in(p, d->entry_id, t, shape);
	if (n > SCRY_MAX_ARGS)
		n = SCRY_MAX_ARGS;
	if (regs) {
#pragma unroll
		for (int i = 0; i < SCRY_MAX_ARGS; i++)
			if (i < n)
				WR(__u64, p, hs + 8 * i, fixed_arg(d, reg_arg(regs, i), i));
	} else {
		for (int i = 0; i < SCRY_MAX_ARGS; i++) {
			if (i >= n)
				break;
			WR(__u64, p, hs + 8 * i, fixed_arg(d, args[i], i));
		}
	}
	if (st) {
		stage_commit_in(st, hs + 8 * n, shape);
	} else {
		submit_in(a, hs + 8 * n, shape);
		area_put(a);
	}
}

/* The arguments of an entry event with user strings at p + w->pos, in a room of
 * str_limit + SCRY_STR_MAX bytes; returns the end, or 0 when the event outgrew the room
 * (then the caller drops it).  Strings that could not be read are counted in w->faults. */
static __always_inline __u32 write_args(__u8 *p, struct args_walk *w, __u32 str_limit,
					const struct scry_sc_desc *d, const __u64 *args)
{
	for (int i = 0; i < SCRY_MAX_ARGS; i++) {
		__u32 pos = *(volatile __u32 *)&w->pos;
		__u64 v = args[i];

		if (i >= d->nargs)
			break;
		if (d->str_mask & (1 << i)) {
			if (pos > str_limit)
				return 0;
			*(volatile __u32 *)&w->pos = write_user_str(p, pos, v, SCRY_STR_MAX, &w->faults);
			continue;
		}
		if (pos > str_limit + SCRY_STR_MAX - 8)
			return 0;
		if (d->s32_mask & (1 << i))
			v = (__s64)(__s32)v;
		else if (d->u32_mask & (1 << i))
			v = (__u32)v;
		WR(__u64, p, pos, v);
		*(volatile __u32 *)&w->pos = pos + 8;
	}
	return w->pos;
}

/* Room in the stage for an entry with one string: header, contexts and other arguments
 * within STAGE_STR_HEAD bytes, plus the string. */
#define STAGE_STR_HEAD 512
#define STAGE_STR_MAX  (STAGE_STR_HEAD + SCRY_STR_MAX)

/* write_args as global functions, one per room (its limit a constant in each): the verifier
 * checks each once per program, on its own, where the inlined loop (up to six arguments,
 * each a string, an int of three widths or past the count) was checked again on every path
 * that reached each of its two call sites.  Their pointers' types give the verifier the
 * room behind each: the stage's for one string, the area's, the six argument values. */
struct args_room_stage {
	__u8 b[STAGE_STR_MAX];
};

struct args_vals {
	__u64 v[SCRY_MAX_ARGS];
};

__noinline __u32 args_in_stage(struct args_room_stage *r, struct args_walk *w, const struct scry_sc_desc *d,
			       const struct args_vals *args)
{
	if (!r || !w || !d || !args)
		return 0;
	return write_args(r->b, w, STAGE_STR_HEAD, d, args->v);
}

__noinline __u32 args_in_area(struct area *a, struct args_walk *w, const struct scry_sc_desc *d,
			      const struct args_vals *args)
{
	if (!a || !w || !d || !args)
		return 0;
	return write_args(a->buf, w, SCRY_EVENT_MAX, d, args->v);
}

/* Entry of syscall id with user strings, stamped ts.  With one string (openat, execve, ...)
 * it is written in the stage like fixed events; with several (rename, mount, ...) it is
 * built in the per-CPU area, whose size allows them all, then copied to the ring.
 * defer: a string that cannot be read sends the whole entry to the syscall's exit.
 * stage (a constant): the stage may be used; a deferred entry written later (a rare path)
 * goes through the area alone, which spares the verifier a second copy (~3.5k
 * instructions, ~5 ms of every start).  shape (a constant): as enter_fixed's. */
static __always_inline void enter_strings(const struct scry_sc_desc *d, long id, const __u64 *args,
					  struct task_struct *t, __u64 ts, bool defer, const bool stage,
					  const __u64 shape)
{
	struct scry_stage *st = NULL;
	__u32 pos, zero = 0;
	struct args_walk *w = bpf_map_lookup_elem(&args_walk, &zero);
	struct area *a;
	__u8 *p;

	if (!w)
		return;
	w->faults = 0;
	if (stage && !(d->str_mask & (d->str_mask - 1)) && (p = stage_begin_in(&st, STAGE_STR_MAX, shape))) {
		w->pos = write_head_at_in(p, d->entry_id, t, ts, shape);
		pos = args_in_stage((struct args_room_stage *)p, w, d, (const struct args_vals *)args);
		if (pos) {
			if (w->faults && defer && defer_entry(t, id, args, ts))
				stage_abort(st);
			else
				stage_commit_in(st, pos, shape);
			return;
		}
		/* the header and contexts outgrew STAGE_STR_HEAD (call stacks: -k): the entry
		 * is built in the area instead, as one with several strings */
		stage_abort(st);
		w->faults = 0;
	}
	a = area_get(AREA_SYS_ENTER);
	if (!a)
		return;
	w->pos = write_head_at_in(a->buf, d->entry_id, t, ts, shape);
	pos = args_in_area(a, w, d, (const struct args_vals *)args);
	if (!pos)
		count_drop(false);
	else if (!(w->faults && defer && defer_entry(t, id, args, ts)))
		submit_in(a, pos, shape);
	area_put(a);
}
