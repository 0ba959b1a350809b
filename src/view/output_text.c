/* output_text.c — text lines in babeltrace2's default `text.pretty` layout (minus the
 * hostname): [time] (+delta) name: { packet context }, { stream event context },
 * { event context }, { payload }, with its integer bases, enum, array, variant and string
 * escaping conventions. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "catalog/symbolize.h"
#include "view/output.h"

/* The call stack being printed: its kind and the event's process (for user addresses). */
static struct {
	struct scry_syms *syms;
	int kind;          /* 0: none, 1: kernel, 2: user */
	int64_t pid;       /* -1: unknown */
} stk;

void text_out_init(struct text_out *o, struct outbuf *ob, bool gmt)
{
	memset(o, 0, sizeof(*o));
	o->ob = ob;
	o->tod.gmt = gmt;
}

/* Bytes that a string cannot print as they are: controls, '"', '\\', DEL. */
static const uint8_t needs_escape[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x7f] = 1,
};

static void put_escaped(struct outbuf *ob, const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len && !needs_escape[p[i]])
		i++;
	if (i == len) {                  /* the common case: nothing to escape */
		ob_putc(ob, '"');
		ob_write(ob, p, len);
		ob_putc(ob, '"');
		return;
	}
	ob_putc(ob, '"');
	size_t run = i;                  /* the clean prefix */
	for (; i < len; i++) {
		uint8_t c = p[i];
		const char *esc = NULL;
		switch (c) {
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		case '\\': esc = "\\\\"; break;
		case '"': esc = "\\\""; break;
		default: break;
		}
		char hx[4];
		if (!esc && (c < 0x20 || c == 0x7f)) {
			hx[0] = '\\';
			hx[1] = 'x';
			hx[2] = "0123456789abcdef"[c >> 4];
			hx[3] = "0123456789abcdef"[c & 15];
			if (run)
				ob_write(ob, p + i - run, run);
			run = 0;
			ob_write(ob, hx, 4);
			continue;
		}
		if (esc) {
			if (run)
				ob_write(ob, p + i - run, run);
			run = 0;
			ob_write(ob, esc, 2);
		} else {
			run++;
		}
	}
	if (run)
		ob_write(ob, p + len - run, run);
	ob_putc(ob, '"');
}

static void put_int(struct outbuf *ob, const struct op *o, uint64_t v)
{
	bool sgn = o->flags & OPF_SIGNED;
	unsigned bits = o->bits;
	switch (o->base) {
	case 16:
		if (sgn && bits < 64) {
			unsigned r = ((bits - 1) / 4 + 1) * 4;
			if (r < 64)
				v &= (UINT64_C(1) << r) - 1;
		}
		OB_LIT(ob, "0x");
		ob_hex_upper(ob, v);
		break;
	case 8:
		if (sgn && bits < 64) {
			unsigned r = ((bits - 1) / 3 + 1) * 3;
			if (r < 64)
				v &= (UINT64_C(1) << r) - 1;
		}
		ob_putc(ob, '0');
		ob_oct(ob, v);
		break;
	case 2:
		OB_LIT(ob, "0b");
		ob_bin(ob, v, bits);
		break;
	default:
		if (sgn)
			ob_i64(ob, (int64_t)v);
		else
			ob_u64(ob, v);
		break;
	}
}

static void put_text_value(struct outbuf *ob, const struct val *v)
{
	const uint8_t *p = v->p;
	size_t len = (size_t)v->u;
	const uint8_t *z = memchr(p, 0, len);
	put_escaped(ob, p, z ? (size_t)(z - p) : len);
}

