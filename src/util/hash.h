/* hash.h — the one string hash of scry's look-up tables built once (FNV-1a, 32 bits): the
 * catalog's struct descriptions, the format's flag and enum sets. */
#ifndef SCRY_UTIL_HASH_H
#define SCRY_UTIL_HASH_H

#include <stdint.h>

static inline uint32_t scry_hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

#endif
