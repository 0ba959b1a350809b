/* probes.h — scry's kernel side seen from user space: loads src/bpf/scry.bpf.c with its
 * load-time settings, creates one ring buffer per CPU, fills the syscall and tracepoint
 * descriptor tables, attaches the programs, reads the per-CPU loss counters, and takes
 * everything down again.  Kernel features are probed here and a missing one is named. */
#ifndef SCRY_PROBES_H
#define SCRY_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "scry_abi.h"

struct scry_catalog;

/* Where an application marks its threads with its span (tracing: parent:; metrics.bpf.h):
 * USDT probe provider:name of path, or (provider NULL) the function at offset of path; its
 * first three integer arguments are the trace id's high and low 64 bits and the span id
 * (zero: the mark cleared). */
struct scry_span_mark_probe {
	const char *path, *provider, *name;
	uint64_t offset;
};

/* The largest BPF ring buffer the kernel makes (kernel/bpf/ringbuf.c): its size is the
 * map's max_entries, a u32 that must be a power of two and a multiple of the page size, so
 * 2G at most (4G is 0 in 32 bits: EINVAL). */
#define SCRY_RING_MAX (1ULL << 31)

struct scry_probes_opts {
	uint64_t ctx_mask;          /* enabled contexts, 1 << enum scry_ctx */
	unsigned clock;             /* SCRY_CLOCK_*: what events are stamped with */
	bool target_all;            /* system-wide; otherwise only tracked tgids (and their children) */
	bool no_follow;             /* ... without their children */
	uint16_t fork_event_id;     /* SCRY_NO_EVENT (0xffff) when sched_process_fork is not recorded */
	uint16_t signal_event_id;   /* the signal_deliver builtin (signals.bpf.h), or SCRY_NO_EVENT */
	uint16_t signal_gen_event_id;   /* the signal_generate builtin, or SCRY_NO_EVENT */
	uint16_t unknown_entry_id;  /* ids of syscall_{entry,exit}_unknown, or 0xffff */
	uint16_t unknown_exit_id;
	bool syscalls;              /* attach the syscall programs */
	bool uprobes;               /* load the uprobe program (scry_probes_attach_uprobe) */
	bool usdt;                  /* load the USDT program (scry_probes_attach_usdt) */
	bool filter;                /* filter fronts will be loaded (scry_probes_load_front) */
	bool live_filters;          /* the syscall fronts may change while recording: the
				     * dispatchers open with doors (scry_probes_flip_fronts) */
	unsigned btf_tps;           /* the tracepoints (1 << SCRY_BTF_TP_*) that may be written from
				     * their BTF tracepoints (scry_probes_attach_tracepoint) */
	bool counts;                /* syscalls counted in the kernel (SCRY_SC_COUNT): sc_counts */
	bool tracepoints;           /* load the tracefs tracepoints' writer (any tracepoint but
				     * those of btf_tps needs it) */
	size_t ring_size;           /* bytes per CPU ring, a power of two multiple of the page size,
				     * at most SCRY_RING_MAX */
	unsigned nevent_ids;        /* size of the filter prog arrays (event ids 0..n-1) */
	/* trackers (all combined with AND; the pid tracker is scry_probes_track) */
	const uint32_t *track_vpids, *track_uids, *track_gids, *track_vuids, *track_vgids;
	size_t ntrack_vpids, ntrack_uids, ntrack_gids, ntrack_vuids, ntrack_vgids;
	bool track_uid, track_gid, track_vpid, track_vuid, track_vgid;   /* in use (even if empty: nothing passes) */
	const int *track_cgroup_fds;             /* open cgroup v2 directories */
	size_t ntrack_cgroups;
	struct scry_catalog *cat;   /* tracefs ids of the tracepoints a filter front attaches to */
	/* in-kernel metrics (a metrics channel: metrics.bpf.h, kernel/metrics.c): nmetrics > 0
	 * loads their programs; metric_sc[nr] the mask of the metrics syscall nr feeds */
	const struct scry_metric_desc *metrics;
	const uint32_t *metric_max_entries;    /* series each metric holds at most */
	unsigned nmetrics;
	const uint32_t *metric_sc;             /* SCRY_MAX_SYSCALLS masks */
	const uint16_t *sd_ids;     /* statedump: SCRY_SD_NR event ids (SCRY_NO_EVENT: not
				     * recorded), or NULL: no statedump (its programs not loaded) */
	uint16_t profile_event_id;  /* profile_cpu_clock's id, with profile_freq > 0 (0: no sampling) */
	unsigned profile_freq;      /* its samples per second per CPU */
	bool net_conns;             /* net:connections (net.bpf.h): its programs and map */
	uint16_t net_conn_event_id; /* ... net_connection's id */
	const struct scry_metric_bounds *metric_bounds;   /* nmetrics (SCRY_HB_FIXED ones read) */
	const struct scry_span_mark_probe *span_mark;    /* spans' parents from the application's marks */
	unsigned max_pid_sets;      /* per-process event sets kept at most (slots 0..n-1; at most
				     * SCRY_PID_SETS_MAX), 0: none */
	/* scry trace -k (scry_abi.h): the events of ustack_ids (SCRY_USTACK_IDS bits) send their
	 * thread's user registers and ustack_window bytes of its stack (at most
	 * SCRY_USTACK_MAX) to a ring of ustack_ring bytes (a power of two pages); 0: none */
	uint32_t ustack_window;
	const uint64_t *ustack_ids;
	size_t ustack_ring;
};

