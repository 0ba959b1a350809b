/* test_warm_names.c — the names of the descriptors scryd hands over (src/kernel/warm.c):
 * "map:INDEX:NAME", "prog:INDEX:NAME", "ring:CPU" parsed exactly; any other shape, a
 * sign, a space, an index out of bounds or of another kind refused (the client then loads
 * the object itself). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/probes_int.h"

static void test_good(void **state)
{
	const char *name = NULL;

	assert_int_equal(probes_warm_parse_name("map:3:tracked", "map", &name), 3);
	assert_string_equal(name, "tracked");
	assert_int_equal(probes_warm_parse_name("prog:0:scry_sys_enter_btf", "prog", &name), 0);
	assert_string_equal(name, "scry_sys_enter_btf");
	assert_int_equal(probes_warm_parse_name("prog:12:", "prog", &name), 12);
	assert_string_equal(name, "");
	assert_int_equal(probes_warm_parse_name("ring:1", "ring", NULL), 1);
	assert_int_equal(probes_warm_parse_name("map:100000:x", "map", &name), 100000);
}

static void test_bad(void **state)
{
	static const char *const named[] = {
		"map:3", "map:", "map::x", "map:-1:x", "map:+1:x", "map: 1:x", "map:1a:x", "map:100001:x",
		"map:99999999999999999999999:x", "mapx:1:a", "ma:1:a", "prog:1:x", "", "map",
	};
	static const char *const bare[] = { "ring:", "ring:0:x", "ring:1 ", "ring:-1", "ring:x", "rings:0", "ring" };
	const char *name;

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		assert_int_equal(probes_warm_parse_name(named[i], "map", &name), -1);
	for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
		assert_int_equal(probes_warm_parse_name(bare[i], "ring", NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
