/* ir.c — lowering a filter to the flat stack-machine IR of filter.h for one event, its
 * evaluator (the reference for the eBPF compilation) and a dump.  Operands of commutative
 * operators and comparisons are emitted deeper-first (Sethi-Ullman order, comparisons
 * mirrored), so the stack stays shallow; string comparisons are single instructions whose
 * operands are a string access and a literal or another access; comparisons of two literals
 * are folded, and so is a literal's sign or complement (-1 is one literal). */
#include <stdlib.h>
#include <string.h>
#include "filter/internal.h"

static const char *const op_names[FIR_NOPS] = {
	[FIR_CONST] = "CONST",
	[FIR_LOAD_FIELD] = "LOAD_FIELD",
	[FIR_LOAD_CTX] = "LOAD_CTX",
	[FIR_STR_EQ] = "STR_EQ",
	[FIR_STR_GLOB] = "STR_GLOB",
	[FIR_STR_EQ_FIELD] = "STR_EQ_FIELD",
	[FIR_NEG] = "NEG",
	[FIR_BNOT] = "BNOT",
	[FIR_LNOT] = "LNOT",
	[FIR_BOOL] = "BOOL",
	[FIR_AND] = "AND",
	[FIR_OR] = "OR",
	[FIR_XOR] = "XOR",
	[FIR_SHL] = "SHL",
	[FIR_SHR] = "SHR",
	[FIR_EQ] = "EQ",
	[FIR_NE] = "NE",
	[FIR_LT] = "LT",
	[FIR_LE] = "LE",
	[FIR_GT] = "GT",
	[FIR_GE] = "GE",
	[FIR_AND_THEN] = "AND_THEN",
	[FIR_OR_ELSE] = "OR_ELSE",
	[FIR_RET] = "RET",
};

const char *filter_ir_op_name(enum filter_ir_op op)
{
	return (unsigned)op < FIR_NOPS ? op_names[op] : "?";
}

struct lower {
	const struct filter *f;
	struct filter_ir *ir;
	uint8_t *need;            /* per node */
	uint32_t sp;
	struct filter_error *err;
};

static bool is_cmp(uint8_t op)
{
	return op == T_EQ || op == T_NE || op == T_LT || op == T_LE || op == T_GT || op == T_GE;
}

static bool str_operand(const struct lower *l, const struct node *n)
{
	return n->kind == N_STR || (n->kind == N_REF && l->ir->access[n->idx].type == FF_STRING);
}

static bool is_strcmp(const struct lower *l, const struct node *n)
{
	return n->kind == N_BINARY && is_cmp(n->op) &&
	       (str_operand(l, &l->f->nodes[n->a]) || str_operand(l, &l->f->nodes[n->b]));
}

/* Stack slots needed to evaluate node ni (saturating at 255). */
static unsigned need_of(struct lower *l, uint32_t ni)
{
	const struct node *n = &l->f->nodes[ni];
	unsigned r;
	switch (n->kind) {
	case N_UNARY:
		r = need_of(l, n->a);
		break;
	case N_LOGICAL: {
		unsigned a = need_of(l, n->a), b = need_of(l, n->b);
		r = a > b ? a : b;
		break;
	}
	case N_BINARY: {
		if (is_strcmp(l, n)) {
			r = 1;
			break;
		}
		unsigned a = need_of(l, n->a), b = need_of(l, n->b);
		bool swappable = n->op != T_SHL && n->op != T_SHR;
		if (swappable && b > a)
			r = b > a + 1 ? b : a + 1;
		else
			r = a > b + 1 ? a : b + 1;
		break;
	}
	default:
		r = 1;
	}
	if (r > 255)
		r = 255;
	l->need[ni] = (uint8_t)r;
	return r;
}

