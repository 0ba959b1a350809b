/* dwarf.h — a probed function's parameters and return type from DWARF (elfutils' libdw),
 * in the binary or its separate debug file (/usr/lib/debug/.build-id/xx/yyyy.debug), each
 * located at the function's entry by the x86-64 System V calling convention: the first six
 * integer-class parameters (integers, enums, pointers, structs of at most 16 bytes without
 * floating-point members, one register per eightbyte) in rdi, rsi, rdx, rcx, r8, r9.  A
 * parameter that is not in one of those registers is read from the stack when it is an
 * integer or pointer passed there (a seventh integer...), else named with the reason (a
 * float or double: an SSE register; a larger struct, a long double: the stack). */
#ifndef SCRY_CATALOG_DWARF_H
#define SCRY_CATALOG_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCRY_DW_MAX_PARAMS 32
#define SCRY_DW_MAX_ENUMS 64
#define SCRY_DW_MAX_MEMBERS 8

enum scry_dw_kind {
	SCRY_DW_NONE,        /* not recorded (void, or not located) */
	SCRY_DW_INT,         /* an integer, enum or pointer of `size` bytes */
	SCRY_DW_STR,         /* char *: the string it points to */
	SCRY_DW_STRUCT,      /* a small struct by value: its integer members (members[]) from
	                      * the registers of its eightbytes */
};

struct scry_dw_param {
	char name[64];
	char ctype[128];     /* as C writes it: "const char *", "enum color", "struct pair" */
	enum scry_dw_kind kind;
	uint8_t size;
	bool is_signed;
	uint8_t base;        /* 16 for pointers */
	int reg;             /* SCRY_UREG_*, or -1 */
	int stack;           /* reg -1: its offset above the return address when passed on the
	                      * stack (INT and STR only), else -1 */
	bool mem;            /* a statement probe's variable in memory at register reg + moff
	                      * (reg then any SCRY_UREG_*) */
	int moff;
	unsigned nmembers;   /* SCRY_DW_STRUCT: its integer members, at byte offset off */
	struct { char name[48]; uint8_t size, off, base; bool is_signed; } members[SCRY_DW_MAX_MEMBERS];
	unsigned nenums;     /* an enum: its enumerators (at most SCRY_DW_MAX_ENUMS kept) */
	struct { char name[48]; int64_t value; } enums[SCRY_DW_MAX_ENUMS];
	char why[96];        /* reg -1: why it is not recorded */
};

struct scry_dw_func {
	unsigned nparams;
	struct scry_dw_param params[SCRY_DW_MAX_PARAMS];
	struct scry_dw_param ret;   /* kind SCRY_DW_NONE for void */
	bool variadic;
};

struct scry_dwarf;

/* A source frame of a code address: a function (inlined or not), its file and line. */
struct scry_dw_frame {
	char name[128];
	char file[256];      /* "" when the line table does not say */
	int line;            /* 0 when unknown */
};
/* The frames of addr (the file's virtual address), innermost first: the inlined copies that
 * hold it, then the function they were inlined into (dwarf_frames.c).  Their number, at most
 * max; 0 when no DWARF function holds addr. */
unsigned scry_dwarf_frames(struct scry_dwarf *d, uint64_t addr, struct scry_dw_frame *out, unsigned max);

/* The DWARF of path (build_id: its GNU build id, to find separate debug info), or NULL when
 * it has none (why says so). */
struct scry_dwarf *scry_dwarf_open(const char *path, const uint8_t *build_id, size_t idlen, char *why, size_t whylen);
void scry_dwarf_close(struct scry_dwarf *d);
/* The function whose code starts at addr (link-time address): 0, or -1 when DWARF does not
 * describe one there. */
int scry_dwarf_func(struct scry_dwarf *d, uint64_t addr, struct scry_dw_func *out);
/* Statement probes: the variables and parameters in scope at addr (the innermost function or
 * inlined copy, inner names hiding outer ones) in out->params, each located there from its
 * DWARF location: in a register (any general one: reg), or in memory at an offset from a
 * register (mem: the frame's, through the function's frame base and its call frame
 * information); kind SCRY_DW_NONE with the reason for the others (optimized out at addr,
 * a static variable, a floating-point or aggregate type, an expression scry cannot read).
 * 0, or -1 when DWARF has no scope at addr. */
int scry_dwarf_vars_at(struct scry_dwarf *d, uint64_t addr, struct scry_dw_func *out);
/* --fetch: the member at path ("req->hdr.len": through a pointer in a register; "s.count":
 * within a struct in memory) of a variable in scope at the statement at addr (stmt), of a
 * parameter of the function starting at addr, or of the value it returns ("ret->len", ret:
 * a uretprobe), as a field named "req_hdr_len" (out: an integer, enum, pointer or string in
 * memory at a register + offset).  0; 1 when the probe has no such variable or path names no
 * member; -1 with why when it cannot be read. */
int scry_dwarf_fetch(struct scry_dwarf *d, uint64_t addr, bool stmt, bool ret, const char *path,
		     struct scry_dw_param *out, char *why, size_t whylen);

/* Statement probes: the addresses of the code of FILE:LINE (file: a path or its tail,
 * "server.c"), every copy of it (inlined ones too), sorted and unique; *found_line: the line
 * that has code (LINE, or the next one that does).  0 (n >= 1), or -1 when no code is there. */
int scry_dwarf_line_addrs(struct scry_dwarf *d, const char *file, int line, uint64_t **addrs, size_t *n,
			  int *found_line);
/* The lines of FILE with code (statement rows), ascending, each with its count of distinct
 * addresses: n lines in *lines / *naddrs (malloc'd).  0, or -1 when FILE has none. */
int scry_dwarf_file_lines(struct scry_dwarf *d, const char *file, int **lines, unsigned **naddrs, size_t *n);
/* Does the line table have a row at addr (so an instruction starts there)? */
bool scry_dwarf_addr_is_row(struct scry_dwarf *d, uint64_t addr);

#endif
