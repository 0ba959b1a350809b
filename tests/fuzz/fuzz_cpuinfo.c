/* fuzz_cpuinfo.c — libFuzzer target: input bytes as /proc/cpuinfo text through the
 * statedump's cpu_topology parser (src/session/statedump_items.c): every item it makes is
 * an lttng_statedump_cpu_topology payload that reads back whole — "x86", cpu_id, vendor,
 * family, model, model name, physical id, core id, cores: three NUL-terminated strings and
 * the integers, within the item. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/statedump_items.h"

/* The end of the NUL-terminated string at p within [p, end), or NULL. */
static const uint8_t *str_end(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, 0, (size_t)(end - p));

	return z ? z + 1 : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t ids[SCRY_SD_NR];
	struct scry_sd_item *items = NULL;
	size_t n = 0;
	FILE *f;

	for (int k = 0; k < SCRY_SD_NR; k++)
		ids[k] = SCRY_NO_EVENT;
	ids[SCRY_SD_CPU_TOPOLOGY] = 7;
	if (!size || !(f = fmemopen((void *)data, size, "r")))
		return 0;
	scry_statedump_cpuinfo_items(f, ids, &items, &n);
	fclose(f);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = items[i].data, *end = p + items[i].len;

		if (items[i].event_id != 7 || items[i].len > SCRY_SD_ITEM_MAX)
			abort();
		if (!(p = str_end(p, end)) || strcmp((const char *)items[i].data, "x86"))
			abort();
		p += 2;                                   /* cpu_id */
		if (p > end || !(p = str_end(p, end)))    /* vendor */
			abort();
		p += 2;                                   /* family, model */
		if (p > end || !(p = str_end(p, end)))    /* model_name */
			abort();
		if (p + 6 != end)                         /* physical_id, core_id, cores */
			abort();
	}
	free(items);
	return 0;
}
