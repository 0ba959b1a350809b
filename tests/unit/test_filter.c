/* test_filter.c — LTTng's filter language (src/filter), the front end: precedence,
 * operators, literals, globs, syntax errors with their positions, limits, error printing */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "filter_test_util.h"

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

/* $ctx.container (filter/container.c): what needs no container on the machine */
static void test_containers(void **state)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "$ctx.container == 1", "$ctx.container compares only with == or != against a string" },
		{ "$ctx.container", "$ctx.container compares only with" },
		{ "$ctx.container == $ctx.procname", "$ctx.container compares only with" },
		{ "$ctx.pid == 1 && \"no such id*\" != $ctx.container", "no container's id matches 'no such id*'" },
	};
	struct filter_error e;
	struct filter *f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_non_null(f = filter_parse(bad[i].text, &e));
		memset(&e, 0, sizeof(e));
		assert_int_equal(filter_containers(f, &e), -1);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("%s: %s", bad[i].text, e.msg);
		filter_free(f);
	}
	assert_non_null(f = filter_parse("$ctx.pid == 1 && a == \"x*\"", &e));   /* nothing to do */
	assert_int_equal(filter_containers(f, &e), 0);
	char buf[256];
	size_t l = 0;
	render(f, f->root, buf, sizeof(buf), &l);
	assert_string_equal(buf, "(($ctx.pid == 1) && (a == \"x*\"g))");
	filter_free(f);
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
		cmocka_unit_test(test_containers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
