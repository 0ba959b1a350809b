/* kfacts.h — what loading scry's object reads from the kernel's BTF (probes.c's settings:
 * which BTF tracepoints and kfuncs there are, the context paths' offsets, untrusted kptrs),
 * found once per kernel and scry build and kept in the cache (util/cache.h,
 * kfacts-BUILD-KERNEL.bin): a later start reads ~1 KiB instead of parsing the kernel's
 * ~5.5 MB of BTF (~5-8 ms of CPU, and its ~10 MB of heap zeroed).  The overrides
 * (SCRY_NO_BTF_EXIT...) are applied by the callers, not kept. */
#ifndef SCRY_KERNEL_KFACTS_H
#define SCRY_KERNEL_KFACTS_H

#include <stdbool.h>
#include "kernel/ctx_paths.h"

struct scry_kfacts {
	bool btf;                     /* /sys/kernel/btf/vmlinux parsed */
	bool tp_sys_enter, tp_fork;   /* BTF tracepoints sys_enter, sched_process_fork, */
	bool tp_exit;                 /* sched_process_exit */
	bool prepare_exec;            /* scry_feature_prepare_exec */
	unsigned btf_tps;             /* scry_feature_btf_tps, without SCRY_NO_BTF_EXIT / _SCHED */
	bool uprobe_multi;
	bool kptr_untrusted;          /* scry_feature_kptr_untrusted */
	int strnstr_id;               /* scry_feature_strnstr */
	struct scry_ctx_layout layout;
	struct scry_ctx_btf ctx;
};

/* This kernel's facts, for the whole process: read from the cache, else found (the kernel's
 * BTF parsed: scry_features_vmlinux) and written to it.  Never NULL. */
const struct scry_kfacts *scry_kfacts(void);
/* The facts of this kernel are in the cache: no need to parse its BTF ahead. */
bool scry_kfacts_cached(void);

#endif