static int emit(struct lower *l, enum filter_ir_op op, uint16_t a, uint16_t b, int64_t imm)
{
	struct filter_ir *ir = l->ir;
	if (ir->ninsns >= FILTER_IR_MAX_INSNS) {
		ferr_set(l->err, 0, l->f->text_len, "filter program longer than %d instructions", FILTER_IR_MAX_INSNS);
		return -1;
	}
	struct filter_ir_insn *in = &ir->insns[ir->ninsns];
	memset(in, 0, sizeof(*in));
	in->op = (uint8_t)op;
	in->sp = (uint8_t)l->sp;
	in->a = a;
	in->b = b;
	in->imm = imm;
	switch (op) {
	case FIR_CONST:
	case FIR_LOAD_FIELD:
	case FIR_LOAD_CTX:
	case FIR_STR_EQ:
	case FIR_STR_GLOB:
	case FIR_STR_EQ_FIELD:
		l->sp++;
		break;
	case FIR_AND:
	case FIR_OR:
	case FIR_XOR:
	case FIR_SHL:
	case FIR_SHR:
	case FIR_EQ:
	case FIR_NE:
	case FIR_LT:
	case FIR_LE:
	case FIR_GT:
	case FIR_GE:
	case FIR_AND_THEN:       /* fallthrough path pops; the jump path lands with the same depth */
	case FIR_OR_ELSE:
	case FIR_RET:
		l->sp--;
		break;
	default:
		break;
	}
	if (l->sp > ir->max_stack)
		ir->max_stack = l->sp;
	return (int)ir->ninsns++;
}

static int add_str(struct lower *l, const struct fstr *s)
{
	struct filter_ir *ir = l->ir;
	for (uint32_t i = 0; i < ir->nstrs; i++)
		if (ir->strs[i].glob == s->glob && str_equal(ir->strs[i].s, ir->strs[i].len, s->s, s->len))
			return (int)i;
	char *c = malloc(s->len + 1);
	if (!c) {
		ferr_set(l->err, 0, 0, "out of memory");
		return -1;
	}
	memcpy(c, s->s, s->len);
	c[s->len] = 0;
	ir->strs[ir->nstrs] = (struct filter_ir_str){ c, s->len, s->glob };
	return (int)ir->nstrs++;
}

static enum filter_ir_op binop(uint8_t op)
{
	switch (op) {
	case T_EQ: return FIR_EQ;
	case T_NE: return FIR_NE;
	case T_LT: return FIR_LT;
	case T_LE: return FIR_LE;
	case T_GT: return FIR_GT;
	case T_GE: return FIR_GE;
	case T_BAND: return FIR_AND;
	case T_BOR: return FIR_OR;
	case T_BXOR: return FIR_XOR;
	case T_SHL: return FIR_SHL;
	default: return FIR_SHR;
	}
}

/* a OP b == b MIRROR(OP) a */
static enum filter_ir_op mirror(enum filter_ir_op op)
{
	switch (op) {
	case FIR_LT: return FIR_GT;
	case FIR_LE: return FIR_GE;
	case FIR_GT: return FIR_LT;
	case FIR_GE: return FIR_LE;
	default: return op;
	}
}

static int gen(struct lower *l, uint32_t ni);

static int gen_strcmp(struct lower *l, const struct node *n)
{
	const struct node *x = &l->f->nodes[n->a], *y = &l->f->nodes[n->b];
	if (x->kind == N_STR && y->kind == N_STR) {
		const struct fstr *s1 = &l->f->strs[x->idx], *s2 = &l->f->strs[y->idx];
		bool m = s1->glob ? filter_glob_match(s1->s, s1->len, s2->s, s2->len)
			 : s2->glob ? filter_glob_match(s2->s, s2->len, s1->s, s1->len)
				    : str_equal(s1->s, s1->len, s2->s, s2->len);
		return emit(l, FIR_CONST, 0, 0, n->op == T_EQ ? m : !m) < 0 ? -1 : 0;
	}
	if (x->kind == N_STR) {   /* field first */
		const struct node *t = x;
		x = y;
		y = t;
	}
	int r;
	if (y->kind == N_STR) {
		const struct fstr *s = &l->f->strs[y->idx];
		int si = add_str(l, s);
		if (si < 0)
			return -1;
		r = emit(l, s->glob ? FIR_STR_GLOB : FIR_STR_EQ, (uint16_t)x->idx, (uint16_t)si, 0);
	} else {
		r = emit(l, FIR_STR_EQ_FIELD, (uint16_t)x->idx, (uint16_t)y->idx, 0);
	}
	if (r < 0)
		return -1;
	if (n->op == T_NE && emit(l, FIR_LNOT, 0, 0, 0) < 0)
		return -1;
	return 0;
}

