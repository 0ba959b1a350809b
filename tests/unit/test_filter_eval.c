/* test_filter_eval.c — LTTng's filter language (src/filter), past the parser: the
 * checker against event schemas, evaluation, the IR, and a differential test of random
 * expressions on random values (AST against IR) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "filter_test_util.h"

static void test_check(void **state)
{
	struct filter_error e;
	struct filter *f = parse_check("ret < 0", &e);
	assert_non_null(f);
	assert_int_equal(filter_event_status(f, 0), FILTER_EV_MATCHABLE);
	for (size_t i = 1; i < NEVENTS; i++)
		assert_int_equal(filter_event_status(f, i), FILTER_EV_MISSING);
	const struct filter_access *a = filter_event_access(f, 0, 0);
	assert_non_null(a);
	assert_int_equal(a->type, FF_INT);
	assert_false(a->is_ctx);
	assert_int_equal(a->top, 0);
	assert_null(filter_event_access(f, 1, 0));
	filter_free(f);

	f = parse_check("filename == \"/etc/*\" && $ctx.pid == 4", &e);
	assert_non_null(f);
	assert_int_equal(filter_event_status(f, 1), FILTER_EV_MATCHABLE);
	a = filter_event_access(f, 1, 0);
	assert_int_equal(a->top, 1);
	assert_int_equal(a->type, FF_STRING);
	a = filter_event_access(f, 1, 1);
	assert_true(a->is_ctx);
	assert_int_equal(a->ctx_id, 0);       /* SCRY_CTX_PID */
	assert_int_equal(a->top, 0);
	filter_free(f);

	f = parse_check("s.inner.x == 1 && sarr[1].v == 2 && arr[3] == 0 && seq[7] == 1", &e);
	if (!f)
		fail_msg("%s", e.msg);
	a = filter_event_access(f, 2, 0);
	assert_int_equal(a->top, 0);
	assert_int_equal(a->nsteps, 2);
	assert_int_equal(a->steps[0].kind, FILTER_STEP_MEMBER);
	assert_int_equal(a->steps[0].index, 2);
	assert_int_equal(a->steps[1].index, 0);
	a = filter_event_access(f, 2, 1);
	assert_int_equal(a->top, 2);
	assert_int_equal(a->nsteps, 2);
	assert_int_equal(a->steps[0].kind, FILTER_STEP_INDEX);
	assert_int_equal(a->steps[0].index, 1);
	assert_int_equal(a->steps[1].kind, FILTER_STEP_MEMBER);
	filter_free(f);

	/* the same name with different types in different events: only the events where the
	 * expression is well typed can match */
	f = parse_check("name == 1", &e);
	assert_non_null(f);
	assert_int_equal(filter_event_status(f, 3), FILTER_EV_MISTYPED);
	assert_int_equal(filter_event_status(f, 4), FILTER_EV_MATCHABLE);
	filter_free(f);
	f = parse_check("name == \"x*\"", &e);
	assert_non_null(f);
	assert_int_equal(filter_event_status(f, 3), FILTER_EV_MATCHABLE);
	assert_int_equal(filter_event_status(f, 4), FILTER_EV_MISTYPED);
	filter_free(f);

	/* a filter without references applies to every event */
	f = parse_check("1 == 1", &e);
	assert_non_null(f);
	for (size_t i = 0; i < NEVENTS; i++)
		assert_int_equal(filter_event_status(f, i), FILTER_EV_MATCHABLE);
	filter_free(f);

	/* no events at all */
	f = filter_parse("ret == 1", &e);
	assert_int_equal(filter_check(f, NULL, 0, &e), -1);
	assert_non_null(strstr(e.msg, "no selected event has a field 'ret'"));
	filter_free(f);
}

