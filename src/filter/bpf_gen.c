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
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R9 BPF_REG_9
#define FP BPF_REG_10

#define ENV(f) ((int16_t)offsetof(struct scry_filter_env, f))
#define MEMO(f) ((int16_t)offsetof(struct scry_memo, f))
#define KEY_OFF (-120)           /* u32 key of the environment lookup */
#define LEN_OFF (-128)           /* length of the string in env->str */
#define POS_OFF (-136)           /* glob: search position */
#define TASK_OFF (-144)          /* live: the current task (bpf_get_current_task_btf) */
#define SCR1_OFF (-152)          /* live: scratch for the pid contexts' kernel reads */
#define SCR2_OFF (-160)
#define SCR3_OFF (-168)
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
	bool use_env;            /* the program owns this CPU's environment while it runs */
	uint32_t accept, reject; /* a front's exits */
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

/* Argument register arg of the syscall into reg. */
static void load_arg(struct gen *g, uint8_t reg, unsigned arg)
{
	if (g->t->test)
		ldx(g, BPF_DW, reg, R7, (int16_t)(ENV(args) + 8 * arg));
	else if (g->t->src == FGEN_SRC_SYSCALL_BTF) {
		ldx(g, BPF_DW, reg, R6, 0);
		ldx(g, BPF_DW, reg, reg, g->t->regs_off[arg]);
	} else {
		ldx(g, BPF_DW, reg, R6, (int16_t)(16 + 8 * arg));
	}
}

/* Sign- or zero-extend the size-byte value in R0 after adding adjust. */
static void extend(struct gen *g, unsigned size, bool is_signed, int16_t adjust)
{
	if (adjust)
		alu_imm(g, BPF_ADD, R0, adjust);
	if (is_signed && size < 8) {
		alu_imm(g, BPF_LSH, R0, 64 - 8 * (int)size);
		alu_imm(g, BPF_ARSH, R0, 64 - 8 * (int)size);
	} else if (adjust && size == 4) {
		put(g, BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0);
	}
}

/* bpf_probe_read_kernel(fp + dst, size, R3), the destination zeroed first. */
static void kread(struct gen *g, int16_t dst, int32_t size)
{
	st_imm(g, BPF_DW, FP, dst, 0);
	mov_reg(g, R1, FP);
	alu_imm(g, BPF_ADD, R1, dst);
	mov_imm(g, R2, size);
	call(g, BPF_FUNC_probe_read_kernel);
}

/* A context of the current task into R0 (live programs). */
static int load_ctx_live(struct gen *g, unsigned c)
{
	const struct fgen_ctx_path *p = g->t->ctx && c < SCRY_CTX_NR ? &g->t->ctx[c] : NULL;
	const struct fgen_pid_layout *pl = &g->t->pid;

	if (!p || p->how == FGEN_CTXP_NONE || p->nsteps > FGEN_CTXP_MAX_STEPS) {
		snprintf(g->why, g->whylen, "a context this kernel's BTF does not describe");
		return -1;
	}
	if (p->how == FGEN_CTXP_CPU) {
		call(g, BPF_FUNC_get_smp_processor_id);
		return 0;
	}
	ldx(g, BPF_DW, p->how == FGEN_CTXP_LOAD ? R0 : R3, FP, TASK_OFF);
	for (unsigned k = 0; k < p->nsteps; k++)
		ldx(g, BPF_DW, p->how == FGEN_CTXP_LOAD ? R0 : R3, p->how == FGEN_CTXP_LOAD ? R0 : R3, (int16_t)p->step[k]);
	if (p->how == FGEN_CTXP_LOAD) {
		if (p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8)
			return -1;
		ldx(g, size_code(p->size), R0, R0, (int16_t)p->off);
		extend(g, p->size, p->is_signed, p->adjust);
		return 0;
	}
	/* struct pid *: read as a number, then numbers[level] (the verifier has no
	 * variable offsets into kernel objects) */
	alu_imm(g, BPF_ADD, R3, p->off);
	kread(g, SCR1_OFF, 8);
	ldx(g, BPF_DW, R3, FP, SCR1_OFF);
	alu_imm(g, BPF_ADD, R3, pl->level);
	kread(g, SCR2_OFF, 4);
	ldx(g, BPF_W, R3, FP, SCR2_OFF);
	alu_imm(g, BPF_AND, R3, 63);
	alu_imm(g, BPF_MUL, R3, pl->upid_size);
	ldx(g, BPF_DW, R1, FP, SCR1_OFF);
	alu_reg(g, BPF_ADD, R3, R1);
	if (p->how == FGEN_CTXP_PIDNR) {
		alu_imm(g, BPF_ADD, R3, pl->numbers + pl->upid_nr);
		kread(g, SCR3_OFF, 4);
		ldx(g, BPF_W, R0, FP, SCR3_OFF);
		extend(g, 4, true, 0);
	} else {
		alu_imm(g, BPF_ADD, R3, pl->numbers + pl->upid_ns);
		kread(g, SCR3_OFF, 8);
		ldx(g, BPF_DW, R3, FP, SCR3_OFF);
		alu_imm(g, BPF_ADD, R3, pl->ns_inum);
		kread(g, SCR2_OFF, 4);
		ldx(g, BPF_W, R0, FP, SCR2_OFF);
	}
	return 0;
}

