/* output_json.c — `scry view --json`: one object per event and line,
 * {"timestamp": ns since the epoch, "time": ISO-8601 UTC with ns, "name", "cpu_id",
 *  "context": {stream and event context fields}, "payload": {fields}}, values as
 * util/json.h writes them (integers beyond 2^53, the timestamp among them, as exact decimal
 * strings; bytes that are not UTF-8 as U+DC80 + byte).  The auxiliary fields of the CTF
 * layout (names beginning with "_": a sequence's length, `_X_count` and `_X_ptr` beside a
 * captured string array) are left out; `scry view` and babeltrace2 show them.  scry's own
 * fields named `_X` (captured data, an argument lttng-modules records on the other side:
 * read's entry `_buf`) are written. */
#include <math.h>
#include <stdio.h>
#include "util/json.h"
#include "view/output.h"

void json_out_init(struct json_out *o, struct outbuf *ob)
{
	memset(o, 0, sizeof(*o));
	o->ob = ob;
	o->tod.gmt = 1;
}

static void put_str(struct outbuf *ob, const uint8_t *p, size_t len)
{
	json_str(ob, p, len);
}

static uint32_t put_value(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi);

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n > k + 1 && !memcmp(s + n - k, suf, k);
}

/* An auxiliary integer of the CTF layout: `_X_length` a sequence reads, `_X_count`/`_X_ptr`. */
static bool is_aux(const struct op *o)
{
	if (o->kind != OP_INT || !o->name || o->name[0] != '_')
		return false;
	return (o->flags & OPF_SEQLEN) || ends_with(o->name, o->name_len, "_count") ||
	       ends_with(o->name, o->name_len, "_ptr");
}

bool json_member_shown(const struct op *o)
{
	return !(o->flags & OPF_HIDDEN) && !is_aux(o);
}

/* struct members as "name": value pairs; *n counts pairs already written */
static uint32_t put_members(struct outbuf *ob, const struct op *ops, uint32_t i, const struct val **vi, int *n)
{
	uint32_t j = i + 1;
	while (ops[j].kind != OP_STRUCT_END) {
		if (!json_member_shown(&ops[j])) {
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
			json_i64(ob, (int64_t)v);
		else
			json_u64(ob, v);
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
	json_i64(ob, ns);
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
	const char *c = view_event_container(s);
	if (c) {
		if (n)
			ob_putc(ob, ',');
		OB_LIT(ob, "\"container\":");
		put_str(ob, (const uint8_t *)c, strlen(c));
		n++;
	}
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
