/* test_parse.c — command-line value parsers (src/util/parse.c): sizes, durations, pid lists. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "util/parse.h"

static void test_sizes(void **state)
{
	uint64_t v;

	assert_int_equal(scry_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(scry_parse_size("64K", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(scry_parse_size("8M", &v), 0);
	assert_int_equal(v, 8u << 20);
	assert_int_equal(scry_parse_size("1g", &v), 0);
	assert_int_equal(v, 1ULL << 30);
	assert_int_equal(scry_parse_size("2MiB", &v), 0);
	assert_int_equal(v, 2u << 20);
	assert_int_equal(scry_parse_size("16KB", &v), 0);
	assert_int_equal(v, 16384);
	const char *bad[] = { "", "0", "-1", "K", "12Q", "1.5M", "8M ", "99999999999999999999",
			      "18446744073709551615K" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(scry_parse_size(bad[i], &v), -EINVAL);
}

static void test_durations(void **state)
{
	double d;

	assert_int_equal(scry_parse_duration("5", &d), 0);
	assert_true(d == 5.0);
	assert_int_equal(scry_parse_duration("0.5", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(scry_parse_duration("250ms", &d), 0);
	assert_true(d > 0.2499 && d < 0.2501);
	assert_int_equal(scry_parse_duration("250us", &d), 0);
	assert_true(d > 0.0002499 && d < 0.0002501);
	assert_int_equal(scry_parse_duration("2m", &d), 0);
	assert_true(d == 120.0);
	assert_int_equal(scry_parse_duration("1h", &d), 0);
	assert_true(d == 3600.0);
	assert_int_equal(scry_parse_duration("3s", &d), 0);
	assert_true(d == 3.0);
	const char *bad[] = { "", "abc", "0", "-2", "5x", "nan", "inf", "1e999", "3u", "2uss" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(scry_parse_duration(bad[i], &d), -EINVAL);
}

static void test_pids(void **state)
{
	pid_t *pids = NULL;
	size_t n = 0;

	assert_int_equal(scry_parse_pids("12", &pids, &n), 0);
	assert_int_equal(scry_parse_pids("34,56", &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 12);
	assert_int_equal(pids[1], 34);
	assert_int_equal(pids[2], 56);
	free(pids);
	const char *bad[] = { "", "0", "-3", "1,", ",1", "1,,2", "x", "12a", "99999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pids = NULL;
		n = 0;
		assert_int_equal(scry_parse_pids(bad[i], &pids, &n), -EINVAL);
		free(pids);
	}
}

static void test_pow2(void **state)
{
	assert_int_equal(scry_pow2_at_least(1, 4096), 4096);
	assert_int_equal(scry_pow2_at_least(4096, 4096), 4096);
	assert_int_equal(scry_pow2_at_least(4097, 4096), 8192);
	assert_int_equal(scry_pow2_at_least(65536 + 1, 4096), 131072);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_pids),
		cmocka_unit_test(test_pow2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
