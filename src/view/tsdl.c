/* tsdl.c — CTF 1.8 TSDL parser into the model of tsdl.h: tokens, the registry of named
 * types, attribute values, and the trace/env/clock/stream/event/callsite blocks; the type
 * specifiers (integer, floating_point, string, enum, struct, variant, arrays and sequences,
 * typealias/typedef) are tsdl_types.c.  Bounded recursion; errors carry the line number. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/tsdl_int.h"

void tsdl_perr(struct parser *P, const char *fmt, ...)
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

void *tsdl_palloc(struct parser *P, size_t n)
{
	void *p = arena_alloc(&P->m->arena, n);
	if (!p)
		tsdl_perr(P, "out of memory");
	return p;
}

void tsdl_next(struct parser *P)
{
	if (tsdl_lex_next(&P->lx) == TK_ERROR)
		tsdl_perr(P, "%s", P->lx.errmsg);
}

int tsdl_is_punct(struct parser *P, char c)
{
	return P->lx.tok == TK_PUNCT && P->lx.punct == c;
}

int tsdl_accept(struct parser *P, char c)
{
	if (tsdl_is_punct(P, c)) {
		tsdl_next(P);
		return 1;
	}
	return 0;
}

int tsdl_expect(struct parser *P, char c)
{
	if (tsdl_accept(P, c))
		return 1;
	const char *shown = c == 'A' ? ":=" : c == 'E' ? "..." : (char[]){c, 0};
	tsdl_perr(P, "expected '%s'", shown);
	return 0;
}

int tsdl_is_word(struct parser *P, const char *w)
{
	return P->lx.tok == TK_IDENT && P->lx.tlen == strlen(w) && !memcmp(P->lx.tstart, w, P->lx.tlen);
}

const char *tsdl_tok_ident(struct parser *P)
{
	return arena_strndup(&P->m->arena, P->lx.tstart, P->lx.tlen);
}

struct ctf_type *tsdl_reg_find(struct parser *P, enum reg_kind k, const char *name)
{
	for (struct reg_entry *e = P->reg; e; e = e->next)
		if (e->kind == k && !strcmp(e->name, name))
			return e->type;
	return NULL;
}

void tsdl_reg_add(struct parser *P, enum reg_kind k, const char *name, struct ctf_type *t)
{
	struct reg_entry *e = tsdl_palloc(P, sizeof(*e));
	if (!e)
		return;
	e->kind = k;
	e->name = name;
	e->type = t;
	e->next = P->reg;
	P->reg = e;
}

struct ctf_type *tsdl_type_new(struct parser *P, enum ctf_tkind k)
{
	struct ctf_type *t = tsdl_palloc(P, sizeof(*t));
	if (t)
		t->kind = k;
	return t;
}

struct ctf_type *tsdl_type_copy(struct parser *P, const struct ctf_type *src)
{
	struct ctf_type *t = tsdl_palloc(P, sizeof(*t));
	if (t)
		*t = *src;
	return t;
}

/* ---- values ---- */

/* A signed integer constant: [-|+] INT */
int tsdl_parse_int(struct parser *P, int64_t *out, uint64_t *uout)
{
	int neg = 0;
	if (tsdl_accept(P, '-'))
		neg = 1;
	else
		tsdl_accept(P, '+');
	if (P->lx.tok != TK_INT) {
		tsdl_perr(P, "expected an integer");
		return -1;
	}
	uint64_t v = P->lx.uval;
	if (uout)
		*uout = neg ? (uint64_t)(-(int64_t)v) : v;
	if (out)
		*out = neg ? -(int64_t)v : (int64_t)v;
	tsdl_next(P);
	return 0;
}

/* identifier path a.b.c (arena string) */
const char *tsdl_parse_path(struct parser *P)
{
	char buf[512];
	size_t n = 0;
	for (;;) {
		if (P->lx.tok != TK_IDENT) {
			tsdl_perr(P, "expected an identifier");
			return NULL;
		}
		if (n + P->lx.tlen + 2 >= sizeof(buf)) {
			tsdl_perr(P, "path too long");
			return NULL;
		}
		memcpy(buf + n, P->lx.tstart, P->lx.tlen);
		n += P->lx.tlen;
		tsdl_next(P);
		if (!tsdl_is_punct(P, '.'))
			break;
		buf[n++] = '.';
		tsdl_next(P);
	}
	return arena_strndup(&P->m->arena, buf, n);
}

static int parse_value(struct parser *P, struct value *v)
{
	memset(v, 0, sizeof(*v));
	if (P->lx.tok == TK_STRING) {
		v->kind = V_STRING;
		v->s = P->lx.sval;
		tsdl_next(P);
		return 0;
	}
	if (P->lx.tok == TK_INT || tsdl_is_punct(P, '-') || tsdl_is_punct(P, '+')) {
		v->kind = V_INT;
		return tsdl_parse_int(P, &v->i, &v->u);
	}
	if (P->lx.tok == TK_IDENT) {
		v->kind = V_IDENT;
		v->s = tsdl_parse_path(P);
		return v->s ? 0 : -1;
	}
	tsdl_perr(P, "expected a value");
	return -1;
}

