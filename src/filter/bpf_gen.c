/* bpf_gen.c — the filter IR compiled to eBPF instructions (see bpf_gen.h).
 * Straight-line code with forward jumps only (the IR has no loops; a glob's middle
 * segments are searched by the kfunc bpf_strnstr), so the verifier walks each program once.
 * Reading values (record, registers, contexts, strings) is bpf_gen_val.c. */
#include <stdio.h>
#include "filter/bpf_gen_int.h"

static uint8_t cmp_jump(uint8_t op)
{
	switch (op) {
	case FIR_EQ: return BPF_JEQ;
	case FIR_NE: return BPF_JNE;
	case FIR_LT: return BPF_JSLT;
	case FIR_LE: return BPF_JSLE;
	case FIR_GT: return BPF_JSGT;
	default: return BPF_JSGE;
	}
}

static uint8_t cmp_inverse(uint8_t op)
{
	switch (op) {
	case FIR_EQ: return FIR_NE;
	case FIR_NE: return FIR_EQ;
	case FIR_LT: return FIR_GE;
	case FIR_LE: return FIR_GT;
	case FIR_GT: return FIR_LE;
	default: return FIR_LT;
	}
}

static bool is_cmp(uint8_t op)
{
	return op >= FIR_EQ && op <= FIR_GE;
}

/* ---- peepholes: what the stack machine's straight translation would do for nothing ------
 * A comparison with a literal takes it as the jump's immediate (the CONST emits nothing);
 * a comparison whose result decides the event (RET next, or AND_THEN to the RET) jumps to
 * the reject exit on the inverse condition and stores nothing; BOOL of a comparison's 0/1 is
 * nothing; AND_THEN / OR_ELSE to the RET jump to the exits.  None applies across an
 * instruction some jump lands on (its stack comes from two paths). */

/* IR instructions some AND_THEN / OR_ELSE jumps to (ir->ninsns + 1 flags), or NULL. */
static uint8_t *ir_targets(const struct filter_ir *ir)
{
	uint8_t *t = calloc(ir->ninsns + 1, 1);

	for (uint32_t k = 0; t && k < ir->ninsns; k++) {
		const struct filter_ir_insn *in = &ir->insns[k];
		uint64_t to = k + 1 + (uint64_t)in->off;

		if ((in->op == FIR_AND_THEN || in->op == FIR_OR_ELSE) && to <= ir->ninsns)
			t[to] = 1;
	}
	return t;
}

static bool ir_target(const struct gen *g, uint32_t i)
{
	return g->ir_tgt[i];
}

/* Is IR instruction i a literal that the comparison after it takes as an immediate? */
static bool const_folded(const struct gen *g, const struct filter_ir *ir, uint32_t i)
{
	const struct filter_ir_insn *in = &ir->insns[i];

	return in->op == FIR_CONST && i + 1 < ir->ninsns && is_cmp(ir->insns[i + 1].op) && !ir_target(g, i + 1) &&
	       in->imm >= INT32_MIN && in->imm <= INT32_MAX;
}

/* Does the jump of AND_THEN / OR_ELSE i land on the RET, with its value the program's answer? */
static bool jumps_to_ret(const struct filter_ir *ir, uint32_t i)
{
	uint64_t to = i + 1 + (uint64_t)ir->insns[i].off;

	return ir->insns[i].sp == 1 && to < ir->ninsns && ir->insns[to].op == FIR_RET;
}

/* Does the comparison i decide the event by itself: its result at the stack's bottom, then
 * RET, or AND_THEN to the RET (whose other side pops it)? */
static bool cmp_decides(const struct gen *g, const struct filter_ir *ir, uint32_t i)
{
	const struct filter_ir_insn *nx = i + 1 < ir->ninsns ? &ir->insns[i + 1] : NULL;

	return ir->insns[i].sp == 2 && nx && !ir_target(g, i + 1) &&
	       (nx->op == FIR_RET || (nx->op == FIR_AND_THEN && jumps_to_ret(ir, i + 1)));
}

