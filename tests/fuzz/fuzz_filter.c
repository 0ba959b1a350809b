/* fuzz_filter.c — libFuzzer target: input bytes as a filter expression through filter_parse
 * (errors must point inside the text, on one line), filter_check against a fixed set of event
 * schemas, filter_lower for each event (IR invariants: bounded size and stack, forward jumps,
 * RET last), evaluation of every matchable event both ways (AST and IR) over values
 * derived from the input: the two must agree; and the eBPF compiler (bpf_gen.c) on every
 * matchable IR: it compiles or refuses with a reason, and a program ends in exit with its
 * jumps forward and inside it (loading it is tests/e2e/test_filter_diff.py's part). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter/bpf_gen.h"
#include "filter/filter.h"

static const struct filter_field ctx[] = {
	{ .name = "pid", .type = FF_INT, .is_signed = true },
	{ .name = "tid", .type = FF_INT, .is_signed = true },
	{ .name = "procname", .type = FF_STRING },
	{ .name = "cpu_id", .type = FF_INT, .is_signed = true },
};
static const struct filter_field int_elem = { .type = FF_INT, .is_signed = true };
static const struct filter_field str_elem = { .type = FF_STRING };
static const struct filter_field inner[] = { { .name = "x", .type = FF_INT } };
static const struct filter_field s_members[] = {
	{ .name = "a", .type = FF_INT, .is_signed = true },
	{ .name = "b", .type = FF_STRING },
	{ .name = "inner", .type = FF_STRUCT, .members = inner, .nmembers = 1 },
};
static const struct filter_field e_exit[] = { { .name = "ret", .type = FF_INT, .is_signed = true } };
static const struct filter_field e_open[] = {
	{ .name = "dfd", .type = FF_INT, .is_signed = true },
	{ .name = "filename", .type = FF_STRING },
	{ .name = "flags", .type = FF_INT },
	{ .name = "mode", .type = FF_INT },
};
static const struct filter_field e_rw[] = {
	{ .name = "fd", .type = FF_INT },
	{ .name = "buf", .type = FF_INT },
	{ .name = "count", .type = FF_INT },
};
static const struct filter_field e_misc[] = {
	{ .name = "s", .type = FF_STRUCT, .members = s_members, .nmembers = 3 },
	{ .name = "arr", .type = FF_ARRAY, .length = 4, .elem = &int_elem },
	{ .name = "seq", .type = FF_SEQUENCE, .elem = &int_elem },
	{ .name = "strs", .type = FF_SEQUENCE, .elem = &str_elem },
	{ .name = "name", .type = FF_STRING },
	{ .name = "ret", .type = FF_INT, .is_signed = true },
	{ .name = "f", .type = FF_OTHER },
};
static const struct filter_field e_name_int[] = { { .name = "name", .type = FF_INT } };

static const struct filter_schema events[] = {
	{ "syscall_exit_openat", 1, e_exit, 4, ctx },
	{ "syscall_entry_openat", 4, e_open, 4, ctx },
	{ "syscall_entry_write", 3, e_rw, 2, ctx },
	{ "misc", 7, e_misc, 0, NULL },
	{ "name_int", 1, e_name_int, 4, ctx },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

struct vals {
	uint64_t seed;
	uint32_t seqlen;
};

static const char *const strs[] = { "", "abc", "/etc/passwd", "a*c", "bash", "x", "a\\b", "ls" };
static const int64_t ints[] = { 0, 1, -1, 2, 3, 63, 64, INT64_MIN, INT64_MAX, 0x7f, -2, 4096 };

static int get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	const struct vals *v = arg;
	uint64_t h = v->seed ^ (a->is_ctx ? 0x1234567 : 0) ^ ((uint64_t)a->top * 0x9e3779b97f4a7c15ull);
	for (uint8_t i = 0; i < a->nsteps; i++) {
		if (a->steps[i].kind == FILTER_STEP_INDEX && a->steps[i].index >= v->seqlen + 2)
			return -1;           /* "sequence" too short (also hits fixed arrays: fine) */
		h = (h ^ (a->steps[i].index + 1)) * 0x100000001b3ull;
	}
	h ^= h >> 29;
	if (a->type == FF_STRING) {
		if ((h & 31) == 7)
			return -1;
		out->s = strs[h % (sizeof(strs) / sizeof(strs[0]))];
		out->len = strlen(out->s);
	} else {
		out->i = (h & 3) ? ints[h % (sizeof(ints) / sizeof(ints[0]))] : (int64_t)h;
	}
	return 0;
}

