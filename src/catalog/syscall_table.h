/* syscall_table.h — the generated x86_64 syscall table (syscall_table.c, written by
 * scripts/gen_syscalls.py) and the catalog-internal helpers built on it. */
#ifndef SCRY_SYSCALL_TABLE_H
#define SCRY_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include "catalog/catalog.h"

struct scry_syscall_row {
	const char *name;      /* kernel name (sys_NAME): "newstat", "openat" */
	int nr;
	int args_known;        /* 0: no sys_enter format when generated */
	unsigned nargs;
	struct scry_syscall_arg args[SCRY_MAX_ARGS];
};

extern const struct scry_syscall_row scry_syscall_table[];
extern const size_t scry_syscall_table_len;

/* C type -> size/signedness/pointer as the generator decides them (syscalls.c). */
int scry_syscall_ctype(const char *ctype, uint8_t *size, bool *is_signed, bool *is_pointer);

#endif /* SCRY_SYSCALL_TABLE_H */