static int gen(struct lower *l, uint32_t ni)
{
	const struct node *n = &l->f->nodes[ni];
	switch (n->kind) {
	case N_INT:
		return emit(l, FIR_CONST, 0, 0, n->ival) < 0 ? -1 : 0;
	case N_REF: {
		const struct filter_access *a = &l->ir->access[n->idx];
		if (a->is_ctx)
			return emit(l, FIR_LOAD_CTX, (uint16_t)n->idx, 0, a->ctx_id) < 0 ? -1 : 0;
		return emit(l, FIR_LOAD_FIELD, (uint16_t)n->idx, 0, 0) < 0 ? -1 : 0;
	}
	case N_UNARY:
		if (l->f->nodes[n->a].kind == N_INT) {
			/* a literal's sign or complement: one literal (-1 is a CONST, not CONST 1; NEG) */
			uint64_t v = (uint64_t)l->f->nodes[n->a].ival;
			int64_t r = n->op == T_MINUS ? (int64_t)(0 - v) : n->op == T_NOT ? !v :
				    n->op == T_BNOT ? (int64_t)~v : (int64_t)v;
			return emit(l, FIR_CONST, 0, 0, r) < 0 ? -1 : 0;
		}
		if (gen(l, n->a))
			return -1;
		switch (n->op) {
		case T_MINUS: return emit(l, FIR_NEG, 0, 0, 0) < 0 ? -1 : 0;
		case T_NOT: return emit(l, FIR_LNOT, 0, 0, 0) < 0 ? -1 : 0;
		case T_BNOT: return emit(l, FIR_BNOT, 0, 0, 0) < 0 ? -1 : 0;
		default: return 0;   /* unary plus */
		}
	case N_LOGICAL: {
		if (gen(l, n->a))
			return -1;
		int j = emit(l, n->op == T_LAND ? FIR_AND_THEN : FIR_OR_ELSE, 0, 0, 0);
		if (j < 0 || gen(l, n->b) || emit(l, FIR_BOOL, 0, 0, 0) < 0)
			return -1;
		l->ir->insns[j].off = l->ir->ninsns - (uint32_t)j - 1;
		return 0;
	}
	case N_BINARY: {
		if (is_strcmp(l, n))
			return gen_strcmp(l, n);
		enum filter_ir_op op = binop(n->op);
		bool swappable = op != FIR_SHL && op != FIR_SHR;
		if (swappable && l->need[n->b] > l->need[n->a]) {
			if (gen(l, n->b) || gen(l, n->a))
				return -1;
			op = mirror(op);
		} else {
			if (gen(l, n->a) || gen(l, n->b))
				return -1;
		}
		return emit(l, op, 0, 0, 0) < 0 ? -1 : 0;
	}
	}
	ferr_set(l->err, n->pos, n->len, "internal error: cannot lower this node");
	return -1;
}

void filter_ir_free(struct filter_ir *ir)
{
	if (!ir)
		return;
	for (uint32_t i = 0; i < ir->nstrs; i++)
		free(ir->strs[i].s);
	free(ir->strs);
	free(ir->insns);
	free(ir->access);
	memset(ir, 0, sizeof(*ir));
}

/* "CONST 0; RET": the event never matches. */
static int never(struct lower *l, enum filter_ev_status st)
{
	l->ir->status = st;
	l->ir->ninsns = 0;
	l->ir->max_stack = 0;
	l->sp = 0;
	if (emit(l, FIR_CONST, 0, 0, 0) < 0 || emit(l, FIR_RET, 0, 0, 0) < 0)
		return -1;
	return 0;
}

