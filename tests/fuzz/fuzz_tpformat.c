/* fuzz_tpformat.c — libFuzzer target for the tracefs format parser (tpformat_parse):
 * any input must parse or fail with a NUL-terminated one-line error, never crash. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "catalog/tpformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tpformat f;
	char err[160];

	if (tpformat_parse((const char *)data, size, &f, err, sizeof(err)) == 0) {
		for (unsigned i = 0; i < f.nfields; i++)
			if (!f.fields[i].name[0] || !f.fields[i].type[0] ||
			    (uint64_t)f.fields[i].offset + f.fields[i].size > TPF_MAX_VALUE)
				__builtin_trap();
		tpformat_free(&f);
	} else if (memchr(err, '\0', sizeof(err)) == NULL) {
		__builtin_trap();
	}
	return 0;
}
