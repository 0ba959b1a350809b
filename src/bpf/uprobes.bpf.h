// SPDX-License-Identifier: GPL-2.0
/* uprobes.bpf.h — the uprobe source: one program for every uprobe and uretprobe (not loaded
 * unless the session has one), its event and payload given by the descriptor of its slot
 * (the attach cookie, map "uprobes"): each operation writes one field from the x86-64
 * System V registers of the probed thread (arguments in rdi, rsi, rdx, rcx, r8, r9; the
 * return value in rax) or the stack (arguments past them, at the entry), or, for a
 * statement probe's variables, any general register or memory at an offset from one, as an
 * integer of 1..8 bytes or as the user string it points to;
 * USDT probes (scry_usdt) their arguments as the note describes them (bpf_usdt_arg). */

/* Room in the stage for a uprobe event: header, contexts and the integers within
 * UP_STAGE_HEAD bytes, plus one string (a descriptor with more strings, SCRY_UPD_STRINGS,
 * is built in the area; so is one whose head outgrew UP_STAGE_HEAD: call stacks, -k). */
#define UP_STAGE_HEAD 512
#define UP_STAGE_MAX  (UP_STAGE_HEAD + SCRY_STR_MAX + 8)

/* One walk over a descriptor's operations (bpf_loop callback data: the callback is verified
 * once, whatever the operations; the write position lives in the map beside the event, the
 * stage's wpos or the area's pos: on the stack, each position would be a state of its own). */
struct up_walk {
	__u8 *buf;                  /* the event: the stage's room or the area's buffer */
	__u32 *pos;                 /* the write position in buf */
	struct scry_up_desc *d;
	__u64 regs[SCRY_UREG_ALL];  /* the argument registers, rax (or the USDT arguments); sp,
				     * then the other general registers (SCRY_UREG_*) */
	__u32 faults;
};

/* A user string at pos, as write_user_str writes it (record.bpf.h: put_user_str), max (with
 * the NUL) already within 8..SCRY_STR_MAX (kernel/attach.c, up_flags): the mask below proves the
 * bound to the verifier without a branch, where write_user_str's two clamps split each
 * string into three states it walks to the end of the operation (13 walks of each string in
 * line instead of ~4: most of the program's verification). */
static __always_inline __u32 up_str(__u8 *b, __u32 pos, __u64 uptr, __u32 max, __u32 *faults)
{
	return put_user_str(b, pos, uptr, ((max - 1) & (SCRY_STR_MAX - 1)) + 1, faults);
}

/* Operation i of the walk, written at buf + pos while pos <= limit (a constant: the room
 * past it holds a string or an integer); 1 (the walk stopped, pos past limit) otherwise. */
static __always_inline long up_op_at(__u32 i, struct up_walk *w, const __u32 limit)
{
	__u8 *b = w->buf;
	struct scry_up_op *op;
	__u32 *posp = w->pos, pos = *posp, r;
	__u64 v;

	if (i >= SCRY_MAX_UP_OPS)
		return 1;
	if (pos > limit) {
		*posp = ~0u;   /* outgrew its room */
		return 1;
	}
	op = &w->d->ops[i];
	r = op->reg;
	if (r >= SCRY_UREG_ALL)
		return 1;
	v = w->regs[r];
	if (op->kind == SCRY_UOP_STACK || op->kind == SCRY_UOP_STACK_STR) {
		/* at the entry, sp points at the return address; the stack arguments follow */
		v = 0;
		bpf_probe_read_user(&v, sizeof(v), (void *)(w->regs[SCRY_UREG_SP] + 8 + op->off));
	} else if (op->kind == SCRY_UOP_MEM || op->kind == SCRY_UOP_MEM_STR) {
		__u64 at = w->regs[r] + (__s64)(__s16)op->off;

		v = 0;
		bpf_probe_read_user(&v, sizeof(v), (void *)at);
	}
	v >>= (op->shift & 7) * 8;
	if (op->kind == SCRY_UOP_USTR || op->kind == SCRY_UOP_STACK_STR || op->kind == SCRY_UOP_MEM_STR) {
		*posp = up_str(b, pos, v, op->max, &w->faults);
	} else {
		WR(__u64, b, pos, v);   /* little-endian: the low bytes first */
		*posp = pos + (op->size & 15);
	}
	return 0;
}

static long up_op_area(__u32 i, void *data)
{
	return up_op_at(i, data, SCRY_EVENT_MAX);
}

/* The stage's walk: its first UP_INLINE_OPS operations in line (a function probe's
 * arguments, most often: no bpf_loop callback, each a BPF-to-BPF call and return, the
 * return through the CPU's return thunk where the kernel mitigates SRSO or retbleed), the
 * rest, if any, by bpf_loop. */
#define UP_INLINE_OPS 4

static long up_op_stage_rest(__u32 i, void *data)
{
	return up_op_at(i + UP_INLINE_OPS, data, UP_STAGE_HEAD);
}