static void test_check_errors(void **state)
{
	static const struct err_case c[] = {
		{ "nosuch == 1", 0, 6, "no selected event has a field 'nosuch'" },
		{ "ret == 1 && x.y[2] == 1", 12, 6, "no selected event has a field 'x.y[2]'" },
		{ "filename == 3", 9, 2, "cannot compare a string with an integer (in event syscall_entry_openat)" },
		{ "3 != filename", 2, 2, "cannot compare a string with an integer" },
		{ "filename & 1", 0, 8, "'&' needs an integer here, not a string (in event syscall_entry_openat)" },
		{ "!filename", 1, 8, "'!' needs an integer here" },
		{ "filename", 0, 8, "a string alone is not a condition" },
		{ "filename || dfd", 0, 8, "'||' needs an integer here" },
		{ "ret == \"x\"", 4, 2, "cannot compare a string with an integer (in event syscall_exit_read)" },
		{ "$ctx.procname == 1", 14, 2, "cannot compare a string with an integer" },
		{ "s == 1", 0, 1, "'s' is a structure: compare one of its fields" },
		{ "s.inner == 1", 0, 7, "'s.inner' is a structure" },
		{ "arr == 1", 0, 3, "'arr' is an array: compare one of its elements" },
		{ "seq != 0", 0, 3, "'seq' is an array" },
		{ "f == 1", 0, 1, "'f' has a type filters do not support" },
		{ "ret.x == 1", 0, 5, "'ret' is not a structure (in event syscall_exit_read)" },
		{ "s.a[0] == 1", 0, 6, "'s.a' is not an array (in event complex)" },
		{ "s.inner[0].x == 1", 0, 12, "'s.inner' is not an array" },
		{ "filename[0] == 1", 0, 11, "'filename' is not an array" },
		{ "ptr[0] == 1", 0, 6, "'ptr' is not an array (scry's capture of it is '_ptr') (in event complex)" },
		{ "arr[4] == 1", 0, 6, "no selected event has a field 'arr[4]' (or the index is past the end)" },
		{ "s.zz == 1", 0, 4, "no selected event has a field 's.zz'" },
		{ "ret == 1 || filename == \"x\"", 12, 8, "no selected event has both 'ret' and 'filename'" },
		{ "ret == 1 && $ctx.pid == 1 && dfd == 2", 29, 3, "no selected event has both 'ret' and 'dfd'" },
		{ "$ctx.nosuch == 1", 0, 11, "unknown context 'nosuch'" },
		{ "$ctx.uid == 1", 0, 8, "no selected event has the context 'uid'" },
		{ "ret == 1 && $ctx.pid == 2 || $ctx.procname == \"x\" && dfd == 1", 53, 3,
		  "no selected event has both 'ret' and 'dfd'" },
	};
	check_errors(c, sizeof(c) / sizeof(c[0]), true);
}

/* procname as a 16-byte text array: "bash" then NULs and junk */
static int comm_get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	static const char comm[16] = "bash\0\0\0junk";
	out->s = comm;
	out->len = sizeof(comm);
	return 0;
}

static void test_eval(void **state)
{
	struct filter_error e;
	struct filter *f = parse_check("ret < 0", &e);
	assert_non_null(f);
	struct kv neg[] = { { "ret", false, -2, NULL, false } };
	struct kv pos[] = { { "ret", false, 5, NULL, false } };
	struct kv abs_[] = { { "ret", false, 0, NULL, true } };
	assert_true(eval_both(f, 0, neg, 1));
	assert_false(eval_both(f, 0, pos, 1));
	assert_false(eval_both(f, 0, abs_, 1));
	/* events without the field never match, whatever the values */
	assert_false(eval_both(f, 1, neg, 1));
	filter_free(f);

	/* LTTng: a missing field makes the whole expression false, even under ! or || */
	f = parse_check("!(ret == 1) || dfd == 3", &e);
	assert_null(f);         /* ret and dfd never together: refused */
	f = filter_parse("!(name == 1)", &e);
	assert_non_null(f);
	assert_int_equal(filter_check(f, events, NEVENTS, &e), 0);
	struct kv n1[] = { { "name", false, 2, NULL, false } };
	assert_true(eval_both(f, 4, n1, 1));
	assert_false(eval_both(f, 3, n1, 1));     /* name is a string there: never */
	assert_false(eval_both(f, 0, n1, 1));     /* no field name: never */
	filter_free(f);

	f = parse_check("filename == \"/etc/*\" && (flags & 0x3) == 0 && $ctx.pid != 1", &e);
	assert_non_null(f);
	struct kv v1[] = { { "filename", true, 0, "/etc/passwd", false }, { "flags", false, 0x80000, NULL, false },
			   { "$ctx.pid", false, 42, NULL, false } };
	assert_true(eval_both(f, 1, v1, 3));
	v1[1].i = 0x80001;
	assert_false(eval_both(f, 1, v1, 3));
	v1[1].i = 0;
	v1[0].s = "/usr/lib";
	assert_false(eval_both(f, 1, v1, 3));
	v1[0].s = "/etc";
	assert_false(eval_both(f, 1, v1, 3));
	v1[0].s = "/etc/";
	assert_true(eval_both(f, 1, v1, 3));
	v1[2].i = 1;
	assert_false(eval_both(f, 1, v1, 3));
	filter_free(f);

	/* string values end at their first NUL (text arrays) */
	f = parse_check("$ctx.procname == \"bash\" && ret != 0", &e);
	assert_non_null(f);
	struct kv v2[] = { { "$ctx.procname", true, 0, "bash", false }, { "ret", false, 3, NULL, false } };
	assert_true(eval_both(f, 0, v2, 2));
	filter_free(f);
	f = parse_check("$ctx.procname == \"bash\"", &e);
	assert_non_null(f);
	struct filter_values cv = { 0, comm_get, NULL };
	assert_true(filter_eval(f, &cv));
	struct filter_ir cir;
	assert_int_equal(filter_lower(f, &events[0], &cir, &e), 0);
	assert_true(filter_ir_eval(&cir, &cv));
	filter_ir_free(&cir);
	filter_free(f);

	/* two string fields */
	static const struct filter_field two[] = { { .name = "a", .type = FF_STRING },
						   { .name = "b", .type = FF_STRING } };
	struct filter_schema ev2 = { "two", 2, two, 0, NULL };
	f = filter_parse("a == b && a != \"z*\"", &e);
	assert_non_null(f);
	assert_int_equal(filter_check(f, &ev2, 1, &e), 0);
	struct kv v4[] = { { "a", true, 0, "xy", false }, { "b", true, 0, "xy", false } };
	struct valset vs = { f, v4, 2 };
	struct filter_values vv = { 0, kv_get, &vs };
	assert_true(filter_eval(f, &vv));
	struct filter_ir ir;
	assert_int_equal(filter_lower(f, &ev2, &ir, &e), 0);
	assert_true(filter_ir_eval(&ir, &vv));
	v4[1].s = "xz";
	assert_false(filter_eval(f, &vv));
	assert_false(filter_ir_eval(&ir, &vv));
	v4[0].s = "zz";
	v4[1].s = "zz";
	assert_false(filter_eval(f, &vv));
	assert_false(filter_ir_eval(&ir, &vv));
	filter_ir_free(&ir);
	filter_free(f);
}

