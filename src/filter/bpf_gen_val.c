/* bpf_gen_val.c — the filter compiler's values: integers of the event record, the syscall
 * registers and the current task's contexts (the memo first, then kernel reads), strings
 * copied into the environment, and their comparison with literals and globs. */
#include <stdio.h>
#include "filter/bpf_gen_int.h"

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

/* Argument register arg of the syscall (a uprobe: register SCRY_UREG_*) into reg. */
static void load_arg(struct gen *g, uint8_t reg, unsigned arg)
{
	if (g->t->test)
		ldx(g, BPF_DW, reg, R7, arg < SCRY_MAX_ARGS ? (int16_t)(ENV(args) + 8 * arg) : (int16_t)ENV(ret));
	else if (g->t->src == FGEN_SRC_UPROBE)
		ldx(g, BPF_DW, reg, R6, g->t->uregs_off[arg < 7 ? arg : 6]);
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
	if (p->how == FGEN_CTXP_CPU || p->how == FGEN_CTXP_CGROUP) {
		call(g, p->how == FGEN_CTXP_CPU ? BPF_FUNC_get_smp_processor_id : BPF_FUNC_get_current_cgroup_id);
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
int load_int(struct gen *g, const struct fgen_loc *l)
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
		if (l->level) {   /* $ctx.container: the task's cgroup's ancestor at the container's level */
			if (g->t->test || l->ctx != SCRY_CTX_CGROUP_ID) {
				snprintf(g->why, g->whylen, "a cgroup's ancestor outside a live program");
				return -1;
			}
			mov_imm(g, R1, l->level);
			call(g, BPF_FUNC_get_current_ancestor_cgroup_id);
			return 0;
		}
		if (!g->t->test)
			return load_ctx_live(g, l->ctx);
		ldx(g, BPF_DW, R0, R7, (int16_t)(ENV(ctx) + 8 * l->ctx));
		return 0;
	case FGEN_UREG:
		if ((l->size != 1 && l->size != 2 && l->size != 4 && l->size != 8) || l->shift > 7 || l->arg > 6 ||
		    (!g->t->test && g->t->src != FGEN_SRC_UPROBE))
			return -1;
		load_arg(g, R0, l->arg);
		if (l->shift)
			alu_imm(g, BPF_RSH, R0, 8 * l->shift);
		if (l->size < 8) {       /* the low size bytes, as the uprobe program writes them */
			alu_imm(g, BPF_LSH, R0, 64 - 8 * l->size);
			alu_imm(g, l->is_signed ? BPF_ARSH : BPF_RSH, R0, 64 - 8 * l->size);
		}
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
int load_str(struct gen *g, const struct fgen_loc *l)
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
int str_cmp(struct gen *g, const struct filter_ir_str *lit, bool glob, unsigned k)
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