int tsdl_value_bool(struct parser *P, const struct value *v)
{
	if (v->kind == V_INT)
		return v->i != 0;
	if (v->kind == V_IDENT && (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE")))
		return 1;
	if (v->kind == V_IDENT && (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE")))
		return 0;
	tsdl_perr(P, "expected a boolean");
	return 0;
}

enum ctf_byte_order tsdl_value_bo(struct parser *P, const struct value *v)
{
	if (v->kind == V_IDENT) {
		if (!strcmp(v->s, "le") || !strcmp(v->s, "little"))
			return CTF_BO_LE;
		if (!strcmp(v->s, "be") || !strcmp(v->s, "big") || !strcmp(v->s, "network"))
			return CTF_BO_BE;
		if (!strcmp(v->s, "native"))
			return CTF_BO_NATIVE;
	}
	tsdl_perr(P, "bad byte_order");
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
int tsdl_parse_attr(struct parser *P, const char **key, struct value *v)
{
	*key = tsdl_parse_path(P);
	if (!*key)
		return -1;
	if (tsdl_accept(P, 'A')) {
		memset(v, 0, sizeof(*v));
		v->kind = V_TYPE;
		v->type = tsdl_parse_type_spec(P, 0, NULL);
		if (!v->type)
			return -1;
	} else {
		if (!tsdl_expect(P, '=') || parse_value(P, v))
			return -1;
	}
	return tsdl_expect(P, ';') ? 0 : -1;
}

/* ---- blocks ---- */

static void *grow(struct parser *P, void *arr, size_t *cap, size_t n, size_t elsz)
{
	if (n < *cap)
		return arr;
	size_t nc = *cap ? *cap * 2 : 8;
	void *na = tsdl_palloc(P, nc * elsz);
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
	if (!tsdl_expect(P, '{'))
		return -1;
	while (!P->failed && !tsdl_is_punct(P, '}')) {
		int r = tsdl_scope_item(P);

		if (r < 0)
			return -1;
		if (r)
			continue;
		const char *key;
		struct value v;
		if (tsdl_parse_attr(P, &key, &v))
			return -1;
		switch (b) {
		case B_TRACE:
			if (!strcmp(key, "major") && v.kind == V_INT)
				P->m->major = (unsigned)v.i;
			else if (!strcmp(key, "minor") && v.kind == V_INT)
				P->m->minor = (unsigned)v.i;
			else if (!strcmp(key, "uuid") && v.kind == V_STRING) {
				if (parse_uuid(v.s, P->m->uuid)) {
					tsdl_perr(P, "bad trace uuid");
					return -1;
				}
				P->m->has_uuid = true;
			} else if (!strcmp(key, "byte_order"))
				P->m->bo = tsdl_value_bo(P, &v);
			else if (!strcmp(key, "packet.header") && v.kind == V_TYPE)
				P->m->packet_header = v.type;
			break;
		case B_ENV:
			if (!strcmp(key, "hostname") && v.kind == V_STRING)
				P->m->env_hostname = v.s;
			else if (!strcmp(key, "domain") && v.kind == V_STRING)
				P->m->env_domain = v.s;
			else if (!strncmp(key, "scry_cgroup_", 12) && key[12] >= '0' && key[12] <= '9' &&
				 v.kind == V_STRING) {
				struct tsdl_cgroup *g = realloc(P->m->cgroups, (P->m->ncgroups + 1) * sizeof(*g));

				if (!g) {
					tsdl_perr(P, "out of memory");
					return -1;
				}
				P->m->cgroups = g;
				g[P->m->ncgroups].id = strtoull(key + 12, NULL, 10);
				g[P->m->ncgroups++].container = v.s;
			}
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
	if (P->failed || !tsdl_expect(P, '}'))
		return -1;
	struct ctf_metadata *m = P->m;
	if (b == B_CLOCK) {
		if (!clk.name) {
			tsdl_perr(P, "clock without name");
			return -1;
		}
		if (!clk.freq) {
			tsdl_perr(P, "clock frequency is 0");
			return -1;
		}
		m->clocks = grow(P, m->clocks, &P->cap_clocks, m->nclocks, sizeof(clk));
		if (!m->clocks)
			return -1;
		m->clocks[m->nclocks++] = clk;
	} else if (b == B_STREAM) {
		if (tsdl_find_stream(m, sc.id)) {
			tsdl_perr(P, "duplicate stream id %" PRIu64, sc.id);
			return -1;
		}
		m->streams = grow(P, m->streams, &P->cap_streams, m->nstreams, sizeof(sc));
		if (!m->streams)
			return -1;
		m->streams[m->nstreams++] = sc;
	} else if (b == B_EVENT) {
		if (!ev.name) {
			tsdl_perr(P, "event without name");
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
	tsdl_next(P);
	while (!P->failed && P->lx.tok != TK_EOF) {
		if (P->lx.tok != TK_IDENT) {
			if (tsdl_accept(P, ';'))
				continue;
			tsdl_perr(P, "expected a declaration");
			return -1;
		}
		if (tsdl_is_word(P, "typealias") || tsdl_is_word(P, "typedef")) {
			int td = tsdl_is_word(P, "typedef");
			tsdl_next(P);
			if (tsdl_parse_typealias(P, td))
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
			if (tsdl_is_word(P, blocks[i].w)) {
				tsdl_next(P);
				if (parse_block(P, blocks[i].b) || !tsdl_expect(P, ';'))
					return -1;
				done = 1;
				break;
			}
		}
		if (done)
			continue;
		/* a named struct/enum/variant declaration */
		const char *left = NULL;
		struct ctf_type *t = tsdl_parse_type_spec(P, 1, &left);
		if (!t)
			return -1;
		if (left) {
			tsdl_perr(P, "unexpected '%s'", left);
			return -1;
		}
		if (!tsdl_expect(P, ';'))
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
	free(m->cgroups);
	free(m);
}

const char *tsdl_container(const struct ctf_metadata *m, uint64_t id)
{
	for (size_t i = 0; i < m->ncgroups; i++)
		if (m->cgroups[i].id == id)
			return m->cgroups[i].container;
	return NULL;
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