int filter_lower(const struct filter *f, const struct filter_schema *ev, struct filter_ir *out,
		 struct filter_error *err)
{
	struct filter_error dummy;
	if (!err)
		err = &dummy;
	memset(out, 0, sizeof(*out));
	out->insns = calloc(FILTER_IR_MAX_INSNS, sizeof(*out->insns));
	out->access = calloc(f->nrefs ? f->nrefs : 1, sizeof(*out->access));
	out->strs = calloc(f->nstrs ? f->nstrs : 1, sizeof(*out->strs));
	uint8_t *need = calloc(f->nnodes ? f->nnodes : 1, 1);
	struct lower l = { f, out, need, 0, err };
	if (!out->insns || !out->access || !out->strs || !need) {
		ferr_set(err, 0, 0, "out of memory");
		goto fail;
	}
	out->naccess = f->nrefs;
	enum vtype types[FILTER_MAX_REFS];
	enum filter_ev_status st = FILTER_EV_MATCHABLE;
	for (uint32_t r = 0; r < f->nrefs; r++) {
		char msg[160];
		enum res_status rs = filter_resolve(f, r, ev, &out->access[r], msg, sizeof(msg));
		if (rs == RES_BADPATH)
			st = FILTER_EV_MISTYPED;
		else if (rs == RES_MISSING && st == FILTER_EV_MATCHABLE)
			st = FILTER_EV_MISSING;
		types[r] = vtype_of_access(&out->access[r]);
	}
	if (st == FILTER_EV_MATCHABLE) {
		struct filter_error te;
		if (filter_typecheck(f, types, ev->event_name, &te))
			st = FILTER_EV_MISTYPED;
	}
	if (st != FILTER_EV_MATCHABLE) {
		if (never(&l, st))
			goto fail;
		free(need);
		return 0;
	}
	out->status = FILTER_EV_MATCHABLE;
	unsigned depth = need_of(&l, f->root);
	if (depth > FILTER_IR_MAX_STACK) {
		ferr_set(err, 0, f->text_len, "filter needs %u stack slots, more than the %d the kernel program has",
			 depth, FILTER_IR_MAX_STACK);
		goto fail;
	}
	if (gen(&l, f->root) || emit(&l, FIR_RET, 0, 0, 0) < 0)
		goto fail;
	free(need);
	return 0;
fail:
	free(need);
	filter_ir_free(out);
	return -1;
}

