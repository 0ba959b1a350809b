/* tsdl_types.c — the TSDL parser's type specifiers: integer, floating_point, string, enum,
 * struct, variant, arrays and sequences, typealias/typedef (see tsdl.c for the rest). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/tsdl_int.h"

static struct ctf_type *parse_integer(struct parser *P)
{
	struct ctf_type *t = tsdl_type_new(P, CTF_T_INT);
	if (!t)
		return NULL;
	t->base = 10;
	int has_align = 0;
	if (!tsdl_expect(P, '{'))
		return NULL;
	while (!P->failed && !tsdl_is_punct(P, '}')) {
		const char *key;
		struct value v;
		if (tsdl_parse_attr(P, &key, &v))
			return NULL;
		if (!strcmp(key, "size")) {
			if (v.kind != V_INT || v.i < 1 || v.i > 64) {
				tsdl_perr(P, "integer size must be 1..64");
				return NULL;
			}
			t->size = (unsigned)v.i;
		} else if (!strcmp(key, "align")) {
			if (v.kind != V_INT || v.i < 1 || v.i > 4096 || (v.i & (v.i - 1))) {
				tsdl_perr(P, "bad alignment");
				return NULL;
			}
			t->align = (unsigned)v.i;
			has_align = 1;
		} else if (!strcmp(key, "signed")) {
			t->is_signed = tsdl_value_bool(P, &v);
		} else if (!strcmp(key, "byte_order")) {
			t->bo = tsdl_value_bo(P, &v);
		} else if (!strcmp(key, "encoding")) {
			if (v.kind == V_IDENT && (!strcmp(v.s, "UTF8") || !strcmp(v.s, "utf8")))
				t->encoding = CTF_ENC_UTF8;
			else if (v.kind == V_IDENT && (!strcmp(v.s, "ASCII") || !strcmp(v.s, "ascii")))
				t->encoding = CTF_ENC_ASCII;
			else
				t->encoding = CTF_ENC_NONE;
		} else if (!strcmp(key, "base")) {
			if (v.kind == V_INT && (v.i == 2 || v.i == 8 || v.i == 10 || v.i == 16))
				t->base = (unsigned)v.i;
			else if (v.kind == V_IDENT) {
				const char *s = v.s;
				if (!strcmp(s, "decimal") || !strcmp(s, "dec") || !strcmp(s, "d") || !strcmp(s, "i") || !strcmp(s, "u"))
					t->base = 10;
				else if (!strcmp(s, "hexadecimal") || !strcmp(s, "hex") || !strcmp(s, "x") || !strcmp(s, "X") || !strcmp(s, "p"))
					t->base = 16;
				else if (!strcmp(s, "octal") || !strcmp(s, "oct") || !strcmp(s, "o"))
					t->base = 8;
				else if (!strcmp(s, "binary") || !strcmp(s, "b"))
					t->base = 2;
				else {
					tsdl_perr(P, "bad integer base '%s'", s);
					return NULL;
				}
			} else {
				tsdl_perr(P, "bad integer base");
				return NULL;
			}
		} else if (!strcmp(key, "map")) {
			/* clock.NAME.value */
			if (v.kind == V_IDENT && !strncmp(v.s, "clock.", 6)) {
				const char *nm = v.s + 6;
				const char *dot = strchr(nm, '.');
				t->map_clock = arena_strndup(&P->m->arena, nm, dot ? (size_t)(dot - nm) : strlen(nm));
			}
		}
		/* unknown attributes are ignored */
	}
	if (!tsdl_expect(P, '}'))
		return NULL;
	if (!t->size) {
		tsdl_perr(P, "integer without size");
		return NULL;
	}
	if (!has_align)
		t->align = (t->size % 8) ? 1 : 8;
	return t;
}

static struct ctf_type *parse_float(struct parser *P)
{
	struct ctf_type *t = tsdl_type_new(P, CTF_T_FLOAT);
	if (!t || !tsdl_expect(P, '{'))
		return NULL;
	int has_align = 0;
	while (!P->failed && !tsdl_is_punct(P, '}')) {
		const char *key;
		struct value v;
		if (tsdl_parse_attr(P, &key, &v))
			return NULL;
		if (!strcmp(key, "exp_dig") && v.kind == V_INT)
			t->exp_dig = (unsigned)v.i;
		else if (!strcmp(key, "mant_dig") && v.kind == V_INT)
			t->mant_dig = (unsigned)v.i;
		else if (!strcmp(key, "byte_order"))
			t->bo = tsdl_value_bo(P, &v);
		else if (!strcmp(key, "align") && v.kind == V_INT) {
			if (v.i < 1 || v.i > 4096 || (v.i & (v.i - 1))) {
				tsdl_perr(P, "bad alignment");
				return NULL;
			}
			t->align = (unsigned)v.i;
			has_align = 1;
		}
	}
	if (!tsdl_expect(P, '}'))
		return NULL;
	if (t->exp_dig == 8 && t->mant_dig == 24)
		t->size = 32;
	else if (t->exp_dig == 11 && t->mant_dig == 53)
		t->size = 64;
	else {
		tsdl_perr(P, "unsupported floating point (exp_dig %u, mant_dig %u)", t->exp_dig, t->mant_dig);
		return NULL;
	}
	if (!has_align)
		t->align = 8;
	return t;
}