struct scry_probes;

/* Open the object in a thread now, to be taken by the process's first scry_probes_load
 * (its start overlaps what the caller does before: the catalog, the events).  warm: the
 * session is likely to take scryd's object (scry trace): where scryd's socket is there, the
 * object's shell is opened (kernel/warm_shell.c), and the whole object only if it does not. */
void scry_probes_prefetch(bool warm);
int scry_probes_load(struct scry_probes **out, const struct scry_probes_opts *o, char *err, size_t errlen);
/* The descriptors of syscall numbers 0..n-1 (before or after attach), in one update. */
int scry_probes_set_syscalls(struct scry_probes *p, const struct scry_sc_desc *d, unsigned n);
/* Counting mode totals of syscall nr over every CPU. */
int scry_probes_sc_count(struct scry_probes *p, unsigned nr, struct scry_sc_count *out);
/* The wait(2) status of process tgid, which exited (taken from the kernel's map, once);
 * -ENOENT when not known. */
int scry_probes_exit_code(struct scry_probes *p, pid_t tgid, int *status);
/* Follow tgid (and, by fork tracking, its future children).  Meant to be called before
 * scry_probes_attach(): a call racing with a fork in the kernel may leave a CPU's memo
 * of an earlier "not followed" answer for that very tgid in place. */
int scry_probes_track(struct scry_probes *p, pid_t tgid);
/* Attach the generic tracepoint program to system:name with its copy operations, or
 * front_fd (>= 0: the event's filter front, which tail-calls it).  Returns its slot (>= 0)
 * or -errno. */
int scry_probes_attach_tracepoint(struct scry_probes *p, const char *system, const char *name,
				  const struct scry_tp_desc *d, int front_fd, char *err, size_t errlen);
/* Replace the descriptor of the attached tracepoint of slot (its flags changed). */
int scry_probes_set_tracepoint(struct scry_probes *p, int slot, const struct scry_tp_desc *d);
/* Per-process event sets (kernel/pid_sets.c, scry_abi.h): process tgid records, besides the
 * channel's events, those of set (the events whose descriptors say SCRY_*_PIDSET), counted
 * in slot (< opts.max_pid_sets; set->slot is set here): one element replaced whole.
 * Clearing a slot forgets tgid, then zeroes the slot's count.  0 or -errno. */
int scry_probes_pid_set(struct scry_probes *p, unsigned slot, pid_t tgid, const struct scry_pid_set *set);
int scry_probes_pid_set_clear(struct scry_probes *p, unsigned slot, pid_t tgid);
/* The events slot's set let through so far, summed over the CPUs. */
int scry_probes_pid_set_hits(struct scry_probes *p, unsigned slot, uint64_t *out);
/* Stop writing the tracepoint of slot at once, then detach it; a filter front's stays on its
 * hook, writing nothing (scry_probes_set_tracepoint turns it on again).  -ENOENT: detached. */
int scry_probes_detach_tracepoint(struct scry_probes *p, int slot);
/* Attach the uprobe program (loaded with opts.uprobes) to the file offset of path, at the
 * function's return if ret, writing its event by d, or front_fd (>= 0: the event's filter
 * front, which tail-calls it).  Every process mapping the file, now or later, is probed
 * (the probe is on the inode).  Returns its slot (>= 0) or -errno. */
