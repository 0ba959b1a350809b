/* test_overrides.c — the SCRY_* environment knobs (src/util/overrides.c): none set reads as
 * all defaults; each variable lands in its own field (a "set" knob whatever its value, the
 * empty string too; numbers in any base strtoul takes; an empty path as no path); the
 * process's copy is read once (a variable set after the first call changes nothing); and
 * every SCRY_ variable the sources read is one of these (no getenv("SCRY_...") elsewhere:
 * docs/ENVIRONMENT.md lists them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/overrides.h"

static const char *const names[] = {
	"SCRY_CACHE_DIR", "SCRY_RUNDIR", "SCRY_NO_KPTR", "SCRY_NO_STRNSTR", "SCRY_NO_PREPARE_EXEC",
	"SCRY_NO_BTF_EXIT", "SCRY_NO_BTF_SCHED", "SCRY_NO_KTIME_TAI", "SCRY_NO_UPROBE_MULTI", "SCRY_NO_CACHE",
	"SCRY_NO_HUGE_HEAP", "SCRY_ONE_LANE", "SCRY_TWO_LANES", "SCRY_TEST_SYNC_WRITES", "SCRY_FOLLOW_MAX",
	"SCRY_TEST_WRITE_STALL_MS", "SCRY_TEST_WRITE_STALL_FILE", "SCRY_USTACK_WINDOW", "SCRY_USTACK_RING",
	"SCRY_NO_WARM", "SCRY_NO_MEMO_GEN", "SCRY_RET_THUNK",
};

static void clear(void)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

static void test_defaults(void **state)
{
	struct scry_overrides o, zero;

	clear();
	scry_overrides_read(&o);
	memset(&zero, 0, sizeof(zero));
	assert_memory_equal(&o, &zero, sizeof(o));
}

static void test_each_field(void **state)
{
	struct scry_overrides o;

	clear();
	setenv("SCRY_CACHE_DIR", "/tmp/c", 1);
	setenv("SCRY_RUNDIR", "", 1);
	setenv("SCRY_NO_KPTR", "", 1);
	setenv("SCRY_NO_MEMO_GEN", "", 1);
	setenv("SCRY_NO_STRNSTR", "0", 1);
	setenv("SCRY_NO_PREPARE_EXEC", "1", 1);
	setenv("SCRY_NO_BTF_EXIT", "1", 1);
	setenv("SCRY_NO_BTF_SCHED", "1", 1);
	setenv("SCRY_NO_UPROBE_MULTI", "1", 1);
	setenv("SCRY_ONE_LANE", "1", 1);
	setenv("SCRY_FOLLOW_MAX", "0x40", 1);
	setenv("SCRY_TEST_WRITE_STALL_MS", "250", 1);
	setenv("SCRY_TEST_WRITE_STALL_FILE", "/tmp/stall", 1);
	setenv("SCRY_USTACK_WINDOW", "0", 1);
	setenv("SCRY_USTACK_RING", "65536", 1);
	setenv("SCRY_RET_THUNK", "0", 1);
	scry_overrides_read(&o);
	assert_string_equal(o.cache_dir, "/tmp/c");
	assert_null(o.rundir);                    /* empty: the default */
	assert_true(o.no_kptr && o.no_memo_gen && o.no_strnstr && o.no_prepare_exec && o.no_btf_exit && o.no_btf_sched &&
		    o.no_uprobe_multi);
	assert_false(o.no_ktime_tai || o.no_cache || o.no_huge_heap || o.test_sync_writes);
	assert_true(o.one_lane);
	assert_false(o.two_lanes || o.no_warm);
	assert_int_equal(o.follow_max, 64);
	assert_int_equal(o.test_write_stall_ms, 250);
	assert_string_equal(o.test_write_stall_file, "/tmp/stall");
	assert_true(o.ustack_window_set);         /* 0 given: frame pointers, not the default */
	assert_int_equal(o.ustack_window, 0);
	assert_int_equal(o.ustack_ring, 65536);
	assert_true(o.ret_thunk_set);             /* 0 given: the helper, not sysfs's answer */
	assert_false(o.ret_thunk);

	clear();
	setenv("SCRY_NO_KTIME_TAI", "1", 1);
	setenv("SCRY_NO_CACHE", "1", 1);
	setenv("SCRY_NO_HUGE_HEAP", "1", 1);
	setenv("SCRY_TEST_SYNC_WRITES", "1", 1);
	setenv("SCRY_RUNDIR", "/tmp/run", 1);
	setenv("SCRY_TWO_LANES", "1", 1);
	setenv("SCRY_NO_WARM", "", 1);
	setenv("SCRY_RET_THUNK", "1", 1);
	scry_overrides_read(&o);
	assert_true(o.no_ktime_tai && o.no_cache && o.no_huge_heap && o.test_sync_writes && o.two_lanes && o.no_warm);
	assert_true(o.ret_thunk_set && o.ret_thunk);
	assert_false(o.no_kptr || o.one_lane);
	assert_string_equal(o.rundir, "/tmp/run");
	assert_null(o.cache_dir);
}

static void test_read_once(void **state)
{
	clear();
	setenv("SCRY_FOLLOW_MAX", "7", 1);
	const struct scry_overrides *o = scry_overrides();
	assert_int_equal(o->follow_max, 7);
	setenv("SCRY_FOLLOW_MAX", "9", 1);
	setenv("SCRY_NO_KPTR", "1", 1);
	assert_ptr_equal(scry_overrides(), o);
	assert_int_equal(o->follow_max, 7);
	assert_false(o->no_kptr);
	clear();
}

/* Every getenv("SCRY_...") of src/ is in overrides.c, and each name it reads is tested above
 * (run from the tree's top, as make unit does). */
static void test_one_place(void **state)
{
	FILE *f = popen("grep -rlE 'getenv\\(\"SCRY_' src", "r");
	char line[256];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		assert_string_equal(line, "src/util/overrides.c");
		n++;
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(n, 1);
	f = popen("grep -ohE '\"SCRY_[A-Z_]+\"' src/util/overrides.c | sort -u", "r");
	assert_non_null(f);
	for (n = 0; fgets(line, sizeof(line), f); n++) {
		size_t i = 0;

		line[strcspn(line, "\n")] = 0;
		line[strlen(line) - 1] = 0;           /* the closing quote */
		while (i < sizeof(names) / sizeof(names[0]) && strcmp(line + 1, names[i]))
			i++;
		if (i == sizeof(names) / sizeof(names[0]))
			fail_msg("%s: a knob this test does not know", line);
	}
	assert_int_equal(pclose(f), 0);
	assert_int_equal(n, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_each_field),
		cmocka_unit_test(test_read_once),
		cmocka_unit_test(test_one_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
