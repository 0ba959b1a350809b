/* features.h — what this kernel offers scry, as named checks gathered in one place (as
 * libbpf-tools' probe_tp_btf, fentry_can_attach...): the loader (probes.c) asks them and
 * chooses, and `scry list features` prints each answer with scry's choice.  Every check that
 * has a fallback can be forced off for tests (SCRY_NO_KPTR=1, SCRY_NO_STRNSTR=1,
 * SCRY_NO_PREPARE_EXEC=1). */
#ifndef SCRY_KERNEL_FEATURES_H
#define SCRY_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include "scry_abi.h"

struct btf;

bool scry_feature_btf(void);                            /* /sys/kernel/btf/vmlinux */
/* The kernel's BTF, parsed once for the whole process (~40 ms for 6.x's 120k types):
 * prefetch starts parsing it in a thread, so that it overlaps what the caller does until
 * the first load (unless what the load reads of it is in the cache: kfacts.h); vmlinux waits for it (parses it if no prefetch ran; NULL without BTF);
 * release frees it once nothing more is to be loaded. */
void scry_features_prefetch(void);
const struct btf *scry_features_vmlinux(void);
void scry_features_release(void);
/* A thread that uses the BTF across calls (a session's load) holds it: release frees it
 * only when no thread does (scryd loads in two threads at once). */
void scry_features_hold(bool on);
/* The parsed BTF lent to libbpf for one object's load (btf_share.c): counted, never freed by
 * release while lent; give_back takes a lent one back (false: b is not a lent one). */
struct btf *scry_features_vmlinux_lend(void);
bool scry_features_vmlinux_give_back(const struct btf *b);
/* btf__find_by_name_kind's answer for the parsed kernel BTF and a name the feature checks or
 * libbpf's load of scry's object look up (found in one walk of its types, not one walk a
 * name): the id, or -ENOENT; 0 for another BTF or name (ask libbpf). */
int scry_features_find_wanted(const struct btf *btf, const char *name, int kind);
bool scry_feature_tp_btf(const struct btf *vmlinux, const char *tp);   /* "sys_enter" */
bool scry_feature_kptr_untrusted(void);                 /* untrusted kptrs in per-CPU maps */
int scry_feature_strnstr(const struct btf *vmlinux);    /* kfunc bpf_strnstr's BTF id, or 0 */
bool scry_feature_prepare_exec(const struct btf *vmlinux);
/* sched_process_exit's record struct (6.16's, with group_dead) and its BTF tracepoint: the
 * event is written from the BTF tracepoint (no tracefs perf event to wait for at detach);
 * SCRY_NO_BTF_EXIT=1: no. */
bool scry_feature_btf_exit(const struct btf *vmlinux);
/* The tracepoints written from their BTF tracepoints (scry_abi.h SCRY_BTF_TP_*): the index of
 * system:name, -1 for another; the mask of those this kernel's BTF allows (whatever the
 * overrides say); the mask SCRY_NO_BTF_EXIT / SCRY_NO_BTF_SCHED take away. */
#define SCRY_BTF_TP_SCHED_MASK (((1u << SCRY_BTF_TP_NR) - 1) & ~(1u << SCRY_BTF_TP_EXIT))
int scry_btf_tp_index(const char *system, const char *name);
unsigned scry_feature_btf_tps(const struct btf *vmlinux);
unsigned scry_btf_tps_overridden(void);
/* uprobe_multi links (Linux 6.6): many addresses of one file in one link. */
bool scry_feature_uprobe_multi(const struct btf *vmlinux);
/* The helper bpf_ktime_get_tai_ns (Linux 6.1; create --clock tai); SCRY_NO_KTIME_TAI=1: no. */
bool scry_feature_ktime_tai(void);

/* kprobes (the kprobe PMU) and fentry (a trampoline program loaded and attached to a
 * kernel function): false with the reason in why. */
bool scry_feature_kprobes(char *why, size_t n);
bool scry_feature_fentry(const struct btf *vmlinux, char *why, size_t n);
/* Returns go through a mitigation's thunk (SRSO's Safe RET, retbleed's untrained return
 * thunk or call depth stuffing: sysfs cpu/vulnerabilities), so that a helper call costs more
 * than the per-CPU memo's loads; true when the files cannot be read (the memo then, as
 * before).  SCRY_RET_THUNK=0/1 decides instead.  why: the line that decided. */
bool scry_feature_ret_thunk(char *why, size_t n);

/* One line of `scry list features`. */
struct scry_feature_report {
	const char *name;
	bool present;           /* the kernel offers it (or allows it) */
	const char *use;        /* what scry does given the answer */
	char why[160];          /* how it was found out, or why not */
};

/* Probe every feature scry knows (ringbuf, tp_btf, kptr memo, strnstr, prepare_exec, BPF
 * iterators, uprobe_multi, kprobes, fentry, perf events, bpf_stats); n entries in out. */
size_t scry_features_probe(struct scry_feature_report *out, size_t max);

#endif
