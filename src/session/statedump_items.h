/* statedump_items.h — the statedump events read from /proc and /sys (statedump_items.c).
 * Private to src/session/. */
#ifndef SCRY_SESSION_STATEDUMP_ITEMS_H
#define SCRY_SESSION_STATEDUMP_ITEMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "scry_abi.h"

/* The items of the events whose ids (SCRY_SD_NR of them) are not SCRY_NO_EVENT: *nhead of
 * them before the iterators' events (start), the rest after (the devices, end).  *out is
 * malloc'd; -E2BIG with a reason in err when there are more than SCRY_SD_ITEMS. */
int scry_statedump_items(const uint16_t *ids, struct scry_sd_item **out, size_t *n, size_t *nhead,
			 char *err, size_t errlen);

/* The cpu_topology items of a /proc/cpuinfo text read from f (tests, fuzzing). */
int scry_statedump_cpuinfo_items(FILE *f, const uint16_t *ids, struct scry_sd_item **out, size_t *n);

#endif
