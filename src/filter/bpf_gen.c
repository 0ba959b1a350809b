/* bpf_gen.c — the filter IR compiled to eBPF instructions (see bpf_gen.h).
 * Straight-line code with forward jumps only (the IR has no loops; a glob's middle
 * segments are searched by the kfunc bpf_strnstr), so the verifier walks each program once. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/bpf_gen.h"
#include "scry_abi.h"

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

#define ENV(f) ((int16_t)offsetof(struct scry_filter_env, f))
#define KEY_OFF (-120)           /* u32 key of the environment lookup */
#define LEN_OFF (-128)           /* length of the string in env->str */
#define POS_OFF (-136)           /* glob: search position */
#define MAX_SEGS 64

struct fixup {
	size_t at;               /* jump instruction */
	uint32_t label;
};

struct gen {
	struct bpf_insn *in;
	size_t n, cap;
	size_t *label;           /* label -> instruction index (SIZE_MAX: not placed) */
	size_t nlabels, caplabels;
	struct fixup *fix;
	size_t nfix, capfix;
	const struct fgen_target *t;
	bool oom;
	char *why;
	size_t whylen;
};

/* ---- emission ------------------------------------------------------------------------ */

/* Room for one more element in *arr (n used of *cap); false (and g->oom) when memory runs out. */
static bool grow(struct gen *g, void **arr, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 64;
	void *p = realloc(*arr, c * elem);
	if (!p) {
		g->oom = true;
		return false;
	}
	*arr = p;
	*cap = c;
	return true;
}

static void put(struct gen *g, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (!grow(g, (void **)&g->in, g->n, &g->cap, sizeof(*g->in)))
		return;
	g->in[g->n++] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
}