bool filter_ir_eval(const struct filter_ir *ir, const struct filter_values *v)
{
	int64_t st[FILTER_IR_MAX_STACK + 1];
	uint32_t sp = 0;
	for (uint32_t pc = 0; pc < ir->ninsns; pc++) {
		const struct filter_ir_insn *in = &ir->insns[pc];
		struct filter_value x = { 0 }, y = { 0 };
		if (in->sp != sp)
			return false;
		switch (in->op) {
		case FIR_CONST:
		case FIR_LOAD_FIELD:
		case FIR_LOAD_CTX:
		case FIR_STR_EQ:
		case FIR_STR_GLOB:
		case FIR_STR_EQ_FIELD:
			if (sp >= FILTER_IR_MAX_STACK)
				return false;
			break;
		case FIR_NEG:
		case FIR_BNOT:
		case FIR_LNOT:
		case FIR_BOOL:
		case FIR_AND_THEN:
		case FIR_OR_ELSE:
		case FIR_RET:
			if (sp < 1)
				return false;
			break;
		default:
			if (sp < 2)
				return false;
		}
		switch (in->op) {
		case FIR_CONST:
			st[sp++] = in->imm;
			break;
		case FIR_LOAD_FIELD:
		case FIR_LOAD_CTX:
			if (in->a >= ir->naccess || v->get(v->arg, &ir->access[in->a], &x))
				return false;
			st[sp++] = x.i;
			break;
		case FIR_STR_EQ:
		case FIR_STR_GLOB: {
			if (in->a >= ir->naccess || in->b >= ir->nstrs || v->get(v->arg, &ir->access[in->a], &x))
				return false;
			const struct filter_ir_str *s = &ir->strs[in->b];
			size_t xl = str_cut(x.s, x.len);
			st[sp++] = in->op == FIR_STR_EQ ? str_equal(x.s, xl, s->s, s->len)
							: filter_glob_match(s->s, s->len, x.s, xl);
			break;
		}
		case FIR_STR_EQ_FIELD:
			if (in->a >= ir->naccess || in->b >= ir->naccess || v->get(v->arg, &ir->access[in->a], &x) ||
			    v->get(v->arg, &ir->access[in->b], &y))
				return false;
			st[sp++] = str_equal(x.s, str_cut(x.s, x.len), y.s, str_cut(y.s, y.len));
			break;
		case FIR_NEG:
			st[sp - 1] = (int64_t)(0 - (uint64_t)st[sp - 1]);
			break;
		case FIR_BNOT:
			st[sp - 1] = (int64_t)~(uint64_t)st[sp - 1];
			break;
		case FIR_LNOT:
			st[sp - 1] = !st[sp - 1];
			break;
		case FIR_BOOL:
			st[sp - 1] = st[sp - 1] != 0;
			break;
		case FIR_AND_THEN:
		case FIR_OR_ELSE: {
			bool jump = in->op == FIR_AND_THEN ? st[sp - 1] == 0 : st[sp - 1] != 0;
			if (jump) {
				st[sp - 1] = in->op == FIR_OR_ELSE;
				if (in->off >= ir->ninsns - pc)
					return false;
				pc += in->off;
			} else {
				sp--;
			}
			break;
		}
		case FIR_RET:
			return st[sp - 1] != 0;
		default: {
			int64_t b = st[--sp], a = st[sp - 1];
			uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
			int64_t r;
			switch (in->op) {
			case FIR_AND: r = (int64_t)(ua & ub); break;
			case FIR_OR: r = (int64_t)(ua | ub); break;
			case FIR_XOR: r = (int64_t)(ua ^ ub); break;
			case FIR_SHL:
			case FIR_SHR:
				if (b < 0 || b > 63)
					return false;
				r = (int64_t)(in->op == FIR_SHL ? ua << b : ua >> b);
				break;
			case FIR_EQ: r = a == b; break;
			case FIR_NE: r = a != b; break;
			case FIR_LT: r = a < b; break;
			case FIR_LE: r = a <= b; break;
			case FIR_GT: r = a > b; break;
			case FIR_GE: r = a >= b; break;
			default: return false;
			}
			st[sp - 1] = r;
		}
		}
	}
	return false;
}

void filter_ir_dump(FILE *f, const struct filter_ir *ir)
{
	static const char *const status[] = { "matchable", "missing field", "mistyped" };
	fprintf(f, "; %u insns, max stack %u, %s\n", ir->ninsns, ir->max_stack,
		ir->status <= FILTER_EV_MISTYPED ? status[ir->status] : "?");
	for (uint32_t i = 0; i < ir->ninsns; i++) {
		const struct filter_ir_insn *in = &ir->insns[i];
		fprintf(f, "%4u [sp %u] %-12s", i, in->sp, filter_ir_op_name((enum filter_ir_op)in->op));
		switch (in->op) {
		case FIR_CONST:
			fprintf(f, " %lld", (long long)in->imm);
			break;
		case FIR_LOAD_FIELD:
		case FIR_LOAD_CTX:
			fprintf(f, " a%u", in->a);
			if (in->op == FIR_LOAD_CTX)
				fprintf(f, " (ctx %lld)", (long long)in->imm);
			break;
		case FIR_STR_EQ:
		case FIR_STR_GLOB:
			fprintf(f, " a%u \"%.*s\"", in->a, in->b < ir->nstrs ? (int)ir->strs[in->b].len : 0,
				in->b < ir->nstrs ? ir->strs[in->b].s : "");
			break;
		case FIR_STR_EQ_FIELD:
			fprintf(f, " a%u a%u", in->a, in->b);
			break;
		case FIR_AND_THEN:
		case FIR_OR_ELSE:
			fprintf(f, " -> %u", i + 1 + in->off);
			break;
		}
		fputc('\n', f);
	}
}