/* Print the subtree at ops[i], consuming values from *vi; returns the index after it. */
static uint32_t put_field(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi)
{
	const struct op *o = &ops[i];
	ob_reserve(ob);
	switch (o->kind) {
	case OP_INT: {
		uint64_t v = (*vi)++->u;
		if (o->flags & OPF_ENUM) {
			const char *labels[8];
			int n = plan_enum_labels(o, v, labels, 8);
			OB_LIT(ob, "( ");
			if (!n)
				OB_LIT(ob, "<unknown>");
			for (int k = 0; k < n; k++) {
				if (k)
					OB_LIT(ob, ", ");
				put_escaped(ob, (const uint8_t *)labels[k], strlen(labels[k]));
			}
			OB_LIT(ob, " : container = ");
			put_int(ob, o, v);
			OB_LIT(ob, " )");
		} else {
			put_int(ob, o, v);
		}
		return i + 1;
	}
	case OP_FLOAT: {
		double d = plan_float_value(o, (*vi)++->u);
		char tmp[64];
		int n = snprintf(tmp, sizeof(tmp), "%g", d);
		ob_write(ob, tmp, (size_t)n);
		return i + 1;
	}
	case OP_STRING:
		put_escaped(ob, (*vi)->p, (size_t)(*vi)->u);
		(*vi)++;
		return i + 1;
	case OP_TEXT:
		put_text_value(ob, *vi);
		(*vi)++;
		return i + 1;
	case OP_STRUCT: {
		int nprinted = 0;
		ob_putc(ob, '{');
		uint32_t j = i + 1;
		while (ops[j].kind != OP_STRUCT_END) {
			if (ops[j].flags & OPF_HIDDEN) {
				(*vi)++; /* hidden fields are plain integers */
				j = ops[j].next;
				continue;
			}
			ob_reserve(ob);
			if (nprinted++)
				OB_LIT(ob, ", ");
			else
				ob_putc(ob, ' ');
			ob_write(ob, ops[j].name, ops[j].name_len);
			OB_LIT(ob, " = ");
			j = put_field(ob, ops, j, vi);
		}
		OB_LIT(ob, " }");
		return o->next;
	}
	case OP_ARRAY: {
		uint64_t n = (*vi)++->u;
		int kind = 0;

		if (stk.syms && o->name && o->name_len == 16 && !memcmp(o->name, "callstack_kernel", 16))
			kind = 1;
		else if (stk.syms && o->name && o->name_len == 14 && !memcmp(o->name, "callstack_user", 14))
			kind = 2;
		ob_putc(ob, '[');
		for (uint64_t k = 0; k < n; k++) {
			ob_reserve(ob);
			if (k)
				OB_LIT(ob, ", ");
			else
				ob_putc(ob, ' ');
			ob_putc(ob, '[');
			ob_u64(ob, k);
			OB_LIT(ob, "] = ");
			uint64_t addr = (*vi)->u;
			put_field(ob, ops, i + 1, vi);
			if (kind) {   /* "0x... <function+0xoff>"; frames after the first are return addresses */
				char sym[300];
				bool ok = kind == 1 ? scry_syms_kernel(stk.syms, addr, k > 0, sym, sizeof(sym))
						    : stk.pid >= 0 && scry_syms_user(stk.syms, (int)stk.pid, addr, k > 0,
										      sym, sizeof(sym));
				if (ok && addr != UINT64_MAX) {
					ob_reserve(ob);
					OB_LIT(ob, " <");
					ob_puts(ob, sym);
					ob_putc(ob, '>');
				}
			}
		}
		OB_LIT(ob, " ]");
		return o->next;
	}
	case OP_VARIANT: {
		uint64_t opt = (*vi)++->u;
		OB_LIT(ob, "{ ");
		ob_puts(ob, o->opt_names[opt] ? o->opt_names[opt] : "");
		OB_LIT(ob, " = ");
		put_field(ob, ops, o->opts[opt], vi);
		OB_LIT(ob, " }");
		return o->next;
	}
	default:
		return o->next > i ? o->next : i + 1;
	}
}