static void expect_ops(const struct filter_ir *ir, const enum filter_ir_op *ops, size_t n)
{
	if (ir->ninsns != n) {
		filter_ir_dump(stderr, ir);
		fail_msg("%u instructions, want %zu", ir->ninsns, n);
	}
	for (size_t i = 0; i < n; i++)
		if (ir->insns[i].op != ops[i]) {
			filter_ir_dump(stderr, ir);
			fail_msg("insn %zu is %s, want %s", i, filter_ir_op_name(ir->insns[i].op), filter_ir_op_name(ops[i]));
		}
}

static void test_ir(void **state)
{
	struct filter_error e;
	struct filter_ir ir;
	struct filter *f = filter_parse("$ctx.pid == 5 && filename != \"/tmp/*\" || flags & 1", &e);
	assert_non_null(f);
	assert_int_equal(filter_lower(f, &events[1], &ir, &e), 0);
	assert_int_equal(ir.status, FILTER_EV_MATCHABLE);
	static const enum filter_ir_op want[] = {
		FIR_LOAD_CTX, FIR_CONST, FIR_EQ, FIR_AND_THEN, FIR_STR_GLOB, FIR_LNOT, FIR_BOOL,
		FIR_OR_ELSE, FIR_LOAD_FIELD, FIR_CONST, FIR_AND, FIR_BOOL, FIR_RET,
	};
	expect_ops(&ir, want, sizeof(want) / sizeof(want[0]));
	assert_int_equal(ir.insns[0].imm, 0);        /* ctx id of pid */
	assert_int_equal(ir.insns[3].off, 3);        /* AND_THEN -> the OR_ELSE */
	assert_int_equal(ir.insns[7].off, 4);        /* OR_ELSE -> RET */
	assert_int_equal(ir.insns[12].sp, 1);
	assert_int_equal(ir.max_stack, 2);
	assert_int_equal(ir.nstrs, 1);
	assert_true(ir.strs[0].glob);
	assert_string_equal(ir.strs[0].s, "/tmp/*");
	assert_int_equal(ir.naccess, 3);
	assert_int_equal(ir.access[1].top, 1);       /* filename */
	char *dump = NULL;
	size_t dlen = 0;
	FILE *m = open_memstream(&dump, &dlen);
	filter_ir_dump(m, &ir);
	fclose(m);
	assert_non_null(strstr(dump, "STR_GLOB     a1 \"/tmp/*\""));
	free(dump);
	filter_ir_free(&ir);

	/* an event without the fields: "CONST 0; RET" */
	assert_int_equal(filter_lower(f, &events[0], &ir, &e), 0);
	assert_int_equal(ir.status, FILTER_EV_MISSING);
	static const enum filter_ir_op never[] = { FIR_CONST, FIR_RET };
	expect_ops(&ir, never, 2);
	filter_ir_free(&ir);
	filter_free(f);

	/* mistyped for this event */
	f = filter_parse("name == 1", &e);
	assert_int_equal(filter_lower(f, &events[3], &ir, &e), 0);
	assert_int_equal(ir.status, FILTER_EV_MISTYPED);
	filter_ir_free(&ir);
	filter_free(f);

	/* two literals are folded; the deeper operand goes first (Sethi-Ullman) */
	f = filter_parse("\"abc\" == \"a*\" && 1 < (ret | (ret & 2))", &e);
	assert_non_null(f);
	assert_int_equal(filter_lower(f, &events[0], &ir, &e), 0);
	static const enum filter_ir_op want2[] = {
		FIR_CONST, FIR_AND_THEN, FIR_LOAD_FIELD, FIR_CONST, FIR_AND, FIR_LOAD_FIELD, FIR_OR, FIR_CONST,
		FIR_GT, FIR_BOOL, FIR_RET,
	};
	expect_ops(&ir, want2, sizeof(want2) / sizeof(want2[0]));
	assert_int_equal(ir.insns[0].imm, 1);
	assert_int_equal(ir.max_stack, 2);
	filter_ir_free(&ir);
	filter_free(f);

	/* a chain of 200 operations stays within the stack bound */
	char *s = malloc(8192);
	size_t l = 0;
	for (int i = 0; i < 200; i++)
		l += (size_t)sprintf(s + l, "%s(ret|%d)", i ? "&" : "", i);
	l += (size_t)sprintf(s + l, "==0");
	f = filter_parse(s, &e);
	assert_non_null(f);
	assert_int_equal(filter_lower(f, &events[0], &ir, &e), 0);
	assert_true(ir.max_stack <= 3);
	filter_ir_free(&ir);
	filter_free(f);

	/* right-nested shifts cannot be reordered: past the bound, lowering refuses */
	l = 0;
	for (int i = 0; i < FILTER_IR_MAX_STACK; i++)
		l += (size_t)sprintf(s + l, "ret << (");
	l += (size_t)sprintf(s + l, "ret");
	for (int i = 0; i < FILTER_IR_MAX_STACK; i++)
		s[l++] = ')';
	s[l] = 0;
	f = filter_parse(s, &e);
	assert_non_null(f);
	assert_int_equal(filter_lower(f, &events[0], &ir, &e), -1);
	assert_non_null(strstr(e.msg, "stack slots"));
	filter_free(f);
	free(s);
}

