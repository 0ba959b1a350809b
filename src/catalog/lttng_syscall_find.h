/* lttng_syscall_find.h — lookups in lttng-modules' syscall layouts (lttng_syscalls.h). */
#ifndef SCRY_CATALOG_LTTNG_SYSCALL_FIND_H
#define SCRY_CATALOG_LTTNG_SYSCALL_FIND_H

#include <stdbool.h>
#include "catalog/lttng_syscalls.h"

/* The field of fs (n of them) holding argument arg's value (integer, string or array), or NULL. */
const struct scry_lttng_field *scry_lttng_arg_field(const struct scry_lttng_field *fs, unsigned n, unsigned arg);
/* True when lttng-modules names a field of the syscall's entry or exit `name`. */
bool scry_lttng_uses(const struct scry_lttng_syscall *lt, const char *name);

#endif /* SCRY_CATALOG_LTTNG_SYSCALL_FIND_H */
