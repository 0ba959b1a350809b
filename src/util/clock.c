/* clock.c — monotonic time and its offset to real time (see clock.h). */
#include <time.h>
#include "util/clock.h"

static int64_t ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

uint64_t scry_monotonic_ns(void)
{
	return scry_clock_ns(CLOCK_MONOTONIC);
}

uint64_t scry_clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)ns_of(&t);
}

void scry_clock_offset(int64_t *sec, uint64_t *nsec)
{
	scry_clock_offset_of(CLOCK_MONOTONIC, sec, nsec);
}

void scry_clock_offset_of(clockid_t id, int64_t *sec, uint64_t *nsec)
{
	int64_t best_window = -1, best = 0;

	for (int i = 0; i < 16; i++) {
		struct timespec m1, r, m2;
		clock_gettime(id, &m1);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(id, &m2);
		int64_t window = ns_of(&m2) - ns_of(&m1);
		if (best_window < 0 || window < best_window) {
			best_window = window;
			best = ns_of(&r) - (ns_of(&m1) + window / 2);
		}
	}
	*sec = best / 1000000000LL;
	*nsec = (uint64_t)(best % 1000000000LL);
	if (best < 0 && *nsec) {   /* keep nsec non-negative */
		*sec -= 1;
		*nsec = 1000000000ULL - (uint64_t)(-(best % 1000000000LL));
	}
}
