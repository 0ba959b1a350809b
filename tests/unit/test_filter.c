/* test_filter.c — the filter language (src/filter/): precedence, every operator, integer and
 * string literals, escapes, globs, errors with exact positions, the checker against event
 * schemas, evaluation, the IR (shape, bounds) and a differential test of AST evaluation
 * against IR evaluation over random expressions and values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "filter/internal.h"

/* ---- helpers ---- */

/* Fully parenthesized rendering of the AST. */
static void render(const struct filter *f, uint32_t ni, char *buf, size_t n, size_t *l)
{
	const struct node *nd = &f->nodes[ni];
#define PUT(...) (*l += (size_t)snprintf(buf + *l, *l < n ? n - *l : 0, __VA_ARGS__))
	switch (nd->kind) {
	case N_INT:
		PUT("%lld", (long long)nd->ival);
		break;
	case N_STR:
		PUT("\"%s\"%s", f->strs[nd->idx].s, f->strs[nd->idx].glob ? "g" : "");
		break;
	case N_REF:
		PUT("%s", f->refs[nd->idx].text);
		break;
	case N_UNARY:
		PUT("(%.*s ", (int)nd->len, f->text + nd->pos);
		render(f, nd->a, buf, n, l);
		PUT(")");
		break;
	default:
		PUT("(");
		render(f, nd->a, buf, n, l);
		PUT(" %.*s ", (int)nd->len, f->text + nd->pos);
		render(f, nd->b, buf, n, l);
		PUT(")");
	}
#undef PUT
}

static void assert_tree(const char *text, const char *want)
{
	struct filter_error e;
	struct filter *f = filter_parse(text, &e);
	if (!f)
		fail_msg("parse '%s': %s at %zu", text, e.msg, e.offset);
	char buf[1024];
	size_t l = 0;
	render(f, f->root, buf, sizeof(buf), &l);
	if (strcmp(buf, want))
		fail_msg("'%s' parsed as %s, want %s", text, buf, want);
	filter_free(f);
}

/* Values for evaluation: by reference text. */
struct kv {
	const char *ref;
	bool is_str;
	int64_t i;
	const char *s;
	bool absent;
};

struct valset {
	const struct filter *f;
	const struct kv *kv;
	size_t n;
};

static int kv_get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	struct valset *vs = arg;
	const char *name = filter_ref_text(vs->f, a->ref);
	for (size_t i = 0; i < vs->n; i++) {
		if (strcmp(vs->kv[i].ref, name))
			continue;
		if (vs->kv[i].absent)
			return -1;
		if (vs->kv[i].is_str) {
			out->s = vs->kv[i].s;
			out->len = strlen(vs->kv[i].s);
		} else {
			out->i = vs->kv[i].i;
		}
		return 0;
	}
	return -1;
}

/* ---- schemas used by the checker tests ---- */

static const struct filter_field ctx_std[] = {
	{ .name = "pid", .type = FF_INT, .is_signed = true },
	{ .name = "tid", .type = FF_INT, .is_signed = true },
	{ .name = "procname", .type = FF_STRING },
};

static const struct filter_field f_exit_read[] = {
	{ .name = "ret", .type = FF_INT, .is_signed = true },
};

static const struct filter_field f_openat[] = {
	{ .name = "dfd", .type = FF_INT, .is_signed = true },
	{ .name = "filename", .type = FF_STRING },
	{ .name = "flags", .type = FF_INT },
	{ .name = "mode", .type = FF_INT },
};

static const struct filter_field int_elem = { .type = FF_INT, .is_signed = true };
static const struct filter_field inner_m[] = { { .name = "x", .type = FF_INT } };
static const struct filter_field s_members[] = {
	{ .name = "a", .type = FF_INT },
	{ .name = "b", .type = FF_STRING },
	{ .name = "inner", .type = FF_STRUCT, .members = inner_m, .nmembers = 1 },
};
static const struct filter_field v_member[] = { { .name = "v", .type = FF_INT } };
static const struct filter_field sarr_elem = { .type = FF_STRUCT, .members = v_member, .nmembers = 1 };
static const struct filter_field f_complex[] = {
	{ .name = "s", .type = FF_STRUCT, .members = s_members, .nmembers = 3 },
	{ .name = "arr", .type = FF_ARRAY, .length = 4, .elem = &int_elem },
	{ .name = "sarr", .type = FF_ARRAY, .length = 2, .elem = &sarr_elem },
	{ .name = "seq", .type = FF_SEQUENCE, .elem = &int_elem },
	{ .name = "f", .type = FF_OTHER },
};
static const struct filter_field f_name_str[] = { { .name = "name", .type = FF_STRING } };
static const struct filter_field f_name_int[] = { { .name = "name", .type = FF_INT } };

