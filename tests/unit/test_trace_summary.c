/* test_trace_summary.c — the -c table (src/trace/summary.c): strace's columns, widths,
 * sorting and totals for known inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "trace/summary.h"

static char *table(const struct trace_summary *s, enum trace_sort sort)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(trace_summary_print(s, f, sort), 0);
	fclose(f);
	return buf;
}

static struct trace_summary *sample(void)
{
	struct trace_summary *s = trace_summary_new();

	assert_non_null(s);
	assert_int_equal(trace_summary_add(s, 0, "read", 3, 0, 30000), 0);
	assert_int_equal(trace_summary_add(s, 257, "openat", 4, 1, 61000), 0);
	assert_int_equal(trace_summary_add(s, 3, "close", 3, 0, 0), 0);
	assert_int_equal(trace_summary_add(s, 59, "execve", 1, 0, 130000), 0);
	return s;
}

#define HEAD "% time     seconds  usecs/call     calls    errors syscall\n" \
	     "------ ----------- ----------- --------- --------- ----------------\n"
#define DASH "------ ----------- ----------- --------- --------- ----------------\n"
#define ROW_EXECVE " 58.82    0.000130         130         1           execve\n"
#define ROW_OPENAT " 27.60    0.000061          15         4         1 openat\n"
#define ROW_READ   " 13.57    0.000030          10         3           read\n"
#define ROW_CLOSE  "  0.00    0.000000           0         3           close\n"
#define TOTAL      "100.00    0.000221          20        11         1 total\n"

static void test_table_by_time(void **state)
{
	struct trace_summary *s = sample();
	char *t = table(s, TRACE_SORT_TIME);

	assert_string_equal(t, HEAD ROW_EXECVE ROW_OPENAT ROW_READ ROW_CLOSE DASH TOTAL);
	free(t);
	trace_summary_free(s);
}

static void test_sort_orders(void **state)
{
	struct trace_summary *s = sample();
	char *t;

	/* ties in syscall number order: read (0) before close (3) */
	t = table(s, TRACE_SORT_CALLS);
	assert_string_equal(t, HEAD ROW_OPENAT ROW_READ ROW_CLOSE ROW_EXECVE DASH TOTAL);
	free(t);
	t = table(s, TRACE_SORT_NAME);
	assert_string_equal(t, HEAD ROW_CLOSE ROW_EXECVE ROW_OPENAT ROW_READ DASH TOTAL);
	free(t);
	t = table(s, TRACE_SORT_NOTHING);
	assert_string_equal(t, HEAD ROW_READ ROW_CLOSE ROW_EXECVE ROW_OPENAT DASH TOTAL);
	free(t);
	t = table(s, TRACE_SORT_ERRORS);
	assert_string_equal(t, HEAD ROW_OPENAT ROW_READ ROW_CLOSE ROW_EXECVE DASH TOTAL);
	free(t);
	t = table(s, TRACE_SORT_AVG);
	assert_string_equal(t, HEAD ROW_EXECVE ROW_OPENAT ROW_READ ROW_CLOSE DASH TOTAL);
	free(t);
	trace_summary_free(s);
}

static void test_from_calls(void **state)
{
	struct trace_summary *s = trace_summary_new();
	struct trace_call c;
	char *t;

	memset(&c, 0, sizeof(c));
	c.name = "openat";
	c.nr = 257;
	c.have_entry = c.have_exit = true;
	c.ts_entry = 1000;
	c.ts_exit = 13000;           /* 12 us */
	c.ret = 3;
	trace_summary_call(s, &c);
	c.ts_entry = 20000;
	c.ts_exit = 28000;           /* 8 us, failed */
	c.ret = -2;
	trace_summary_call(s, &c);
	c.ret = -4096;               /* not an error: outside -4095..-1 */
	trace_summary_call(s, &c);
	c.have_exit = false;         /* never returned: not counted */
	trace_summary_call(s, &c);
	c.have_exit = true;
	c.have_entry = false;        /* no entry: counted, no time */
	c.ret = 0;
	trace_summary_call(s, &c);
	/* aggregated counts add to the same row */
	assert_int_equal(trace_summary_add(s, 257, "openat", 2, 1, 4000), 0);
	t = table(s, TRACE_SORT_TIME);
	assert_string_equal(t, HEAD
			    "100.00    0.000032           5         6         2 openat\n"
			    DASH
			    "100.00    0.000032           5         6         2 total\n");
	free(t);
	trace_summary_free(s);
}