static void mov_reg(struct gen *g, uint8_t d, uint8_t s) { put(g, BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0); }
static void mov_imm(struct gen *g, uint8_t d, int32_t v) { put(g, BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v); }
static void alu_imm(struct gen *g, uint8_t op, uint8_t d, int32_t v) { put(g, BPF_ALU64 | op | BPF_K, d, 0, 0, v); }
static void alu_reg(struct gen *g, uint8_t op, uint8_t d, uint8_t s) { put(g, BPF_ALU64 | op | BPF_X, d, s, 0, 0); }
static void ldx(struct gen *g, uint8_t sz, uint8_t d, uint8_t s, int16_t off) { put(g, BPF_LDX | BPF_MEM | sz, d, s, off, 0); }
static void stx(struct gen *g, uint8_t sz, uint8_t base, uint8_t s, int16_t off) { put(g, BPF_STX | BPF_MEM | sz, base, s, off, 0); }
static void st_imm(struct gen *g, uint8_t sz, uint8_t base, int16_t off, int32_t v) { put(g, BPF_ST | BPF_MEM | sz, base, 0, off, v); }
static void call(struct gen *g, int32_t helper) { put(g, BPF_JMP | BPF_CALL, 0, 0, 0, helper); }
static void ret_imm(struct gen *g, int32_t v) { mov_imm(g, R0, v); put(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

static void ld_imm64(struct gen *g, uint8_t d, uint64_t v)
{
	put(g, BPF_LD | BPF_DW | BPF_IMM, d, 0, 0, (int32_t)(uint32_t)v);
	put(g, 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
}

static void ld_map(struct gen *g, uint8_t d, int fd)
{
	put(g, BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd);
	put(g, 0, 0, 0, 0, 0);
}

static uint32_t label_new(struct gen *g)
{
	if (!grow(g, (void **)&g->label, g->nlabels, &g->caplabels, sizeof(*g->label)))
		return 0;
	g->label[g->nlabels] = SIZE_MAX;
	return (uint32_t)g->nlabels++;
}

static void label_here(struct gen *g, uint32_t l)
{
	if (l < g->nlabels)
		g->label[l] = g->n;
}

/* A jump to label l: op BPF_JA (unconditional), or a comparison of dst with imm/src. */
static void jump(struct gen *g, uint8_t op, uint8_t dst, uint8_t src, bool reg, int32_t imm, uint32_t l)
{
	if (!grow(g, (void **)&g->fix, g->nfix, &g->capfix, sizeof(*g->fix)))
		return;
	g->fix[g->nfix++] = (struct fixup){ g->n, l };
	put(g, BPF_JMP | op | (reg ? BPF_X : BPF_K), dst, reg ? src : 0, 0, reg ? 0 : imm);
}

static void jmp_imm(struct gen *g, uint8_t op, uint8_t d, int32_t v, uint32_t l) { jump(g, op, d, 0, false, v, l); }
static void jmp_reg(struct gen *g, uint8_t op, uint8_t d, uint8_t s, uint32_t l) { jump(g, op, d, s, true, 0, l); }
static void ja(struct gen *g, uint32_t l) { jump(g, BPF_JA, 0, 0, false, 0, l); }

/* ---- stack-machine slots ------------------------------------------------------------- */

static void slot_load(struct gen *g, uint8_t reg, unsigned k)
{
	if (k == 0)
		mov_reg(g, reg, R8);
	else if (k == 1)
		mov_reg(g, reg, R9);
	else
		ldx(g, BPF_DW, reg, FP, (int16_t)(-8 * (int)(k - 1)));
}

static void slot_store(struct gen *g, unsigned k, uint8_t reg)
{
	if (k == 0)
		mov_reg(g, R8, reg);
	else if (k == 1)
		mov_reg(g, R9, reg);
	else
		stx(g, BPF_DW, FP, reg, (int16_t)(-8 * (int)(k - 1)));
}

/* ---- values -------------------------------------------------------------------------- */

/* The record bytes at off read into env->tmp (zeroed first, as the writer does), then
 * loaded into reg: for fields the verifier does not let us load from the context. */
static void rec_read(struct gen *g, uint8_t reg, uint8_t sz_code, uint32_t size, uint16_t off)
{
	st_imm(g, BPF_DW, R7, ENV(tmp), 0);
	mov_reg(g, R1, R7);
	alu_imm(g, BPF_ADD, R1, ENV(tmp));
	mov_imm(g, R2, (int32_t)size);
	ldx(g, BPF_DW, R3, R7, ENV(base));
	alu_imm(g, BPF_ADD, R3, off);
	call(g, g->t->test ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel);
	ldx(g, sz_code, reg, R7, ENV(tmp));
}

static uint8_t size_code(unsigned size)
{
	return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W : BPF_DW;
}

/* The int64 value of an integer access into R0. */
static int load_int(struct gen *g, const struct fgen_loc *l)
{
	switch (l->kind) {
	case FGEN_ARG:
		ldx(g, BPF_DW, R0, R7, (int16_t)(ENV(args) + 8 * l->arg));
		if (l->ext == FGEN_EXT_S32) {
			alu_imm(g, BPF_LSH, R0, 32);
			alu_imm(g, BPF_ARSH, R0, 32);
		} else if (l->ext == FGEN_EXT_U32) {
			put(g, BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0);
		}
		return 0;
	case FGEN_RET:
		ldx(g, BPF_DW, R0, R7, ENV(ret));
		return 0;
	case FGEN_CTX:
		ldx(g, BPF_DW, R0, R7, (int16_t)(ENV(ctx) + 8 * l->ctx));
		return 0;
	case FGEN_REC_INT: {
		unsigned size = l->size;
		if (size != 1 && size != 2 && size != 4 && size != 8)
			return -1;
		if (!g->t->test && l->off >= 8 && l->off % size == 0)
			ldx(g, size_code(size), R0, R6, (int16_t)l->off);
		else
			rec_read(g, R0, size_code(size), size, l->off);
		if (l->adjust)
			alu_imm(g, BPF_ADD, R0, l->adjust);
		if (l->is_signed && size < 8) {
			alu_imm(g, BPF_LSH, R0, 64 - 8 * (int)size);
			alu_imm(g, BPF_ARSH, R0, 64 - 8 * (int)size);
		} else if (l->adjust && size == 4) {
			put(g, BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0);
		}
		return 0;
	}
	default:
		return -1;
	}
}

/* R0 in [1, max]: bytes read with the NUL -> the length at LEN_OFF; else the string is
 * `fallback` (at most 7 bytes).  The upper check also tells the verifier the bound that
 * the pointer arithmetic of globs needs. */
static void str_result(struct gen *g, uint32_t max, const char *fallback)
{
	uint32_t bad = label_new(g), done = label_new(g);
	uint64_t word = 0;

	memcpy(&word, fallback, strlen(fallback));
	jmp_imm(g, BPF_JSLE, R0, 0, bad);
	jmp_imm(g, BPF_JGT, R0, (int32_t)max, bad);
	alu_imm(g, BPF_SUB, R0, 1);
	stx(g, BPF_DW, FP, R0, LEN_OFF);
	ja(g, done);
	label_here(g, bad);
	ld_imm64(g, R1, word);
	stx(g, BPF_DW, R7, R1, ENV(str));
	mov_imm(g, R1, (int32_t)strlen(fallback));
	stx(g, BPF_DW, FP, R1, LEN_OFF);
	label_here(g, done);
}

/* Read the string of access l into env->str, its length at LEN_OFF. */
static int load_str(struct gen *g, const struct fgen_loc *l)
{
	bool test = g->t->test;

	switch (l->kind) {
	case FGEN_USTR: {
		uint32_t max = l->max > SCRY_STR_MAX ? SCRY_STR_MAX : l->max < 8 ? 8 : l->max;
		uint32_t read = label_new(g), done = label_new(g);
		uint64_t null = 0;

		memcpy(&null, "(null)", 6);
		ldx(g, BPF_DW, R3, R7, (int16_t)(ENV(args) + 8 * l->arg));
		jmp_imm(g, BPF_JNE, R3, 0, read);
		ld_imm64(g, R1, null);
		stx(g, BPF_DW, R7, R1, ENV(str));
		mov_imm(g, R1, 6);
		stx(g, BPF_DW, FP, R1, LEN_OFF);
		ja(g, done);
		label_here(g, read);
		mov_reg(g, R1, R7);
		alu_imm(g, BPF_ADD, R1, ENV(str));
		mov_imm(g, R2, (int32_t)max);
		call(g, BPF_FUNC_probe_read_user_str);
		str_result(g, max, "(fault)");
		label_here(g, done);
		return 0;
	}
	case FGEN_COMM:
		mov_reg(g, R1, R7);
		alu_imm(g, BPF_ADD, R1, ENV(str));
		mov_imm(g, R2, SCRY_COMM_LEN + 1);
		mov_reg(g, R3, R7);
		alu_imm(g, BPF_ADD, R3, ENV(comm));
		call(g, BPF_FUNC_probe_read_kernel_str);
		str_result(g, SCRY_COMM_LEN + 1, "");
		return 0;
	case FGEN_REC_TEXT:
		if (l->max == 0 || l->max >= SCRY_STR_MAX)
			return -1;
		mov_reg(g, R1, R7);
		alu_imm(g, BPF_ADD, R1, ENV(str));
		mov_imm(g, R2, (int32_t)l->max + 1);
		ldx(g, BPF_DW, R3, R7, ENV(base));
		alu_imm(g, BPF_ADD, R3, l->off);
		call(g, test ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_kernel_str);
		str_result(g, l->max + 1, "");
		return 0;
	case FGEN_REC_LOC:
		if (!test && l->off >= 8 && l->off % 4 == 0)
			ldx(g, BPF_W, R3, R6, (int16_t)l->off);
		else
			rec_read(g, R3, BPF_W, 4, l->off);
		alu_imm(g, BPF_AND, R3, 0xffff);
		if (l->rel)
			alu_imm(g, BPF_ADD, R3, l->off + 4);
		ldx(g, BPF_DW, R1, R7, ENV(base));
		alu_reg(g, BPF_ADD, R3, R1);
		mov_reg(g, R1, R7);
		alu_imm(g, BPF_ADD, R1, ENV(str));
		mov_imm(g, R2, SCRY_STR_MAX);
		call(g, test ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_kernel_str);
		str_result(g, SCRY_STR_MAX, "");
		return 0;
	default:
		return -1;
	}
}

/* Compare n literal bytes with the bytes at base + off (base: a register pointing into the
 * environment); jump to fail on the first difference. */
static void cmp_bytes(struct gen *g, uint8_t base, int16_t off, const char *s, size_t n, uint32_t fail)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		ldx(g, BPF_DW, R1, base, (int16_t)(off + i));
		ld_imm64(g, R2, w);
		jmp_reg(g, BPF_JNE, R1, R2, fail);
	}
	for (; i + 4 <= n; i += 4) {
		uint32_t w;
		memcpy(&w, s + i, 4);
		ldx(g, BPF_W, R1, base, (int16_t)(off + i));
		ld_imm64(g, R2, w);
		jmp_reg(g, BPF_JNE, R1, R2, fail);
	}
	for (; i < n; i++) {
		ldx(g, BPF_B, R1, base, (int16_t)(off + i));
		jmp_imm(g, BPF_JNE, R1, (uint8_t)s[i], fail);
	}
}

int fgen_glob_segments(const char *pat, size_t plen, char *buf, const char **seg, size_t *seglen, int max)
{
	int k = 0;
	size_t o = 0;

	seg[0] = buf;
	for (size_t p = 0; p < plen; p++) {
		char c = pat[p];
		if (c == '*') {
			buf[o++] = 0;
			seglen[k] = (size_t)(buf + o - 1 - seg[k]);
			if (++k >= max)
				return -1;
			seg[k] = buf + o;
			continue;
		}
		if (c == '\\' && p + 1 < plen)
			c = pat[++p];
		buf[o++] = c;
	}
	buf[o] = 0;
	seglen[k] = (size_t)(buf + o - seg[k]);
	return k + 1;
}

/* R0 = does the string at env->str (length at LEN_OFF) match the glob? */
static int glob_match(struct gen *g, const struct filter_ir_str *lit, uint32_t no, uint32_t yes)
{
	const char *seg[MAX_SEGS];
	size_t len[MAX_SEGS];
	char *buf = malloc(lit->len + 1);
	int k;

	if (!buf)
		return -1;
	k = fgen_glob_segments(lit->s, lit->len, buf, seg, len, MAX_SEGS);
	if (k < 0) {
		snprintf(g->why, g->whylen, "a pattern with more than %d stars", MAX_SEGS - 1);
		free(buf);
		return -1;
	}
	size_t first = len[0], last = len[k - 1];
	bool middle = false;
	for (int i = 1; i < k - 1; i++)
		middle |= len[i] > 0;
	if (middle && !g->t->strnstr_btf_id) {
		snprintf(g->why, g->whylen, "a pattern with a star inside needs the kfunc bpf_strnstr (Linux 6.17)");
		free(buf);
		return -1;
	}
	/* length, prefix, suffix */
	ldx(g, BPF_DW, R3, FP, LEN_OFF);
	jmp_imm(g, BPF_JLT, R3, (int32_t)(first + last), no);
	cmp_bytes(g, R7, ENV(str), seg[0], first, no);
	if (last) {
		ldx(g, BPF_DW, R3, FP, LEN_OFF);
		alu_imm(g, BPF_SUB, R3, (int32_t)last);
		jmp_imm(g, BPF_JGT, R3, SCRY_STR_MAX, no);
		mov_reg(g, R0, R7);
		alu_reg(g, BPF_ADD, R0, R3);
		/* cmp_bytes clobbers R1/R2 only */
		cmp_bytes(g, R0, ENV(str), seg[k - 1], last, no);
	}
	/* middle segments, leftmost first, in [pos, len - last) */
	mov_imm(g, R1, (int32_t)first);
	stx(g, BPF_DW, FP, R1, POS_OFF);
	for (int i = 1; i < k - 1; i++) {
		if (!len[i])
			continue;
		for (size_t j = 0; j <= len[i]; j += 8) {
			uint64_t w = 0;
			memcpy(&w, seg[i] + j, len[i] + 1 - j < 8 ? len[i] + 1 - j : 8);
			ld_imm64(g, R1, w);
			stx(g, BPF_DW, R7, R1, (int16_t)(ENV(seg) + j));
		}
		ldx(g, BPF_DW, R1, FP, POS_OFF);
		jmp_imm(g, BPF_JGT, R1, SCRY_STR_MAX, no);
		ldx(g, BPF_DW, R3, FP, LEN_OFF);
		alu_imm(g, BPF_SUB, R3, (int32_t)last);
		alu_reg(g, BPF_SUB, R3, R1);
		jmp_imm(g, BPF_JSLT, R3, (int32_t)len[i], no);
		mov_reg(g, R2, R7);
		alu_reg(g, BPF_ADD, R2, R1);
		alu_imm(g, BPF_ADD, R2, ENV(str));
		mov_reg(g, R1, R2);
		mov_reg(g, R2, R7);
		alu_imm(g, BPF_ADD, R2, ENV(seg));
		put(g, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, g->t->strnstr_btf_id);
		jmp_imm(g, BPF_JSLT, R0, 0, no);
		jmp_imm(g, BPF_JGT, R0, SCRY_STR_MAX, no);
		ldx(g, BPF_DW, R1, FP, POS_OFF);
		alu_reg(g, BPF_ADD, R1, R0);
		alu_imm(g, BPF_ADD, R1, (int32_t)len[i]);
		stx(g, BPF_DW, FP, R1, POS_OFF);
	}
	ja(g, yes);
	free(buf);
	return 0;
}

/* R0 = 0/1 comparison of env->str with a literal, stored in slot k. */
static int str_cmp(struct gen *g, const struct filter_ir_str *lit, bool glob, unsigned k)
{
	uint32_t no = label_new(g), yes = label_new(g), end = label_new(g);

	if (glob) {
		if (glob_match(g, lit, no, yes))
			return -1;
	} else {
		ldx(g, BPF_DW, R3, FP, LEN_OFF);
		jmp_imm(g, BPF_JNE, R3, (int32_t)lit->len, no);
		cmp_bytes(g, R7, ENV(str), lit->s, lit->len, no);
		ja(g, yes);
	}
	label_here(g, yes);
	mov_imm(g, R0, 1);
	ja(g, end);
	label_here(g, no);
	mov_imm(g, R0, 0);
	label_here(g, end);
	slot_store(g, k, R0);
	return 0;
}

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

static int insn(struct gen *g, const struct filter_ir *ir, const struct fgen_loc *locs, uint32_t i,
		uint32_t reject)
{
	const struct filter_ir_insn *in = &ir->insns[i];
	unsigned sp = in->sp;

	switch (in->op) {
	case FIR_CONST:
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
		uint32_t l = label_new(g);
		slot_load(g, R1, sp - 2);
		slot_load(g, R2, sp - 1);
		mov_imm(g, R0, 1);
		jmp_reg(g, cmp_jump(in->op), R1, R2, l);
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
			jmp_imm(g, BPF_JEQ, R0, 0, target);
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

static int resolve(struct gen *g)
{
	for (size_t i = 0; i < g->nfix; i++) {
		size_t at = g->fix[i].at, to = g->label[g->fix[i].label];
		long off = (long)to - (long)at - 1;
		if (to == SIZE_MAX || off < 0 || off > INT16_MAX) {
			snprintf(g->why, g->whylen, "the program is too long for eBPF jumps");
			return -1;
		}
		g->in[at].off = (int16_t)off;
	}
	return 0;
}

int fgen_compile(const struct filter_ir *ir, const struct fgen_loc *locs, const struct fgen_target *t,
		 struct fgen_prog *out, char *why, size_t whylen)
{
	struct gen g = { .t = t, .why = why, .whylen = whylen };
	uint32_t reject, accept;
	int ret = -1;

	snprintf(why, whylen, "out of memory");
	memset(out, 0, sizeof(*out));
	if (ir->status != FILTER_EV_MATCHABLE || ir->max_stack > FILTER_IR_MAX_STACK) {
		snprintf(why, whylen, "the event cannot match");
		return -1;
	}
	for (uint32_t i = 0; i < ir->naccess; i++) {
		if (locs[i].kind == FGEN_NONE) {
			snprintf(why, whylen, "a value the kernel filter cannot read (struct member, array element or captured data)");
			return -1;
		}
	}
	/* IR instruction i starts at label i; then reject, accept */
	for (uint32_t i = 0; i <= ir->ninsns; i++)
		label_new(&g);
	reject = label_new(&g);
	accept = label_new(&g);

	mov_reg(&g, R6, R1);
	st_imm(&g, BPF_W, FP, KEY_OFF, (int32_t)t->env_kind);
	mov_reg(&g, R2, FP);
	alu_imm(&g, BPF_ADD, R2, KEY_OFF);
	ld_map(&g, R1, t->env_fd);
	call(&g, BPF_FUNC_map_lookup_elem);
	{
		uint32_t have = label_new(&g);
		jmp_imm(&g, BPF_JNE, R0, 0, have);
		ret_imm(&g, 0);
		label_here(&g, have);
	}
	mov_reg(&g, R7, R0);
	for (uint32_t i = 0; i < ir->ninsns; i++) {
		label_here(&g, i);
		if (insn(&g, ir, locs, i, reject)) {
			if (!why[0] || !strcmp(why, "out of memory"))
				snprintf(why, whylen, "instruction %u (%s) cannot be compiled", i,
					 filter_ir_op_name(ir->insns[i].op));
			goto out;
		}
	}
	label_here(&g, ir->ninsns);
	ja(&g, accept);

	label_here(&g, accept);
	if (t->test) {
		st_imm(&g, BPF_W, R7, ENV(owner), 0);
		ret_imm(&g, 1);
	} else {
		st_imm(&g, BPF_W, R7, ENV(accept), 1);
		mov_reg(&g, R1, R6);
		ld_map(&g, R2, t->back_fd);
		mov_imm(&g, R3, 0);
		call(&g, BPF_FUNC_tail_call);
	}
	label_here(&g, reject);
	st_imm(&g, BPF_W, R7, ENV(accept), 0);
	st_imm(&g, BPF_W, R7, ENV(owner), 0);
	ret_imm(&g, 0);

	if (g.oom || resolve(&g))
		goto out;
	out->insns = g.in;
	out->n = g.n;
	g.in = NULL;
	why[0] = 0;
	ret = 0;
out:
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
