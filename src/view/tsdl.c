/* tsdl.c — CTF 1.8 TSDL parser: typealias/typedef, integer, floating_point, string, enum,
 * struct, variant, arrays and sequences, and the trace/env/clock/stream/event/callsite
 * blocks, into the model of tsdl.h.  Bounded recursion; errors carry the line number. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void perr(struct parser *P, const char *fmt, ...)
{
	if (P->failed)
		return;
	P->failed = 1;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (P->err && P->errlen)
		snprintf(P->err, P->errlen, "metadata line %u: %s", P->lx.line, msg);
}

static void *palloc(struct parser *P, size_t n)
{
	void *p = arena_alloc(&P->m->arena, n);
	if (!p)
		perr(P, "out of memory");
	return p;
}

static void next(struct parser *P)
{
	if (tsdl_lex_next(&P->lx) == TK_ERROR)
		perr(P, "%s", P->lx.errmsg);
}

static int is_punct(struct parser *P, char c)
{
	return P->lx.tok == TK_PUNCT && P->lx.punct == c;
}

static int accept(struct parser *P, char c)
{
	if (is_punct(P, c)) {
		next(P);
		return 1;
	}
	return 0;
}

static int expect(struct parser *P, char c)
{
	if (accept(P, c))
		return 1;
	const char *shown = c == 'A' ? ":=" : c == 'E' ? "..." : (char[]){c, 0};
	perr(P, "expected '%s'", shown);
	return 0;
}

static int is_word(struct parser *P, const char *w)
{
	return P->lx.tok == TK_IDENT && P->lx.tlen == strlen(w) && !memcmp(P->lx.tstart, w, P->lx.tlen);
}

static const char *tok_ident(struct parser *P)
{
	return arena_strndup(&P->m->arena, P->lx.tstart, P->lx.tlen);
}

static struct ctf_type *reg_find(struct parser *P, enum reg_kind k, const char *name)
{
	for (struct reg_entry *e = P->reg; e; e = e->next)
		if (e->kind == k && !strcmp(e->name, name))
			return e->type;
	return NULL;
}

static void reg_add(struct parser *P, enum reg_kind k, const char *name, struct ctf_type *t)
{
	struct reg_entry *e = palloc(P, sizeof(*e));
	if (!e)
		return;
	e->kind = k;
	e->name = name;
	e->type = t;
	e->next = P->reg;
	P->reg = e;
}

static struct ctf_type *type_new(struct parser *P, enum ctf_tkind k)
{
	struct ctf_type *t = palloc(P, sizeof(*t));
	if (t)
		t->kind = k;
	return t;
}

static struct ctf_type *type_copy(struct parser *P, const struct ctf_type *src)
{
	struct ctf_type *t = palloc(P, sizeof(*t));
	if (t)
		*t = *src;
	return t;
}

/* ---- values ---- */

/* A signed integer constant: [-|+] INT */
static int parse_int(struct parser *P, int64_t *out, uint64_t *uout)
{
	int neg = 0;
	if (accept(P, '-'))
		neg = 1;
	else
		accept(P, '+');
	if (P->lx.tok != TK_INT) {
		perr(P, "expected an integer");
		return -1;
	}
	uint64_t v = P->lx.uval;
	if (uout)
		*uout = neg ? (uint64_t)(-(int64_t)v) : v;
	if (out)
		*out = neg ? -(int64_t)v : (int64_t)v;
	next(P);
	return 0;
}

/* identifier path a.b.c (arena string) */
static const char *parse_path(struct parser *P)
{
	char buf[512];
	size_t n = 0;
	for (;;) {
		if (P->lx.tok != TK_IDENT) {
			perr(P, "expected an identifier");
			return NULL;
		}
		if (n + P->lx.tlen + 2 >= sizeof(buf)) {
			perr(P, "path too long");
			return NULL;
		}
		memcpy(buf + n, P->lx.tstart, P->lx.tlen);
		n += P->lx.tlen;
		next(P);
		if (!is_punct(P, '.'))
			break;
		buf[n++] = '.';
		next(P);
	}
	return arena_strndup(&P->m->arena, buf, n);
}

