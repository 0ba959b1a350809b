/* plan.h — precompiled decoding plans: a TSDL type flattened into a list of field ops
 * (src/view/plan.c), executed over a packet's bytes by src/view/decode.c.  Values land in
 * a flat value buffer that the output formatters walk alongside the ops. */
#ifndef SCRY_VIEW_PLAN_H
#define SCRY_VIEW_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "view/tsdl.h"

#define PLAN_MAX_REGS 128
#define PLAN_MAX_NEST 32

enum op_kind {
	OP_INT,
	OP_FLOAT,
	OP_STRING,
	OP_TEXT,          /* char array / sequence of a text encoding: one value (ptr, len) */
	OP_STRUCT,
	OP_STRUCT_END,
	OP_ARRAY,         /* fixed (len) or sequence (len_reg) of the next subtree */
	OP_ARRAY_END,
	OP_VARIANT,       /* options follow, each closed by OP_OPT_END */
	OP_OPT_END,
};

/* Meaning of an integer for the reader (packet header/context, event header). */
enum op_role {
	ROLE_NONE = 0,
	ROLE_MAGIC,
	ROLE_STREAM_ID,
	ROLE_STREAM_INSTANCE,
	ROLE_CONTENT_SIZE,
	ROLE_PACKET_SIZE,
	ROLE_TS_BEGIN,
	ROLE_TS_END,
	ROLE_DISCARDED,
	ROLE_CPU_ID,
	ROLE_SEQ_NUM,
	ROLE_EVENT_ID,
	ROLE_CLOCK,       /* event header timestamp: updates the stream clock (wrap rule) */
	ROLE_UUID,        /* on an OP_ARRAY of 16 bytes */
	ROLE_COUNT,
};

#define OPF_SIGNED 0x01
#define OPF_BE     0x02
#define OPF_ENUM   0x04
#define OPF_HIDDEN 0x08   /* not printed (packet context fields babeltrace2 hides) */
#define OPF_SEQLEN 0x10   /* an integer a sequence takes its length from */

struct var_case {
	int64_t lo, hi;
	uint32_t opt;         /* index into op->opts */
};

struct op {
	uint8_t kind;
	uint8_t bits;         /* int/float size */
	uint8_t flags;
	uint8_t role;
	uint8_t base;
	uint8_t text;         /* OP_ARRAY/OP_STRING: encoding (for JSON/text) */
	int16_t reg;          /* register the int value is saved to, or -1 */
	int16_t len_reg;      /* OP_ARRAY/OP_TEXT sequence length register, or -1 */
	int16_t tag_reg;      /* OP_VARIANT */
	uint32_t align;       /* bits */
	uint32_t next;        /* index after this op's subtree */
	uint64_t len;         /* fixed array/text length */
	const char *name;     /* display name (one leading '_' stripped), NULL for elements */
	uint32_t name_len;
	const char *raw_name; /* as in the metadata */
	const struct ctf_type *enm;   /* OPF_ENUM: the enum type (labels) */
	/* OP_VARIANT */
	uint32_t nopts;
	uint32_t *opts;       /* op index of each option's subtree */
	const char **opt_names;
	struct var_case *cases;
	uint32_t ncases;
	bool tag_signed;
};

struct plan {
	struct op *ops;
	uint32_t n;
};

/* One decoded value: integer/float bits in u; string/text: p + len in u; array: length;
 * variant: the chosen option index. */
struct val {
	uint64_t u;
	const uint8_t *p;
};

struct vbuf {
	struct val *v;
	size_t n, cap;
};

/* Decoder state of one stream. */
struct dec_state {
	uint64_t regs[PLAN_MAX_REGS];
	uint64_t role[ROLE_COUNT];
	uint32_t role_set;            /* bit per role seen */
	uint64_t clock;               /* current clock value (cycles) */
	const uint8_t *uuid;          /* packet header uuid bytes */
};

/* Cursor over one packet: bits from base; limit = content size in bits. */
struct cursor {
	const uint8_t *base;
	uint64_t pos, limit;
};

/* Compilation of a stream class / event class into plans. */
struct plan_ctx {
	struct arena *arena;
	enum ctf_byte_order trace_bo;
	int nregs;
	const struct plan *scopes[8];  /* earlier scopes, searched for references */
	int nscopes;
	char *err;
	size_t errlen;
};

enum plan_scope { SCOPE_PACKET_HEADER, SCOPE_PACKET_CONTEXT, SCOPE_EVENT_HEADER, SCOPE_OTHER };

/* Compile type t (a struct, or NULL for an empty plan) into p.  0 or -1 with a reason. */
int plan_compile(struct plan_ctx *c, const struct ctf_type *t, enum plan_scope scope, struct plan *p);
void plan_free(struct plan *p);

/* Execute plan p at cursor; values appended to out (may be NULL).  0, or -1 with a reason
 * (bounds, bad variant tag, missing NUL) in err. */
int plan_exec(const struct plan *p, struct cursor *cur, struct dec_state *st, struct vbuf *out,
	      char *err, size_t errlen);

/* Label of an enum value (first matching entry), or NULL. */
const char *plan_enum_label(const struct op *o, uint64_t v);
int plan_enum_labels(const struct op *o, uint64_t v, const char **labels, int max);

/* The value of a decoded floating-point op (its raw 32 or 64 bits). */
static inline double plan_float_value(const struct op *o, uint64_t bits)
{
	if (o->bits == 32) {
		float f;
		uint32_t w = (uint32_t)bits;
		memcpy(&f, &w, 4);
		return f;
	}
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

#endif
