/* clock.h — the trace clock: CLOCK_MONOTONIC nanoseconds (what bpf_ktime_get_ns() reads)
 * and its offset to real time for the CTF clock declaration. */
#ifndef SCRY_CLOCK_H
#define SCRY_CLOCK_H

#include <stdint.h>
#include <time.h>

uint64_t scry_monotonic_ns(void);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now, as seconds + nanoseconds (0..999999999),
 * from the tightest of several paired readings. */
void scry_clock_offset(int64_t *sec, uint64_t *nsec);
/* The same for another trace clock (CLOCK_BOOTTIME, CLOCK_TAI: create --clock). */
uint64_t scry_clock_ns(clockid_t id);
void scry_clock_offset_of(clockid_t id, int64_t *sec, uint64_t *nsec);

#endif