int scry_probes_attach_uprobe(struct scry_probes *p, const char *path, uint64_t offset, bool ret,
			      const struct scry_up_desc *d, int front_fd, char *err, size_t errlen);
/* Is one link for many functions of a file possible (uprobe_multi, Linux 6.6)? */
bool scry_probes_uprobe_multi(const struct scry_probes *p);
/* Attach the uprobe program to n file offsets of path at once (one uprobe_multi link),
 * writing each by descs[i]; slots[i]: each probe's slot.  0 or -errno. */
int scry_probes_attach_uprobes(struct scry_probes *p, const char *path, bool ret, const uint64_t *offsets,
			       const struct scry_up_desc *descs, size_t n, int *slots, char *err, size_t errlen);
/* Attach the USDT program (loaded with opts.usdt) to every provider:name note of path
 * (libbpf: addresses, semaphores, argument specs); a slot as scry_probes_attach_uprobe. */
int scry_probes_attach_usdt(struct scry_probes *p, const char *path, const char *provider, const char *name,
			    const struct scry_up_desc *d, char *err, size_t errlen);
/* Stop writing the uprobe (or USDT probe) of slot at once, then detach it. */
int scry_probes_detach_uprobe(struct scry_probes *p, int slot);
/* Attach the syscall and fork programs (after every descriptor is set). */
int scry_probes_attach(struct scry_probes *p, char *err, size_t errlen);

/* Filters: where a front for dispatcher kind (SCRY_FENV_*) finds its values and maps
 * (fgen_target: source, registers and contexts from kernel BTF, env/back/stats maps,
 * bpf_strnstr's BTF id); -ENOTSUP when the kernel's BTF lacks what it needs. */
struct fgen_target;
struct bpf_insn;
int scry_probes_filter_target(struct scry_probes *p, unsigned kind, struct fgen_target *t);
/* Load a filter front of kind (SCRY_FENV_*, a program of fgen_compile); identical
 * programs are loaded once.  A syscall front is attached by scry_probes_attach in place
 * of its dispatcher; a tracepoint's is given to scry_probes_attach_tracepoint.  Returns
 * the program's fd (owned by the probes), or -errno with the verifier's log in log. */
int scry_probes_load_front(struct scry_probes *p, unsigned kind, const struct bpf_insn *insns, size_t n,
			   char *log, size_t logsize);

/* Filters changed while recording (opts.live_filters): forget the syscall fronts (kept in
 * keep, restored when the change fails) before the new ones are loaded
 * (scry_probes_load_front), then flip: the doors take the new fronts
 * (or the dispatchers, where none was loaded) at one instant, for entries and exits both.
 * 0 or -errno (nothing changed then). */
void scry_probes_forget_fronts(struct scry_probes *p, int keep[2]);
void scry_probes_restore_fronts(struct scry_probes *p, const int keep[2]);
int scry_probes_flip_fronts(struct scry_probes *p);

/* The profile source's sampling (src/kernel/samples.c): a cpu-clock perf event on each
 * online CPU at profile_freq, scry_profile_sample on each.  0, or -errno with a reason. */
int scry_probes_attach_samples(struct scry_probes *p, char *err, size_t errlen);

/* The statedump (src/kernel/statedump.c), once recording is on: items[0..nhead) (written
 * by user space: lttng_statedump_start), then the iterators' events (threads and their
 * namespaces, file descriptors, memory maps), then items[nhead..n) (interfaces, block
 * devices, interrupts, CPU topology, lttng_statedump_end).  drain(arg) is called between
 * the reads of an iterator (every few objects), to empty the rings as they fill. */
int scry_probes_statedump(struct scry_probes *p, const struct scry_sd_item *items, size_t n, size_t nhead,
			  void (*drain)(void *), void *arg, char *err, size_t errlen);

/* Every later load of this process verifies its programs in one lane (lanes.c): each lane's
 * copy of the object holds an fd of every map of its own, three fds a map with two lanes, and
 * scryd, holding many loaded sessions (and the ready object) under the open-file limit
 * (~200 fds a session with lanes, ~70 without), wants fds more than wall time. */
void scry_probes_one_lane(void);