static int insn(struct gen *g, const struct filter_ir *ir, const struct fgen_loc *locs, uint32_t i,
		uint32_t reject)
{
	const struct filter_ir_insn *in = &ir->insns[i];
	unsigned sp = in->sp;

	if (i > 0 && is_cmp(ir->insns[i - 1].op) && !ir_target(g, i) &&
	    (cmp_decides(g, ir, i - 1) || in->op == FIR_BOOL))
		return 0;   /* done by the comparison before */
	switch (in->op) {
	case FIR_CONST:
		if (const_folded(g, ir, i))
			return 0;
		ld_imm64(g, R0, (uint64_t)in->imm);
		slot_store(g, sp, R0);
		return 0;
	case FIR_LOAD_FIELD:
	case FIR_LOAD_CTX:
		if (load_int(g, &locs[in->a]))
			return -1;
		slot_store(g, sp, R0);
		return 0;
	case FIR_STR_EQ:
	case FIR_STR_GLOB:
		if (in->b >= ir->nstrs || load_str(g, &locs[in->a]))
			return -1;
		return str_cmp(g, &ir->strs[in->b], in->op == FIR_STR_GLOB, sp);
	case FIR_NEG:
	case FIR_BNOT:
	case FIR_LNOT:
	case FIR_BOOL:
		slot_load(g, R0, sp - 1);
		if (in->op == FIR_NEG) {
			put(g, BPF_ALU64 | BPF_NEG, R0, 0, 0, 0);
		} else if (in->op == FIR_BNOT) {
			alu_imm(g, BPF_XOR, R0, -1);
		} else {
			uint32_t l = label_new(g);
			mov_reg(g, R1, R0);
			mov_imm(g, R0, in->op == FIR_LNOT ? 1 : 0);
			jmp_imm(g, BPF_JEQ, R1, 0, l);
			mov_imm(g, R0, in->op == FIR_LNOT ? 0 : 1);
			label_here(g, l);
		}
		slot_store(g, sp - 1, R0);
		return 0;
	case FIR_AND:
	case FIR_OR:
	case FIR_XOR:
	case FIR_SHL:
	case FIR_SHR:
		slot_load(g, R0, sp - 2);
		slot_load(g, R1, sp - 1);
		if (in->op == FIR_SHL || in->op == FIR_SHR)
			jmp_imm(g, BPF_JGT, R1, 63, reject);
		alu_reg(g, in->op == FIR_AND ? BPF_AND : in->op == FIR_OR ? BPF_OR : in->op == FIR_XOR ? BPF_XOR :
			   in->op == FIR_SHL ? BPF_LSH : BPF_RSH, R0, R1);
		slot_store(g, sp - 2, R0);
		return 0;
	case FIR_EQ:
	case FIR_NE:
	case FIR_LT:
	case FIR_LE:
	case FIR_GT:
	case FIR_GE: {
		bool imm = i > 0 && const_folded(g, ir, i - 1);
		int32_t v = imm ? (int32_t)ir->insns[i - 1].imm : 0;
		uint32_t l;

		slot_load(g, R1, sp - 2);
		if (!imm)
			slot_load(g, R2, sp - 1);
		if (cmp_decides(g, ir, i)) {
			jump(g, cmp_jump(cmp_inverse(in->op)), R1, R2, !imm, v, reject);
			return 0;
		}
		l = label_new(g);
		mov_imm(g, R0, 1);
		jump(g, cmp_jump(in->op), R1, R2, !imm, v, l);
		mov_imm(g, R0, 0);
		label_here(g, l);
		slot_store(g, sp - 2, R0);
		return 0;
	}
	case FIR_AND_THEN:
	case FIR_OR_ELSE: {
		uint32_t target = i + 1 + in->off;
		if (target > ir->ninsns)
			return -1;
		slot_load(g, R0, sp - 1);
		if (in->op == FIR_AND_THEN) {
			jmp_imm(g, BPF_JEQ, R0, 0, jumps_to_ret(ir, i) ? reject : target);
		} else if (jumps_to_ret(ir, i)) {
			jmp_imm(g, BPF_JNE, R0, 0, ir->ninsns);   /* the RET, which accepts */
		} else {
			uint32_t l = label_new(g);
			jmp_imm(g, BPF_JEQ, R0, 0, l);
			mov_imm(g, R0, 1);
			slot_store(g, sp - 1, R0);
			ja(g, target);
			label_here(g, l);
		}
		return 0;
	}
	case FIR_RET:
		slot_load(g, R0, 0);
		jmp_imm(g, BPF_JEQ, R0, 0, reject);
		return 0;
	default:
		snprintf(g->why, g->whylen, "%s is not compiled for the kernel", filter_ir_op_name(in->op));
		return -1;
	}
}