static const struct filter_schema events[] = {
	{ "syscall_exit_read", 1, f_exit_read, 3, ctx_std },
	{ "syscall_entry_openat", 4, f_openat, 2, ctx_std },   /* no procname context */
	{ "complex", 5, f_complex, 0, NULL },
	{ "named_str", 1, f_name_str, 0, NULL },
	{ "named_int", 1, f_name_int, 0, NULL },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* Parse + check; returns f or NULL with e. */
static struct filter *parse_check(const char *text, struct filter_error *e)
{
	struct filter *f = filter_parse(text, e);
	if (!f)
		return NULL;
	if (filter_check(f, events, NEVENTS, e)) {
		filter_free(f);
		return NULL;
	}
	return f;
}

/* Evaluate a checked filter for event ev both ways (AST and IR); they must agree. */
static bool eval_both(struct filter *f, size_t ev, const struct kv *kv, size_t n)
{
	struct valset vs = { f, kv, n };
	struct filter_values v = { ev, kv_get, &vs };
	bool a = filter_eval(f, &v);
	struct filter_ir ir;
	struct filter_error e;
	if (filter_lower(f, &events[ev], &ir, &e))
		fail_msg("lower '%s': %s", f->text, e.msg);
	bool b = filter_ir_eval(&ir, &v);
	if (a != b) {
		filter_ir_dump(stderr, &ir);
		fail_msg("'%s': AST says %d, IR says %d", f->text, a, b);
	}
	filter_ir_free(&ir);
	return a;
}

/* A filter without references: evaluate, both ways. */
static bool const_eval(const char *text)
{
	struct filter_error e;
	struct filter *f = filter_parse(text, &e);
	if (!f)
		fail_msg("parse '%s': %s at %zu", text, e.msg, e.offset);
	struct filter_values v = { 0, kv_get, NULL };
	bool a = filter_eval(f, &v);
	struct filter_schema none = { "none", 0, NULL, 0, NULL };
	struct filter_ir ir;
	if (filter_lower(f, &none, &ir, &e))
		fail_msg("lower '%s': %s", text, e.msg);
	bool b = filter_ir_eval(&ir, &v);
	if (a != b)
		fail_msg("'%s': AST says %d, IR says %d", text, a, b);
	filter_ir_free(&ir);
	filter_free(f);
	return a;
}

struct err_case {
	const char *text;
	size_t off, len;
	const char *msg;       /* substring of the message */
};

static void check_errors(const struct err_case *c, size_t n, bool check)
{
	for (size_t i = 0; i < n; i++) {
		struct filter_error e;
		memset(&e, 0x5a, sizeof(e));
		struct filter *f = check ? parse_check(c[i].text, &e) : filter_parse(c[i].text, &e);
		if (f)
			fail_msg("'%s': accepted, expected error '%s'", c[i].text, c[i].msg);
		if (e.offset != c[i].off || e.len != c[i].len || !strstr(e.msg, c[i].msg))
			fail_msg("'%s': got \"%s\" at %zu+%zu, want \"%s\" at %zu+%zu", c[i].text, e.msg, e.offset,
				 e.len, c[i].msg, c[i].off, c[i].len);
		assert_null(strchr(e.msg, '\n'));
	}
}

/* ---- tests ---- */

static void test_precedence(void **state)
{
	assert_tree("a & 1 == 1", "((a & 1) == 1)");
	assert_tree("!a == 1", "((! a) == 1)");
	assert_tree("a || b && c", "(a || (b && c))");
	assert_tree("a && b || c", "((a && b) || c)");
	assert_tree("a | b ^ c & d", "(a | (b ^ (c & d)))");
	assert_tree("a << 1 & 3", "((a << 1) & 3)");
	assert_tree("a & b << 1", "(a & (b << 1))");
	assert_tree("a < b == c > d", "((a < b) == (c > d))");
	assert_tree("a == b != c", "((a == b) != c)");
	assert_tree("a < b < c", "((a < b) < c)");
	assert_tree("a | 1 < 2", "((a | 1) < 2)");
	assert_tree("a ^ 1 >= 2", "((a ^ 1) >= 2)");
	assert_tree("a >> 1 << 2", "((a >> 1) << 2)");
	assert_tree("-~!a", "(- (~ (! a)))");
	assert_tree("+a == -1", "((+ a) == (- 1))");
	assert_tree("(a || b) && c", "((a || b) && c)");
	assert_tree("!(a == 1)", "(! (a == 1))");
	assert_tree("a.b[3].c == x->y", "(a.b[3].c == x.y)");
	assert_tree("arr[0x10] != arr [ 010 ]", "(arr[16] != arr[8])");
	assert_tree("$ctx.procname == \"ba*\"", "($ctx.procname == \"ba*\"g)");
	assert_tree("a==1&&b!=2||!c", "(((a == 1) && (b != 2)) || (! c))");
	assert_tree("\n\ta\r\n==\v1\f", "(a == 1)");
}

static void test_operators(void **state)
{
	static const struct {
		const char *text;
		bool want;
	} c[] = {
		{ "1 == 1", true }, { "1 == 2", false },
		{ "1 != 2", true }, { "1 != 1", false },
		{ "-1 < 0", true }, { "0 < -1", false },
		{ "1 <= 1", true }, { "2 <= 1", false },
		{ "2 > 1", true }, { "1 > 1", false },
		{ "1 >= 1", true }, { "0 >= 1", false },
		{ "2 & 2 == 2", true },             /* LTTng: bitwise before comparison */
		{ "(2 & 2) == 2", true },
		{ "2 & (2 == 2)", false },
		{ "5 ^ 3 == 6", true },
		{ "6 | 1 == 7", true },
		{ "16 >> 4 == 1", true },
		{ "1 << 4 == 16", true },
		{ "1 << 63 < 0", true },            /* int64 */
		{ "-1 >> 63 == 1", true },          /* logical shift on uint64 */
		{ "~0 == -1", true },
		{ "~0 == 0xffffffffffffffff", true },
		{ "0x8000000000000000 < 0", true },
		{ "18446744073709551615 == -1", true },
		{ "-9223372036854775808 == 0x8000000000000000", true },
		{ "- -5 == 5", true },
		{ "+3 == 3", true },
		{ "!0", true }, { "!5", false }, { "!5 == 0", true }, { "!!7 == 1", true },
		{ "7", true }, { "0", false }, { "-1", true },
		{ "1 && 2", true }, { "1 && 0", false }, { "0 || 0", false }, { "0 || 3", true },
		{ "(1 && 2) == 1", true }, { "(0 || 5) == 1", true },
		{ "1 << 64", false },               /* shift count out of range: whole expression false */
		{ "1 << -1 == 0 || 1", false },
		{ "!(1 >> 64)", false },
		{ "1 || 1 << 64", true },           /* not evaluated */
		{ "!(0 && 1 << 64)", true },
		{ "1 << 63 >> 63 == 1", true },
		{ "10 == 0xa && 0XA == 10 && 017 == 15 && 0 == 00 && 0x1F == 31", true },
		{ "10u == 10 && 10UL == 10 && 10llu == 10 && 0x10L == 16", true },
		{ "\"abc\" == \"abc\"", true }, { "\"abc\" != \"abc\"", false },
		{ "\"abc\" == \"abd\"", false }, { "\"\" == \"\"", true },
		{ "\"a*\" == \"abc\"", true }, { "\"abc\" == \"a*\"", true },
		{ "\"abc\" == \"a*c\"", true }, { "\"abc\" == \"*c\"", true },
		{ "\"abc\" == \"*b\"", false }, { "\"abc\" != \"*b\"", true },
		{ "\"/etc/passwd\" == \"/etc/*\"", true }, { "\"/etc/passwd\" == \"*passwd\"", true },
		{ "\"axxbyyc\" == \"a*b*c\"", true }, { "\"acb\" == \"a*b*c\"", false },
		{ "\"abc\" == \"*\"", true }, { "\"\" == \"*\"", true }, { "\"\" == \"**\"", true },
		{ "\"*\" == \"\\*\"", true },       /* left is a glob matching the plain string "*" */
		{ "\"x\" == \"\\*\"", false },
		{ "\"a*\" == 'a\\*'", true },
		{ "'it\\'s' == \"it's\"", true },
		{ "\"say \\\"hi\\\"\" == 'say \"hi\"'", true },
		{ "\"a\\\\b\" == 'a\\\\b'", true },
		{ "\"a\\\\b\" == \"a\\\\*\"", true },   /* pattern: a, literal backslash, wildcard */
		{ "\"a\\\\\" == \"a\\\\*\"", true },
		{ "\"ab\" == \"a\\\\*\"", false },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (const_eval(c[i].text) != c[i].want)
			fail_msg("'%s' should be %s", c[i].text, c[i].want ? "true" : "false");
}

static void test_literals(void **state)
{
	struct filter_error e;
	struct filter *f = filter_parse("\"a\\*b\\\\c*\" == x", &e);
	assert_non_null(f);
	assert_int_equal(f->nstrs, 1);
	assert_true(f->strs[0].glob);
	assert_string_equal(f->strs[0].s, "a\\*b\\\\c*");      /* glob syntax kept */
	filter_free(f);
	f = filter_parse("\"a\\*b\\\\c\" == x", &e);
	assert_non_null(f);
	assert_false(f->strs[0].glob);
	assert_string_equal(f->strs[0].s, "a*b\\c");           /* plain: unescaped */
	filter_free(f);
	char big[300];
	memset(big, 'x', sizeof(big));
	big[0] = '"';
	big[FILTER_MAX_STRING + 1] = '"';
	memcpy(big + FILTER_MAX_STRING + 2, " == x", 6);
	f = filter_parse(big, &e);
	assert_non_null(f);
	assert_int_equal(f->strs[0].len, FILTER_MAX_STRING);
	filter_free(f);
}

static void test_glob(void **state)
{
	static const struct {
		const char *pat, *s;
		bool want;
	} c[] = {
		{ "", "", true }, { "", "a", false }, { "*", "", true }, { "*", "anything", true },
		{ "a*", "a", true }, { "a*", "ba", false }, { "*a", "ba", true }, { "*a", "ab", false },
		{ "a*b*c", "abc", true }, { "a*b*c", "aXbYc", true }, { "a*b*c", "aXbYcZ", false },
		{ "a*b*c", "abcbc", true }, { "*ab*ab*", "xabyabz", true }, { "*ab*ab*", "xabz", false },
		{ "\\*", "*", true }, { "\\*", "a", false }, { "a\\*", "a*", true }, { "a\\*", "ab", false },
		{ "\\\\*", "\\x", true }, { "\\\\*", "x", false }, { "**a**", "bab", true },
		{ "*aaa*", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", true }, { "a*a*a*a*b", "aaaaaaaaaaaaaaa", false },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (filter_glob_match(c[i].pat, strlen(c[i].pat), c[i].s, strlen(c[i].s)) != c[i].want)
			fail_msg("glob '%s' on '%s' should be %d", c[i].pat, c[i].s, c[i].want);
}

static void test_syntax_errors(void **state)
{
	static const struct err_case c[] = {
		{ "ret < 0)", 7, 1, "unexpected ')'" },
		{ "", 0, 0, "empty filter expression" },
		{ "   ", 3, 0, "empty filter expression" },
		{ "a ==", 4, 0, "unexpected end of expression" },
		{ "(a == 1", 0, 1, "missing ')' for this '('" },
		{ "(a == 1 b", 8, 1, "expected ')'" },
		{ "a b", 2, 1, "unexpected 'b'" },
		{ "a = 1", 2, 1, "'=' is not an operator (did you mean '=='?)" },
		{ "a * 2", 2, 1, "arithmetic operators are not supported" },
		{ "a + 2", 2, 1, "'+': arithmetic operators are not supported" },
		{ "(a - 2)", 3, 1, "'-': arithmetic operators are not supported" },
		{ "a[1+2]", 3, 1, "'+': arithmetic" },
		{ "a / 2", 2, 1, "arithmetic" },
		{ "a % 2", 2, 1, "arithmetic" },
		{ "\"abc", 0, 1, "unterminated string literal" },
		{ "x == 'abc\\", 5, 1, "unterminated string literal" },
		{ "x == \"a\\nb\"", 7, 2, "unsupported escape sequence" },
		{ "x == \"a\\x41\"", 7, 2, "unsupported escape sequence" },
		{ "a[b] == 1", 2, 1, "an array index must be an integer constant" },
		{ "a[1 == 1", 4, 2, "unexpected '=='" },
		{ "a[] == 1", 2, 1, "expected an array index" },
		{ "a[4294967296] == 1", 2, 10, "array index too large" },
		{ "a. == 1", 3, 2, "expected a field name" },
		{ "a.b.c.d.e.f.g.h.i == 1", 15, 1, "more than 8 parts" },
		{ "$app.prov:ctx == 1", 0, 4, "$app contexts are not supported" },
		{ "$foo.x == 1", 0, 4, "unknown '$foo'" },
		{ "$ctx == 1", 5, 2, "expected '.' and a context name" },
		{ "$ctx.", 5, 0, "unexpected end of expression" },
		{ "$ctx.pid.x == 1", 8, 1, "a context has no members" },
		{ "$ctx.pid[0] == 1", 8, 1, "a context has no members" },
		{ "$ == 1", 0, 1, "'$' must start a context reference" },
		{ "a # b", 2, 1, "unexpected '#'" },
		{ "a == \x01", 5, 1, "unexpected byte 0x01" },
		{ "a == 18446744073709551616", 5, 20, "does not fit in 64 bits" },
		{ "a == 08", 6, 1, "invalid digit '8' in octal constant" },
		{ "a == 0x", 5, 2, "hexadecimal constant without digits" },
		{ "a == 0xg", 5, 2, "hexadecimal constant without digits" },
		{ "a == 1.5", 5, 3, "floating-point constants are not supported" },
		{ "a == 1e3", 5, 3, "floating-point" },
		{ "a == 10q", 7, 1, "invalid suffix 'q'" },
		{ "a == 10uu", 7, 2, "invalid suffix 'uu'" },
		{ "a == 1abc", 6, 3, "invalid suffix 'abc'" },
		{ "!", 1, 0, "unexpected end of expression" },
		{ "a == 1 &&", 9, 0, "unexpected end of expression" },
		{ "()", 1, 1, "unexpected ')'" },
		{ "a ==== 1", 4, 2, "unexpected '=='" },
		/* literal-only type errors are found by the parser */
		{ "1 == \"a\"", 2, 2, "cannot compare a string with an integer" },
		{ "\"a\" < \"b\"", 4, 1, "strings cannot be compared with '<'" },
		{ "x >= \"b\"", 2, 2, "strings cannot be compared with '>='" },
		{ "x == 1 && \"a*\" <= y", 15, 2, "strings cannot be compared with '<='" },
		{ "\"a*\" == \"b*\"", 5, 2, "cannot compare two glob patterns" },
		{ "~\"a\" == 1", 1, 3, "'~' needs an integer here, not a string" },
		{ "-'a' == 1", 1, 3, "'-' needs an integer here, not a string" },
		{ "!\"x\"", 1, 3, "'!' needs an integer here, not a string" },
		{ "x & \"a\"", 4, 3, "'&' needs an integer here" },
		{ "\"a\" << 1", 0, 3, "'<<' needs an integer here" },
		{ "a && \"x\"", 5, 3, "'&&' needs an integer here" },
		{ "(\"x\") || a", 0, 5, "'||' needs an integer here" },
		{ "\"a\"", 0, 3, "a string alone is not a condition" },
		{ "(('a'))", 0, 7, "a string alone is not a condition" },
	};
	check_errors(c, sizeof(c) / sizeof(c[0]), false);
}

static void test_limits(void **state)
{
	struct filter_error e;
	char *s = malloc(16384);
	assert_non_null(s);

	/* nesting of parentheses and unary operators */
	size_t l = 0;
	for (int i = 0; i < FILTER_MAX_DEPTH; i++)
		s[l++] = '(';
	s[l++] = 'a';
	for (int i = 0; i < FILTER_MAX_DEPTH; i++)
		s[l++] = ')';
	s[l] = 0;
	struct filter *f = filter_parse(s, &e);
	assert_non_null(f);
	filter_free(f);
	memmove(s + 1, s, l + 1);
	s[0] = '(';
	strcat(s, ")");
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "nested too deeply"));
	assert_int_equal(e.offset, FILTER_MAX_DEPTH);
	l = 0;
	for (int i = 0; i < 1000; i++)
		s[l++] = '!';
	strcpy(s + l, "a");
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "nested too deeply"));

	/* tree height: a long chain of || */
	l = 0;
	for (int i = 0; i < FILTER_MAX_HEIGHT + 5; i++)
		l += (size_t)sprintf(s + l, "%sa", i ? "|" : "");
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "chain"));
	assert_int_equal(e.offset, 2 * FILTER_MAX_HEIGHT - 1);
	/* ...the longest allowed chain works */
	l = 0;
	for (int i = 0; i < FILTER_MAX_HEIGHT - 1; i++)
		l += (size_t)sprintf(s + l, "%s1", i ? "|" : "");
	assert_true(const_eval(s));

	/* node count: three chains of 200 */
	l = 0;
	for (int c = 0; c < 3; c++) {
		l += (size_t)sprintf(s + l, "%s(", c ? "|" : "");
		for (int i = 0; i < 200; i++)
			l += (size_t)sprintf(s + l, "%s1", i ? "|" : "");
		l += (size_t)sprintf(s + l, ")");
	}
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "too complex"));

	/* text length */
	memset(s, ' ', FILTER_MAX_TEXT + 1);
	s[0] = 'a';
	s[FILTER_MAX_TEXT + 1] = 0;
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "longer than 4096 bytes"));
	s[FILTER_MAX_TEXT] = 0;
	f = filter_parse(s, &e);
	assert_non_null(f);
	filter_free(f);

	/* string literal length */
	l = 0;
	s[l++] = '"';
	for (int i = 0; i < FILTER_MAX_STRING + 1; i++)
		s[l++] = 'x';
	strcpy(s + l, "\" == a");
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "longer than 255 bytes"));
	assert_int_equal(e.offset, 0);
	assert_int_equal(e.len, FILTER_MAX_STRING + 3);

	/* distinct references */
	l = 0;
	for (int i = 0; i < FILTER_MAX_REFS + 1; i++)
		l += (size_t)sprintf(s + l, "%sf%d == 0", i ? " || " : "", i);
	assert_null(filter_parse(s, &e));
	assert_non_null(strstr(e.msg, "more than 64 distinct"));
	/* the same reference many times is one reference */
	l = 0;
	for (int i = 0; i < 100; i++)
		l += (size_t)sprintf(s + l, "%sa.b[1] == %d", i ? " || " : "", i);
	f = filter_parse(s, &e);
	assert_non_null(f);
	assert_int_equal(filter_nrefs(f), 1);
	assert_string_equal(filter_ref_text(f, 0), "a.b[1]");
	filter_free(f);
	assert_null(filter_parse(NULL, &e));
	free(s);
}

static void test_error_print(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	const char *text = "ret < 0)";
	struct filter_error e;
	assert_null(filter_parse(text, &e));
	filter_error_print(m, text, &e);
	const char *text2 = "x == 1 &&\t\"a\" < y";
	assert_null(filter_parse(text2, &e));
	filter_error_print(m, text2, &e);
	const char *text3 = "\"é\" == 1";   /* caret column counts characters */
	assert_null(filter_parse(text3, &e));
	filter_error_print(m, text3, &e);
	fclose(m);
	assert_string_equal(buf,
			    "scry: filter: unexpected ')'\n"
			    "ret < 0)\n"
			    "       ^\n"
			    "scry: filter: strings cannot be compared with '<' (only == and != compare strings)\n"
			    "x == 1 && \"a\" < y\n"
			    "              ^\n"
			    "scry: filter: cannot compare a string with an integer\n"
			    "\"é\" == 1\n"
			    "    ^~\n");
	free(buf);
}

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
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_error_print),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_ir),
		cmocka_unit_test(test_differential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