unsigned scry_probes_ncpus(const struct scry_probes *p);
int scry_probes_ring_fd(const struct scry_probes *p, unsigned cpu);
/* Bytes staged on a CPU and not yet in its ring (0 when empty), read without a syscall. */
uint32_t scry_probes_staged(const struct scry_probes *p, unsigned cpu);
/* Hand a CPU's staged events to its ring now (runs scry_flush on that CPU). */
int scry_probes_flush_stage(struct scry_probes *p, unsigned cpu);
/* Per-CPU loss counters: out has scry_probes_ncpus() entries. */
int scry_probes_stats(struct scry_probes *p, struct scry_cpu_stats *out);
/* The ring of the user stack copies (-1: none), and what became of them, over every CPU. */
int scry_probes_ustack_fd(const struct scry_probes *p);
int scry_probes_ustack_stats(struct scry_probes *p, struct scry_ustack_stats *out);
/* Events the kernel skipped because a program was already running on that CPU
 * (bpf_prog_info.recursion_misses summed over the programs). */
uint64_t scry_probes_recursion_misses(struct scry_probes *p);
/* The same per CPU (out: scry_probes_ncpus() entries), filter fronts included: where each
 * event was skipped (kernel/misses.c; all on CPU 0 if the kernel cannot say).  0 or -errno. */
int scry_probes_misses(struct scry_probes *p, uint64_t *out);
/* Syscall entries kept for their exit (their strings were not mapped yet at entry) and
 * not written yet: after detach, those are lost (calls still blocked). */
uint64_t scry_probes_deferred_waiting(struct scry_probes *p);
/* The switch every program reads: events are written only while it is on.  Turned on once
 * everything is attached and off before anything is detached, so that every event of the
 * session starts and stops at one instant. */
void scry_probes_set_recording(struct scry_probes *p, bool on);
/* Detach every program (no event is produced after this returns); maps stay readable. */
void scry_probes_detach(struct scry_probes *p);
void scry_probes_close(struct scry_probes *p);
/* The process exits once its sessions are closed (scry trace): their close detaches and
 * closes what it made but leaves libbpf's copies of the object (the skeleton's and the lanes':
 * ~6 ms from the command's exit to scry's, freeing them and closing their ~150 maps' and
 * programs' descriptors one by one) to the exit. */
void scry_probes_exit_after_close(void);

/* scryd's ready object (kernel/warm.c, docs/DAEMON.md): scryd loads the object of the
 * session it expects ahead of time and hands it whole to a process that asks with the same
 * fingerprint (fingerprint.c: everything the load depends on); scry_probes_load asks on its
 * own when scryd's socket exists and the settings are of a kind it may hold (SCRY_NO_WARM:
 * never).  The export: a loaded, never attached object's descriptors (duplicates), each
 * named ("map:INDEX:NAME", "ring:CPU", "prog:INDEX:NAME"), in that order. */
#define SCRY_WARM_FP_HEX 33
#define SCRY_WARM_MAX_FDS 250
struct scry_warm {
	char fp[SCRY_WARM_FP_HEX];
	size_t n;
	int fds[SCRY_WARM_MAX_FDS];
	char *names[SCRY_WARM_MAX_FDS];
};
/* This process (scryd) makes objects for others: it never asks for one, and fingerprints
 * every object it loads. */
void scry_probes_warm_exporter(void);
int scry_probes_export(struct scry_probes *p, struct scry_warm *w, char *err, size_t errlen);
void scry_warm_clear(struct scry_warm *w);
/* The object came from scryd. */
bool scry_probes_warm(const struct scry_probes *p);
void scry_probes_fingerprint_hex(const struct scry_probes *p, char out[SCRY_WARM_FP_HEX]);

/* Metrics (kernel/metrics.c): the per-CPU hash of metric id (key struct scry_metric_key;
 * value u64 for a counter, struct scry_metric_hist for a histogram, one per CPU), or -1. */
int scry_probes_metric_fd(const struct scry_probes *p, unsigned id);
/* The ring buffer of the kernel spans (struct scry_span_rec). */
int scry_probes_span_fd(const struct scry_probes *p);
/* The metrics programs' counters summed over the CPUs. */
int scry_probes_metric_stats(struct scry_probes *p, struct scry_metric_stats *out);
/* Each loaded program's kernel statistics (run_cnt and run_time_ns count only while
 * bpf_stats are enabled: BPF_ENABLE_STATS). */
struct scry_prog_stats {
	const char *name;
	uint64_t run_cnt, run_time_ns, recursion_misses;
};
size_t scry_probes_prog_stats(struct scry_probes *p, struct scry_prog_stats *out, size_t max);

#endif