static struct ctf_type *parse_string(struct parser *P)
{
	struct ctf_type *t = tsdl_type_new(P, CTF_T_STRING);
	if (!t)
		return NULL;
	t->align = 8;
	t->encoding = CTF_ENC_UTF8;
	if (tsdl_accept(P, '{')) {
		while (!P->failed && !tsdl_is_punct(P, '}')) {
			const char *key;
			struct value v;
			if (tsdl_parse_attr(P, &key, &v))
				return NULL;
			if (!strcmp(key, "encoding") && v.kind == V_IDENT && !strcmp(v.s, "ASCII"))
				t->encoding = CTF_ENC_ASCII;
		}
		if (!tsdl_expect(P, '}'))
			return NULL;
	}
	return t;
}

static int parse_fields(struct parser *P, struct ctf_type *t);

static struct ctf_type *parse_enum(struct parser *P)
{
	const char *name = NULL;
	if (P->lx.tok == TK_IDENT) {
		name = tsdl_tok_ident(P);
		tsdl_next(P);
	}
	struct ctf_type *container = NULL;
	if (tsdl_accept(P, ':')) {
		container = tsdl_parse_type_spec(P, 0, NULL);
		if (!container)
			return NULL;
	}
	if (!tsdl_is_punct(P, '{')) {
		struct ctf_type *r = name ? tsdl_reg_find(P, REG_ENUM, name) : NULL;
		if (!r)
			tsdl_perr(P, "unknown enum '%s'", name ? name : "");
		return r;
	}
	tsdl_next(P);
	if (!container) {
		container = tsdl_reg_find(P, REG_ALIAS, "int");
		if (!container) {
			tsdl_perr(P, "enum without container type and no 'int' alias");
			return NULL;
		}
	}
	if (container->kind != CTF_T_INT) {
		tsdl_perr(P, "enum container is not an integer");
		return NULL;
	}
	struct ctf_type *t = tsdl_type_new(P, CTF_T_ENUM);
	if (!t)
		return NULL;
	t->container = container;
	t->align = container->align;
	size_t cap = 8;
	t->entries = tsdl_palloc(P, cap * sizeof(*t->entries));
	int64_t nextv = 0;
	while (!P->failed && !tsdl_is_punct(P, '}')) {
		const char *label;
		if (P->lx.tok == TK_IDENT)
			label = tsdl_tok_ident(P);
		else if (P->lx.tok == TK_STRING)
			label = P->lx.sval;
		else {
			tsdl_perr(P, "expected an enumerator");
			return NULL;
		}
		tsdl_next(P);
		int64_t lo = nextv, hi = nextv;
		if (tsdl_accept(P, '=')) {
			if (tsdl_parse_int(P, &lo, NULL))
				return NULL;
			hi = lo;
			if (tsdl_accept(P, 'E') && tsdl_parse_int(P, &hi, NULL))
				return NULL;
		}
		nextv = hi + 1;
		if (t->nentries == cap) {
			struct ctf_enum_entry *ne = tsdl_palloc(P, 2 * cap * sizeof(*ne));
			if (!ne)
				return NULL;
			memcpy(ne, t->entries, cap * sizeof(*ne));
			t->entries = ne;
			cap *= 2;
		}
		if (!t->entries)
			return NULL;
		t->entries[t->nentries++] = (struct ctf_enum_entry){ label, lo, hi };
		if (!tsdl_accept(P, ','))
			break;
	}
	if (!tsdl_expect(P, '}'))
		return NULL;
	if (name)
		tsdl_reg_add(P, REG_ENUM, name, t);
	return t;
}

