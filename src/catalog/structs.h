/* structs.h — the user-space structs scry captures from syscall arguments (x86_64 ABI
 * layouts), described once: the BPF side copies `size` bytes, the CTF metadata declares
 * the struct with these fields (padding included, so the bytes need no conversion), and
 * src/format prints them strace-style (structs.c holds the table). */
#ifndef SCRY_CATALOG_STRUCTS_H
#define SCRY_CATALOG_STRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scry_struct_field {
	const char *name;       /* "st_mode"; padding fields are named "__padN" */
	uint16_t offset;        /* bytes from the start of the struct */
	uint8_t size;           /* bytes of one element: 1, 2, 4 or 8 */
	bool is_signed;
	uint8_t base;           /* 10 or 16 */
	uint16_t count;         /* 0: a scalar; else an array of count elements */
	bool is_text;           /* char array (utsname fields, sun_path): a UTF-8 text array */
	bool big_endian;        /* network order (sin_port) */
};

/* A scalar element type ("int": pipe fds, wait status) has one field named like the type. */
struct scry_struct_desc {
	const char *name;       /* "stat", "timespec", "pollfd", "int" (a scalar element) */
	uint16_t size;          /* sizeof on x86_64; the fields cover it exactly */
	uint8_t nfields;
	const struct scry_struct_field *fields;
};

/* NULL when scry has no description of that type. */
const struct scry_struct_desc *scry_struct_find(const char *name);

/* Every described type (tests check that fields cover size exactly, in order). */
size_t scry_structs(const struct scry_struct_desc *const **list);

#endif /* SCRY_CATALOG_STRUCTS_H */