/* ---- differential test: random expressions x random values, AST vs IR ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static const struct filter_field r_st[] = { { .name = "x", .type = FF_INT, .is_signed = true },
					    { .name = "y", .type = FF_STRING } };
static const struct filter_field r_fields[] = {
	{ .name = "i0", .type = FF_INT, .is_signed = true },
	{ .name = "i1", .type = FF_INT },
	{ .name = "i2", .type = FF_INT, .is_signed = true },
	{ .name = "s0", .type = FF_STRING },
	{ .name = "s1", .type = FF_STRING },
	{ .name = "st", .type = FF_STRUCT, .members = r_st, .nmembers = 2 },
	{ .name = "seq", .type = FF_SEQUENCE, .elem = &int_elem },
	{ .name = "arr", .type = FF_ARRAY, .length = 3, .elem = &int_elem },
};
static const struct filter_schema r_event = { "random", 8, r_fields, 3, ctx_std };

static const char *const int_atoms[] = { "i0", "i1", "i2", "st.x", "seq[0]", "seq[2]", "arr[1]", "$ctx.pid",
					 "0", "1", "2", "-1", "63", "64", "0x7fffffffffffffff",
					 "0x8000000000000000", "017", "0xff" };
static const char *const str_atoms[] = { "s0", "s1", "st.y", "$ctx.procname" };
static const char *const lit_atoms[] = { "\"\"", "\"abc\"", "\"a*\"", "\"*c\"", "\"a*c\"", "\"a\\*c\"", "\"*\"",
					 "\"/etc/*\"", "'x'", "\"a\\\\*\"" };
static const char *const bin_ops[] = { "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "&&", "||" };
static const char *const un_ops[] = { "-", "+", "!", "~" };

static void gen_expr(char *buf, size_t n, size_t *l, int depth)
{
#define PUT(...) (*l += (size_t)snprintf(buf + *l, *l < n ? n - *l : 0, __VA_ARGS__))
	unsigned r = (unsigned)(rnd() % 100);
	if (depth <= 0 || r < 25) {
		PUT("%s", int_atoms[rnd() % (sizeof(int_atoms) / sizeof(int_atoms[0]))]);
	} else if (r < 40) {
		const char *s = str_atoms[rnd() % (sizeof(str_atoms) / sizeof(str_atoms[0]))];
		const char *t = rnd() % 4 ? lit_atoms[rnd() % (sizeof(lit_atoms) / sizeof(lit_atoms[0]))]
					  : str_atoms[rnd() % (sizeof(str_atoms) / sizeof(str_atoms[0]))];
		if (rnd() % 2)
			PUT("(%s %s %s)", s, rnd() % 2 ? "==" : "!=", t);
		else
			PUT("(%s %s %s)", t, rnd() % 2 ? "==" : "!=", s);
	} else if (r < 52) {
		PUT("%s", un_ops[rnd() % (sizeof(un_ops) / sizeof(un_ops[0]))]);
		gen_expr(buf, n, l, depth - 1);
	} else {
		bool paren = rnd() % 3 == 0;
		if (paren)
			PUT("(");
		gen_expr(buf, n, l, depth - 1);
		PUT(" %s ", bin_ops[rnd() % (sizeof(bin_ops) / sizeof(bin_ops[0]))]);
		gen_expr(buf, n, l, depth - 1);
		if (paren)
			PUT(")");
	}
#undef PUT
}

struct rvals {
	int64_t ints[16];
	const char *strs[8];
	uint32_t seqlen;
	bool absent_str;
};

static int r_get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	const struct rvals *rv = arg;
	/* value keyed by the path, so AST and IR see the same values */
	uint32_t key = a->is_ctx ? 100 + a->top : a->top * 8;
	for (uint8_t i = 0; i < a->nsteps; i++) {
		if (a->steps[i].kind == FILTER_STEP_INDEX && !a->is_ctx && a->top == 6 &&
		    a->steps[i].index >= rv->seqlen)
			return -1;
		key = key * 31 + a->steps[i].index + 1;
	}
	if (a->type == FF_STRING) {
		if (rv->absent_str && key % 3 == 0)
			return -1;
		out->s = rv->strs[key % 8];
		out->len = strlen(out->s);
	} else {
		out->i = rv->ints[key % 16];
	}
	return 0;
}