/* Patch the jumps, except those to labels keep_a and keep_b, which stay in g->fix (a
 * body's exits, placed when the body is copied into a program; UINT32_MAX: none). */
static int resolve(struct gen *g, uint32_t keep_a, uint32_t keep_b)
{
	size_t kept = 0;

	for (size_t i = 0; i < g->nfix; i++) {
		size_t at = g->fix[i].at, to;
		long off;

		if (g->fix[i].label == keep_a || g->fix[i].label == keep_b) {
			g->fix[kept++] = g->fix[i];
			continue;
		}
		to = g->label[g->fix[i].label];
		off = (long)to - (long)at - 1;
		if (to == SIZE_MAX || off < 0 || off > INT16_MAX) {
			snprintf(g->why, g->whylen, "the program is too long for eBPF jumps");
			return -1;
		}
		g->in[at].off = (int16_t)off;
	}
	g->nfix = kept;
	return 0;
}

/* ---- bodies: one case's code, its exits left open ------------------------------------ */

struct body {
	struct bpf_insn *in;
	size_t n;
	struct fixup *exits;     /* label BODY_REJECT / BODY_ACCEPT */
	size_t nexits;
	uint32_t label;          /* in the program */
};

enum { BODY_REJECT, BODY_ACCEPT };

static int body_compile(const struct fgen_case *c, const struct fgen_target *t, struct body *b, char *why,
			size_t whylen)
{
	const struct filter_ir *ir = c->ir;
	struct gen g = { .t = t, .why = why, .whylen = whylen };
	uint32_t reject, accept;

	memset(b, 0, sizeof(*b));
	if (ir->status != FILTER_EV_MATCHABLE || ir->max_stack > FILTER_IR_MAX_STACK) {
		snprintf(why, whylen, "the event cannot match");
		return -1;
	}
	for (uint32_t i = 0; i < ir->naccess; i++) {
		if (c->locs[i].kind == FGEN_NONE) {
			snprintf(why, whylen, "a value the kernel filter cannot read (struct member, array element or captured data)");
			return -1;
		}
	}
	g.ir_tgt = ir_targets(ir);
	if (!g.ir_tgt) {
		g.oom = true;
		goto fail;
	}
	/* IR instruction i starts at label i; then reject, accept (left open) */
	for (uint32_t i = 0; i <= ir->ninsns; i++)
		label_new(&g);
	reject = label_new(&g);
	accept = label_new(&g);
	for (uint32_t i = 0; i < ir->ninsns; i++) {
		label_here(&g, i);
		if (insn(&g, ir, c->locs, i, reject)) {
			if (!why[0] || !strcmp(why, "out of memory"))
				snprintf(why, whylen, "instruction %u (%s) cannot be compiled", i,
					 filter_ir_op_name(ir->insns[i].op));
			goto fail;
		}
	}
	label_here(&g, ir->ninsns);
	ja(&g, accept);
	if (g.oom || resolve(&g, reject, accept))
		goto fail;
	for (size_t i = 0; i < g.nfix; i++)
		g.fix[i].label = g.fix[i].label == reject ? BODY_REJECT : BODY_ACCEPT;
	b->in = g.in;
	b->n = g.n;
	b->exits = g.fix;
	b->nexits = g.nfix;
	free(g.label);
	free(g.ir_tgt);
	return 0;
fail:
	if (g.oom)
		snprintf(why, whylen, "out of memory");
	free(g.in);
	free(g.label);
	free(g.fix);
	free(g.ir_tgt);
	return -1;
}

