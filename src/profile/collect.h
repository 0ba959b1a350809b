/* collect.h — a profile from what the kernel counted (kernel/profiler.h) and, with
 * --call-graph dwarf, the samples unwound and counted in user space (tally.h): each
 * counted key's stacks read from the stack map (or the tally) and symbolized
 * (catalog/symbolize.h: kallsyms, the processes' mappings captured while they lived, their
 * ELF symbols), frames leaf first: the kernel's, then the user's.  A stack the kernel lost
 * is one frame "[lost kernel stack]" / "[lost user stack]", so that its samples still count.
 * An off-CPU profile's counts (nanoseconds blocked) become microseconds. */
#ifndef SCRY_PROFILE_COLLECT_H
#define SCRY_PROFILE_COLLECT_H

#include <stddef.h>
#include "catalog/symbolize.h"
#include "kernel/profiler.h"
#include "profile/profile.h"
#include "profile/tally.h"

/* t: the unwound samples, or NULL.  0, or -errno with a one-line reason in err. */
int scry_prof_collect(struct scry_profiler *k, struct scry_syms *syms, const struct scry_tally *t, struct scry_prof *p,
		      char *err, size_t errlen);

#endif