enum val_kind { V_NONE, V_INT, V_STRING, V_IDENT, V_TYPE };
struct value {
	enum val_kind kind;
	int64_t i;
	uint64_t u;
	const char *s;
	struct ctf_type *type;
};

static struct ctf_type *parse_type_spec(struct parser *P, int field_ctx, const char **leftover);

static int parse_value(struct parser *P, struct value *v)
{
	memset(v, 0, sizeof(*v));
	if (P->lx.tok == TK_STRING) {
		v->kind = V_STRING;
		v->s = P->lx.sval;
		next(P);
		return 0;
	}
	if (P->lx.tok == TK_INT || is_punct(P, '-') || is_punct(P, '+')) {
		v->kind = V_INT;
		return parse_int(P, &v->i, &v->u);
	}
	if (P->lx.tok == TK_IDENT) {
		v->kind = V_IDENT;
		v->s = parse_path(P);
		return v->s ? 0 : -1;
	}
	perr(P, "expected a value");
	return -1;
}

static int value_bool(struct parser *P, const struct value *v)
{
	if (v->kind == V_INT)
		return v->i != 0;
	if (v->kind == V_IDENT && (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE")))
		return 1;
	if (v->kind == V_IDENT && (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE")))
		return 0;
	perr(P, "expected a boolean");
	return 0;
}

static enum ctf_byte_order value_bo(struct parser *P, const struct value *v)
{
	if (v->kind == V_IDENT) {
		if (!strcmp(v->s, "le") || !strcmp(v->s, "little"))
			return CTF_BO_LE;
		if (!strcmp(v->s, "be") || !strcmp(v->s, "big") || !strcmp(v->s, "network"))
			return CTF_BO_BE;
		if (!strcmp(v->s, "native"))
			return CTF_BO_NATIVE;
	}
	perr(P, "bad byte_order");
	return CTF_BO_NATIVE;
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '-')
			continue;
		int hi = -1, lo = -1;
		char c = p[0];
		hi = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
		if (hi < 0 || !p[1] || n >= 16)
			return -1;
		c = p[1];
		lo = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;
		if (lo < 0)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
		p++;
	}
	return n == 16 ? 0 : -1;
}

/* key = value; | key := type;  → kind V_TYPE for ':=' */
static int parse_attr(struct parser *P, const char **key, struct value *v)
{
	*key = parse_path(P);
	if (!*key)
		return -1;
	if (accept(P, 'A')) {
		memset(v, 0, sizeof(*v));
		v->kind = V_TYPE;
		v->type = parse_type_spec(P, 0, NULL);
		if (!v->type)
			return -1;
	} else {
		if (!expect(P, '=') || parse_value(P, v))
			return -1;
	}
	return expect(P, ';') ? 0 : -1;
}

/* ---- types ---- */

static struct ctf_type *parse_integer(struct parser *P)
{
	struct ctf_type *t = type_new(P, CTF_T_INT);
	if (!t)
		return NULL;
	t->base = 10;
	int has_align = 0;
	if (!expect(P, '{'))
		return NULL;
	while (!P->failed && !is_punct(P, '}')) {
		const char *key;
		struct value v;
		if (parse_attr(P, &key, &v))
			return NULL;
		if (!strcmp(key, "size")) {
			if (v.kind != V_INT || v.i < 1 || v.i > 64) {
				perr(P, "integer size must be 1..64");
				return NULL;
			}
			t->size = (unsigned)v.i;
		} else if (!strcmp(key, "align")) {
			if (v.kind != V_INT || v.i < 1 || v.i > 4096 || (v.i & (v.i - 1))) {
				perr(P, "bad alignment");
				return NULL;
			}
			t->align = (unsigned)v.i;
			has_align = 1;
		} else if (!strcmp(key, "signed")) {
			t->is_signed = value_bool(P, &v);
		} else if (!strcmp(key, "byte_order")) {
			t->bo = value_bo(P, &v);
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
					perr(P, "bad integer base '%s'", s);
					return NULL;
				}
			} else {
				perr(P, "bad integer base");
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
	if (!expect(P, '}'))
		return NULL;
	if (!t->size) {
		perr(P, "integer without size");
		return NULL;
	}
	if (!has_align)
		t->align = (t->size % 8) ? 1 : 8;
	return t;
}

static struct ctf_type *parse_float(struct parser *P)
{
	struct ctf_type *t = type_new(P, CTF_T_FLOAT);
	if (!t || !expect(P, '{'))
		return NULL;
	int has_align = 0;
	while (!P->failed && !is_punct(P, '}')) {
		const char *key;
		struct value v;
		if (parse_attr(P, &key, &v))
			return NULL;
		if (!strcmp(key, "exp_dig") && v.kind == V_INT)
			t->exp_dig = (unsigned)v.i;
		else if (!strcmp(key, "mant_dig") && v.kind == V_INT)
			t->mant_dig = (unsigned)v.i;
		else if (!strcmp(key, "byte_order"))
			t->bo = value_bo(P, &v);
		else if (!strcmp(key, "align") && v.kind == V_INT) {
			if (v.i < 1 || v.i > 4096 || (v.i & (v.i - 1))) {
				perr(P, "bad alignment");
				return NULL;
			}
			t->align = (unsigned)v.i;
			has_align = 1;
		}
	}
	if (!expect(P, '}'))
		return NULL;
	if (t->exp_dig == 8 && t->mant_dig == 24)
		t->size = 32;
	else if (t->exp_dig == 11 && t->mant_dig == 53)
		t->size = 64;
	else {
		perr(P, "unsupported floating point (exp_dig %u, mant_dig %u)", t->exp_dig, t->mant_dig);
		return NULL;
	}
	if (!has_align)
		t->align = 8;
	return t;
}

static struct ctf_type *parse_string(struct parser *P)
{
	struct ctf_type *t = type_new(P, CTF_T_STRING);
	if (!t)
		return NULL;
	t->align = 8;
	t->encoding = CTF_ENC_UTF8;
	if (accept(P, '{')) {
		while (!P->failed && !is_punct(P, '}')) {
			const char *key;
			struct value v;
			if (parse_attr(P, &key, &v))
				return NULL;
			if (!strcmp(key, "encoding") && v.kind == V_IDENT && !strcmp(v.s, "ASCII"))
				t->encoding = CTF_ENC_ASCII;
		}
		if (!expect(P, '}'))
			return NULL;
	}
	return t;
}

static int parse_fields(struct parser *P, struct ctf_type *t);

static struct ctf_type *parse_enum(struct parser *P)
{
	const char *name = NULL;
	if (P->lx.tok == TK_IDENT) {
		name = tok_ident(P);
		next(P);
	}
	struct ctf_type *container = NULL;
	if (accept(P, ':')) {
		container = parse_type_spec(P, 0, NULL);
		if (!container)
			return NULL;
	}
	if (!is_punct(P, '{')) {
		struct ctf_type *r = name ? reg_find(P, REG_ENUM, name) : NULL;
		if (!r)
			perr(P, "unknown enum '%s'", name ? name : "");
		return r;
	}
	next(P);
	if (!container) {
		container = reg_find(P, REG_ALIAS, "int");
		if (!container) {
			perr(P, "enum without container type and no 'int' alias");
			return NULL;
		}
	}
	if (container->kind != CTF_T_INT) {
		perr(P, "enum container is not an integer");
		return NULL;
	}
	struct ctf_type *t = type_new(P, CTF_T_ENUM);
	if (!t)
		return NULL;
	t->container = container;
	t->align = container->align;
	size_t cap = 8;
	t->entries = palloc(P, cap * sizeof(*t->entries));
	int64_t nextv = 0;
	while (!P->failed && !is_punct(P, '}')) {
		const char *label;
		if (P->lx.tok == TK_IDENT)
			label = tok_ident(P);
		else if (P->lx.tok == TK_STRING)
			label = P->lx.sval;
		else {
			perr(P, "expected an enumerator");
			return NULL;
		}
		next(P);
		int64_t lo = nextv, hi = nextv;
		if (accept(P, '=')) {
			if (parse_int(P, &lo, NULL))
				return NULL;
			hi = lo;
			if (accept(P, 'E') && parse_int(P, &hi, NULL))
				return NULL;
		}
		nextv = hi + 1;
		if (t->nentries == cap) {
			struct ctf_enum_entry *ne = palloc(P, 2 * cap * sizeof(*ne));
			if (!ne)
				return NULL;
			memcpy(ne, t->entries, cap * sizeof(*ne));
			t->entries = ne;
			cap *= 2;
		}
		if (!t->entries)
			return NULL;
		t->entries[t->nentries++] = (struct ctf_enum_entry){ label, lo, hi };
		if (!accept(P, ','))
			break;
	}
	if (!expect(P, '}'))
		return NULL;
	if (name)
		reg_add(P, REG_ENUM, name, t);
	return t;
}

static struct ctf_type *parse_struct_or_variant(struct parser *P, int variant)
{
	const char *name = NULL, *tag = NULL;
	if (P->lx.tok == TK_IDENT) {
		name = tok_ident(P);
		next(P);
	}
	if (variant && accept(P, '<')) {
		tag = parse_path(P);
		if (!tag || !expect(P, '>'))
			return NULL;
	}
	if (!is_punct(P, '{')) {
		struct ctf_type *r = name ? reg_find(P, variant ? REG_VARIANT : REG_STRUCT, name) : NULL;
		if (!r) {
			perr(P, "unknown %s '%s'", variant ? "variant" : "struct", name ? name : "");
			return NULL;
		}
		if (tag) {
			r = type_copy(P, r);
			if (r)
				r->tag = tag;
		}
		return r;
	}
	next(P);
	struct ctf_type *t = type_new(P, variant ? CTF_T_VARIANT : CTF_T_STRUCT);
	if (!t)
		return NULL;
	t->tag = tag;
	t->align = 1;
	if (parse_fields(P, t))
		return NULL;
	if (!expect(P, '}'))
		return NULL;
	if (!variant && is_word(P, "align")) {
		next(P);
		int64_t a;
		if (!expect(P, '(') || parse_int(P, &a, NULL) || !expect(P, ')'))
			return NULL;
		if (a < 1 || a > 4096 || (a & (a - 1))) {
			perr(P, "bad alignment");
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
		reg_add(P, variant ? REG_VARIANT : REG_STRUCT, name, t);
	return t;
}

/* Type specifier.  field_ctx: the identifiers may end with the declarator's name, which is
 * returned in *leftover when consumed. */
static struct ctf_type *parse_type_spec(struct parser *P, int field_ctx, const char **leftover)
{
	struct ctf_type *t = NULL;
	if (leftover)
		*leftover = NULL;
	if (++P->depth > MAX_DEPTH) {
		perr(P, "types nested too deeply");
		goto out;
	}
	if (P->lx.tok != TK_IDENT) {
		perr(P, "expected a type");
		goto out;
	}
	if (is_word(P, "integer")) {
		next(P);
		t = parse_integer(P);
	} else if (is_word(P, "floating_point")) {
		next(P);
		t = parse_float(P);
	} else if (is_word(P, "string")) {
		next(P);
		t = parse_string(P);
	} else if (is_word(P, "enum")) {
		next(P);
		t = parse_enum(P);
	} else if (is_word(P, "struct")) {
		next(P);
		t = parse_struct_or_variant(P, 0);
	} else if (is_word(P, "variant")) {
		next(P);
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
			next(P);
		}
		(void)wstart;
		/* longest prefix that names an alias; in field context keep >= 1 word for the name */
		size_t k = nw;
		for (; k >= 1; k--) {
			if (field_ctx && k == nw && nw > 1)
				continue;
			char save = buf[lens[k - 1]];
			buf[lens[k - 1]] = '\0';
			t = reg_find(P, REG_ALIAS, buf);
			buf[lens[k - 1]] = save;
			if (t)
				break;
		}
		if (!t) {
			buf[n] = '\0';
			perr(P, "unknown type '%s'", buf);
			goto out;
		}
		if (k < nw) {
			if (!field_ctx || k != nw - 1 || !leftover) {
				buf[n] = '\0';
				perr(P, "unknown type '%s'", buf);
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
	while (accept(P, '[')) {
		if (nd == 8) {
			perr(P, "too many array dimensions");
			return NULL;
		}
		dims[nd].ref = NULL;
		dims[nd].len = 0;
		if (P->lx.tok == TK_INT) {
			dims[nd].len = P->lx.uval;
			next(P);
		} else {
			dims[nd].ref = parse_path(P);
			if (!dims[nd].ref)
				return NULL;
		}
		if (!expect(P, ']'))
			return NULL;
		nd++;
	}
	struct ctf_type *t = base;
	while (nd--) {
		struct ctf_type *a = type_new(P, dims[nd].ref ? CTF_T_SEQ : CTF_T_ARRAY);
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

static int parse_typealias(struct parser *P, int is_typedef)
{
	const char *left = NULL;
	struct ctf_type *t = parse_type_spec(P, is_typedef, is_typedef ? &left : NULL);
	if (!t)
		return -1;
	if (is_typedef) {
		const char *name = left;
		if (!name) {
			if (P->lx.tok != TK_IDENT) {
				perr(P, "expected typedef name");
				return -1;
			}
			name = tok_ident(P);
			next(P);
		}
		t = parse_dims(P, t);
		if (!t)
			return -1;
		reg_add(P, REG_ALIAS, name, t);
		return expect(P, ';') ? 0 : -1;
	}
	t = parse_dims(P, t);
	if (!t || !expect(P, 'A'))
		return -1;
	char buf[256];
	size_t n = 0;
	while (P->lx.tok == TK_IDENT) {
		if (n + P->lx.tlen + 2 > sizeof(buf)) {
			perr(P, "alias name too long");
			return -1;
		}
		if (n)
			buf[n++] = ' ';
		memcpy(buf + n, P->lx.tstart, P->lx.tlen);
		n += P->lx.tlen;
		next(P);
	}
	if (!n) {
		perr(P, "expected alias name");
		return -1;
	}
	reg_add(P, REG_ALIAS, arena_strndup(&P->m->arena, buf, n), t);
	return expect(P, ';') ? 0 : -1;
}

static int add_field(struct parser *P, struct ctf_type *t, size_t *cap, const char *name, struct ctf_type *ft)
{
	if (t->nfields == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct ctf_field *nf = palloc(P, nc * sizeof(*nf));
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

static int parse_fields(struct parser *P, struct ctf_type *t)
{
	size_t cap = 0;
	while (!P->failed && !is_punct(P, '}')) {
		if (P->lx.tok == TK_EOF) {
			perr(P, "unexpected end of metadata");
			return -1;
		}
		if (is_word(P, "typealias") || is_word(P, "typedef")) {
			int td = is_word(P, "typedef");
			next(P);
			if (parse_typealias(P, td))
				return -1;
			continue;
		}
		const char *name = NULL;
		struct ctf_type *base = parse_type_spec(P, 1, &name);
		if (!base)
			return -1;
		if (!name && accept(P, ';'))
			continue; /* a struct/enum/variant declaration inside a struct */
		for (;;) {
			if (!name) {
				if (P->lx.tok != TK_IDENT) {
					perr(P, "expected a field name");
					return -1;
				}
				name = tok_ident(P);
				next(P);
			}
			struct ctf_type *ft = parse_dims(P, base);
			if (!ft || add_field(P, t, &cap, name, ft))
				return -1;
			name = NULL;
			if (!accept(P, ','))
				break;
		}
		if (!expect(P, ';'))
			return -1;
	}
	return P->failed ? -1 : 0;
}

/* ---- blocks ---- */

static void *grow(struct parser *P, void *arr, size_t *cap, size_t n, size_t elsz)
{
	if (n < *cap)
		return arr;
	size_t nc = *cap ? *cap * 2 : 8;
	void *na = palloc(P, nc * elsz);
	if (!na)
		return NULL;
	if (n)
		memcpy(na, arr, n * elsz);
	*cap = nc;
	return na;
}

enum block { B_TRACE, B_ENV, B_CLOCK, B_STREAM, B_EVENT, B_CALLSITE };

static int parse_block(struct parser *P, enum block b)
{
	struct ctf_clock clk = { .freq = 1000000000 };
	struct ctf_stream_class sc = { 0 };
	struct ctf_event_class ev = { .loglevel = -1 };
	int has_id = 0;
	if (!expect(P, '{'))
		return -1;
	while (!P->failed && !is_punct(P, '}')) {
		if (P->lx.tok == TK_EOF) {
			perr(P, "unexpected end of metadata");
			return -1;
		}
		if (is_word(P, "typealias") || is_word(P, "typedef")) {
			int td = is_word(P, "typedef");
			next(P);
			if (parse_typealias(P, td))
				return -1;
			continue;
		}
		const char *key;
		struct value v;
		if (parse_attr(P, &key, &v))
			return -1;
		switch (b) {
		case B_TRACE:
			if (!strcmp(key, "major") && v.kind == V_INT)
				P->m->major = (unsigned)v.i;
			else if (!strcmp(key, "minor") && v.kind == V_INT)
				P->m->minor = (unsigned)v.i;
			else if (!strcmp(key, "uuid") && v.kind == V_STRING) {
				if (parse_uuid(v.s, P->m->uuid)) {
					perr(P, "bad trace uuid");
					return -1;
				}
				P->m->has_uuid = true;
			} else if (!strcmp(key, "byte_order"))
				P->m->bo = value_bo(P, &v);
			else if (!strcmp(key, "packet.header") && v.kind == V_TYPE)
				P->m->packet_header = v.type;
			break;
		case B_ENV:
			if (!strcmp(key, "hostname") && v.kind == V_STRING)
				P->m->env_hostname = v.s;
			else if (!strcmp(key, "domain") && v.kind == V_STRING)
				P->m->env_domain = v.s;
			break;
		case B_CLOCK:
			if (!strcmp(key, "name"))
				clk.name = v.s;
			else if (!strcmp(key, "freq") && v.kind == V_INT)
				clk.freq = v.u;
			else if (!strcmp(key, "offset_s") && v.kind == V_INT)
				clk.offset_s = v.i;
			else if (!strcmp(key, "offset") && v.kind == V_INT)
				clk.offset = v.u;
			else if (!strcmp(key, "uuid") && v.kind == V_STRING)
				clk.has_uuid = !parse_uuid(v.s, clk.uuid);
			break;
		case B_STREAM:
			if (!strcmp(key, "id") && v.kind == V_INT)
				sc.id = v.u;
			else if (!strcmp(key, "event.header") && v.kind == V_TYPE)
				sc.event_header = v.type;
			else if (!strcmp(key, "packet.context") && v.kind == V_TYPE)
				sc.packet_context = v.type;
			else if (!strcmp(key, "event.context") && v.kind == V_TYPE)
				sc.event_context = v.type;
			break;
		case B_EVENT:
			if (!strcmp(key, "name") && (v.kind == V_STRING || v.kind == V_IDENT))
				ev.name = v.s;
			else if (!strcmp(key, "id") && v.kind == V_INT) {
				ev.id = v.u;
				has_id = 1;
			} else if (!strcmp(key, "stream_id") && v.kind == V_INT)
				ev.stream_id = v.u;
			else if (!strcmp(key, "loglevel") && v.kind == V_INT)
				ev.loglevel = v.i;
			else if (!strcmp(key, "context") && v.kind == V_TYPE)
				ev.context = v.type;
			else if (!strcmp(key, "fields") && v.kind == V_TYPE)
				ev.fields = v.type;
			break;
		case B_CALLSITE:
			break;
		}
	}
	if (P->failed || !expect(P, '}'))
		return -1;
	struct ctf_metadata *m = P->m;
	if (b == B_CLOCK) {
		if (!clk.name) {
			perr(P, "clock without name");
			return -1;
		}
		if (!clk.freq) {
			perr(P, "clock frequency is 0");
			return -1;
		}
		m->clocks = grow(P, m->clocks, &P->cap_clocks, m->nclocks, sizeof(clk));
		if (!m->clocks)
			return -1;
		m->clocks[m->nclocks++] = clk;
	} else if (b == B_STREAM) {
		if (tsdl_find_stream(m, sc.id)) {
			perr(P, "duplicate stream id %" PRIu64, sc.id);
			return -1;
		}
		m->streams = grow(P, m->streams, &P->cap_streams, m->nstreams, sizeof(sc));
		if (!m->streams)
			return -1;
		m->streams[m->nstreams++] = sc;
	} else if (b == B_EVENT) {
		if (!ev.name) {
			perr(P, "event without name");
			return -1;
		}
		if (!has_id)
			ev.id = m->nevents; /* tolerated: events numbered in order */
		m->events = grow(P, m->events, &P->cap_events, m->nevents, sizeof(ev));
		if (!m->events)
			return -1;
		m->events[m->nevents++] = ev;
	}
	return 0;
}

static int parse_top(struct parser *P)
{
	next(P);
	while (!P->failed && P->lx.tok != TK_EOF) {
		if (P->lx.tok != TK_IDENT) {
			if (accept(P, ';'))
				continue;
			perr(P, "expected a declaration");
			return -1;
		}
		if (is_word(P, "typealias") || is_word(P, "typedef")) {
			int td = is_word(P, "typedef");
			next(P);
			if (parse_typealias(P, td))
				return -1;
			continue;
		}
		static const struct {
			const char *w;
			enum block b;
		} blocks[] = { { "trace", B_TRACE }, { "env", B_ENV }, { "clock", B_CLOCK },
			       { "stream", B_STREAM }, { "event", B_EVENT }, { "callsite", B_CALLSITE } };
		int done = 0;
		for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
			if (is_word(P, blocks[i].w)) {
				next(P);
				if (parse_block(P, blocks[i].b) || !expect(P, ';'))
					return -1;
				done = 1;
				break;
			}
		}
		if (done)
			continue;
		/* a named struct/enum/variant declaration */
		const char *left = NULL;
		struct ctf_type *t = parse_type_spec(P, 1, &left);
		if (!t)
			return -1;
		if (left) {
			perr(P, "unexpected '%s'", left);
			return -1;
		}
		if (!expect(P, ';'))
			return -1;
	}
	return P->failed ? -1 : 0;
}

struct ctf_metadata *tsdl_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct ctf_metadata *m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct parser P = { .m = m, .err = err, .errlen = errlen };
	tsdl_lex_init(&P.lx, text, len, &m->arena);
	if (parse_top(&P)) {
		if (!P.failed)
			snprintf(err, errlen, "metadata: parse error");
		goto fail;
	}
	if (m->bo == CTF_BO_NATIVE)
		m->bo = CTF_BO_LE;
	if (m->major && m->major != 1) {
		snprintf(err, errlen, "metadata: unsupported CTF version %u.%u", m->major, m->minor);
		goto fail;
	}
	return m;
fail:
	tsdl_free(m);
	return NULL;
}

void tsdl_free(struct ctf_metadata *m)
{
	if (!m)
		return;
	arena_free(&m->arena);
	free(m);
}

const struct ctf_clock *tsdl_find_clock(const struct ctf_metadata *m, const char *name)
{
	for (size_t i = 0; i < m->nclocks; i++)
		if (!name || !strcmp(m->clocks[i].name, name))
			return &m->clocks[i];
	return NULL;
}

const struct ctf_stream_class *tsdl_find_stream(const struct ctf_metadata *m, uint64_t id)
{
	for (size_t i = 0; i < m->nstreams; i++)
		if (m->streams[i].id == id)
			return &m->streams[i];
	return NULL;
}
