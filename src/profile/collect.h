/* collect.h — a profile from what the kernel counted (kernel/profiler.h) and, with
 * --call-graph dwarf, the samples unwound and counted in user space (tally.h): each
 * counted key's stacks read from the stack map (or the tally) and symbolized
 * (catalog/symbolize.h: kallsyms, the processes' mappings captured while they lived, their
 * ELF symbols), frames leaf first: the kernel's, then the user's.  A stack the kernel lost
 * is one frame "[lost kernel stack]" / "[lost user stack]", so that its samples still count.
 * An off-CPU profile's counts (nanoseconds blocked) become microseconds. */
#ifndef SCRY_PROFILE_COLLECT_H
#define SCRY_PROFILE_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include "catalog/symbolize.h"
#include "kernel/profiler.h"
#include "profile/profile.h"
#include "profile/tally.h"

/* How user frames are named beyond the ELF symbol tables, from DWARF (catalog/dwarf.h: the
 * file's, or its separate debug file's by build id).  A function missing from the symbol
 * tables is always named from DWARF when it is there. */
struct scry_prof_symopts {
	bool inline_frames;          /* --inline: the functions inlined at an address, each a frame */
	bool lines;                  /* --lines: each frame's source file and line in its name */
};

/* t: the unwound samples, or NULL; o: NULL for none of the options.  0, or -errno with a
 * one-line reason in err. */
int scry_prof_collect(struct scry_profiler *k, struct scry_syms *syms, const struct scry_tally *t,
		      const struct scry_prof_symopts *o, struct scry_prof *p, char *err, size_t errlen);

#endif
