/* statedump.h — lttng-modules' statedump events, described (statedump.c): their names in
 * enum scry_sd order (scry_abi.h) and their fields. */
#ifndef SCRY_CATALOG_STATEDUMP_H
#define SCRY_CATALOG_STATEDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include "catalog/catalog.h"

struct scry_sd_spec {
	const char *name;
	unsigned nfields;
	struct {
		const char *name;
		enum scry_ftype type;
		uint8_t size;          /* INT: bytes */
		bool is_signed;
		uint8_t base;
		uint32_t count;        /* TEXT: bytes */
	} fields[10];
};

extern const struct scry_sd_spec scry_sd_specs[SCRY_SD_NR];
/* enum scry_sd of a statedump event name, or -1. */
int scry_sd_find(const char *name);

#endif
