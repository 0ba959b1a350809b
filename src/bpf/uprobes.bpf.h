// SPDX-License-Identifier: GPL-2.0
/* uprobes.bpf.h — the uprobe source: one program for every uprobe and uretprobe (not loaded
 * unless the session has one), its event and payload given by the descriptor of its slot
 * (the attach cookie, map "uprobes"): each operation writes one field from the x86-64
 * System V registers of the probed thread (arguments in rdi, rsi, rdx, rcx, r8, r9; the
 * return value in rax) or the stack (arguments past them, at the entry), as an integer of
 * 1..8 bytes or as the user string it points to;
 * USDT probes (scry_usdt) their arguments as the note describes them (bpf_usdt_arg). */

/* One walk over a descriptor's operations (bpf_loop callback data: the callback is verified
 * once, whatever the operations; the write position lives in the build area). */
struct up_walk {
	struct area *a;
	struct scry_up_desc *d;
	__u64 regs[9];              /* the argument registers, rax (or the USDT arguments); sp */
	__u32 faults;
};

static long up_op(__u32 i, void *data)
{
	struct up_walk *w = data;
	struct area *a = w->a;
	struct scry_up_op *op;
	__u32 pos = a->pos, r;
	__u64 v;

	if (i >= SCRY_MAX_UP_OPS || pos > SCRY_EVENT_MAX)
		return 1;
	op = &w->d->ops[i];
	r = op->reg;
	if (r > 7)
		return 1;
	v = w->regs[r] >> ((op->shift & 7) * 8);
	if (op->kind == SCRY_UOP_STACK || op->kind == SCRY_UOP_STACK_STR) {
		/* at the entry, sp points at the return address; the stack arguments follow */
		v = 0;
		bpf_probe_read_user(&v, sizeof(v), (void *)(w->regs[8] + 8 + op->off));
	}
	if (op->kind == SCRY_UOP_USTR || op->kind == SCRY_UOP_STACK_STR) {
		a->pos = write_user_str(a->buf, pos, v, op->max, &w->faults);
	} else {
		WR(__u64, a->buf, pos, v);   /* little-endian: the low bytes first */
		a->pos = pos + (op->size & 15);
	}
	return 0;
}

static __always_inline int up_write(struct pt_regs *ctx, __u32 slot, const bool usdt)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct up_walk w = { .faults = 0 };
	struct scry_up_desc *d;
	struct area *a;
	__u32 pos;

	if (!recording() || !target_ok(NULL, &t))
		return 0;
	d = bpf_map_lookup_elem(&uprobes, &slot);
	if (!d || d->event_id == SCRY_NO_EVENT)   /* disabled, its link on its way out */
		return 0;
	a = area_get(AREA_UPROBE);
	if (!a)
		return 0;
	/* the context is the pt_regs: direct loads, each at its constant offset */
	w.regs[0] = ctx->di;
	w.regs[1] = ctx->si;
	w.regs[2] = ctx->dx;
	w.regs[3] = ctx->cx;
	w.regs[4] = ctx->r8;
	w.regs[5] = ctx->r9;
	w.regs[6] = ctx->ax;
	w.regs[7] = 0;
	w.regs[8] = ctx->sp;
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
	w.a = a;
	w.d = d;
	a->pos = write_head_nomigr(a->buf, d->event_id, t);
	bpf_loop(d->nops, up_op, &w, 0);
	pos = a->pos;
	if (pos > SCRY_EVENT_MAX)
		pos = SCRY_EVENT_MAX;
	submit(a, pos);
	area_put(a);
	return 0;
}

SEC("uprobe")
int scry_uprobe(struct pt_regs *ctx)
{
	return up_write(ctx, bpf_get_attach_cookie(ctx), false);
}

/* USDT probes: attached by libbpf (bpf_program__attach_usdt: the notes' addresses, their
 * semaphores, the argument specs read by bpf_usdt_arg), the slot in the USDT cookie. */
SEC("usdt")
int scry_usdt(struct pt_regs *ctx)
{
	return up_write(ctx, (__u32)bpf_usdt_cookie(ctx), true);
}
