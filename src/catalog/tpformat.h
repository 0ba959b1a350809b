/* tpformat.h — parser of tracefs event `format` files (events/SYS/NAME/format).
 *
 * A pure function over a text buffer (not necessarily NUL-terminated), so it can be
 * fuzzed: every field line `field:DECL;\toffset:O;\tsize:S;\tsigned:X;` becomes one
 * struct tpformat_field, `common_*` fields included (the catalog drops them). */
#ifndef SCRY_TPFORMAT_H
#define SCRY_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPF_MAX_FIELDS 512
#define TPF_MAX_VALUE  (1u << 24)   /* largest offset/size/array count accepted */

enum tpf_loc {
	TPF_PLAIN,      /* fixed field in the record */
	TPF_DATA_LOC,   /* __data_loc: u32 (len << 16 | offset from the record start) */
	TPF_REL_LOC,    /* __rel_loc: same, offset from the end of the u32 */
};

#define TPF_NOT_ARRAY   (-1)        /* scalar */
#define TPF_ARRAY_DYN   0           /* `[]`: length known only at run time */
#define TPF_ARRAY_EXPR  (-2)        /* `[SOMETHING]` that is not a number */

struct tpformat_field {
	char *name;         /* "prev_comm" */
	char *type;         /* element C type: "char", "const char *", "u64", "cpumask_t" */
	enum tpf_loc loc;
	int array;          /* element count, or TPF_NOT_ARRAY / TPF_ARRAY_DYN / TPF_ARRAY_EXPR */
	bool is_pointer;    /* type ends with '*' */
	bool is_common;     /* name starts with "common_" */
	bool is_signed;
	uint32_t offset;
	uint32_t size;
};

struct tpformat {
	char *name;         /* "sched_switch" */
	int id;             /* the "ID:" line, -1 if absent */
	unsigned nfields;
	struct tpformat_field *fields;
};

/* Parse len bytes of text.  0 on success (free with tpformat_free); -1 with a one-line
 * reason in err (out is then left empty and needs no free). */
int tpformat_parse(const char *text, size_t len, struct tpformat *out, char *err, size_t errlen);
void tpformat_free(struct tpformat *f);

#endif /* SCRY_TPFORMAT_H */