static struct ctf_type *parse_struct_or_variant(struct parser *P, int variant)
{
	const char *name = NULL, *tag = NULL;
	if (P->lx.tok == TK_IDENT) {
		name = tsdl_tok_ident(P);
		tsdl_next(P);
	}
	if (variant && tsdl_accept(P, '<')) {
		tag = tsdl_parse_path(P);
		if (!tag || !tsdl_expect(P, '>'))
			return NULL;
	}
	if (!tsdl_is_punct(P, '{')) {
		struct ctf_type *r = name ? tsdl_reg_find(P, variant ? REG_VARIANT : REG_STRUCT, name) : NULL;
		if (!r) {
			tsdl_perr(P, "unknown %s '%s'", variant ? "variant" : "struct", name ? name : "");
			return NULL;
		}
		if (tag) {
			r = tsdl_type_copy(P, r);
			if (r)
				r->tag = tag;
		}
		return r;
	}
	tsdl_next(P);
	struct ctf_type *t = tsdl_type_new(P, variant ? CTF_T_VARIANT : CTF_T_STRUCT);
	if (!t)
		return NULL;
	t->tag = tag;
	t->align = 1;
	if (parse_fields(P, t))
		return NULL;
	if (!tsdl_expect(P, '}'))
		return NULL;
	if (!variant && tsdl_is_word(P, "align")) {
		tsdl_next(P);
		int64_t a;
		if (!tsdl_expect(P, '(') || tsdl_parse_int(P, &a, NULL) || !tsdl_expect(P, ')'))
			return NULL;
		if (a < 1 || a > 4096 || (a & (a - 1))) {
			tsdl_perr(P, "bad alignment");
			return NULL;
		}
		if ((unsigned)a > t->align)
			t->align = (unsigned)a;
	}
	if (!variant)
		for (size_t i = 0; i < t->nfields; i++)
			if (t->fields[i].type->align > t->align)
				t->align = t->fields[i].type->align;
	if (name)
		tsdl_reg_add(P, variant ? REG_VARIANT : REG_STRUCT, name, t);
	return t;
}

/* Type specifier.  field_ctx: the identifiers may end with the declarator's name, which is
 * returned in *leftover when consumed. */
struct ctf_type *tsdl_parse_type_spec(struct parser *P, int field_ctx, const char **leftover)
{
	struct ctf_type *t = NULL;
	if (leftover)
		*leftover = NULL;
	if (++P->depth > MAX_DEPTH) {
		tsdl_perr(P, "types nested too deeply");
		goto out;
	}
	if (P->lx.tok != TK_IDENT) {
		tsdl_perr(P, "expected a type");
		goto out;
	}
	if (tsdl_is_word(P, "integer")) {
		tsdl_next(P);
		t = parse_integer(P);
	} else if (tsdl_is_word(P, "floating_point")) {
		tsdl_next(P);
		t = parse_float(P);
	} else if (tsdl_is_word(P, "string")) {
		tsdl_next(P);
		t = parse_string(P);
	} else if (tsdl_is_word(P, "enum")) {
		tsdl_next(P);
		t = parse_enum(P);
	} else if (tsdl_is_word(P, "struct")) {
		tsdl_next(P);
		t = parse_struct_or_variant(P, 0);
	} else if (tsdl_is_word(P, "variant")) {
		tsdl_next(P);
		t = parse_struct_or_variant(P, 1);
	} else {
		/* alias name, possibly several words ("unsigned long") */
		char buf[256];
		size_t lens[MAX_WORDS];
		size_t n = 0, nw = 0;
		const char *wstart[MAX_WORDS];
		while (P->lx.tok == TK_IDENT && nw < MAX_WORDS) {
			if (n + P->lx.tlen + 2 > sizeof(buf))
				break;
			if (nw)
				buf[n++] = ' ';
			wstart[nw] = buf + n;
			memcpy(buf + n, P->lx.tstart, P->lx.tlen);
			n += P->lx.tlen;
			lens[nw] = n;
			nw++;
			tsdl_next(P);
		}
		(void)wstart;
		/* longest prefix that names an alias; in field context keep >= 1 word for the name */
		size_t k = nw;
		for (; k >= 1; k--) {
			if (field_ctx && k == nw && nw > 1)
				continue;
			char save = buf[lens[k - 1]];
			buf[lens[k - 1]] = '\0';
			t = tsdl_reg_find(P, REG_ALIAS, buf);
			buf[lens[k - 1]] = save;
			if (t)
				break;
		}
		if (!t) {
			buf[n] = '\0';
			tsdl_perr(P, "unknown type '%s'", buf);
			goto out;
		}
		if (k < nw) {
			if (!field_ctx || k != nw - 1 || !leftover) {
				buf[n] = '\0';
				tsdl_perr(P, "unknown type '%s'", buf);
				t = NULL;
				goto out;
			}
			*leftover = arena_strndup(&P->m->arena, buf + lens[k - 1] + 1, n - lens[k - 1] - 1);
		}
	}
out:
	P->depth--;
	return P->failed ? NULL : t;
}

