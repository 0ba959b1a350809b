/* internal.h — the filter's tokens, AST and shared helpers (for src/filter only). */
#ifndef SCRY_FILTER_INTERNAL_H
#define SCRY_FILTER_INTERNAL_H

#include <stdarg.h>
#include "filter/filter.h"

/* ---- tokens (lexer.c) ---- */

enum tok_kind {
	T_END,
	T_INT,          /* tok.u */
	T_STR,          /* tok.str / tok.slen, tok.glob */
	T_IDENT,        /* text[pos, pos+len) */
	T_GIDENT,       /* $name: text[pos+1, pos+len) */
	T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_DOT, T_ARROW,
	T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_LAND, T_LOR, T_NOT,
	T_BAND, T_BOR, T_BXOR, T_BNOT, T_SHL, T_SHR,
	T_PLUS, T_MINUS,
};

struct token {
	enum tok_kind kind;
	uint32_t pos, len;      /* bytes of the token in the text */
	uint64_t u;             /* T_INT */
	char *str;              /* T_STR: unescaped bytes (plain), or the glob pattern with
				   escapes (glob); malloc'd, NUL-terminated */
	uint32_t slen;
	bool glob;
};

struct lexer {
	const char *text;
	size_t len, pos;
	struct filter_error *err;
};

/* Next token; -1 with lx->err set.  tok->str is owned by the caller (free). */
int lex_next(struct lexer *lx, struct token *tok);
const char *tok_name(enum tok_kind k);

/* ---- AST (parser.c) ---- */

enum node_kind {
	N_INT,          /* ival */
	N_STR,          /* str index */
	N_REF,          /* ref index */
	N_UNARY,        /* op: T_MINUS T_PLUS T_NOT T_BNOT; a */
	N_BINARY,       /* op: bitwise, shifts, comparisons; a, b */
	N_LOGICAL,      /* op: T_LAND T_LOR; a, b */
};

struct node {
	uint8_t kind;           /* enum node_kind */
	uint8_t op;             /* enum tok_kind */
	uint16_t height;
	uint32_t pos, len;      /* operator token, literal or reference */
	uint32_t start, end;    /* the whole subexpression */
	uint32_t a, b;          /* children (node indices) */
	uint32_t idx;           /* N_STR: string index; N_REF: reference index */
	int64_t ival;
};

struct fstr {
	char *s;
	uint32_t len;
	bool glob;
};

struct ref_part {
	bool is_index;
	uint32_t index;         /* is_index */
	char *name;             /* !is_index */
};

struct ref {
	char *text;             /* canonical */
	bool is_ctx;
	int ctx_id;             /* is_ctx: scry_context_by_name() or -1 */
	uint8_t cg_level;       /* $ctx.container made $ctx.cgroup_id: the task's cgroup's
				   ancestor at this depth under the cgroup2 root (0: the cgroup) */
	uint32_t pos, len;      /* first occurrence */
	uint32_t nparts;        /* path parts (the context name for $ctx) */
	struct ref_part parts[FILTER_MAX_PATH];
};

/* Leaf value types during type checking. */
enum vtype { V_UNKNOWN, V_INT, V_STR, V_GLOB, V_STRUCT, V_ARRAY, V_OTHER };

/* Result of resolving one reference in one event. */
enum res_status { RES_OK, RES_MISSING, RES_BADPATH };

struct filter {
	char *text;
	size_t text_len;
	struct node *nodes;
	uint32_t nnodes;
	uint32_t root;
	struct fstr *strs;
	uint32_t nstrs;
	struct ref *refs;
	uint32_t nrefs;
	/* filter_check */
	bool checked;
	size_t nevents;
	uint8_t *ev_status;               /* enum filter_ev_status per event */
	struct filter_access *access;     /* nevents * nrefs */
	uint8_t *access_ok;               /* nevents * nrefs */
};

/* parser.c */
void ferr_set(struct filter_error *e, size_t off, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* check.c: resolve reference r in schema ev.  RES_BADPATH fills msg. */
enum res_status filter_resolve(const struct filter *f, uint32_t r, const struct filter_schema *ev,
			       struct filter_access *out, char *msg, size_t msglen);
/* Type check the tree with leaf types of refs given by types[] (V_UNKNOWN: any).  0, or -1
 * with err set (event: appended to the message when not NULL). */
int filter_typecheck(const struct filter *f, const enum vtype *types, const char *event,
		     struct filter_error *err);
enum vtype vtype_of_access(const struct filter_access *a);

/* eval.c */
bool str_equal(const char *a, size_t alen, const char *b, size_t blen);
size_t str_cut(const char *s, size_t len);

#endif
