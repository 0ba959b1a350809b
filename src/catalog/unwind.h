/* unwind.h — user stacks unwound in user space, perf's method, for scry profile
 * --call-graph dwarf (a sample's) and scry trace -k (a call's): the task's user registers
 * and the copy of its stack a BPF program took (bpf/ustack.h) unwound by elfutils' libdwfl
 * over the call frame information (.eh_frame, else .debug_frame) of the files the process
 * maps.  The mappings are those captured while the process lived (catalog/symbolize.h);
 * each process keeps its libdwfl session (files opened, CFI parsed) from one stack to the
 * next, until it execs. */
#ifndef SCRY_CATALOG_UNWIND_H
#define SCRY_CATALOG_UNWIND_H

#include <stdint.h>
#include <linux/types.h>
#include "bpf/ustack.h"
#include "catalog/symbolize.h"

#define SCRY_UNWIND_MAX_DEPTH 256    /* frames kept per stack, innermost first */

struct scry_unwinder;

/* A stack to unwind, as copied by the kernel. */
struct scry_ustack {
	uint32_t pid, tgid;          /* thread, process */
	const __u64 *regs;           /* SCRY_DWREGS_N user registers, DWARF's numbering */
	const uint8_t *data;         /* the stack's bytes from regs[SCRY_DWREG_SP] up ... */
	uint32_t size;               /* ... size of them */
};

/* What the unwinder did. */
struct scry_unwind_stats {
	uint64_t stacks;             /* stacks unwound */
	uint64_t frames;             /* frames found */
	uint64_t ended;              /* unwinding reached the outermost frame (no return address) */
	uint64_t window;             /* stopped by a read outside the stack's copy */
	uint64_t nofile;             /* stopped at an address in no captured file mapping */
	uint64_t depth;              /* stopped at SCRY_UNWIND_MAX_DEPTH frames */
	uint64_t other;              /* stopped otherwise (no CFI for the address, ...) */
};

struct scry_unwinder *scry_unwinder_new(struct scry_syms *syms);
void scry_unwinder_free(struct scry_unwinder *u);
/* tgid is a new process or exec'ed: what was known of its files is dropped. */
void scry_unwinder_forget(struct scry_unwinder *u, int tgid);
/* The user frames of s in ips, innermost first: the interrupted address, then return addresses (an address in a frame interrupted by a signal,
 * not a return address, is stored plus one, so that every frame after the first is looked
 * up at its address minus one).  Their number (0 when the sample has no user address). */
unsigned scry_unwind(struct scry_unwinder *u, const struct scry_ustack *s, uint64_t *ips, unsigned max);
const struct scry_unwind_stats *scry_unwinder_stats(const struct scry_unwinder *u);

#endif
