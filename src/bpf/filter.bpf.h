/* filter.bpf.h — the kernel half of event filters: the per-CPU filter environments and
 * the prog arrays of the filter programs generated at run time (src/filter/bpf_gen.c),
 * and filter_pass(), which a dispatcher calls before it writes a filtered event.
 * Protocol (scry_abi.h): fill the environment, tail-call the event's filter; the filter
 * returns (rejected) or re-enters the dispatcher by tail call with `accept` set. */
#ifndef SCRY_FILTER_BPF_H
#define SCRY_FILTER_BPF_H

#include "event.bpf.h"

const volatile __u64 filter_ctx_mask = 0;  /* contexts the filters read (1 << enum scry_ctx) */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_FENV_NR);
	__type(key, __u32);
	__type(value, struct scry_filter_env);
} filter_env SEC(".maps");

/* Filter programs by event id, one array per dispatcher (a prog array only takes programs
 * of its owner's type and hook). */
struct prog_array {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);               /* resized to the number of event ids */
	__type(key, __u32);
	__type(value, __u32);
};
struct prog_array flt_enter SEC(".maps"), flt_exit SEC(".maps"), flt_tp SEC(".maps");

/* The dispatcher itself at index 0: where a filter goes back to when it accepts. */
struct back_array {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};
struct back_array back_enter SEC(".maps"), back_exit SEC(".maps"), back_tp SEC(".maps");

static __always_inline void filter_fill_ctx(struct scry_filter_env *e, struct task_struct *t)
{
#pragma unroll
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		if (!(filter_ctx_mask & (1ULL << c)))
			continue;
		if (c == SCRY_CTX_PROCNAME) {
			*(__u64 *)&e->comm[0] = *(__u64 *)&t->comm[0];
			*(__u64 *)&e->comm[8] = *(__u64 *)&t->comm[8];
			continue;
		}
		e->ctx[c] = ctx_int(t, c);
	}
}

/* Should the dispatcher write event id now?  true only when it runs again after the
 * filter accepted; otherwise the filter program runs (and the dispatcher is done: the
 * tail call does not come back unless the program is missing, which counts a loss).
 * kind: SCRY_FENV_*; args: the 6 arguments (NULL for tracepoints); base: the raw record. */
static __always_inline bool filter_pass(void *ctx, void *progs, __u32 kind, __u32 id,
					struct task_struct *t, const __u64 *args, long ret, __u64 base)
{
	struct scry_filter_env *e = bpf_map_lookup_elem(&filter_env, &kind);
	__u32 me = t->pid + 1;

	if (!e)
		return false;
	if (e->owner == me && e->accept) {
		e->accept = 0;
		e->owner = 0;
		return true;
	}
	if (e->owner) {             /* a preempted or interrupted filter of this kind */
		count_drop(true);
		return false;
	}
	e->owner = me;
	e->accept = 0;
	if (args) {
#pragma unroll
		for (int i = 0; i < SCRY_MAX_ARGS; i++)
			e->args[i] = args[i];
	}
	e->ret = ret;
	e->base = base;
	if (filter_ctx_mask)
		filter_fill_ctx(e, t);
	bpf_tail_call(ctx, progs, id);
	e->owner = 0;
	count_drop(false);
	return false;
}

#endif /* SCRY_FILTER_BPF_H */
