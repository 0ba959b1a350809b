/* test_optable.c — options parsed by their table (src/cli/optable.c): long and short
 * spellings (glued, separate, --name=value, unambiguous prefixes), optional arguments, the
 * parse stopping at the first operand and at "--", an option outside the table refused with
 * the caller's message, and the first error of an option's function returned as it is; the
 * named variant (scry trace's) with getopt's errors spelled out and --help ending the parse. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "cli/optable.h"

struct seen {
	char log[256];
	int calls;
};

static int note(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct seen *s = args;
	size_t n = strlen(s->log);

	s->calls++;
	snprintf(s->log + n, sizeof(s->log) - n, "%s%c%s", n ? " " : "", key < 256 ? key : '#',
		 arg ? arg : "-");
	return 0;
}

static int refuse(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct seen *)args)->calls++;
	snprintf(err, errlen, "bad value '%s'", arg);
	return -EINVAL;
}

static const struct cli_opt opts[] = {
	{ "output", 'o', required_argument, note },
	{ "all", 'a', no_argument, note },
	{ "live", 300, optional_argument, note },
	{ "level", 'l', optional_argument, note },
	{ "bad", 301, required_argument, refuse },
	{ NULL, 'x', no_argument, note },
};
#define NOPTS (sizeof(opts) / sizeof(opts[0]))

static int parse(struct seen *s, char *err, int argc, char **argv)
{
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return cli_opts_parse(opts, NOPTS, argc, argv, s, "invalid option (see --help)", err, 128);
}

static void test_spellings(void **state)
{
	char *argv[] = { "cmd", "-o", "d1", "-od2", "--output", "d3", "--output=d4", "--out", "d5", "-ax",
			 "--live", "--live=7", "--li=8", "-l", "-l9", "--level=3", "cmd", "-a", NULL };
	struct seen s;
	char err[128];

	assert_int_equal(parse(&s, err, 18, argv), 0);
	assert_string_equal(s.log, "od1 od2 od3 od4 od5 a- x- #- #7 #8 l- l9 l3");
	assert_int_equal(optind, 16);   /* the operand "cmd": the rest is its own */
	assert_string_equal(err, "");
}

static void test_double_dash(void **state)
{
	char *argv[] = { "cmd", "-a", "--", "-o", "x", NULL };
	struct seen s;
	char err[128];

	assert_int_equal(parse(&s, err, 5, argv), 0);
	assert_string_equal(s.log, "a-");
	assert_int_equal(optind, 3);
}

static void test_refused(void **state)
{
	char *unknown[] = { "cmd", "-a", "--nope", "-o", "x", NULL };
	char *missing[] = { "cmd", "-o", NULL };
	char *bad[] = { "cmd", "--bad", "v1", "-a", "--bad=v2", NULL };
	char *ambiguous[] = { "cmd", "--l", "x", NULL };
	struct seen s;
	char err[128];

	opterr = 0;
	assert_int_equal(parse(&s, err, 5, unknown), -EINVAL);
	assert_string_equal(err, "invalid option (see --help)");
	assert_string_equal(s.log, "a-");          /* nothing after it applied */
	assert_int_equal(parse(&s, err, 2, missing), -EINVAL);
	assert_string_equal(err, "invalid option (see --help)");
	assert_int_equal(s.calls, 0);
	assert_int_equal(parse(&s, err, 5, bad), -EINVAL);
	assert_string_equal(err, "bad value 'v1'");  /* the first error, the parse stopped there */
	assert_int_equal(s.calls, 1);
	assert_int_equal(parse(&s, err, 3, ambiguous), -EINVAL);   /* --live or --level */
	assert_int_equal(s.calls, 0);
	opterr = 1;
}

static int stop(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct seen *)args)->calls++;
	return 1;
}

static const struct cli_opt named_opts[] = {
	{ "output", 'o', required_argument, note },
	{ "all", 'a', no_argument, note },
	{ "help", 'h', no_argument, stop },
	{ "daemonize", 302, optional_argument, note },
	{ NULL, 'D', no_argument, note },
};

/* cli_opts_parse_named: getopt's errors named as strace's spellings need them, a function's
 * 1 ending the parse with 0, a letter and a long word of one meaning as two entries. */
static int parse_named(struct seen *s, char *err, int argc, char **argv)
{
	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return cli_opts_parse_named(named_opts, sizeof(named_opts) / sizeof(named_opts[0]), argc, argv, s,
				    "cmd --help", err, 128);
}

static void test_named(void **state)
{
	char *letter[] = { "cmd", "-aQ", NULL };
	char *word[] = { "cmd", "--nope", NULL };
	char *noarg[] = { "cmd", "--all=1", NULL };
	char *missing[] = { "cmd", "-ao", NULL };
	char *missing_long[] = { "cmd", "--output", NULL };
	char *help[] = { "cmd", "-ahQ", NULL };
	char *after[] = { "cmd", "-DDD", "--daemonize=2", "--daemonize", "x", NULL };
	struct seen s;
	char err[128];

	assert_int_equal(parse_named(&s, err, 2, letter), -EINVAL);
	assert_string_equal(err, "invalid option '-Q' (see cmd --help)");
	assert_int_equal(parse_named(&s, err, 2, word), -EINVAL);
	assert_string_equal(err, "invalid option '--nope' (see cmd --help)");
	assert_int_equal(parse_named(&s, err, 2, noarg), -EINVAL);
	assert_string_equal(err, "invalid option '-a' (see cmd --help)");   /* getopt names its letter */
	assert_int_equal(parse_named(&s, err, 2, missing), -EINVAL);
	assert_string_equal(err, "option '-ao' needs an argument");
	assert_int_equal(parse_named(&s, err, 2, missing_long), -EINVAL);
	assert_string_equal(err, "option '--output' needs an argument");
	assert_int_equal(parse_named(&s, err, 2, help), 0);
	assert_string_equal(s.log, "a-");           /* ended at -h: "Q" not read */
	assert_int_equal(s.calls, 2);
	assert_int_equal(parse_named(&s, err, 5, after), 0);   /* the "Q" left is not resumed */
	assert_string_equal(s.log, "D- D- D- #2 #-");
	assert_int_equal(optind, 4);
	assert_string_equal(err, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spellings),
		cmocka_unit_test(test_double_dash),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
