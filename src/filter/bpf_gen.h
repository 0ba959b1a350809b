/* bpf_gen.h — compile a filter's IR (filter.h) for one event to eBPF instructions.
 *
 * The program follows the protocol of scry_abi.h (struct scry_filter_env): it reads the
 * values of the event from this CPU's filter environment (filled by the dispatcher) and,
 * for tracepoints, from the raw record; it rejects by freeing the environment and
 * returning, and accepts by setting env->accept and tail-calling the dispatcher back.
 * In test mode it instead returns 1 (accept) or 0 (reject), for BPF_PROG_TEST_RUN.
 *
 * Registers: r6 ctx, r7 the environment, r8/r9 the two lowest stack-machine slots (the
 * others live on the BPF stack).  Strings are read into env->str (as the event writer
 * reads them: same bounds, "(null)"/"(fault)" for unreadable user strings), then compared
 * against the literal with word loads; a glob is split at its stars into segments: the
 * first is a prefix, the last a suffix, the middle ones are searched in order with the
 * kfunc bpf_strnstr (when the kernel lacks it, such globs are not compiled). */
#ifndef SCRY_FILTER_BPF_GEN_H
#define SCRY_FILTER_BPF_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "filter/filter.h"

/* Where the value of one access is. */
enum fgen_kind {
	FGEN_NONE,        /* not expressible in the kernel */
	FGEN_ARG,         /* int: env args[arg] (ext: 0, FGEN_EXT_S32, FGEN_EXT_U32) */
	FGEN_RET,         /* int: env ret */
	FGEN_CTX,         /* int: env ctx[ctx] */
	FGEN_COMM,        /* string: env comm (procname) */
	FGEN_USTR,        /* string: user string at env args[arg], at most max bytes with NUL */
	FGEN_REC_INT,     /* int: size bytes at off in the raw record, is_signed, + adjust */
	FGEN_REC_TEXT,    /* string: char[max] at off in the raw record */
	FGEN_REC_LOC,     /* string: __data_loc u32 at off (rel: __rel_loc) */
};

enum { FGEN_EXT_S32 = 1, FGEN_EXT_U32 = 2 };

struct fgen_loc {
	uint8_t kind;              /* enum fgen_kind */
	uint8_t arg;
	uint8_t ext;
	uint8_t size;
	bool is_signed;
	bool rel;
	uint16_t off;
	int16_t adjust;
	uint16_t ctx;
	uint32_t max;
};

struct fgen_target {
	uint32_t env_kind;         /* SCRY_FENV_*: the environment's index in filter_env */
	int env_fd;                /* filter_env map */
	int back_fd;               /* back_* prog array (index 0: the dispatcher) */
	int strnstr_btf_id;        /* vmlinux BTF id of kfunc bpf_strnstr, 0: none */
	bool test;                 /* return 1/0; raw record read from user memory at env->base */
};

struct fgen_prog {
	struct bpf_insn *insns;
	size_t n;
};

/* Compile ir (status MATCHABLE) with locs[ir->naccess].  0, or -1 with why filled when
 * something cannot be expressed (an access of kind FGEN_NONE, a glob needing bpf_strnstr
 * on a kernel without it, a jump too long) or memory runs out. */
int fgen_compile(const struct filter_ir *ir, const struct fgen_loc *locs, const struct fgen_target *t,
		 struct fgen_prog *out, char *why, size_t whylen);
void fgen_prog_free(struct fgen_prog *p);

/* A star-glob pattern cut at its unescaped stars into unescaped segments (a trailing lone
 * backslash is literal, as in filter_glob_match).  Returns the number of segments (stars + 1)
 * or -1 when there are more than max; seg[i] points into buf (NUL-terminated copies). */
int fgen_glob_segments(const char *pat, size_t plen, char *buf, const char **seg, size_t *seglen, int max);

#endif
