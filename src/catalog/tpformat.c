/* tpformat.c — parser of tracefs `format` files (see tpformat.h).  Bounded by len
 * everywhere: the input may hold NULs, lack a final newline, or be garbage. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/tpformat.h"
#include "util/lex.h"

struct span {
	const char *p;
	size_t n;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static struct span trim(struct span s)
{
	while (s.n && (s.p[0] == ' ' || s.p[0] == '\t' || s.p[0] == '\r'))
		s.p++, s.n--;
	while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t' || s.p[s.n - 1] == '\r'))
		s.n--;
	return s;
}

static bool starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.n >= n && memcmp(s.p, prefix, n) == 0;
}

static char *dup_span(struct span s)
{
	char *d = malloc(s.n + 1);

	if (d) {
		memcpy(d, s.p, s.n);
		d[s.n] = '\0';
	}
	return d;
}

/* Decimal number filling the whole span, <= TPF_MAX_VALUE. */
static int parse_uint(struct span s, uint32_t *out)
{
	uint64_t v = 0;

	s = trim(s);
	if (!s.n)
		return -1;
	for (size_t i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s.p[i] - '0');
		if (v > TPF_MAX_VALUE)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* "KEY:VALUE;" at the start of s (after blanks): sets val, advances s past ';'. */
static int take_attr(struct span *s, const char *key, struct span *val)
{
	struct span t = trim(*s);
	const char *semi;

	if (!starts(t, key))
		return -1;
	t.p += strlen(key);
	t.n -= strlen(key);
	semi = memchr(t.p, ';', t.n);
	if (!semi)
		return -1;
	val->p = t.p;
	val->n = (size_t)(semi - t.p);
	s->p = semi + 1;
	s->n = t.n - val->n - 1;
	return 0;
}

/* Split a declaration "TYPE NAME[N]" / "__data_loc TYPE[] NAME" into the field. */
static int parse_decl(struct span d, struct tpformat_field *f, char *err, size_t errlen, unsigned line)
{
	struct span type, name;
	size_t end;

	d = trim(d);
	f->array = TPF_NOT_ARRAY;
	f->loc = TPF_PLAIN;
	if (starts(d, "__data_loc ") || starts(d, "__rel_loc ")) {
		f->loc = starts(d, "__data_loc ") ? TPF_DATA_LOC : TPF_REL_LOC;
		d.p += f->loc == TPF_DATA_LOC ? 11 : 10;
		d.n -= f->loc == TPF_DATA_LOC ? 11 : 10;
		d = trim(d);
	}
	end = d.n;
	if (end && d.p[end - 1] == ']') {   /* NAME[N] */
		const char *open = NULL;
		uint32_t n;

		for (size_t i = end - 1; i-- > 0;)
			if (d.p[i] == '[') {
				open = d.p + i;
				break;
			}
		if (!open) {
			seterr(err, errlen, "line %u: unbalanced ']' in field declaration", line);
			return -1;
		}
		struct span inner = { open + 1, (size_t)(d.p + end - 1 - (open + 1)) };
		inner = trim(inner);
		if (!inner.n)
			f->array = TPF_ARRAY_DYN;
		else if (parse_uint(inner, &n) == 0)
			f->array = (int)n;
		else
			f->array = TPF_ARRAY_EXPR;
		end = (size_t)(open - d.p);
		while (end && (d.p[end - 1] == ' ' || d.p[end - 1] == '\t'))
			end--;
	}
	size_t start = end;
	while (start && scry_ident_char((unsigned char)d.p[start - 1]))
		start--;
	name.p = d.p + start;
	name.n = end - start;
	if (!name.n || isdigit((unsigned char)name.p[0])) {
		seterr(err, errlen, "line %u: field declaration without a name", line);
		return -1;
	}
	type.p = d.p;
	type.n = start;
	type = trim(type);
	if (f->loc != TPF_PLAIN) {   /* "char[]" -> element "char", dynamic */
		if (type.n >= 2 && type.p[type.n - 1] == ']' && type.p[type.n - 2] == '[') {
			type.n -= 2;
			type = trim(type);
			f->array = TPF_ARRAY_DYN;
		} else if (f->array == TPF_NOT_ARRAY) {
			f->array = TPF_NOT_ARRAY;   /* e.g. "__data_loc cpumask_t mask": opaque bytes */
		}
	}
	if (!type.n) {
		seterr(err, errlen, "line %u: field '%.*s' has no type", line, (int)name.n, name.p);
		return -1;
	}
	for (size_t i = 0; i < type.n; i++)
		if ((unsigned char)type.p[i] < 0x20 || (unsigned char)type.p[i] >= 0x7f) {
			seterr(err, errlen, "line %u: invalid character in field type", line);
			return -1;
		}
	f->is_pointer = type.p[type.n - 1] == '*';
	f->is_common = name.n > 7 && memcmp(name.p, "common_", 7) == 0;
	f->name = dup_span(name);
	f->type = dup_span(type);
	if (!f->name || !f->type) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* One "field:..." line (already trimmed, starting at "field:"). */
static int parse_field_line(struct span l, struct tpformat_field *f, char *err, size_t errlen, unsigned line)
{
	struct span decl, v;
	uint32_t sgn;

	memset(f, 0, sizeof(*f));
	if (take_attr(&l, "field:", &decl) < 0) {
		seterr(err, errlen, "line %u: field declaration without ';'", line);
		return -1;
	}
	if (parse_decl(decl, f, err, errlen, line) < 0)
		return -1;
	if (take_attr(&l, "offset:", &v) < 0 || parse_uint(v, &f->offset) < 0) {
		seterr(err, errlen, "line %u: field '%s': bad or missing offset", line, f->name);
		return -1;
	}
	if (take_attr(&l, "size:", &v) < 0 || parse_uint(v, &f->size) < 0) {
		seterr(err, errlen, "line %u: field '%s': bad or missing size", line, f->name);
		return -1;
	}
	if (take_attr(&l, "signed:", &v) == 0) {   /* absent in very old kernels */
		if (parse_uint(v, &sgn) < 0 || sgn > 1) {
			seterr(err, errlen, "line %u: field '%s': bad signed value", line, f->name);
			return -1;
		}
		f->is_signed = sgn;
	}
	if ((uint64_t)f->offset + f->size > TPF_MAX_VALUE) {
		seterr(err, errlen, "line %u: field '%s': offset + size too large", line, f->name);
		return -1;
	}
	if (f->array > 0 && f->size % (uint32_t)f->array) {
		seterr(err, errlen, "line %u: field '%s': size %u is not a multiple of %d elements",
		       line, f->name, f->size, f->array);
		return -1;
	}
	if (f->loc != TPF_PLAIN && f->size != 4) {
		seterr(err, errlen, "line %u: field '%s': dynamic field of size %u (expected 4)", line, f->name, f->size);
		return -1;
	}
	return 0;
}

void tpformat_free(struct tpformat *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->nfields; i++) {
		free(f->fields[i].name);
		free(f->fields[i].type);
	}
	free(f->fields);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

int tpformat_parse(const char *text, size_t len, struct tpformat *out, char *err, size_t errlen)
{
	struct tpformat f = { .id = -1 };
	size_t cap = 0, pos = 0;
	unsigned line = 0;
	bool in_format = false;

	memset(out, 0, sizeof(*out));
	if (!text)
		len = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		struct span l = { text + pos, nl ? (size_t)(nl - (text + pos)) : len - pos };

		pos += l.n + (nl ? 1 : 0);
		line++;
		l = trim(l);
		if (memchr(l.p, '\0', l.n) && !starts(l, "print fmt:")) {
			seterr(err, errlen, "line %u: NUL byte in format text", line);
			goto fail;
		}
		if (!l.n)
			continue;
		if (starts(l, "print fmt:"))
			break;   /* the rest is a C expression we do not need */
		if (starts(l, "name:")) {
			struct span v = trim((struct span){ l.p + 5, l.n - 5 });

			if (f.name || !v.n) {
				seterr(err, errlen, "line %u: %s 'name:' line", line, f.name ? "second" : "empty");
				goto fail;
			}
			for (size_t i = 0; i < v.n; i++)
				if (!scry_ident_char((unsigned char)v.p[i]) && v.p[i] != '-' && v.p[i] != '.') {
					seterr(err, errlen, "line %u: invalid event name", line);
					goto fail;
				}
			if (!(f.name = dup_span(v))) {
				seterr(err, errlen, "out of memory");
				goto fail;
			}
		} else if (starts(l, "ID:")) {
			uint32_t id;

			if (f.id >= 0 || parse_uint((struct span){ l.p + 3, l.n - 3 }, &id) < 0) {
				seterr(err, errlen, "line %u: bad 'ID:' line", line);
				goto fail;
			}
			f.id = (int)id;
		} else if (starts(l, "format:")) {
			in_format = true;
		} else if (starts(l, "field:")) {
			if (!in_format) {
				seterr(err, errlen, "line %u: field before 'format:'", line);
				goto fail;
			}
			if (f.nfields == TPF_MAX_FIELDS) {
				seterr(err, errlen, "line %u: more than %d fields", line, TPF_MAX_FIELDS);
				goto fail;
			}
			if (f.nfields == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct tpformat_field *nf = realloc(f.fields, ncap * sizeof(*nf));

				if (!nf) {
					seterr(err, errlen, "out of memory");
					goto fail;
				}
				f.fields = nf;
				cap = ncap;
			}
			f.nfields++;
			if (parse_field_line(l, &f.fields[f.nfields - 1], err, errlen, line) < 0)
				goto fail;
			for (unsigned i = 0; i + 1 < f.nfields; i++)
				if (!strcmp(f.fields[i].name, f.fields[f.nfields - 1].name)) {
					seterr(err, errlen, "line %u: duplicate field '%s'", line, f.fields[i].name);
					goto fail;
				}
		} else {
			seterr(err, errlen, "line %u: unrecognised line '%.*s'", line, (int)(l.n < 40 ? l.n : 40), l.p);
			goto fail;
		}
	}
	if (!f.name) {
		seterr(err, errlen, "no 'name:' line");
		goto fail;
	}
	if (!in_format) {
		seterr(err, errlen, "no 'format:' section");
		goto fail;
	}
	*out = f;
	return 0;
fail:
	tpformat_free(&f);
	return -1;
}
