/* lttng_syscalls.h — lttng-modules 2.13's x86-64 syscall event layouts (the generated
 * lttng_syscalls.c) and the lookup event_syscall.c lays scry's syscall events out with. */
#ifndef SCRY_CATALOG_LTTNG_SYSCALLS_H
#define SCRY_CATALOG_LTTNG_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum scry_lttng_fkind {
	SCRY_LF_INT,        /* ctf_integer(_hex) of argument `arg` */
	SCRY_LF_STRING,     /* ctf_user_string of argument `arg` */
	SCRY_LF_ARRAY2,     /* ctf_user_array(int, NAME, arg, 2): the int[2] argument `arg` points to */
	SCRY_LF_RET,        /* the exit's return value */
	SCRY_LF_COMPUTED,   /* computed by lttng-modules' code (a socket address's parts, poll's
			     * and select's decoded sets...): scry records its own form instead */
};

struct scry_lttng_field {
	const char *name;
	int8_t arg;          /* argument index, -1: none */
	uint8_t kind;        /* enum scry_lttng_fkind */
	uint8_t size;        /* integers (array elements): the C type's bytes */
	bool is_signed;
	bool hex;            /* ctf_integer_hex */
};

struct scry_lttng_syscall {
	const char *name;    /* kernel name, as scry's syscall table has it */
	int nr;
	const struct scry_lttng_field *entry;
	unsigned nentry;
	const struct scry_lttng_field *exit;   /* ret first */
	unsigned nexit;
};

extern const struct scry_lttng_syscall scry_lttng_syscalls[];
extern const size_t scry_lttng_syscalls_len;

/* lttng-modules' layout of syscall name (number nr), or NULL: a syscall lttng-modules 2.13
 * does not instrument on x86-64 (newer than its table), laid out as scry chooses. */
const struct scry_lttng_syscall *scry_lttng_syscall(const char *name, int nr);

#endif /* SCRY_CATALOG_LTTNG_SYSCALLS_H */
