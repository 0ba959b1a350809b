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

/* What the BPF side appends after the fixed bytes of a struct it captured: data that the
 * struct points to (an iovec's bytes, a msghdr's address and iovec array, a directory
 * entry's name), in the CTF element as `uint32 _NAME_length; ELEM NAME[_NAME_length]`
 * (BYTES, STRUCTS) or `string NAME` (STRING).  Such a struct has a variable size. */
enum scry_tail_kind {
	SCRY_TAIL_BYTES,        /* uint32 n, then n bytes */
	SCRY_TAIL_STRUCTS,      /* uint32 n, then n elements of `elem` (each may have tails) */
	SCRY_TAIL_STRING,       /* NUL-terminated string */
};

struct scry_struct_desc;

struct scry_struct_tail {
	const char *name;       /* "data", "name", "iov", "d_name" */
	enum scry_tail_kind kind;
	const struct scry_struct_desc *elem;   /* STRUCTS: the element type */
};

/* A scalar element type ("int": pipe fds, wait status) has one field named like the type. */
struct scry_struct_desc {
	const char *name;       /* "stat", "timespec", "pollfd", "int" (a scalar element) */
	uint16_t size;          /* sizeof on x86_64; the fields cover it exactly */
	uint8_t nfields;
	const struct scry_struct_field *fields;
	uint8_t ntails;         /* parts appended after the fixed bytes (0: fixed size) */
	const struct scry_struct_tail *tails;
};

/* One appended part of a captured element, as scry_struct_span found it: BYTES: n bytes
 * at p; STRUCTS: n elements at p, len bytes in all; STRING: len bytes at p (no NUL). */
struct scry_tail_val {
	const uint8_t *p;
	uint32_t n;
	uint32_t len;
};

/* NULL when scry has no description of that type. */
const struct scry_struct_desc *scry_struct_find(const char *name);

/* Bytes of the element of type d at p (fixed part and tails), or 0 when the avail bytes
 * do not hold it; tails (d->ntails entries, may be NULL) gets where each part lies. */
size_t scry_struct_span(const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
			struct scry_tail_val *tails);

/* Every described type (tests check that fields cover size exactly, in order). */
size_t scry_structs(const struct scry_struct_desc *const **list);

#endif /* SCRY_CATALOG_STRUCTS_H */
