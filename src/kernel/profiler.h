/* profiler.h — scry profile's kernel side seen from user space (src/bpf/profile.bpf.c):
 * one sampling perf event per CPU (cpu-clock, or a hardware event where the machine has a
 * PMU) at a frequency, the BPF program on each, the targets, the notes of processes' first
 * samples, and what the kernel kept: counts per (thread, process, command, stack ids), the
 * stacks, the loss counters. */
#ifndef SCRY_KERNEL_PROFILER_H
#define SCRY_KERNEL_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>
#include "bpf/profile.h"

enum scry_prof_event {
	SCRY_PROF_EV_CPU_CLOCK,      /* software: works everywhere */
	SCRY_PROF_EV_CYCLES,         /* hardware: needs a PMU */
};

struct scry_profiler_opts {
	enum scry_prof_event event;
	unsigned freq;               /* samples per second per CPU */
	bool all;                    /* every task; else the targets added */
	unsigned max_stacks;         /* stack map entries (0: 16384) */
	unsigned max_counts;         /* counts hash entries (0: 40960) */
};

struct scry_profiler;

/* The event's name as perf spells it ("cpu-clock", "cycles"), and back (-1: unknown). */
const char *scry_prof_event_name(enum scry_prof_event e);
int scry_prof_event_parse(const char *name);

/* Open the perf events (one per online CPU: a hardware event on a machine without a PMU is
 * refused here, in one line), load the BPF object.  0, or -errno with a reason in err. */
int scry_profiler_open(const struct scry_profiler_opts *o, struct scry_profiler **out, char *err, size_t errlen);
void scry_profiler_free(struct scry_profiler *p);
/* A target process (and the children it forks from now on). */
int scry_profiler_target(struct scry_profiler *p, pid_t tgid, char *err, size_t errlen);
/* Attach: samples are taken from here on. */
int scry_profiler_start(struct scry_profiler *p, char *err, size_t errlen);
/* Stop sampling (the perf events disabled); what the kernel kept stays readable. */
void scry_profiler_stop(struct scry_profiler *p);
/* The notes' ring: readable when a process had its first sample; poll calls fn(ctx, tgid)
 * for each note waiting. */
int scry_profiler_notes_fd(struct scry_profiler *p);
int scry_profiler_notes_poll(struct scry_profiler *p, void (*fn)(void *ctx, pid_t tgid), void *ctx);
/* The loss counters summed over the CPUs. */
int scry_profiler_stats(struct scry_profiler *p, uint64_t out[SCRY_PROF_NSTATS]);
/* fn for each counted key (0 from fn: go on).  0, or -errno. */
int scry_profiler_counts(struct scry_profiler *p,
			 int (*fn)(void *ctx, const struct scry_prof_key *k, uint64_t count), void *ctx);
/* The addresses of stack id (innermost first) in buf (SCRY_PROF_MAX_DEPTH entries); their
 * number, 0 when the id is not a stack. */
unsigned scry_profiler_stack(struct scry_profiler *p, int32_t id, uint64_t *buf);
/* The CPUs sampled. */
unsigned scry_profiler_ncpus(const struct scry_profiler *p);

#endif
