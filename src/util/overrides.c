/* overrides.c — the SCRY_* environment knobs read into one structure (see overrides.h and
 * docs/ENVIRONMENT.md). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/overrides.h"

static const char *path_or_null(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static unsigned number(const char *name)
{
	const char *v = getenv(name);

	return v ? (unsigned)strtoul(v, NULL, 0) : 0;
}

void scry_overrides_read(struct scry_overrides *o)
{
	memset(o, 0, sizeof(*o));
	o->cache_dir = path_or_null("SCRY_CACHE_DIR");
	o->rundir = path_or_null("SCRY_RUNDIR");
	o->no_kptr = getenv("SCRY_NO_KPTR") != NULL;
	o->no_memo_gen = getenv("SCRY_NO_MEMO_GEN") != NULL;
	o->no_strnstr = getenv("SCRY_NO_STRNSTR") != NULL;
	o->no_prepare_exec = getenv("SCRY_NO_PREPARE_EXEC") != NULL;
	o->no_btf_exit = getenv("SCRY_NO_BTF_EXIT") != NULL;
	o->no_btf_sched = getenv("SCRY_NO_BTF_SCHED") != NULL;
	o->no_ktime_tai = getenv("SCRY_NO_KTIME_TAI") != NULL;
	o->no_uprobe_multi = getenv("SCRY_NO_UPROBE_MULTI") != NULL;
	o->ret_thunk_set = getenv("SCRY_RET_THUNK") != NULL;
	o->ret_thunk = number("SCRY_RET_THUNK") != 0;
	o->no_cache = getenv("SCRY_NO_CACHE") != NULL;
	o->no_huge_heap = getenv("SCRY_NO_HUGE_HEAP") != NULL;
	o->one_lane = getenv("SCRY_ONE_LANE") != NULL;
	o->two_lanes = getenv("SCRY_TWO_LANES") != NULL;
	o->no_warm = getenv("SCRY_NO_WARM") != NULL;
	o->test_sync_writes = getenv("SCRY_TEST_SYNC_WRITES") != NULL;
	o->follow_max = number("SCRY_FOLLOW_MAX");
	o->ustack_window_set = getenv("SCRY_USTACK_WINDOW") != NULL;
	o->ustack_window = number("SCRY_USTACK_WINDOW");
	o->ustack_ring = number("SCRY_USTACK_RING");
	o->test_write_stall_ms = number("SCRY_TEST_WRITE_STALL_MS");
	o->test_write_stall_file = path_or_null("SCRY_TEST_WRITE_STALL_FILE");
}

static struct scry_overrides overrides;
static pthread_once_t overrides_once = PTHREAD_ONCE_INIT;

static void overrides_init(void)
{
	scry_overrides_read(&overrides);
}

const struct scry_overrides *scry_overrides(void)
{
	pthread_once(&overrides_once, overrides_init);
	return &overrides;
}
