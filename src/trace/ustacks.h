/* ustacks.h — `scry trace -k`'s user stacks as strace -k unwinds them (src/trace/ustacks.c):
 * each syscall exit's copy of its thread's user registers and stack (scry_abi.h: struct
 * scry_ustack_rec, in the session's ring of them) kept until its event is handed over, then
 * unwound with the files' call frame information (catalog/unwind.h), in the mappings known
 * by then (those read from /proc while the process lived, and those its calls made). */
#ifndef SCRY_TRACE_USTACKS_H
#define SCRY_TRACE_USTACKS_H

#include <stdint.h>

struct scry_syms;
struct trace_ustacks;

/* What became of the copies in user space. */
struct trace_ustacks_stats {
	uint64_t unwound;            /* calls given their copy's frames */
	uint64_t missing;            /* calls without a copy (lost in the kernel: counted there) */
	uint64_t orphans;            /* copies whose event never came (the event lost) */
	uint64_t oom;                /* copies dropped: out of memory */
};

/* The copies of the ring fd (the session's), unwound in syms' mappings. */
struct trace_ustacks *trace_ustacks_new(int fd, struct scry_syms *syms);
void trace_ustacks_free(struct trace_ustacks *u);
/* Move what the ring holds into memory: every copy of an event already read is there (a
 * copy enters the ring before its event).  Before the events are handed over. */
void trace_ustacks_drain(struct trace_ustacks *u);
/* The frames of the exit event of thread tid stamped ts, innermost first (the call's
 * instruction, then return addresses), in ips; 0 when no copy came. */
unsigned trace_ustacks_take(struct trace_ustacks *u, int tid, uint64_t ts, uint64_t *ips, unsigned max);
/* The copies of events stamped before horizon that were not taken (their event was lost)
 * freed; every event before it was handed over. */
void trace_ustacks_expire(struct trace_ustacks *u, uint64_t horizon);
/* Process tgid exec'ed or ended: the files its unwinding knew are forgotten. */
void trace_ustacks_forget(struct trace_ustacks *u, int tgid);
const struct trace_ustacks_stats *trace_ustacks_stats(const struct trace_ustacks *u);

#endif /* SCRY_TRACE_USTACKS_H */
