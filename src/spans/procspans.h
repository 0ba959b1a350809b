/* procspans.h — process lifetime spans: one span per program a process runs, from its
 * execve's return to the process's exit (or to its next execve), named after the program;
 * its parent is the span of the process that forked it (the program running in it at the
 * fork, or the one its own parent was in, for a process that forks without exec), or the
 * previous program's span of the same process.  A process with no known parent starts a
 * trace of its own.  Built from scry trace's live events (trace/live.h: execve entries and
 * exits, sched_process_fork, sched_process_exit, exit_group's status), handed to the OTLP
 * exporter as each ends. */
#ifndef SCRY_SPANS_PROCSPANS_H
#define SCRY_SPANS_PROCSPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "spans/exporter.h"
#include "trace/live.h"

/* The events the session must enable (with the pid and tid contexts). */
extern const char *const scry_procspans_events[];
extern const size_t scry_procspans_nevents;

struct scry_procspans;

struct scry_procspans *scry_procspans_new(struct scry_otlp_exporter *exp);
/* The live ops that feed it (ctx = p). */
void scry_procspans_ops(struct scry_procspans *p, struct trace_live_ops *ops);
/* Spans still open (their processes still running) ended at now_ns (wall), marked with
 * scry.unfinished = 1, and exported. */
void scry_procspans_finish(struct scry_procspans *p, uint64_t now_ns);
uint64_t scry_procspans_started(const struct scry_procspans *p);
/* The parent a kernel span of process pid at ts (wall ns) takes, as its process span
 * would: the span of the program it runs, if that started by ts; else (a fork that has not
 * exec'd, or ts before its exec) the span its next program's span has for parent (the
 * forking process's program); its trace id and span id, true; false when there is none. */
bool scry_procspans_parent(const struct scry_procspans *p, int pid, uint64_t ts, uint8_t trace_id[16],
			   uint8_t span_id[8]);
void scry_procspans_free(struct scry_procspans *p);

#endif /* SCRY_SPANS_PROCSPANS_H */