/* name[dims]...: wraps base into arrays/sequences (outermost dimension first) */
static struct ctf_type *parse_dims(struct parser *P, struct ctf_type *base)
{
	struct {
		uint64_t len;
		const char *ref;
	} dims[8];
	size_t nd = 0;
	while (tsdl_accept(P, '[')) {
		if (nd == 8) {
			tsdl_perr(P, "too many array dimensions");
			return NULL;
		}
		dims[nd].ref = NULL;
		dims[nd].len = 0;
		if (P->lx.tok == TK_INT) {
			dims[nd].len = P->lx.uval;
			tsdl_next(P);
		} else {
			dims[nd].ref = tsdl_parse_path(P);
			if (!dims[nd].ref)
				return NULL;
		}
		if (!tsdl_expect(P, ']'))
			return NULL;
		nd++;
	}
	struct ctf_type *t = base;
	while (nd--) {
		struct ctf_type *a = tsdl_type_new(P, dims[nd].ref ? CTF_T_SEQ : CTF_T_ARRAY);
		if (!a)
			return NULL;
		a->elem = t;
		a->length = dims[nd].len;
		a->length_ref = dims[nd].ref;
		a->align = t->align;
		t = a;
	}
	return t;
}

int tsdl_parse_typealias(struct parser *P, int is_typedef)
{
	const char *left = NULL;
	struct ctf_type *t = tsdl_parse_type_spec(P, is_typedef, is_typedef ? &left : NULL);
	if (!t)
		return -1;
	if (is_typedef) {
		const char *name = left;
		if (!name) {
			if (P->lx.tok != TK_IDENT) {
				tsdl_perr(P, "expected typedef name");
				return -1;
			}
			name = tsdl_tok_ident(P);
			tsdl_next(P);
		}
		t = parse_dims(P, t);
		if (!t)
			return -1;
		tsdl_reg_add(P, REG_ALIAS, name, t);
		return tsdl_expect(P, ';') ? 0 : -1;
	}
	t = parse_dims(P, t);
	if (!t || !tsdl_expect(P, 'A'))
		return -1;
	char buf[256];
	size_t n = 0;
	while (P->lx.tok == TK_IDENT) {
		if (n + P->lx.tlen + 2 > sizeof(buf)) {
			tsdl_perr(P, "alias name too long");
			return -1;
		}
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, P->lx.tstart, P->lx.tlen);
		n += P->lx.tlen;
		tsdl_next(P);
	}
	if (!n) {
		tsdl_perr(P, "expected alias name");
		return -1;
	}
	tsdl_reg_add(P, REG_ALIAS, arena_strndup(&P->m->arena, buf, n), t);
	return tsdl_expect(P, ';') ? 0 : -1;
}

static int add_field(struct parser *P, struct ctf_type *t, size_t *cap, const char *name, struct ctf_type *ft)
{
	if (t->nfields == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct ctf_field *nf = tsdl_palloc(P, nc * sizeof(*nf));
		if (!nf)
			return -1;
		if (t->nfields)
			memcpy(nf, t->fields, t->nfields * sizeof(*nf));
		t->fields = nf;
		*cap = nc;
	}
	t->fields[t->nfields++] = (struct ctf_field){ name, ft };
	return 0;
}

/* At an item of a { } scope: the end of the metadata is an error (-1), a typealias or
 * typedef is parsed here (1: consumed), anything else is the caller's (0). */
int tsdl_scope_item(struct parser *P)
{
	if (P->lx.tok == TK_EOF) {
		tsdl_perr(P, "unexpected end of metadata");
		return -1;
	}
	if (tsdl_is_word(P, "typealias") || tsdl_is_word(P, "typedef")) {
		int td = tsdl_is_word(P, "typedef");

		tsdl_next(P);
		return tsdl_parse_typealias(P, td) ? -1 : 1;
	}
	return 0;
}

static int parse_fields(struct parser *P, struct ctf_type *t)
{
	size_t cap = 0;
	while (!P->failed && !tsdl_is_punct(P, '}')) {
		int r = tsdl_scope_item(P);

		if (r < 0)
			return -1;
		if (r)
			continue;
		const char *name = NULL;
		struct ctf_type *base = tsdl_parse_type_spec(P, 1, &name);
		if (!base)
			return -1;
		if (!name && tsdl_accept(P, ';'))
			continue; /* a struct/enum/variant declaration inside a struct */
		for (;;) {
			if (!name) {
				if (P->lx.tok != TK_IDENT) {
					tsdl_perr(P, "expected a field name");
					return -1;
				}
				name = tsdl_tok_ident(P);
				tsdl_next(P);
			}
			struct ctf_type *ft = parse_dims(P, base);
			if (!ft || add_field(P, t, &cap, name, ft))
				return -1;
			name = NULL;
			if (!tsdl_accept(P, ','))
				break;
		}
		if (!tsdl_expect(P, ';'))
			return -1;
	}
	return P->failed ? -1 : 0;
}