static void test_differential(void **state)
{
	static const int64_t interesting[] = { 0, 1, -1, 2, 3, 63, 64, -64, 255, INT64_MIN, INT64_MAX, 0x7f, 17 };
	static const char *const strs[] = { "", "abc", "a*c", "ac", "/etc/passwd", "x", "a\\b", "abcabc", "*" };
	int parsed = 0, checked = 0, evals = 0, trues = 0;
	char buf[4096];
	for (int it = 0; it < 6000; it++) {
		size_t l = 0;
		gen_expr(buf, sizeof(buf), &l, 1 + (int)(rnd() % 6));
		if (l >= sizeof(buf))
			continue;
		struct filter_error e;
		struct filter *f = filter_parse(buf, &e);
		if (!f) {
			assert_true(e.offset <= strlen(buf));
			continue;
		}
		parsed++;
		if (filter_check(f, &r_event, 1, &e)) {
			filter_free(f);
			continue;
		}
		checked++;
		struct filter_ir ir;
		if (filter_lower(f, &r_event, &ir, &e))
			fail_msg("lower '%s': %s", buf, e.msg);
		assert_true(ir.max_stack <= FILTER_IR_MAX_STACK);
		assert_true(ir.ninsns <= FILTER_IR_MAX_INSNS);
		for (int k = 0; k < 8; k++) {
			struct rvals rv;
			for (int i = 0; i < 16; i++)
				rv.ints[i] = rnd() % 3 ? interesting[rnd() % (sizeof(interesting) / sizeof(interesting[0]))]
						       : (int64_t)rnd();
			for (int i = 0; i < 8; i++)
				rv.strs[i] = strs[rnd() % (sizeof(strs) / sizeof(strs[0]))];
			rv.seqlen = (uint32_t)(rnd() % 4);
			rv.absent_str = rnd() % 8 == 0;
			struct filter_values v = { 0, r_get, &rv };
			bool a = filter_eval(f, &v), b = filter_ir_eval(&ir, &v);
			if (a != b) {
				filter_ir_dump(stderr, &ir);
				fail_msg("'%s': AST %d, IR %d", buf, a, b);
			}
			evals++;
			trues += a;
		}
		filter_ir_free(&ir);
		filter_free(f);
	}
	print_message("differential: %d parsed, %d checked, %d evaluations, %d true\n", parsed, checked, evals, trues);
	assert_true(checked > 1000);
	assert_true(trues > evals / 10 && trues < evals - evals / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_ir),
		cmocka_unit_test(test_differential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
