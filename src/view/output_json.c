/* output_json.c — `scry view --json`: one object per event and line,
 * {"timestamp": ns since the epoch, "time": ISO-8601 UTC with ns, "name", "cpu_id",
 *  "context": {stream and event context fields}, "payload": {fields}}, with strict string
 * escaping (control characters, quotes, invalid UTF-8 as \uFFFD). */
#include <math.h>
#include <stdio.h>
#include "view/output.h"

void json_out_init(struct json_out *o, struct outbuf *ob)
{
	memset(o, 0, sizeof(*o));
	o->ob = ob;
	o->tod.gmt = 1;
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. */
static size_t utf8_len(const uint8_t *p, size_t left)
{
	uint8_t c = p[0];
	if (c < 0x80)
		return 1;
	size_t n;
	uint32_t cp;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
		cp = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		cp = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

void json_escape(struct outbuf *ob, const uint8_t *p, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t run = i;
		while (run < len && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run > i) {
			ob_write(ob, p + i, run - i);
			i = run;
			continue;
		}
		uint8_t c = p[i];
		ob_reserve(ob);
		if (c == '"') {
			OB_LIT(ob, "\\\"");
		} else if (c == '\\') {
			OB_LIT(ob, "\\\\");
		} else if (c == '\n') {
			OB_LIT(ob, "\\n");
		} else if (c == '\t') {
			OB_LIT(ob, "\\t");
		} else if (c == '\r') {
			OB_LIT(ob, "\\r");
		} else if (c == '\b') {
			OB_LIT(ob, "\\b");
		} else if (c == '\f') {
			OB_LIT(ob, "\\f");
		} else if (c < 0x20) {
			char u[7] = { '\\', 'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15], 0 };
			ob_write(ob, u, 6);
		} else {
			size_t n = utf8_len(p + i, len - i);
			if (!n) {
				OB_LIT(ob, "\\ufffd");
				i++;
				continue;
			}
			ob_write(ob, p + i, n);
			i += n;
			continue;
		}
		i++;
	}
}

static void put_str(struct outbuf *ob, const uint8_t *p, size_t len)
{
	ob_putc(ob, '"');
	json_escape(ob, p, len);
	ob_putc(ob, '"');
}

static uint32_t put_value(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi);

/* struct members as "name": value pairs; *n counts pairs already written */
static uint32_t put_members(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi, int *n)
{
	uint32_t j = i + 1;
	while (ops[j].kind != OP_STRUCT_END) {
		if (ops[j].flags & OPF_HIDDEN) {
			(*vi)++;
			j = ops[j].next;
			continue;
		}
		ob_reserve(ob);
		if ((*n)++)
			ob_putc(ob, ',');
		put_str(ob, (const uint8_t *)(ops[j].name ? ops[j].name : ""), ops[j].name_len);
		ob_putc(ob, ':');
		j = put_value(ob, ops, j, vi);
	}
	return ops[i].next;
}

static uint32_t put_value(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi)
{
	const struct op *o = &ops[i];
	ob_reserve(ob);
	switch (o->kind) {
	case OP_INT: {
		uint64_t v = (*vi)++->u;
		const char *lab = (o->flags & OPF_ENUM) ? plan_enum_label(o, v) : NULL;
		if (lab)
			put_str(ob, (const uint8_t *)lab, strlen(lab));
		else if (o->flags & OPF_SIGNED)
			ob_i64(ob, (int64_t)v);
		else
			ob_u64(ob, v);
		return i + 1;
	}
	case OP_FLOAT: {
		double d = plan_float_value(o, (*vi)++->u);
		if (!isfinite(d)) {
			OB_LIT(ob, "null");
		} else {
			char tmp[64];
			int n = snprintf(tmp, sizeof(tmp), "%.17g", d);
			ob_write(ob, tmp, (size_t)n);
		}
		return i + 1;
	}
	case OP_STRING:
		put_str(ob, (*vi)->p, (size_t)(*vi)->u);
		(*vi)++;
		return i + 1;
	case OP_TEXT: {
		const uint8_t *p = (*vi)->p;
		size_t len = (size_t)(*vi)->u;
		const uint8_t *z = memchr(p, 0, len);
		put_str(ob, p, z ? (size_t)(z - p) : len);
		(*vi)++;
		return i + 1;
	}
	case OP_STRUCT: {
		int n = 0;
		ob_putc(ob, '{');
		put_members(ob, ops, i, vi, &n);
		ob_putc(ob, '}');
		return o->next;
	}
	case OP_ARRAY: {
		uint64_t n = (*vi)++->u;
		ob_putc(ob, '[');
		for (uint64_t k = 0; k < n; k++) {
			if (k)
				ob_putc(ob, ',');
			put_value(ob, ops, i + 1, vi);
		}
		ob_putc(ob, ']');
		return o->next;
	}
	case OP_VARIANT: {
		uint64_t opt = (*vi)++->u;
		put_value(ob, ops, o->opts[opt], vi);
		return o->next;
	}
	default:
		return o->next > i ? o->next : i + 1;
	}
}

void json_event(struct json_out *o, const struct view_stream *s)
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
	OB_LIT(ob, "{\"timestamp\":");
	ob_i64(ob, ns);
	OB_LIT(ob, ",\"time\":\"");
	ob_write(ob, o->tod.date, 10);
	ob_putc(ob, 'T');
	ob_write(ob, o->tod.hms, 8);
	ob_putc(ob, '.');
	ob_u64_pad(ob, (uint64_t)sub, 9);
	OB_LIT(ob, "Z\",\"name\":");
	put_str(ob, (const uint8_t *)s->ev->name, s->ev->name_len);
	OB_LIT(ob, ",\"cpu_id\":");
	if (s->cpu_id >= 0)
		ob_i64(ob, s->cpu_id);
	else
		OB_LIT(ob, "null");
	OB_LIT(ob, ",\"context\":{");
	const struct val *v = s->vals.v;
	int n = 0;
	if (s->sc->ectx.n)
		put_members(ob, s->sc->ectx.ops, 0, &v, &n);
	v = s->vals.v + s->nv_ectx;
	if (s->ev->ctx.n)
		put_members(ob, s->ev->ctx.ops, 0, &v, &n);
	v = s->vals.v + s->nv_ectx + s->nv_ctx;
	OB_LIT(ob, "},\"payload\":{");
	n = 0;
	if (s->ev->fields.n)
		put_members(ob, s->ev->fields.ops, 0, &v, &n);
	OB_LIT(ob, "}}\n");
}
