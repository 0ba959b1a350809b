/* stackmaps.h — `scry trace -k`: the mappings a process makes, learnt from its mmap and
 * execve calls (src/trace/stackmaps.c), so that the frames of a process that ends before
 * /proc/PID/maps could be read are named too. */
#ifndef SCRY_TRACE_STACKMAPS_H
#define SCRY_TRACE_STACKMAPS_H

#include "trace/call.h"
#include "trace/fdtrack.h"

struct scry_syms;
struct trace_stackmaps;         /* the programs whose base is not known yet */

struct trace_stackmaps *trace_stackmaps_new(void);
void trace_stackmaps_free(struct trace_stackmaps *m);

/* A call that returned (all: its argument values at exit): an mmap of a file adds its
 * mapping, a successful execve the interpreter the kernel mapped (placed by c->ip) and
 * the program, a PIE when ld.so's mprotect of its RELRO comes. */
void trace_stack_learn(struct trace_stackmaps *m, struct scry_syms *s, struct fdtrack *fds,
		       const struct trace_call *c, const struct scry_argval *all);

#endif /* SCRY_TRACE_STACKMAPS_H */
