/* overrides.h — scry's environment knobs (SCRY_*), read once, in one place.  Each is listed
 * with its meaning in docs/ENVIRONMENT.md; most exist for the tests and the benchmarks (to
 * take the path a kernel without some feature takes, to slow or to fill something on
 * purpose), two place scry's files (SCRY_CACHE_DIR, SCRY_RUNDIR).  A knob of the "set"
 * kind is on when the variable exists, whatever its value (SCRY_NO_KPTR= too).  The
 * environment is read at the first call, once for the process (threads included): a
 * variable set later changes nothing. */
#ifndef SCRY_UTIL_OVERRIDES_H
#define SCRY_UTIL_OVERRIDES_H

#include <stdbool.h>

struct scry_overrides {
	/* where files go (NULL: the default) */
	const char *cache_dir;          /* SCRY_CACHE_DIR: the cache (/var/cache/scry); "" = default */
	const char *rundir;             /* SCRY_RUNDIR: scryd's run directory (/run/scry); "" = default */
	/* kernel features taken as absent (the fallback's path, for tests and comparisons) */
	bool no_kptr;                   /* SCRY_NO_KPTR: task memo keyed by tgid, not registers */
	bool no_memo_gen;               /* SCRY_NO_MEMO_GEN: a memo hit proved through the task, not
	                                   by the exits' generation */
	bool no_strnstr;                /* SCRY_NO_STRNSTR: star-inside globs decided in user space */
	bool no_prepare_exec;           /* SCRY_NO_PREPARE_EXEC: execve entry rebuilt from the new image */
	bool no_btf_exit;               /* SCRY_NO_BTF_EXIT: sched_process_exit from tracefs */
	bool no_btf_sched;              /* SCRY_NO_BTF_SCHED: sched_switch, sched_wakeup{,_new} and
	                                   sched_process_exec from tracefs */
	bool no_ktime_tai;              /* SCRY_NO_KTIME_TAI: create --clock tai refused */
	bool no_uprobe_multi;           /* SCRY_NO_UPROBE_MULTI: one uprobe link per function */
	bool ret_thunk_set;             /* SCRY_RET_THUNK given: returns taken as thunked (1: the memo
	                                   system-wide) or not (0: the helper), not read from sysfs */
	bool ret_thunk;                 /* ...its value */
	/* behaviours switched off */
	bool no_cache;                  /* SCRY_NO_CACHE: nothing read from or written to the cache */
	bool no_huge_heap;              /* SCRY_NO_HUGE_HEAP: glibc's default heap (bench/startup.sh) */
	bool one_lane;                  /* SCRY_ONE_LANE: the programs verified in one lane, not two */
	bool two_lanes;                 /* SCRY_TWO_LANES: in two, even when the CPUs are busy */
	bool no_warm;                   /* SCRY_NO_WARM: scryd's ready object never asked for */
	/* tests only */
	bool test_sync_writes;          /* SCRY_TEST_SYNC_WRITES: trace files written by the consumer
	                                   thread itself, no writer thread */
	unsigned follow_max;            /* SCRY_FOLLOW_MAX: the follow set's size (0: the default) */
	bool ustack_window_set;         /* SCRY_USTACK_WINDOW given: trace -k's stack copy window */
	unsigned ustack_window;         /* ...its bytes (bench; 0: frame pointers, no copy) */
	unsigned ustack_ring;           /* SCRY_USTACK_RING: trace -k's copy ring bytes (0: default) */
	unsigned test_write_stall_ms;   /* SCRY_TEST_WRITE_STALL_MS: the writer's first job waits */
	const char *test_write_stall_file; /* SCRY_TEST_WRITE_STALL_FILE: ...while this file exists */
};

/* The knobs of this process's environment, read at the first call. */
const struct scry_overrides *scry_overrides(void);
/* The knobs of the environment as it is now, into *o (scry_overrides() caches this). */
void scry_overrides_read(struct scry_overrides *o);

#endif