static __always_inline void up_ops_stage(struct up_walk *w, __u32 n)
{
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < UP_INLINE_OPS; i++) {
		if (i >= n || up_op_at(i, w, UP_STAGE_HEAD))
			return;
	}
	if (n > UP_INLINE_OPS)
		bpf_loop(n - UP_INLINE_OPS, up_op_stage_rest, w, 0);
}

static __always_inline int up_write(struct pt_regs *ctx, __u32 slot, const bool usdt)
{
	struct task_struct *t = NULL;
	struct up_walk w;
	struct scry_up_desc *d;
	struct scry_stage *st = NULL;
	struct area *a;
	__u32 pos;

	/* ctx is the probed thread's user registers at the top of its kernel stack (the trap's
	 * frame, as a syscall's): the memo's key, which proves current without a helper call
	 * when the thread's last event on this CPU was its own (target.bpf.h, current_ro); t
	 * is then for reads only, as in the syscall programs */
	if (!recording() || !target_ok(ctx, &t))
		return 0;
	d = bpf_map_lookup_elem(&uprobes, &slot);
	if (!d || d->event_id == SCRY_NO_EVENT)   /* disabled, its link on its way out */
		return 0;
	/* the context is the pt_regs: direct loads, each at its constant offset; the other
	 * registers only for a descriptor that reads them (a statement probe's variables) */
	w.regs[0] = ctx->di;
	w.regs[1] = ctx->si;
	w.regs[2] = ctx->dx;
	w.regs[3] = ctx->cx;
	w.regs[4] = ctx->r8;
	w.regs[5] = ctx->r9;
	w.regs[6] = ctx->ax;
	w.regs[7] = 0;
	w.regs[SCRY_UREG_SP] = ctx->sp;
	if (d->flags & SCRY_UPD_ALL_REGS) {
		w.regs[SCRY_UREG_BX] = ctx->bx;
		w.regs[SCRY_UREG_BP] = ctx->bp;
		w.regs[SCRY_UREG_R10] = ctx->r10;
		w.regs[SCRY_UREG_R11] = ctx->r11;
		w.regs[SCRY_UREG_R12] = ctx->r12;
		w.regs[SCRY_UREG_R13] = ctx->r13;
		w.regs[SCRY_UREG_R14] = ctx->r14;
		w.regs[SCRY_UREG_R15] = ctx->r15;
	} else {
		for (int i = SCRY_UREG_BX; i < SCRY_UREG_ALL; i++)
			w.regs[i] = 0;
	}
	if (usdt) {
		/* the USDT arguments instead (SCRY_UOP_USDT reads them as registers) */
		int cnt = bpf_usdt_arg_cnt(ctx);

		for (int i = 0; i < 8; i++) {
			long v = 0;

			if (i < cnt)
				bpf_usdt_arg(ctx, i, &v);
			w.regs[i] = v;
		}
	}
	w.d = d;
	w.faults = 0;
	/* written in place in the stage, as fixed-size events (no build area, no ring copy of
	 * its own), unless the stage is held by the code this program interrupted */
	if (!(d->flags & SCRY_UPD_STRINGS) && (w.buf = stage_begin(&st, UP_STAGE_MAX))) {
		w.pos = &st->wpos;
		st->wpos = write_head_nomigr(w.buf, d->event_id, t);
		up_ops_stage(&w, d->nops);
		pos = st->wpos;
		if (pos <= UP_STAGE_HEAD + SCRY_STR_MAX + 8) {
			stage_commit(st, pos);
			return 0;
		}
		stage_abort(st);
		w.faults = 0;
	}
	a = area_get(AREA_UPROBE);
	if (!a)
		return 0;
	w.buf = a->buf;
	w.pos = &a->pos;
	a->pos = write_head_nomigr(w.buf, d->event_id, t);
	bpf_loop(d->nops, up_op_area, &w, 0);
	pos = a->pos;
	if (pos > SCRY_EVENT_MAX)
		pos = SCRY_EVENT_MAX;
	submit(a, pos);
	area_put(a);
	return 0;
}

SEC("uprobe") SCRY_LANE(1)
int scry_uprobe(struct pt_regs *ctx)
{
	return up_write(ctx, bpf_get_attach_cookie(ctx), false);
}

/* The same for many functions of one file in one uprobe_multi link (Linux 6.6; its attach
 * type is set at load: src/kernel/probes.c), each address with its slot as cookie. */
SEC("uprobe") SCRY_LANE(1)
int scry_uprobe_multi(struct pt_regs *ctx)
{
	return up_write(ctx, bpf_get_attach_cookie(ctx), false);
}

/* USDT probes: attached by libbpf (bpf_program__attach_usdt: the notes' addresses, their
 * semaphores, the argument specs read by bpf_usdt_arg), the slot in the USDT cookie. */
SEC("usdt") SCRY_LANE(1)
int scry_usdt(struct pt_regs *ctx)
{
	return up_write(ctx, (__u32)bpf_usdt_cookie(ctx), true);
}
