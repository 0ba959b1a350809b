/* printer.h — `scry trace` output: strace's lines (or JSON lines) from merged syscall
 * calls, signals and process exits, in the order the events happened
 * (src/trace/printer.c, printer_json.c).
 *
 * Text, as strace prints it:
 *   openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3
 *   [pid  4712] read(3,  <unfinished ...>          another task's line must start first
 *   [pid  4711] close(4)                    = 0
 *   [pid  4712] <... read resumed>"root:x:0:0:"..., 4096) = 1234
 *   exit_group(0)                           = ?
 *   +++ exited with 0 +++
 *   --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---
 * A call's entry part is written when it enters (up to its first argument read at exit,
 * OUT or INOUT), the rest when it returns, on the same line when nothing came between.
 * The " = " column is 40.  Prefix: with -o FILE (and following), "PID   " on every line
 * (strace's "%-5d "); else "[pid NNNNN] " once more than one task is alive.
 * With -e status= other than all, and with --json, whole calls are printed when they
 * return (strace's order then).  -c prints nothing but counts into the summary; -C both.
 * Unselected syscalls (trace=) are not printed or counted but still update -y's fd table:
 * feed the printer open/close/dup-family calls even when trace= leaves them out.
 * The call's name and specs must outlive the printer (the catalog's); argument bytes are
 * copied.  An argument the formatter prints as nothing is left out with its comma.
 *
 * Where scry differs from strace 6.1:
 *  - signals: only si_signo, si_code and si_errno are known, so "--- SIGCHLD {si_signo=
 *    SIGCHLD, si_code=CLD_EXITED} ---" lacks strace's si_pid, si_uid, si_status, si_utime,
 *    si_stime, si_addr...
 *  - times (-t, -tt, -ttt, -r) are the kernel's event times: a call line carries its entry
 *    time, a resumed line its exit time, where strace stamps the moment it prints.
 *  - -c's seconds are latencies (exit - entry, strace -w), not system CPU time.
 *  - the "[pid N]" prefix counts the tasks seen (events, trace_printer_task) and not yet
 *    ended; strace counts the tasks it is attached to.
 *  - "+++ exited with N +++" is printed for each thread of an exiting process with the
 *    process's status (a thread ending by exit(N) gets its own line after "exit(N) = ?").
 *  - -y: a path is resolved when its open returns (against the cwd or dirfd, then
 *    realpath in scry's mount namespace); fds no call told about are read from
 *    /proc/PID/fd at print time (strace reads /proc for every fd it prints).
 *  - INOUT arguments are printed when the call returns, with their exit value.
 *  - execve in a non-leader thread: the call returns under the leader's tid (the line goes
 *    on if nothing came between); strace's "+++ superseded by execve +++" is not printed.
 *  - status=unavailable never matches; status=detached matches calls pending at the end.
 *  - a call whose strings were not mapped yet when it entered (a child's first calls after
 *    fork) reaches scry when it returns: its entry part is printed then, in its entry-time
 *    place among lines not printed yet; one still blocked at the end is not shown.
 *  - -v lists at most 32 of execve's argv/envp strings, then "...". */
#ifndef SCRY_TRACE_PRINTER_H
#define SCRY_TRACE_PRINTER_H

#include <stdint.h>
#include <stdio.h>
#include "trace/call.h"
#include "trace/options.h"
#include "trace/summary.h"

struct trace_printer;

/* out: where lines go (stderr, or the -o file, opened by the caller).  sum: where -c/-C
 * count (may be NULL).  o is copied; NULL on out of memory. */
struct trace_printer *trace_printer_new(const struct trace_opts *o, FILE *out, struct trace_summary *sum);

/* A syscall entered (c->have_entry, c->in).  c's bytes are copied as needed. */
void trace_printer_entry(struct trace_printer *p, const struct trace_call *c);
/* A syscall returned (c->have_exit, c->out, c->ret); matched with tid's pending entry. */
void trace_printer_exit(struct trace_printer *p, const struct trace_call *c);
/* A signal delivered to tid: "--- SIG {si_signo=SIG, si_code=CODE[, si_errno=E]} ---". */
void trace_printer_signal(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si);
/* A signal sent to tid that it ignores: shown as strace shows it (strace stops the task
 * for it), after the call tid is in returns. */
void trace_printer_signal_ignored(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si);
/* Process pid ended (its last thread); status as wait(2) gives it.  Pending calls of its
 * threads end as "<... NAME resumed> <unfinished ...>) = ?", then "+++ exited with N +++"
 * (or "+++ killed by SIG +++") for each of its tasks, the leader last. */
void trace_printer_exited(struct trace_printer *p, int pid, int64_t ts, int status);
/* Optional: a new task (fork, clone, thread) before its first event: it counts for the
 * pid prefix at once, and a new process inherits its parent's -y fd table. */
void trace_printer_task(struct trace_printer *p, int parent_pid, int pid, int tid);
/* A uprobe, uretprobe or USDT probe (-e uprobe:..., see docs/PROBES.md) hit by tid:
 *   uprobe:BINARY:FUNC(name=value, ...)        at the entry (USDT: usdt:BINARY:PROV:NAME(...))
 *   uretprobe:BINARY:FUNC = value              at the return
 * values as the event's fields are typed (strings quoted, -s bounds them, hex pointers);
 * --json: {"event":"probe","probe":...,"args":{...}}. */
struct scry_event;
struct scry_fieldval;
void trace_printer_probe(struct trace_printer *p, int pid, int tid, int64_t ts, const struct scry_event *ev,
			 const struct scry_fieldval *vals);
/* -P: one more path a call must touch to be shown (as given, and what it resolved into);
 * -1 when out of memory. */
int trace_printer_add_path(struct trace_printer *p, const char *path);
/* -k: the mappings frames are named with (trace_live_syms); the printer adds to them what
 * the calls tell (mmap, execve: trace/stackmaps.h).  0, or -1 when out of memory. */
struct scry_syms;
int trace_printer_set_syms(struct trace_printer *p, struct scry_syms *syms);
/* -y: what process pid has open before it is traced (the command before its exec, -p). */
void trace_printer_prime(struct trace_printer *p, int pid);

/* After each batch of events: flushes when the output is a terminal (partial lines
 * included, as strace shows them); block-buffered otherwise. */
void trace_printer_batch_end(struct trace_printer *p);
/* End of tracing: a line left open ends with " <detached ...>", pending calls shown per
 * -e status=detached / --json, everything flushed.  0, or -1 when a write failed. */
int trace_printer_finish(struct trace_printer *p);
/* Frees; writes nothing (what finish did not write is lost). */
void trace_printer_free(struct trace_printer *p);

#endif /* SCRY_TRACE_PRINTER_H */