static bool body_same(const struct body *a, const struct body *b)
{
	if (a->n != b->n || a->nexits != b->nexits || memcmp(a->in, b->in, a->n * sizeof(*a->in)))
		return false;
	for (size_t i = 0; i < a->nexits; i++)   /* field by field: struct fixup has padding */
		if (a->exits[i].at != b->exits[i].at || a->exits[i].label != b->exits[i].label)
			return false;
	return true;
}

/* Does access l need the environment (string buffer, record reads, scratch)? */
static bool loc_uses_env(const struct fgen_loc *l)
{
	switch (l->kind) {
	case FGEN_ARG:
	case FGEN_RET:
	case FGEN_NR:
	case FGEN_CTX:
	case FGEN_UREG:
		return false;
	case FGEN_REC_INT:
		return !(l->off >= 8 && l->size && l->off % l->size == 0);
	default:
		return true;
	}
}

/* ---- the program --------------------------------------------------------------------- */

struct range {
	uint32_t lo, hi;         /* keys */
	uint32_t body;
};

enum { BODY_PASS = UINT32_MAX, BODY_DROP = UINT32_MAX - 1 };

/* The label of body k (BODY_PASS: accept, BODY_DROP: reject). */
static uint32_t body_label(const struct gen *g, const struct body *bodies, uint32_t k)
{
	return k == BODY_PASS ? g->accept : k == BODY_DROP ? g->reject : bodies[k].label;
}

/* Append [lo, hi] going to body to ranges, merged with the last range when it continues it. */
static void add_range(struct range *r, size_t *n, uint32_t lo, uint32_t hi, uint32_t body)
{
	if (*n && r[*n - 1].body == body && r[*n - 1].hi + 1 == lo)
		r[*n - 1].hi = hi;
	else
		r[(*n)++] = (struct range){ lo, hi, body };
}

/* Binary search of R1 over ranges[lo, hi), which are sorted and cover every number up to
 * UINT32_MAX (larger ones, like -1, belong to the last range). */
