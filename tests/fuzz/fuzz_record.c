/* fuzz_record.c — libFuzzer target: a ring record as the BPF programs write it, read by
 * catalog/record.c (the one reader of records in user space).  The input's first 8 bytes are a
 * channel's context mask (cut to the contexts there are), the rest one record, copied to an
 * allocation of its own size (ASan sees any read past it).  Every context is read, each call
 * stack's frames walked, and the record compacted to its CTF form (record.h: at most its own
 * size) into a buffer of exactly that size; a payload or compact size past the record aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scry_record_layout l;
	struct scry_record r;
	uint64_t mask, sink = 0;
	uint8_t *rec, *out;
	size_t m;

	if (size < 8)
		return 0;
	memcpy(&mask, data, 8);
	if (SCRY_CTX_NR < 64)
		mask &= (1ULL << SCRY_CTX_NR) - 1;
	data += 8;
	size -= 8;
	rec = malloc(size ? size : 1);
	out = malloc(size ? size : 1);
	if (!rec || !out)
		abort();
	memcpy(rec, data, size);
	scry_record_layout_init(&l, mask);
	if (scry_record_read(&l, rec, size, &r) == 0) {
		if (r.payload < rec || r.payload + r.payload_size > rec + size)
			abort();
		for (int c = 0; c < SCRY_CTX_NR; c++) {
			const uint64_t *f;
			const char *s;
			int64_t v;
			size_t len;
			uint32_t n;

			if (scry_record_ctx(&l, &r, c, &v))
				sink += (uint64_t)v;
			if ((s = scry_record_text(&l, &r, c, &len)) && len)
				sink += (uint8_t)s[len - 1];
			if ((f = scry_record_callstack(&l, &r, c, &n)) && n) {
				const uint8_t *p = (const uint8_t *)f;

				if (p < rec || p + 8 * (size_t)n > rec + size)
					abort();
				for (uint32_t i = 0; i < n; i++) {
					uint64_t a;

					memcpy(&a, p + 8 * (size_t)i, 8);
					sink += a;
				}
			}
		}
	}
	m = scry_record_compact(&l, rec, size, out);
	if (m > size)
		abort();
	if (m)
		sink += out[m - 1];
	free(rec);
	free(out);
	return sink == 0x5ca1ab1e;   /* keep the reads; libFuzzer ignores the value */
}
