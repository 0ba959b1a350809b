/* test_report.c — the end-of-recording report (src/cli/report.c): the summary line, and a
 * line for each alteration only when it happened (timestamps raised, strings cut, events
 * filtered, longer than a packet), read back from stderr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/report.h"

/* What cli_report_recording writes to stderr for sum, in a static buffer. */
static const char *report(const struct scry_session_summary *sum)
{
	static char out[4096];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	cli_report_recording(sum, "/tmp/t");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return out;
}

static void test_clean_run_one_line(void **state)
{
	struct scry_session_summary sum = { .events = 10, .discarded = 2, .bytes = 100, .seconds = 1 };

	assert_string_equal(report(&sum), "scry: 10 events recorded, 2 discarded, 100 bytes written to /tmp/t "
			    "in 1.000 s (10 events/s)\n");
}

static void test_raised_times_reported(void **state)
{
	struct scry_session_summary sum = { .events = 10, .bytes = 100, .seconds = 1, .clamped = 3 };
	const char *out = report(&sum);

	assert_non_null(strstr(out, "\nscry: 3 events' times raised to keep the stream ordered\n"));
	sum.clamped = 0;
	assert_null(strstr(report(&sum), "raised"));
}

static void test_each_alteration_its_line(void **state)
{
	struct scry_session_summary sum = { .events = 10, .bytes = 100, .seconds = 1, .filtered = 4,
					    .truncated = 5, .too_big = 6, .lost = 6, .clamped = 7 };
	const char *out = report(&sum);
	int lines = 0;

	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	assert_non_null(strstr(out, "scry: 4 events filtered out in user space"));
	assert_non_null(strstr(out, "scry: 5 events had a string cut"));
	assert_non_null(strstr(out, "scry: 6 events lost: longer than a packet"));
	assert_non_null(strstr(out, "scry: 7 events' times raised"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_run_one_line),
		cmocka_unit_test(test_raised_times_reported),
		cmocka_unit_test(test_each_alteration_its_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
