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
 * address space until used.  (The reserve was once faulted in ahead by a thread on the CPU
 * the start-up left idle; since the programs are verified on both CPUs, kernel/lanes.c,
 * that thread competed with them: `scry trace -- /bin/true` 77 ms mean, 114 at the 90th
 * percentile, against 71 and 88 without it.)
 *
 * That threshold keeps what a session freed for the next parse, which suits a command that
 * records once and exits.  A daemon holds sessions for long and frees them at destroy: a
 * hundred configured sessions took ~670 MB of heap, and after `destroy -a` the daemon kept
 * ~665 MB of it, free in glibc's arena (1.2 MB in use) but resident.  scry_heap_release
 * gives those pages back (malloc_trim: the top of the heap shortened, the free pages inside
 * it dropped with MADV_DONTNEED: ~10 MB resident after).  It also takes the advice off what
 * is left of the heap: the daemon's chunks that outlive the sessions lie scattered in once
 * advised ranges, and khugepaged (which collapses any 2 MiB range holding one page:
 * max_ptes_none 511) would make each such range a whole huge page again while the daemon
 * idles (seen: a 2 MiB huge page resident after a `destroy -a`, in 1 test run of ~12).  The
 * next session (scry_heap_reserve, from scry_session_create) makes the reserve again, as the
 * kernel grows a shrunk heap without the advice: its parse then faults ~1,500-2,000 times (the huge pages
 * of the reserve, and 4 KiB pages where the trim split them below it) against ~9,000 without
 * the new reserve and 13 when nothing was given back. */
#include <malloc.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/heap.h"
#include "util/overrides.h"

#define SCRY_HEAP_RESERVE (48u << 20)
#define HUGE_PAGE (2ul << 20)

static bool huge_heap;                  /* scry_heap_init set the heap up (not SCRY_NO_HUGE_HEAP) */
static uintptr_t heap_start;            /* the break before the first reserve */
static atomic_bool reserved;            /* the heap's top is advised (cleared by a release) */

/* One allocation of the reserve grows the heap (whatever was allocated before); advised
 * MADV_HUGEPAGE and freed, it stays the heap's top, the range later allocations are cut
 * from.  Untouched, it costs address space only. */
static void reserve(void)
{
	char *r = malloc(SCRY_HEAP_RESERVE);

	if (!r)
		return;
	uintptr_t lo = ((uintptr_t)r + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)r + SCRY_HEAP_RESERVE) & ~(HUGE_PAGE - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(r);
}

void scry_heap_init(void)
{
	if (scry_overrides()->no_huge_heap)       /* for comparisons (bench/startup.sh) */
		return;
	/* allocations up to 64 MiB from the heap (the BTF copies), kept there when freed (the
	 * second parse reuses the first's pages), one arena for every thread */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_ARENA_MAX, 1);
	huge_heap = true;
	heap_start = (uintptr_t)sbrk(0);
	scry_heap_reserve();
}

void scry_heap_reserve(void)
{
	if (huge_heap && !atomic_exchange(&reserved, true))
		reserve();
}

/* Resident pages, in KiB (/proc/self/statm's second field), 0 when unknown. */
static uint64_t rss_kib(void)
{
	unsigned long long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (uint64_t)sysconf(_SC_PAGESIZE) / 1024;
}

void scry_heap_release(struct scry_heap_usage *u)
{
	struct mallinfo2 mi;

	u->rss_before_kib = rss_kib();
	malloc_trim(0);
	/* what is left of the heap no longer advised (the chunks that outlive the sessions are
	 * not made huge pages by khugepaged); the next session makes the reserve again */
	if (huge_heap) {
		uintptr_t lo = heap_start & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1), hi = (uintptr_t)sbrk(0);

		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE);
		atomic_store(&reserved, false);
	}
	mi = mallinfo2();
	u->in_use = mi.uordblks + mi.hblkhd;
	u->rss_after_kib = rss_kib();
}