static void bst(struct gen *g, const struct range *r, size_t lo, size_t hi, const struct body *bodies)
{
	if (hi - lo == 1) {
		ja(g, body_label(g, bodies, r[lo].body));
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
	uint32_t right = label_new(g);
	jmp_imm(g, BPF_JGE, R1, (int32_t)r[mid].lo, right);
	bst(g, r, lo, mid, bodies);
	label_here(g, right);
	bst(g, r, mid, hi, bodies);
}

static int case_cmp(const void *a, const void *b)
{
	const struct fgen_case *x = a, *y = b;
	if (x->dflt != y->dflt)
		return x->dflt ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Count this event as nested in the stats map (live programs). */
static void count_nested(struct gen *g)
{
	st_imm(g, BPF_W, FP, KEY_OFF, 0);
	mov_reg(g, R2, FP);
	alu_imm(g, BPF_ADD, R2, KEY_OFF);
	ld_map(g, R1, g->t->stats_fd);
	call(g, BPF_FUNC_map_lookup_elem);
	uint32_t none = label_new(g);
	jmp_imm(g, BPF_JEQ, R0, 0, none);
	ldx(g, BPF_DW, R1, R0, (int16_t)offsetof(struct scry_cpu_stats, nested));
	alu_imm(g, BPF_ADD, R1, 1);
	stx(g, BPF_DW, R0, R1, (int16_t)offsetof(struct scry_cpu_stats, nested));
	label_here(g, none);
}

/* The current task into TASK_OFF.  A syscall front with the memo (struct scry_memo) takes
 * it from there when the memo's registers are this call's and, with memo_gen, the
 * generation is the memo's (no task has exited since it was filled), else when its task
 * still owns its stack and has not exited (an untrusted pointer: reads are checked); else
 * from the helper, and fills the memo's identity for the next event (with memo_gen, as of
 * the generation read before), its target answer voided (the dispatcher's to make:
 * target.bpf.h). */
static void current_task(struct gen *g)
{
	const struct fgen_target *t = g->t;
	uint32_t slow, have;

	if (!t->memo) {
		call(g, BPF_FUNC_get_current_task_btf);
		stx(g, BPF_DW, FP, R0, TASK_OFF);
		return;
	}
	slow = label_new(g);
	have = label_new(g);
	st_imm(g, BPF_W, FP, KEY_OFF, 0);
	mov_reg(g, R2, FP);
	alu_imm(g, BPF_ADD, R2, KEY_OFF);
	ld_map(g, R1, t->memo_fd);
	call(g, BPF_FUNC_map_lookup_elem);
	stx(g, BPF_DW, FP, R0, SCR1_OFF);
	jmp_imm(g, BPF_JEQ, R0, 0, slow);
	if (t->memo_gen) {                               /* the generation, before anything */
		put(g, BPF_LD | BPF_DW | BPF_IMM, R4, BPF_PSEUDO_MAP_VALUE, 0, t->waiting_fd);
		put(g, 0, 0, 0, 0, (int32_t)t->gen_off);
		ldx(g, BPF_DW, R4, R4, 0);
		stx(g, BPF_DW, FP, R4, SCR2_OFF);
	}
	ldx(g, BPF_DW, R1, R6, 0);                       /* the pt_regs argument */
	ldx(g, BPF_DW, R2, R0, MEMO(regs));
	jmp_reg(g, BPF_JNE, R1, R2, slow);
	if (t->memo_gen) {
		ldx(g, BPF_DW, R5, R0, MEMO(task_gen));
		jmp_reg(g, BPF_JNE, R4, R5, slow);
		ldx(g, BPF_DW, R3, R0, MEMO(task));
		jmp_imm(g, BPF_JEQ, R3, 0, slow);
	} else {
		ldx(g, BPF_DW, R3, R0, MEMO(task));
		jmp_imm(g, BPF_JEQ, R3, 0, slow);
		ldx(g, BPF_DW, R4, R3, t->task_stack_off);
		ldx(g, BPF_DW, R5, R0, MEMO(stack));
		jmp_reg(g, BPF_JNE, R4, R5, slow);
		ldx(g, BPF_W, R4, R3, t->task_exit_state_off);
		jmp_imm(g, BPF_JNE, R4, 0, slow);
	}
	stx(g, BPF_DW, FP, R3, TASK_OFF);
	ja(g, have);
	label_here(g, slow);
	call(g, BPF_FUNC_get_current_task_btf);
	stx(g, BPF_DW, FP, R0, TASK_OFF);
	ldx(g, BPF_DW, R1, FP, SCR1_OFF);
	jmp_imm(g, BPF_JEQ, R1, 0, have);
	ldx(g, BPF_DW, R2, R6, 0);
	stx(g, BPF_DW, R1, R2, MEMO(regs));
	stx(g, BPF_DW, R1, R0, MEMO(task));
	ldx(g, BPF_DW, R3, R0, t->task_stack_off);
	stx(g, BPF_DW, R1, R3, MEMO(stack));
	if (t->memo_gen) {
		ldx(g, BPF_DW, R2, FP, SCR2_OFF);
		stx(g, BPF_DW, R1, R2, MEMO(task_gen));
	}
	st_imm(g, BPF_DW, R1, MEMO(gen), -1);            /* SCRY_MEMO_NO_GEN: no answer */
	label_here(g, have);
}

static void tail_call_back(struct gen *g, int32_t index)
{
	mov_reg(g, R1, R6);
	ld_map(g, R2, g->t->back_fd);
	mov_imm(g, R3, index);
	call(g, BPF_FUNC_tail_call);
	ret_imm(g, 0);
}

int fgen_compile(const struct fgen_case *cases_in, size_t n, const struct fgen_target *t, struct fgen_prog *out,
		 char *why, size_t whylen)
{
	struct gen g = { .t = t, .why = why, .whylen = whylen };
	bool sw = !t->test && t->src != FGEN_SRC_TP && t->src != FGEN_SRC_UPROBE, use_task = false;
	struct fgen_case *cases = NULL, *dflt = NULL;
	uint32_t dflt_body = BODY_PASS;
	struct body *bodies = NULL;
	struct range *ranges = NULL, *keyed = NULL;
	size_t nbodies = 0, nranges = 0, nkeyed = 0;
	uint32_t accept, reject;
	int ret = -1;

	why[0] = 0;
	memset(out, 0, sizeof(*out));
	if (!n || (!sw && (n != 1 || cases_in[0].action != FGEN_FILTER))) {
		snprintf(why, whylen, n ? "only syscall fronts hold several cases" : "no filter to compile");
		return -1;
	}
	cases = malloc(n * sizeof(*cases));
	bodies = calloc(n, sizeof(*bodies));
	ranges = malloc((2 * n + 2) * sizeof(*ranges));
	keyed = malloc(n * sizeof(*keyed));
	if (!cases || !bodies || !ranges || !keyed) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	memcpy(cases, cases_in, n * sizeof(*cases));
	qsort(cases, n, sizeof(*cases), case_cmp);
	for (size_t i = 0; i < n; i++) {
		struct body b;
		size_t k;

		if (cases[i].dflt) {
			if (dflt) {
				snprintf(why, whylen, "two default cases");
				goto out;
			}
			dflt = &cases[i];
		} else if (i && !cases[i - 1].dflt && cases[i].key == cases[i - 1].key) {
			snprintf(why, whylen, "two filters for one syscall number");
			goto out;
		}
		if (cases[i].action == FGEN_FILTER) {
			if (body_compile(&cases[i], t, &b, why, whylen))
				goto out;
			for (k = 0; k < nbodies && !body_same(&bodies[k], &b); k++)
				;
			if (k < nbodies) {
				free(b.in);
				free(b.exits);
			} else {
				bodies[nbodies++] = b;
			}
			for (uint32_t a = 0; a < cases[i].ir->naccess; a++) {
				const struct fgen_loc *l = &cases[i].locs[a];
				g.use_env |= t->test || loc_uses_env(l) ||
					     (l->kind == FGEN_CTX && t->ctx && l->ctx < SCRY_CTX_NR &&
					      (t->ctx[l->ctx].how == FGEN_CTXP_PIDNR || t->ctx[l->ctx].how == FGEN_CTXP_PIDNS));
				use_task |= l->kind == FGEN_COMM ||
					    (l->kind == FGEN_CTX && !(t->ctx && l->ctx < SCRY_CTX_NR &&
								      (t->ctx[l->ctx].how == FGEN_CTXP_CPU ||
								       t->ctx[l->ctx].how == FGEN_CTXP_CGROUP)));
			}
		} else {
			k = cases[i].action == FGEN_PASS ? BODY_PASS : BODY_DROP;
		}
		if (cases[i].dflt) {
			dflt_body = (uint32_t)k;
			continue;
		}
		keyed[nkeyed++] = (struct range){ cases[i].key, cases[i].key, (uint32_t)k };
	}
	/* ranges: runs of numbers with the same body over all of [0, UINT32_MAX], the numbers
	 * without a case taking the default's; a single range needs no search */
	uint32_t pos = 0;
	for (size_t i = 0; i < nkeyed; i++) {
		if (keyed[i].lo > INT32_MAX) {
			snprintf(why, whylen, "syscall number %u out of range", keyed[i].lo);
			goto out;
		}
		if (pos < keyed[i].lo)
			add_range(ranges, &nranges, pos, keyed[i].lo - 1, dflt_body);
		add_range(ranges, &nranges, keyed[i].lo, keyed[i].hi, keyed[i].body);
		pos = keyed[i].hi + 1;
	}
	add_range(ranges, &nranges, pos, UINT32_MAX, dflt_body);
	if (!nbodies && !sw) {
		snprintf(why, whylen, "no filter to compile");
		goto out;
	}
	if (t->test)
		use_task = false;
	accept = label_new(&g);
	reject = label_new(&g);
	for (size_t k = 0; k < nbodies; k++)
		bodies[k].label = label_new(&g);
	g.accept = accept;
	g.reject = reject;

	/* prologue */
	mov_reg(&g, R6, R1);
	if (g.use_env) {
		uint32_t have = label_new(&g), free_ = label_new(&g);
		st_imm(&g, BPF_W, FP, KEY_OFF, (int32_t)t->env_kind);
		mov_reg(&g, R2, FP);
		alu_imm(&g, BPF_ADD, R2, KEY_OFF);
		ld_map(&g, R1, t->env_fd);
		call(&g, BPF_FUNC_map_lookup_elem);
		jmp_imm(&g, BPF_JNE, R0, 0, have);
		ret_imm(&g, 0);
		label_here(&g, have);
		mov_reg(&g, R7, R0);
		if (!t->test) {
			ldx(&g, BPF_W, R1, R7, ENV(owner));
			jmp_imm(&g, BPF_JEQ, R1, 0, free_);
			count_nested(&g);
			ret_imm(&g, 0);
			label_here(&g, free_);
			st_imm(&g, BPF_W, R7, ENV(owner), 1);
			if (t->src == FGEN_SRC_TP)
				stx(&g, BPF_DW, R7, R6, ENV(base));
		}
	}
	if (use_task)
		current_task(&g);
	if (sw) {
		if (t->src == FGEN_SRC_SYSCALL_BTF && t->exit) {
			ldx(&g, BPF_DW, R1, R6, 0);
			ldx(&g, BPF_DW, R1, R1, t->orig_ax_off);
		} else {
			ldx(&g, BPF_DW, R1, R6, 8);
		}
		bst(&g, ranges, 0, nranges, bodies);
	}
	for (size_t k = 0; k < nbodies; k++) {
		const struct body *b = &bodies[k];
		size_t base = g.n;

		label_here(&g, b->label);
		for (size_t i = 0; i < b->n; i++)
			put(&g, b->in[i].code, b->in[i].dst_reg, b->in[i].src_reg, b->in[i].off, b->in[i].imm);
		for (size_t i = 0; i < b->nexits && !g.oom; i++) {
			if (!grow(&g, (void **)&g.fix, g.nfix, &g.capfix, sizeof(*g.fix)))
				break;
			g.fix[g.nfix++] = (struct fixup){ base + b->exits[i].at,
				b->exits[i].label == BODY_ACCEPT ? accept : reject };
		}
	}

	/* epilogue */
	label_here(&g, accept);
	if (g.use_env)
		st_imm(&g, BPF_W, R7, ENV(owner), 0);
	if (t->test)
		ret_imm(&g, 1);
	else
		tail_call_back(&g, 0);
	label_here(&g, reject);
	if (g.use_env)
		st_imm(&g, BPF_W, R7, ENV(owner), 0);
	if (!t->test && t->exit) {
		/* a deferred entry anywhere: its call's exit may be this one (resume_entry) */
		uint32_t none = label_new(&g);
		put(&g, BPF_LD | BPF_DW | BPF_IMM, R1, BPF_PSEUDO_MAP_VALUE, 0, t->waiting_fd);
		put(&g, 0, 0, 0, 0, (int32_t)t->waiting_off);
		ldx(&g, BPF_DW, R1, R1, 0);
		jmp_imm(&g, BPF_JEQ, R1, 0, none);
		tail_call_back(&g, 1);
		label_here(&g, none);
	}
	ret_imm(&g, 0);

	if (g.oom) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (resolve(&g, UINT32_MAX, UINT32_MAX))
		goto out;
	out->insns = g.in;
	out->n = g.n;
	g.in = NULL;
	why[0] = 0;
	ret = 0;
out:
	for (size_t k = 0; k < nbodies; k++) {
		free(bodies[k].in);
		free(bodies[k].exits);
	}
	free(bodies);
	free(cases);
	free(ranges);
	free(keyed);
	free(g.in);
	free(g.label);
	free(g.fix);
	return ret;
}

void fgen_prog_free(struct fgen_prog *p)
{
	free(p->insns);
	p->insns = NULL;
	p->n = 0;
}
