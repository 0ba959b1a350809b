/* filter.bpf.h — the kernel half of event filters: the per-CPU filter environments (the
 * fronts' scratch) and the prog arrays through which a filter front generated at run time
 * (src/filter/bpf_gen.c) reaches its dispatcher once it accepted an event (scry_abi.h). */
#ifndef SCRY_FILTER_BPF_H
#define SCRY_FILTER_BPF_H

#include "event.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_FENV_NR);
	__type(key, __u32);
	__type(value, struct scry_filter_env);
} filter_env SEC(".maps");

/* Index 0: the dispatcher; back_exit index 1: the resume program (deferred entries).  A
 * prog array only takes programs of its owner's type and hook. */
struct back_array {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
};
struct back_array back_enter SEC(".maps"), back_exit SEC(".maps"), back_tp SEC(".maps"), back_fork SEC(".maps");

/* The fork event's front (index 0), which scry_fork tries before writing the event. */
struct back_array flt_fork SEC(".maps");

#endif /* SCRY_FILTER_BPF_H */