static void check_ir(const struct filter_ir *ir)
{
	if (!ir->ninsns || ir->ninsns > FILTER_IR_MAX_INSNS || ir->max_stack > FILTER_IR_MAX_STACK ||
	    ir->insns[ir->ninsns - 1].op != FIR_RET || ir->insns[ir->ninsns - 1].sp != 1)
		abort();
	for (uint32_t i = 0; i < ir->ninsns; i++) {
		const struct filter_ir_insn *in = &ir->insns[i];
		if (in->op >= FIR_NOPS || in->sp > FILTER_IR_MAX_STACK)
			abort();
		if ((in->op == FIR_AND_THEN || in->op == FIR_OR_ELSE) && i + 1 + in->off >= ir->ninsns)
			abort();
		if ((in->op == FIR_LOAD_FIELD || in->op == FIR_LOAD_CTX || in->op == FIR_STR_EQ ||
		     in->op == FIR_STR_GLOB || in->op == FIR_STR_EQ_FIELD) && in->a >= ir->naccess)
			abort();
		if ((in->op == FIR_STR_EQ || in->op == FIR_STR_GLOB) && in->b >= ir->nstrs)
			abort();
	}
}

/* Compile ir with every access located somewhere the compiler knows (ints in arguments,
 * strings as user strings, some unreadable): a refusal must say why; a program must end
 * in exit, jump only forward and stay inside. */
static void check_compile(const struct filter_ir *ir, uint64_t seed)
{
	struct fgen_loc locs[FILTER_MAX_REFS];
	struct fgen_target t = { .env_fd = 3, .back_fd = 4, .strnstr_btf_id = (seed & 1) ? 99 : 0, .test = seed & 2 };
	struct fgen_prog prog;
	char why[200];

	for (uint32_t i = 0; i < ir->naccess && i < FILTER_MAX_REFS; i++) {
		const struct filter_access *a = &ir->access[i];
		if (a->nsteps && (seed >> 2 & 1))
			locs[i] = (struct fgen_loc){ .kind = FGEN_NONE };
		else if (a->type == FF_STRING)
			locs[i] = (struct fgen_loc){ .kind = (seed >> 3 & 1) ? FGEN_USTR : FGEN_REC_LOC, .arg = i % 6,
						     .max = 32 + (uint32_t)(seed % 4000), .off = 8 + 4 * (i % 8) };
		else
			locs[i] = (struct fgen_loc){ .kind = (seed >> 4 & 1) ? FGEN_ARG : FGEN_REC_INT, .arg = i % 6,
						     .ext = (uint8_t)(i % 3), .size = (uint8_t)(1u << (i % 4)),
						     .is_signed = i & 1, .off = (uint16_t)(8 + 2 * i), .adjust = (int16_t)(i % 3 - 1) };
	}
	struct fgen_case one = { .key = (uint32_t)(seed >> 8 & 511), .dflt = seed >> 5 & 1, .ir = ir, .locs = locs };
	t.exit = seed >> 6 & 1;
	t.src = (uint8_t)(seed >> 7 & 1);
	if (fgen_compile(&one, 1, &t, &prog, why, sizeof(why))) {
		if (!why[0])
			abort();
		return;
	}
	if (!prog.n || prog.insns[prog.n - 1].code != (BPF_JMP | BPF_EXIT))
		abort();
	for (size_t i = 0; i < prog.n; i++) {
		uint8_t c = prog.insns[i].code;
		if ((c & 7) == BPF_JMP && (c & 0xf0) != BPF_CALL && (c & 0xf0) != BPF_EXIT &&
		    (prog.insns[i].off < 0 || i + 1 + (size_t)prog.insns[i].off >= prog.n))
			abort();
	}
	fgen_prog_free(&prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (size > FILTER_MAX_TEXT + 64)
		size = FILTER_MAX_TEXT + 64;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	size_t len = strlen(text);
	struct filter_error err;
	struct filter *f = filter_parse(text, &err);
	if (!f) {
		if (err.offset > len || !err.msg[0] || strchr(err.msg, '\n'))
			abort();
		if (devnull)
			filter_error_print(devnull, text, &err);
		free(text);
		return 0;
	}
	uint64_t seed = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		seed = (seed ^ (uint8_t)text[i]) * 1099511628211ull;
	int checked = filter_check(f, events, NEVENTS, &err) == 0;
	if (!checked && (err.offset > len || !err.msg[0]))
		abort();
	for (size_t e = 0; e < NEVENTS; e++) {
		struct filter_ir ir;
		if (filter_lower(f, &events[e], &ir, &err)) {
			if (err.offset > len)
				abort();
			continue;
		}
		check_ir(&ir);
		if (checked && (ir.status == FILTER_EV_MATCHABLE) != (filter_event_status(f, e) == FILTER_EV_MATCHABLE))
			abort();
		if (devnull && (seed & 63) == 0)
			filter_ir_dump(devnull, &ir);
		if (ir.status == FILTER_EV_MATCHABLE)
			check_compile(&ir, seed);
		for (int k = 0; k < 4; k++) {
			struct vals v = { seed + (uint64_t)k * 0x51ed27, (uint32_t)k };
			struct filter_values fv = { e, get, &v };
			bool b = filter_ir_eval(&ir, &fv);
			if (checked && filter_eval(f, &fv) != b)
				abort();
		}
		filter_ir_free(&ir);
	}
	filter_free(f);
	free(text);
	return 0;
}
