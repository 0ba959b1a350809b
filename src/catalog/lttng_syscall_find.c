/* lttng_syscall_find.c — lookups in lttng-modules' syscall layouts (the generated
 * lttng_syscalls.c): a syscall's layout, an argument's field, whether a name is LTTng's. */
#include <string.h>
#include "catalog/lttng_syscalls.h"
#include "catalog/lttng_syscall_find.h"

const struct scry_lttng_syscall *scry_lttng_syscall(const char *name, int nr)
{
	size_t lo = 0, hi = scry_lttng_syscalls_len;

	while (lo < hi) {   /* the generator writes the rows sorted by name */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, scry_lttng_syscalls[mid].name);

		if (!c)
			return scry_lttng_syscalls[mid].nr == nr ? &scry_lttng_syscalls[mid] : NULL;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct scry_lttng_field *scry_lttng_arg_field(const struct scry_lttng_field *fs, unsigned n, unsigned arg)
{
	for (unsigned k = 0; k < n; k++)
		if (fs[k].arg == (int)arg && fs[k].kind != SCRY_LF_COMPUTED && fs[k].kind != SCRY_LF_RET)
			return &fs[k];
	return NULL;
}

bool scry_lttng_uses(const struct scry_lttng_syscall *lt, const char *name)
{
	for (unsigned k = 0; lt && k < lt->nentry; k++)
		if (!strcmp(lt->entry[k].name, name))
			return true;
	for (unsigned k = 0; lt && k < lt->nexit; k++)
		if (!strcmp(lt->exit[k].name, name))
			return true;
	return false;
}