/* Values a field's subtree takes (as put_field consumes them), without printing. */
static uint32_t skip_field(const struct op *ops, uint32_t i, const struct val **vi)
{
	const struct op *o = &ops[i];

	switch (o->kind) {
	case OP_INT: case OP_FLOAT: case OP_STRING: case OP_TEXT:
		(*vi)++;
		return i + 1;
	case OP_STRUCT: {
		uint32_t j = i + 1;
		while (ops[j].kind != OP_STRUCT_END) {
			if (ops[j].flags & OPF_HIDDEN) {
				(*vi)++;
				j = ops[j].next;
				continue;
			}
			j = skip_field(ops, j, vi);
		}
		return o->next;
	}
	case OP_ARRAY: {
		uint64_t n = (*vi)++->u;
		for (uint64_t k = 0; k < n; k++)
			skip_field(ops, i + 1, vi);
		return o->next;
	}
	case OP_VARIANT: {
		uint64_t opt = (*vi)++->u;
		skip_field(ops, o->opts[opt], vi);
		return o->next;
	}
	default:
		return o->next > i ? o->next : i + 1;
	}
}

const char *view_event_container(const struct view_stream *s)
{
	const struct plan *p = &s->sc->ectx;
	const struct val *v = s->vals.v;

	if (!s->t->m->ncgroups || !p->n || p->ops[0].kind != OP_STRUCT)
		return NULL;
	for (uint32_t j = 1; p->ops[j].kind != OP_STRUCT_END;) {
		const struct op *o = &p->ops[j];
		if (o->kind == OP_INT && o->name && o->name_len == 9 && !memcmp(o->name, "cgroup_id", 9))
			return tsdl_container(s->t->m, v->u);
		if (o->flags & OPF_HIDDEN) {
			v++;
			j = o->next;
			continue;
		}
		j = skip_field(p->ops, j, &v);
	}
	return NULL;
}

/* The pid (else tid) context of the event, -1 when it has neither. */
static int64_t event_pid(const struct plan *p, const struct val *v)
{
	int64_t tid = -1;

	if (!p->n || p->ops[0].kind != OP_STRUCT)
		return -1;
	for (uint32_t j = 1; p->ops[j].kind != OP_STRUCT_END;) {
		const struct op *o = &p->ops[j];
		if (o->kind == OP_INT && o->name && o->name_len == 3 && !memcmp(o->name, "pid", 3))
			return (int64_t)v->u;
		if (o->kind == OP_INT && o->name && o->name_len == 3 && !memcmp(o->name, "tid", 3))
			tid = (int64_t)v->u;
		if (o->flags & OPF_HIDDEN) {
			v++;
			j = o->next;
			continue;
		}
		j = skip_field(p->ops, j, &v);
	}
	return tid;
}

/* The memo of plan p for the nv values v: its entry when they are the same, else NULL. */
static const struct text_memo *memo_find(const struct text_memo *ways, const struct plan *p, const struct val *v,
					 size_t nv)
{
	for (unsigned w = 0; w < TEXT_MEMO_WAYS; w++) {
		const struct text_memo *m = &ways[w];
		size_t off = 0, i;

		if (m->plan != p || m->nv != nv)
			continue;
		for (i = 0; i < nv; i++) {
			if (m->u[i] != v[i].u || !!(m->strs >> i & 1) != (v[i].p != NULL))
				break;
			if (v[i].p) {
				if (memcmp(m->str + off, v[i].p, v[i].u))
					break;
				off += v[i].u;
			}
		}
		if (i == nv)
			return m;
	}
	return NULL;
}

/* Keep text (ntext bytes) as the memo of plan p for its values, if they fit. */
static void memo_keep(struct text_out *o, int k, const struct plan *p, const struct val *v, size_t nv,
		      const char *text, size_t ntext)
{
	struct text_memo *m = &o->memo[k][o->memo_next[k] % TEXT_MEMO_WAYS];
	size_t off = 0;

	if (nv > TEXT_MEMO_VALS || ntext > TEXT_MEMO_TEXT)
		return;
	m->plan = NULL;
	m->strs = 0;
	for (size_t i = 0; i < nv; i++) {
		m->u[i] = v[i].u;
		if (!v[i].p)
			continue;
		if (v[i].u > TEXT_MEMO_STR - off)
			return;
		memcpy(m->str + off, v[i].p, v[i].u);
		off += v[i].u;
		m->strs |= 1u << i;
	}
	memcpy(m->text, text, ntext);
	m->nv = nv;
	m->nstr = off;
	m->ntext = ntext;
	m->plan = p;
	o->memo_next[k]++;
}