/* The int64 value of an integer access into R0. */
static int load_int(struct gen *g, const struct fgen_loc *l)
{
	switch (l->kind) {
	case FGEN_ARG:
		load_arg(g, R0, l->arg);
		if (l->ext == FGEN_EXT_S32) {
			alu_imm(g, BPF_LSH, R0, 32);
			alu_imm(g, BPF_ARSH, R0, 32);
		} else if (l->ext == FGEN_EXT_U32) {
			put(g, BPF_ALU | BPF_MOV | BPF_X, R0, R0, 0, 0);
		}
		return 0;
	case FGEN_RET:
		if (g->t->test)
			ldx(g, BPF_DW, R0, R7, ENV(ret));
		else if (!g->t->exit)
			return -1;
		else
			ldx(g, BPF_DW, R0, R6, g->t->src == FGEN_SRC_SYSCALL_BTF ? 8 : 16);
		return 0;
	case FGEN_NR:
		if (g->t->test)
			ldx(g, BPF_DW, R0, R7, ENV(nr));
		else if (g->t->src == FGEN_SRC_SYSCALL_BTF && g->t->exit) {
			ldx(g, BPF_DW, R0, R6, 0);
			ldx(g, BPF_DW, R0, R0, g->t->orig_ax_off);
		} else if (g->t->src != FGEN_SRC_TP)
			ldx(g, BPF_DW, R0, R6, 8);
		else
			return -1;
		return 0;
	case FGEN_CTX:
		if (!g->t->test)
			return load_ctx_live(g, l->ctx);
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
		extend(g, size, l->is_signed, l->adjust);
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
		load_arg(g, R3, l->arg);
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
		if (test) {
			mov_reg(g, R3, R7);
			alu_imm(g, BPF_ADD, R3, ENV(comm));
		} else if (!g->t->comm_off) {
			snprintf(g->why, g->whylen, "this kernel's BTF does not describe task_struct.comm");
			return -1;
		} else {
			ldx(g, BPF_DW, R3, FP, TASK_OFF);
			alu_imm(g, BPF_ADD, R3, g->t->comm_off);
		}
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
	return 0;
fail:
	if (g.oom)
		snprintf(why, whylen, "out of memory");
	free(g.in);
	free(g.label);
	free(g.fix);
	return -1;
}

static bool body_same(const struct body *a, const struct body *b)
{
	return a->n == b->n && a->nexits == b->nexits &&
	       !memcmp(a->in, b->in, a->n * sizeof(*a->in)) &&
	       !memcmp(a->exits, b->exits, a->nexits * sizeof(*a->exits));
}

/* Does access l need the environment (string buffer, record reads, scratch)? */
static bool loc_uses_env(const struct fgen_loc *l)
{
	switch (l->kind) {
	case FGEN_ARG:
	case FGEN_RET:
	case FGEN_NR:
	case FGEN_CTX:
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
 * it from there when the memo's registers are this call's and its task still owns its
 * stack and has not exited (an untrusted pointer: reads are checked); else from the
 * helper, and fills the memo's identity for the next event (its target answer voided). */
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
	ldx(g, BPF_DW, R1, R6, 0);                       /* the pt_regs argument */
	ldx(g, BPF_DW, R2, R0, MEMO(regs));
	jmp_reg(g, BPF_JNE, R1, R2, slow);
	ldx(g, BPF_DW, R3, R0, MEMO(task));
	jmp_imm(g, BPF_JEQ, R3, 0, slow);
	ldx(g, BPF_DW, R4, R3, t->task_stack_off);
	ldx(g, BPF_DW, R5, R0, MEMO(stack));
	jmp_reg(g, BPF_JNE, R4, R5, slow);
	ldx(g, BPF_W, R4, R3, t->task_exit_state_off);
	jmp_imm(g, BPF_JNE, R4, 0, slow);
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
	st_imm(g, BPF_DW, R1, MEMO(gen), -1);            /* SCRY_MEMO_NO_GEN */
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
	bool sw = !t->test && t->src != FGEN_SRC_TP, use_task = false;
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
								      t->ctx[l->ctx].how == FGEN_CTXP_CPU));
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
