/* source.h — an event source seen from the session: what it answers for (its -e specs),
 * how its events are enabled and disabled in a channel, and how the channel's BPF object
 * is brought in line (descriptor tables, attached programs).  Each source is one file:
 * src_syscalls.c (syscall entries and exits by number, the unknown-syscall built-ins),
 * src_tracepoints.c (tracefs tracepoints, and sched_process_fork written by the lifecycle
 * program), src_uprobes.c (uprobes, uretprobes, USDT), src_kprobes.c (kernel functions:
 * what the kernel allows, checked), src_statedump.c (lttng-modules' statedump events,
 * written by iterators at start), src_profile.c (cpu-clock samples as events),
 * src_net.c (TCP connections, one event each when it closes).  To add one (perf samples...): a file with a struct
 * scry_source, listed in scry_sources (events.c); its BPF side in src/bpf/<source>.bpf.h,
 * its events in the catalog.  Private to src/session/. */
#ifndef SCRY_SESSION_SOURCE_H
#define SCRY_SESSION_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

struct scry_channel;
struct pid_sel;

struct scry_source {
	const char *name;
	/* spec is this source's (its prefix): the first source that claims a spec resolves it */
	bool (*claims)(const char *spec);
	/* Enable in c what spec matches: matched counts them (0: nothing, and no error unless
	 * there is something to say beyond "unknown event"). */
	int (*enable)(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen);
	/* Disable the enabled events spec matches (their ids stay). */
	int (*disable)(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen);
	/* After load, and after each change: the kernel's tables say what is enabled. */
	int (*describe)(struct scry_channel *c, char *err, size_t errlen);
	/* At start, and after a change once started: attach what is enabled and not attached. */
	int (*attach)(struct scry_channel *c, char *err, size_t errlen);
	/* Per-process sets (optional): mark in sel the enabled events of c that spec matches
	 * (struct pid_sel, session_int.h).  While c->enabling_pid, enable marks what it adds
	 * as theirs only.  NULL: the source has no per-process sets. */
	int (*select)(struct scry_channel *c, const char *spec, struct pid_sel *sel);
	/* The event names it offers ("syscall:openat", "sched:sched_switch"), for "did you
	 * mean": n names, each malloc'd, in a malloc'd array; -ENOMEM. */
	int (*names)(struct scry_channel *c, char ***out, size_t *n);
};

extern const struct scry_source scry_source_syscalls, scry_source_tracepoints, scry_source_uprobes,
	scry_source_kprobes, scry_source_statedump, scry_source_profile, scry_source_net;

/* events.c: an event of c's catalog in c (its id: already there, or the next one). */
int channel_add_event(struct scry_channel *c, const struct scry_event *ev);

#endif
