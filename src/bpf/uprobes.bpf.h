// SPDX-License-Identifier: GPL-2.0
/* uprobes.bpf.h — the uprobe source: one program for every uprobe and uretprobe (not loaded
 * unless the session has one), its event and payload given by the descriptor of its slot
 * (the attach cookie, map "uprobes"): each operation writes one field from the x86-64
 * System V registers of the probed thread (arguments in rdi, rsi, rdx, rcx, r8, r9; the
 * return value in rax) or the stack (arguments past them, at the entry), as an integer of
 * 1..8 bytes or as the user string it points to;
 * USDT probes (scry_usdt) their arguments as the note describes them (bpf_usdt_arg). */

static __always_inline int up_write(struct pt_regs *ctx, __u32 slot, const bool usdt)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 pos, faults = 0;
	struct scry_up_desc *d;
	struct area *a;
	__u64 regs[8];

	if (!recording() || !target_ok(NULL, &t))
		return 0;
	d = bpf_map_lookup_elem(&uprobes, &slot);
	if (!d || d->event_id == SCRY_NO_EVENT)   /* disabled, its link on its way out */
		return 0;
	a = area_get(AREA_UPROBE);
	if (!a)
		return 0;
	/* the context is the pt_regs: direct loads, each at its constant offset */
	regs[0] = ctx->di;
	regs[1] = ctx->si;
	regs[2] = ctx->dx;
	regs[3] = ctx->cx;
	regs[4] = ctx->r8;
	regs[5] = ctx->r9;
	regs[6] = ctx->ax;
	regs[7] = 0;
	if (usdt) {
		/* the USDT arguments instead (SCRY_UOP_USDT reads them as registers) */
		int cnt = bpf_usdt_arg_cnt(ctx);

		for (int i = 0; i < 8; i++) {
			long v = 0;

			if (i < cnt)
				bpf_usdt_arg(ctx, i, &v);
			regs[i] = v;
		}
	}
	pos = write_head(a->buf, d->event_id, t);
	for (__u32 i = 0; i < SCRY_MAX_UP_OPS; i++) {
		struct scry_up_op *op = &d->ops[i];
		__u64 v;

		if (i >= d->nops || pos > SCRY_EVENT_MAX)
			break;
		v = regs[op->reg & 7] >> ((op->shift & 7) * 8);
		if (op->kind == SCRY_UOP_STACK || op->kind == SCRY_UOP_STACK_STR) {
			/* at the entry, sp points at the return address; the stack arguments follow */
			v = 0;
			bpf_probe_read_user(&v, sizeof(v), (void *)(ctx->sp + 8 + op->off));
		}
		if (op->kind == SCRY_UOP_USTR || op->kind == SCRY_UOP_STACK_STR) {
			pos = write_user_str(a->buf, pos, v, op->max, &faults);
		} else {
			WR(__u64, a->buf, pos, v);   /* little-endian: the low bytes first */
			pos += op->size & 15;
		}
	}
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
