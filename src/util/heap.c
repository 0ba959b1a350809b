/* heap.c — scry's heap on transparent huge pages.
 *
 * Every start of a recording parses the kernel's BTF (5.5 MB raw on Linux 6.18, ~10 MB once
 * indexed) several times: once for scry's own feature checks, then inside libbpf for each
 * copy of the BPF object it loads (kernel/lanes.c: the maps' copy, then the two lanes' at
 * once, 40 MB of heap at the peak).  On 4 KiB pages that is ~2,900 page faults per parse;
 * where a page fault is expensive (virtual machines with shadow or nested page tables: ~27 us
 * each on the machine this was measured on) each parse took ~60 ms.  On 2 MiB pages the same
 * parse takes 5–8 ms.  So the heap is grown once by SCRY_HEAP_RESERVE, that range advised
 * MADV_HUGEPAGE (used only where THP is "madvise" or "always"; a no-op elsewhere), large
 * allocations kept in it rather than in mmap()ed chunks of their own, and every thread
 * allocating from it (one arena).  Untouched huge pages cost nothing: the reservation is
 * address space until used.  A thread faults the reserve in at once (MADV_POPULATE_WRITE,
 * Linux 5.14), on the CPU the start-up leaves idle: zeroing fresh huge pages is slow where
 * the host backs guest memory lazily, and it then happens beside the catalog's work
 * instead of inside libbpf's BTF parse (SCRY_NO_HEAP_PREFAULT=1: not). */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/heap.h"

#define SCRY_HEAP_RESERVE (48u << 20)
#define HUGE_PAGE (2ul << 20)

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static uintptr_t reserve[2];

static void *populate_reserve(void *arg)
{
	madvise((void *)reserve[0], reserve[1] - reserve[0], MADV_POPULATE_WRITE);
	return NULL;
}

void scry_heap_init(bool prefault)
{
	if (getenv("SCRY_NO_HUGE_HEAP"))       /* for comparisons (bench/startup.sh) */
		return;
	/* allocations up to 64 MiB from the heap (the BTF copies), kept there when freed (the
	 * second parse reuses the first's pages), one arena for every thread */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_ARENA_MAX, 1);
	/* one allocation of the reserve grows the heap (whatever libraries allocated before
	 * main); freed, it stays the heap's top, the range later allocations are cut from */
	char *r = malloc(SCRY_HEAP_RESERVE);

	if (!r)
		return;
	uintptr_t lo = ((uintptr_t)r + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)r + SCRY_HEAP_RESERVE) & ~(HUGE_PAGE - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(r);
	pthread_t th;

	reserve[0] = lo;
	reserve[1] = hi;
	if (prefault && hi > lo && !getenv("SCRY_NO_HEAP_PREFAULT") && !pthread_create(&th, NULL, populate_reserve, NULL))
		pthread_detach(th);
}
