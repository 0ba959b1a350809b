/* live.h — `scry trace`'s event path: events of every CPU (consumer sink), merged into one
 * time order, decoded with the catalog and turned into syscall calls, signals and process
 * exits for the printer (src/trace/live.c). */
#ifndef SCRY_TRACE_LIVE_H
#define SCRY_TRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include "trace/call.h"

struct scry_session;
struct scry_event;
struct scry_fieldval;

struct trace_live_ops {
	void (*entry)(void *ctx, const struct trace_call *c);
	void (*exit)(void *ctx, const struct trace_call *c);
	/* a signal delivered to tid (signal:signal_deliver); si: the first 48 bytes of its
	 * siginfo_t (signo, errno, code, the union; the union zero when the event lacks it) */
	void (*signal)(void *ctx, int pid, int tid, int64_t ts, const uint8_t *si);
	/* a signal sent to tid that its handler ignores (signal:signal_generate) */
	void (*signal_ignored)(void *ctx, int pid, int tid, int64_t ts, const uint8_t *si);
	/* a new task tid of process pid, forked by parent_pid (sched:sched_process_fork) */
	void (*task)(void *ctx, int parent_pid, int pid, int tid);
	/* the last thread of pid exited; status as wait(2) reports it */
	void (*proc_exit)(void *ctx, int pid, int64_t ts, int status);
	/* a uprobe, uretprobe or USDT probe (an event of kind SCRY_EV_UPROBE) and its fields */
	void (*probe)(void *ctx, int pid, int tid, int64_t ts, const struct scry_event *ev,
		      const struct scry_fieldval *vals);
	void *ctx;
	/* with the callstack_user context: name the frames of each exit (-k), or only give
	 * each call its instruction pointer (-i) */
	bool stack_names;
};

struct trace_live;

/* The session must record the contexts pid and tid (and may record others). */
struct trace_live *trace_live_new(const struct trace_live_ops *ops);
/* Bind to the session's events (after scry_session_create). */
int trace_live_bind(struct trace_live *l, struct scry_session *s, char *err, size_t errlen);
/* The same with channel chan's events (index in the session), not the first's. */
int trace_live_bind_channel(struct trace_live *l, struct scry_session *s, unsigned chan, char *err, size_t errlen);
/* Leave out pid's events until its first execve: the command scry started is followed
 * from its fork, and its wait for the go-ahead is scry's, not the command's. */
void trace_live_gate_exec(struct trace_live *l, int pid);
/* The consumer sink (session opts .sink, .sink_ctx = l). */
void trace_live_sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size);
/* Hand over, in time order, the events older than horizon (CLOCK_MONOTONIC ns; UINT64_MAX:
 * all of them). */
void trace_live_pump(struct trace_live *l, uint64_t horizon);
/* -k: the user stacks' mappings, read from /proc as the events arrive (NULL without -k);
 * the printer names the frames with them and adds what the calls tell (mmap, execve). */
struct scry_syms *trace_live_syms(struct trace_live *l);
/* -k with the session's user stack copies: what became of them (NULL: none). */
struct trace_ustacks_stats;
const struct trace_ustacks_stats *trace_live_ustack_stats(const struct trace_live *l);
/* Events whose bytes did not match their layout (a bug if ever nonzero). */
uint64_t trace_live_malformed(const struct trace_live *l);
/* Events not kept for want of memory (their calls are missing from the output). */
uint64_t trace_live_dropped(const struct trace_live *l);
void trace_live_free(struct trace_live *l);

#endif /* SCRY_TRACE_LIVE_H */
