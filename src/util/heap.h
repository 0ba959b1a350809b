/* heap.h — how scry's heap is set up at start: on transparent huge pages where the
 * kernel offers them (see heap.c for why). */
#ifndef SCRY_HEAP_H
#define SCRY_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Called once, first thing in main(), before any thread starts. */
void scry_heap_init(void);

struct scry_heap_usage {
	uint64_t rss_before_kib, rss_after_kib;   /* the process's resident size around the release */
	size_t in_use;                            /* bytes allocated (not free) after it */
};
/* The heap's top advised for huge pages for the next BTF parse, unless it still is (made by
 * scry_heap_init; again after a release, by the next session). */
void scry_heap_reserve(void);
/* Give the heap's free pages back to the kernel (the daemon, after sessions are freed):
 * what the process held before and after into *u. */
void scry_heap_release(struct scry_heap_usage *u);   /* and the reserve's advice taken off */

#endif