/* Does plan p print call stacks (symbolized as the maps go: not kept)? */
static bool has_stack(const struct plan *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == OP_ARRAY && p->ops[i].name && p->ops[i].name_len >= 9 &&
		    !memcmp(p->ops[i].name, "callstack", 9))
			return true;
	return false;
}

/* A context scope (k: 0 packet context, 1 stream event context) of nv values: its memo's
 * text when its values repeat, else printed and kept. */
static void put_ctx_scope(struct text_out *o, int k, const struct plan *p, const struct val *v, size_t nv)
{
	struct outbuf *ob = o->ob;
	const struct text_memo *m = nv <= TEXT_MEMO_VALS ? memo_find(o->memo[k], p, v, nv) : NULL;
	unsigned long flushes;
	size_t start;

	if (m) {
		ob_write(ob, m->text, m->ntext);
		return;
	}
	if (ob->n > OUTBUF_SIZE - OUTBUF_SLACK - TEXT_MEMO_TEXT)
		ob_flush(ob);
	flushes = ob->flushes;
	start = ob->n;
	put_field(ob, p->ops, 0, &v);
	if (ob->flushes == flushes && !has_stack(p))
		memo_keep(o, k, p, v - nv, nv, ob->buf + start, ob->n - start);
}

void text_event(struct text_out *o, struct view_stream *s)
{
	struct outbuf *ob = o->ob;
	int64_t ns = s->ts_ns;
	int64_t sec = ns / 1000000000, sub = ns % 1000000000;
	if (sub < 0) {
		sub += 1000000000;
		sec--;
	}
	tod_lookup(&o->tod, sec);
	ob_reserve(ob);
	ob_putc(ob, '[');
	ob_write(ob, o->tod.hms, 8);
	ob_putc(ob, '.');
	ob_u64_pad(ob, (uint64_t)sub, 9);
	OB_LIT(ob, "] (+");
	if (o->have_last) {
		uint64_t d = (uint64_t)(ns - o->last_ns);
		ob_u64(ob, d / 1000000000);
		ob_putc(ob, '.');
		ob_u64_pad(ob, d % 1000000000, 9);
	} else {
		OB_LIT(ob, "?.?????????");
	}
	o->have_last = true;
	o->last_ns = ns;
	OB_LIT(ob, ") ");
	ob_write(ob, s->ev->name, s->ev->name_len);
	ob_putc(ob, ':');
	/* scopes: packet context (its special fields hidden), stream event context, event
	 * context, payload */
	const struct plan *scopes[4] = { &s->sc->pctx, &s->sc->ectx, &s->ev->ctx, &s->ev->fields };
	const struct val *starts[4] = { s->pvals.v, s->vals.v, s->vals.v + s->nv_ectx,
					s->vals.v + s->nv_ectx + s->nv_ctx };
	const size_t nvals[2] = { s->pvals.n, s->nv_ectx };
	bool first = true;
	stk.syms = o->syms;
	stk.pid = o->syms ? event_pid(&s->sc->ectx, s->vals.v) : -1;
	for (int k = 0; k < 4; k++) {
		const struct plan *p = scopes[k];
		if (!p->n)
			continue;
		if (first)
			ob_putc(ob, ' ');
		else
			OB_LIT(ob, ", ");
		first = false;
		const struct val *v = starts[k];
		if (k < 2) {
			const char *c;

			put_ctx_scope(o, k, p, v, nvals[k]);
			if (k == 1 && (c = view_event_container(s)) && ob->n >= 2) {
				ob->n -= 2;        /* " }": the container after cgroup_id's */
				OB_LIT(ob, ", container = ");
				put_escaped(ob, (const uint8_t *)c, strlen(c));
				OB_LIT(ob, " }");
			}
		} else
			put_field(ob, p->ops, 0, &v);
	}
	ob_putc(ob, '\n');
}
