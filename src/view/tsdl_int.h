/* tsdl_int.h — what the TSDL parser's two files share (tsdl.c: tokens, the type registry,
 * values and the blocks; tsdl_types.c: the type specifiers): the parser's state and the
 * helpers one offers the other.  Private to src/view/. */
#ifndef SCRY_VIEW_TSDL_INT_H
#define SCRY_VIEW_TSDL_INT_H

#include <stdint.h>
#include "view/tsdl.h"

#define MAX_DEPTH 48

enum reg_kind { REG_ALIAS, REG_STRUCT, REG_ENUM, REG_VARIANT };

struct reg_entry {
	struct reg_entry *next;
	enum reg_kind kind;
	const char *name;
	struct ctf_type *type;
};

struct parser {
	struct tsdl_lexer lx;
	struct ctf_metadata *m;
	struct reg_entry *reg;
	char *err;
	size_t errlen;
	int failed;
	unsigned depth;
	size_t cap_clocks, cap_streams, cap_events;
};

/* TK_IDENT words of one type name ("unsigned long") */
#define MAX_WORDS 8

/* An attribute's value (key = value;) */
enum val_kind { V_NONE, V_INT, V_STRING, V_IDENT, V_TYPE };
struct value {
	enum val_kind kind;
	int64_t i;
	uint64_t u;
	const char *s;
	struct ctf_type *type;
};

/* tsdl.c */
void tsdl_perr(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *tsdl_palloc(struct parser *P, size_t n);
void tsdl_next(struct parser *P);
int tsdl_is_punct(struct parser *P, char c);
int tsdl_accept(struct parser *P, char c);
int tsdl_expect(struct parser *P, char c);
int tsdl_is_word(struct parser *P, const char *w);
const char *tsdl_tok_ident(struct parser *P);
struct ctf_type *tsdl_reg_find(struct parser *P, enum reg_kind k, const char *name);
void tsdl_reg_add(struct parser *P, enum reg_kind k, const char *name, struct ctf_type *t);
struct ctf_type *tsdl_type_new(struct parser *P, enum ctf_tkind k);
struct ctf_type *tsdl_type_copy(struct parser *P, const struct ctf_type *src);
int tsdl_parse_int(struct parser *P, int64_t *out, uint64_t *uout);
const char *tsdl_parse_path(struct parser *P);
int tsdl_parse_attr(struct parser *P, const char **key, struct value *v);
int tsdl_value_bool(struct parser *P, const struct value *v);
enum ctf_byte_order tsdl_value_bo(struct parser *P, const struct value *v);
/* tsdl_types.c */
struct ctf_type *tsdl_parse_type_spec(struct parser *P, int field_ctx, const char **leftover);
int tsdl_parse_typealias(struct parser *P, int is_typedef);
int tsdl_scope_item(struct parser *P);   /* EOF: -1; a typealias/typedef consumed: 1; else 0 */

#endif
