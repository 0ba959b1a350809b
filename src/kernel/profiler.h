/* profiler.h — scry profile's kernel side seen from user space (src/bpf/profile.bpf.c):
 * one sampling perf event per CPU (cpu-clock, or a hardware event where the machine has a
 * PMU) at a frequency, the BPF program on each, the targets, the ring (the notes of
 * processes' first samples; with --call-graph dwarf, each user sample's registers and stack
 * copy), and what the kernel kept: counts per (thread, process, command, stack ids), the
 * stacks, the loss counters.  Or (offcpu) no perf event: the scheduler's switches count the
 * targets' blocked time by stack in the same counts. */
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
	unsigned ustack_size;        /* --call-graph dwarf: user stack bytes copied per sample (a
	                              *   multiple of 8, at most SCRY_USTACK_MAX); 0: frame pointers */
	size_t ring_size;            /* the ring's bytes (a power of 2 of pages); 0: by ustack_size */
	bool offcpu;                 /* no sampling: the targets' blocked time by stack, counted in
	                              *   nanoseconds at the scheduler's switches */
	uint64_t min_block_ns;       /* offcpu: shorter blocks are not counted */
	const int *cgroup_fds;       /* --track-cgroup/--track-container: open cgroup v2 directories
	                              *   a task must be in (or below); at most SCRY_MAX_TRACK_CGROUPS */
	size_t ncgroups;
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
/* The ring: readable when a process had its first sample or (dwarf) a user stack was
 * copied; poll calls, in the order they were sent, note(ctx, tgid) for each note and
 * ustack(ctx, record, its bytes) for each stack (the record is the ring's: read it before
 * returning). */
struct scry_profiler_handlers {
	void (*note)(void *ctx, pid_t tgid);
	void (*ustack)(void *ctx, const struct scry_prof_ustack *r, size_t size);
	void *ctx;
};
int scry_profiler_ring_fd(struct scry_profiler *p);
int scry_profiler_poll(struct scry_profiler *p, const struct scry_profiler_handlers *h);
/* The ring's size in bytes. */
size_t scry_profiler_ring_size(const struct scry_profiler *p);
/* The loss counters summed over the CPUs. */
int scry_profiler_stats(struct scry_profiler *p, uint64_t out[SCRY_PROF_NSTATS]);
/* fn for each counted key (0 from fn: go on).  0, or -errno. */
int scry_profiler_counts(struct scry_profiler *p,
			 int (*fn)(void *ctx, const struct scry_prof_key *k, uint64_t count), void *ctx);
/* The addresses of stack id (innermost first) in buf (SCRY_PROF_MAX_DEPTH entries); their
 * number, 0 when the id is not a stack. */
unsigned scry_profiler_stack(struct scry_profiler *p, int32_t id, uint64_t *buf);
/* The sampling program's runs and the time they took (bpf_prog_info: counted only while
 * the kernel's BPF statistics are on, sysctl kernel.bpf_stats_enabled or BPF_ENABLE_STATS).
 * 0, or -errno. */
int scry_profiler_run_stats(struct scry_profiler *p, uint64_t *runs, uint64_t *ns);
/* cpu-clock, after stop: the samples the CPUs' events should have delivered (each one's
 * time enabled over its period), those the program ran for (any task's), those missing
 * beyond one a CPU, and how many times perf throttled the events (its PERF_RECORD_THROTTLE
 * records: kernel.perf_event_max_sample_rate, perf_cpu_time_max_percent); samples missing
 * without a throttle are periods the timer skipped, fired late (a loaded or virtual
 * machine).  0, or -ENOTSUP (cycles, --off-cpu), -errno. */
int scry_profiler_delivery(struct scry_profiler *p, uint64_t *expected, uint64_t *fired, uint64_t *missed,
			   uint64_t *throttled);
/* The CPUs sampled. */
unsigned scry_profiler_ncpus(const struct scry_profiler *p);

#endif
