/* bpf_gen_int.h — what the filter compiler's two files share (bpf_gen.c: instructions,
 * bodies and the program; bpf_gen_val.c: reading values, strings and globs): the register
 * and stack names, the generator's state, and its emission helpers.  Private to src/filter/. */
#ifndef SCRY_FILTER_BPF_GEN_INT_H
#define SCRY_FILTER_BPF_GEN_INT_H

#include <stddef.h>
#include <stdint.h>
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
	uint8_t *ir_tgt;         /* a body's IR instructions some jump lands on (bpf_gen.c) */
	bool oom;
	char *why;
	size_t whylen;
};

/* ---- emission ------------------------------------------------------------------------ */

/* Room for one more element in *arr (n used of *cap); false (and g->oom) when memory runs out. */
static inline bool grow(struct gen *g, void **arr, size_t n, size_t *cap, size_t elem)
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

static inline void put(struct gen *g, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (!grow(g, (void **)&g->in, g->n, &g->cap, sizeof(*g->in)))
		return;
	g->in[g->n++] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm };
}

static inline void mov_reg(struct gen *g, uint8_t d, uint8_t s) { put(g, BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0); }
static inline void mov_imm(struct gen *g, uint8_t d, int32_t v) { put(g, BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v); }
static inline void alu_imm(struct gen *g, uint8_t op, uint8_t d, int32_t v) { put(g, BPF_ALU64 | op | BPF_K, d, 0, 0, v); }
static inline void alu_reg(struct gen *g, uint8_t op, uint8_t d, uint8_t s) { put(g, BPF_ALU64 | op | BPF_X, d, s, 0, 0); }
static inline void ldx(struct gen *g, uint8_t sz, uint8_t d, uint8_t s, int16_t off) { put(g, BPF_LDX | BPF_MEM | sz, d, s, off, 0); }
static inline void stx(struct gen *g, uint8_t sz, uint8_t base, uint8_t s, int16_t off) { put(g, BPF_STX | BPF_MEM | sz, base, s, off, 0); }
static inline void st_imm(struct gen *g, uint8_t sz, uint8_t base, int16_t off, int32_t v) { put(g, BPF_ST | BPF_MEM | sz, base, 0, off, v); }
static inline void call(struct gen *g, int32_t helper) { put(g, BPF_JMP | BPF_CALL, 0, 0, 0, helper); }
static inline void ret_imm(struct gen *g, int32_t v) { mov_imm(g, R0, v); put(g, BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

static inline void ld_imm64(struct gen *g, uint8_t d, uint64_t v)
{
	put(g, BPF_LD | BPF_DW | BPF_IMM, d, 0, 0, (int32_t)(uint32_t)v);
	put(g, 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
}

static inline void ld_map(struct gen *g, uint8_t d, int fd)
{
	put(g, BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd);
	put(g, 0, 0, 0, 0, 0);
}

static inline uint32_t label_new(struct gen *g)
{
	if (!grow(g, (void **)&g->label, g->nlabels, &g->caplabels, sizeof(*g->label)))
		return 0;
	g->label[g->nlabels] = SIZE_MAX;
	return (uint32_t)g->nlabels++;
}

static inline void label_here(struct gen *g, uint32_t l)
{
	if (l < g->nlabels)
		g->label[l] = g->n;
}

/* A jump to label l: op BPF_JA (unconditional), or a comparison of dst with imm/src. */
static inline void jump(struct gen *g, uint8_t op, uint8_t dst, uint8_t src, bool reg, int32_t imm, uint32_t l)
{
	if (!grow(g, (void **)&g->fix, g->nfix, &g->capfix, sizeof(*g->fix)))
		return;
	g->fix[g->nfix++] = (struct fixup){ g->n, l };
	put(g, BPF_JMP | op | (reg ? BPF_X : BPF_K), dst, reg ? src : 0, 0, reg ? 0 : imm);
}

static inline void jmp_imm(struct gen *g, uint8_t op, uint8_t d, int32_t v, uint32_t l) { jump(g, op, d, 0, false, v, l); }
static inline void jmp_reg(struct gen *g, uint8_t op, uint8_t d, uint8_t s, uint32_t l) { jump(g, op, d, s, true, 0, l); }
static inline void ja(struct gen *g, uint32_t l) { jump(g, BPF_JA, 0, 0, false, 0, l); }

/* ---- stack-machine slots ------------------------------------------------------------- */

static inline void slot_load(struct gen *g, uint8_t reg, unsigned k)
{
	if (k == 0)
		mov_reg(g, reg, R8);
	else if (k == 1)
		mov_reg(g, reg, R9);
	else
		ldx(g, BPF_DW, reg, FP, (int16_t)(-8 * (int)(k - 1)));
}

static inline void slot_store(struct gen *g, unsigned k, uint8_t reg)
{
	if (k == 0)
		mov_reg(g, R8, reg);
	else if (k == 1)
		mov_reg(g, R9, reg);
	else
		stx(g, BPF_DW, FP, reg, (int16_t)(-8 * (int)(k - 1)));
}

/* bpf_gen_val.c: an integer or a string of the event or its contexts (l) onto the stack
 * machine; a string compared with a literal (or matched against a glob). */
int load_int(struct gen *g, const struct fgen_loc *l);
int load_str(struct gen *g, const struct fgen_loc *l);
int str_cmp(struct gen *g, const struct filter_ir_str *lit, bool glob, unsigned k);

#endif