static void test_widths(void **state)
{
	struct trace_summary *s = trace_summary_new();
	char *t;

	/* a long name widens the syscall column (name + 1), big counts widen theirs */
	assert_int_equal(trace_summary_add(s, 451, "a_very_long_syscall_name", 1234567890, 0, 12000000000ULL), 0);
	assert_int_equal(trace_summary_add(s, 2, "open", 1, 1, 2000), 0);
	/* a row without a number comes after the numbered ones */
	assert_int_equal(trace_summary_add(s, -1, "unknown_1000", 1, 0, 0), 0);
	t = table(s, TRACE_SORT_NOTHING);
	assert_string_equal(t,
		"% time     seconds  usecs/call      calls    errors syscall\n"
		"------ ----------- ----------- ---------- --------- -------------------------\n"
		"  0.00    0.000002           2          1         1 open\n"
		"100.00   12.000000           0 1234567890           a_very_long_syscall_name\n"
		"  0.00    0.000000           0          1           unknown_1000\n"
		"------ ----------- ----------- ---------- --------- -------------------------\n"
		"100.00   12.000002           0 1234567892         1 total\n");
	free(t);
	trace_summary_free(s);
}

static void test_empty(void **state)
{
	struct trace_summary *s = trace_summary_new();
	char *t = table(s, TRACE_SORT_TIME);

	assert_string_equal(t, HEAD DASH "100.00    0.000000           0         0           total\n");
	free(t);
	trace_summary_free(s);
}

/* -U: strace's column names and aliases, the name column added last, and the shortest and
 * longest call of each row (counted one by one) with those of the whole run in the total. */
static void test_columns(void **state)
{
	struct trace_summary *s = trace_summary_new();
	int cols[16];
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(trace_summary_columns("count,longest", cols, 16, err, sizeof(err)), 3);
	assert_int_equal(cols[0], TRACE_COL_CALLS);
	assert_int_equal(cols[1], TRACE_COL_MAX);
	assert_int_equal(cols[2], TRACE_COL_NAME);
	assert_int_equal(trace_summary_columns("time_min,syscall_name,error", cols, 16, err, sizeof(err)), 3);
	assert_int_equal(cols[0], TRACE_COL_MIN);
	assert_int_equal(cols[1], TRACE_COL_NAME);
	assert_int_equal(trace_summary_columns("calls,nope", cols, 16, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown column name 'nope'"));

	assert_non_null(s);
	assert_int_equal(trace_summary_add(s, 0, "read", 1, 0, 2000), 0);
	assert_int_equal(trace_summary_add(s, 0, "read", 1, 0, 7000), 0);
	assert_int_equal(trace_summary_add(s, 0, "read", 1, 0, 3000), 0);
	assert_int_equal(trace_summary_add(s, 3, "close", 1, 1, 1000), 0);
	assert_int_equal(trace_summary_columns("min-time,max-time,name,calls,errors", cols, 16, err, sizeof(err)), 5);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trace_summary_print_cols(s, f, TRACE_SORT_NAME, cols, 5), 0);
	fclose(f);
	assert_string_equal(buf, "shortest  longest syscall              calls    errors\n"
				 "-------- -------- ---------------- --------- ---------\n"
				 "0.000001 0.000001 close                    1         1\n"
				 "0.000002 0.000007 read                     3          \n"
				 "-------- -------- ---------------- --------- ---------\n"
				 "0.000001 0.000007 total                    4         1\n");
	free(buf);
	trace_summary_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_by_time),
		cmocka_unit_test(test_sort_orders),
		cmocka_unit_test(test_from_calls),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
