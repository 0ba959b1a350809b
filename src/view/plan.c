/* plan.c — compile TSDL types into flat decoding plans: one op per field (struct/array/
 * variant subtrees delimited by end ops), sequence lengths and variant tags resolved to
 * registers, reader roles (timestamps, sizes, event id) attached by field name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/plan.h"

struct builder {
	struct plan_ctx *c;
	struct plan *p;
	uint32_t cap;
	enum plan_scope scope;
	int failed;
};

static void cerr(struct builder *b, const char *fmt, const char *arg)
{
	if (b->failed)
		return;
	b->failed = 1;
	snprintf(b->c->err, b->c->errlen, fmt, arg ? arg : "");
}

static int emit(struct builder *b, struct op **out)
{
	if (b->p->n == b->cap) {
		uint32_t nc = b->cap ? b->cap * 2 : 16;
		struct op *n = realloc(b->p->ops, nc * sizeof(*n));
		if (!n) {
			cerr(b, "out of memory%s", NULL);
			return -1;
		}
		b->p->ops = n;
		b->cap = nc;
	}
	struct op *o = &b->p->ops[b->p->n];
	memset(o, 0, sizeof(*o));
	o->reg = o->len_reg = o->tag_reg = -1;
	*out = o;
	return (int)b->p->n++;
}

static const char *last_component(const char *path)
{
	const char *d = strrchr(path, '.');
	return d ? d + 1 : path;
}

static struct op *find_int(struct plan *p, uint32_t upto, const char *name)
{
	for (uint32_t i = upto; i-- > 0;) {
		struct op *o = &p->ops[i];
		if (o->kind == OP_INT && o->raw_name && !strcmp(o->raw_name, name))
			return o;
	}
	return NULL;
}

/* Register holding the integer named by path (searching backwards: this plan, then
 * earlier scopes). */
static struct op *resolve(struct builder *b, const char *path, int *reg)
{
	const char *name = last_component(path);
	struct op *o = find_int(b->p, b->p->n, name);
	for (int s = b->c->nscopes; !o && s-- > 0;)
		o = find_int((struct plan *)b->c->scopes[s], b->c->scopes[s]->n, name);
	if (!o) {
		cerr(b, "metadata: no integer field '%s' (sequence length or variant tag)", path);
		return NULL;
	}
	if (o->reg < 0) {
		if (b->c->nregs >= PLAN_MAX_REGS) {
			cerr(b, "metadata: too many referenced fields%s", NULL);
			return NULL;
		}
		o->reg = (int16_t)b->c->nregs++;
	}
	*reg = o->reg;
	return o;
}

static const char *display_name(const char *raw)
{
	return raw && raw[0] == '_' ? raw + 1 : raw;
}

static enum op_role role_for(enum plan_scope scope, int depth, const char *name, const struct ctf_type *t)
{
	if (!name)
		return ROLE_NONE;
	switch (scope) {
	case SCOPE_PACKET_HEADER:
		if (depth != 1)
			return ROLE_NONE;
		if (!strcmp(name, "magic"))
			return ROLE_MAGIC;
		if (!strcmp(name, "stream_id"))
			return ROLE_STREAM_ID;
		if (!strcmp(name, "stream_instance_id"))
			return ROLE_STREAM_INSTANCE;
		if (!strcmp(name, "uuid"))
			return ROLE_UUID;
		return ROLE_NONE;
	case SCOPE_PACKET_CONTEXT:
		if (depth != 1)
			return ROLE_NONE;
		if (!strcmp(name, "timestamp_begin"))
			return ROLE_TS_BEGIN;
		if (!strcmp(name, "timestamp_end"))
			return ROLE_TS_END;
		if (!strcmp(name, "content_size"))
			return ROLE_CONTENT_SIZE;
		if (!strcmp(name, "packet_size"))
			return ROLE_PACKET_SIZE;
		if (!strcmp(name, "events_discarded"))
			return ROLE_DISCARDED;
		if (!strcmp(name, "packet_seq_num"))
			return ROLE_SEQ_NUM;
		if (!strcmp(name, "cpu_id"))
			return ROLE_CPU_ID;
		return ROLE_NONE;
	case SCOPE_EVENT_HEADER:
		if (!strcmp(name, "id"))
			return ROLE_EVENT_ID;
		if (t->map_clock || !strcmp(name, "timestamp"))
			return ROLE_CLOCK;
		return ROLE_NONE;
	default:
		return ROLE_NONE;
	}
}

static int compile_type(struct builder *b, const struct ctf_type *t, const char *raw, int depth);

static enum ctf_byte_order bo_of(struct builder *b, const struct ctf_type *t)
{
	return t->bo == CTF_BO_NATIVE ? b->c->trace_bo : t->bo;
}

static int compile_int(struct builder *b, const struct ctf_type *t, const struct ctf_type *enm, const char *raw,
		       int depth)
{
	struct op *o;
	if (emit(b, &o) < 0)
		return -1;
	o->kind = OP_INT;
	o->bits = (uint8_t)t->size;
	o->align = t->align ? t->align : 1;
	o->base = (uint8_t)t->base;
	o->flags = (t->is_signed ? OPF_SIGNED : 0) | (bo_of(b, t) == CTF_BO_BE ? OPF_BE : 0) | (enm ? OPF_ENUM : 0);
	o->enm = enm;
	o->raw_name = raw;
	o->name = display_name(raw);
	o->role = (uint8_t)role_for(b->scope, depth, raw, t);
	if (b->scope == SCOPE_PACKET_CONTEXT && o->role != ROLE_NONE && o->role != ROLE_CPU_ID)
		o->flags |= OPF_HIDDEN;
	o->next = b->p->n;
	return 0;
}

static int is_text_elem(const struct ctf_type *e)
{
	return e->kind == CTF_T_INT && e->size == 8 && e->encoding != CTF_ENC_NONE && e->align <= 8;
}

static int compile_type(struct builder *b, const struct ctf_type *t, const char *raw, int depth)
{
	struct op *o;
	int idx;
	if (b->failed)
		return -1;
	if (depth > PLAN_MAX_NEST) {
		cerr(b, "metadata: types nested too deeply%s", NULL);
		return -1;
	}
	switch (t->kind) {
	case CTF_T_INT:
		return compile_int(b, t, NULL, raw, depth);
	case CTF_T_ENUM:
		return compile_int(b, t->container, t, raw, depth);
	case CTF_T_FLOAT:
		if (emit(b, &o) < 0)
			return -1;
		o->kind = OP_FLOAT;
		o->bits = (uint8_t)t->size;
		o->align = t->align;
		o->flags = bo_of(b, t) == CTF_BO_BE ? OPF_BE : 0;
		o->raw_name = raw;
		o->name = display_name(raw);
		o->next = b->p->n;
		return 0;
	case CTF_T_STRING:
		if (emit(b, &o) < 0)
			return -1;
		o->kind = OP_STRING;
		o->align = 8;
		o->raw_name = raw;
		o->name = display_name(raw);
		o->next = b->p->n;
		return 0;
	case CTF_T_ARRAY:
	case CTF_T_SEQ: {
		int len_reg = -1;
		if (t->kind == CTF_T_SEQ) {
			struct op *lo = resolve(b, t->length_ref, &len_reg);

			if (!lo)
				return -1;
			lo->flags |= OPF_SEQLEN;
		}
		if (is_text_elem(t->elem)) {
			if (emit(b, &o) < 0)
				return -1;
			o->kind = OP_TEXT;
			o->align = t->elem->align < 8 ? 8 : t->elem->align;
			o->len = t->length;
			o->len_reg = (int16_t)len_reg;
			o->raw_name = raw;
			o->name = display_name(raw);
			o->next = b->p->n;
			return 0;
		}
		idx = emit(b, &o);
		if (idx < 0)
			return -1;
		o->kind = OP_ARRAY;
		o->align = t->elem->align ? t->elem->align : 1;
		o->len = t->length;
		o->len_reg = (int16_t)len_reg;
		o->raw_name = raw;
		o->name = display_name(raw);
		if (b->scope == SCOPE_PACKET_HEADER && depth == 1 && raw && !strcmp(raw, "uuid") &&
		    t->kind == CTF_T_ARRAY && t->length == 16 && t->elem->kind == CTF_T_INT && t->elem->size == 8 &&
		    t->elem->align <= 8)
			o->role = ROLE_UUID;
		if (compile_type(b, t->elem, NULL, depth + 1))
			return -1;
		int e = emit(b, &o);
		if (e < 0)
			return -1;
		o->kind = OP_ARRAY_END;
		o->next = b->p->n;
		b->p->ops[idx].next = b->p->n;
		return 0;
	}
	case CTF_T_STRUCT:
		idx = emit(b, &o);
		if (idx < 0)
			return -1;
		o->kind = OP_STRUCT;
		o->align = t->align ? t->align : 1;
		o->raw_name = raw;
		o->name = display_name(raw);
		for (size_t i = 0; i < t->nfields; i++)
			if (compile_type(b, t->fields[i].type, t->fields[i].name, depth + 1))
				return -1;
		if (emit(b, &o) < 0)
			return -1;
		o->kind = OP_STRUCT_END;
		o->next = b->p->n;
		b->p->ops[idx].next = b->p->n;
		return 0;
	case CTF_T_VARIANT: {
		int tag_reg;
		if (!t->tag) {
			cerr(b, "metadata: untagged variant '%s'", raw);
			return -1;
		}
		struct op *tag = resolve(b, t->tag, &tag_reg);
		if (!tag)
			return -1;
		if (!(tag->flags & OPF_ENUM)) {
			cerr(b, "metadata: variant tag '%s' is not an enum", t->tag);
			return -1;
		}
		const struct ctf_type *en = tag->enm;
		bool tag_signed = tag->flags & OPF_SIGNED;
		if (!t->nfields) {
			cerr(b, "metadata: variant '%s' without options", raw);
			return -1;
		}
		idx = emit(b, &o);
		if (idx < 0)
			return -1;
		o->kind = OP_VARIANT;
		o->raw_name = raw;
		o->name = display_name(raw);
		o->align = 1;
		o->tag_reg = (int16_t)tag_reg;
		o->tag_signed = tag_signed;
		o->nopts = (uint32_t)t->nfields;
		uint32_t *opts = arena_alloc(b->c->arena, t->nfields * sizeof(uint32_t));
		const char **names = arena_alloc(b->c->arena, t->nfields * sizeof(char *));
		struct var_case *cases = arena_alloc(b->c->arena, (en->nentries + 1) * sizeof(*cases));
		if (!opts || !names || !cases) {
			cerr(b, "out of memory%s", NULL);
			return -1;
		}
		uint32_t nc = 0;
		for (size_t e = 0; e < en->nentries; e++) {
			const char *lab = en->entries[e].label;
			for (size_t f = 0; f < t->nfields; f++) {
				const char *fn = t->fields[f].name;
				if (!strcmp(lab, fn) || !strcmp(display_name(lab), display_name(fn))) {
					cases[nc++] = (struct var_case){ en->entries[e].lo, en->entries[e].hi, (uint32_t)f };
					break;
				}
			}
		}
		for (size_t f = 0; f < t->nfields; f++) {
			opts[f] = b->p->n;
			names[f] = display_name(t->fields[f].name);
			if (compile_type(b, t->fields[f].type, t->fields[f].name, depth + 1))
				return -1;
			if (emit(b, &o) < 0)
				return -1;
			o->kind = OP_OPT_END;
		}
		uint32_t end = b->p->n;
		for (uint32_t i = (uint32_t)idx + 1; i < end; i++)
			if (b->p->ops[i].kind == OP_OPT_END && b->p->ops[i].next == 0)
				b->p->ops[i].next = end;
		o = &b->p->ops[idx];
		o->opts = opts;
		o->opt_names = names;
		o->cases = cases;
		o->ncases = nc;
		o->next = end;
		return 0;
	}
	}
	cerr(b, "metadata: unknown type%s", NULL);
	return -1;
}

int plan_compile(struct plan_ctx *c, const struct ctf_type *t, enum plan_scope scope, struct plan *p)
{
	struct builder b = { .c = c, .p = p, .scope = scope };
	p->ops = NULL;
	p->n = 0;
	if (!t)
		return 0;
	if (t->kind != CTF_T_STRUCT) {
		snprintf(c->err, c->errlen, "metadata: a scope type is not a struct");
		return -1;
	}
	if (compile_type(&b, t, NULL, 0)) {
		plan_free(p);
		return -1;
	}
	for (uint32_t i = 0; i < p->n; i++)
		p->ops[i].name_len = p->ops[i].name ? (uint32_t)strlen(p->ops[i].name) : 0;
	return 0;
}

void plan_free(struct plan *p)
{
	free(p->ops);
	p->ops = NULL;
	p->n = 0;
}

static int case_match(const struct ctf_enum_entry *e, uint64_t v, bool sgn)
{
	if (sgn)
		return (int64_t)v >= e->lo && (int64_t)v <= e->hi;
	return v >= (uint64_t)e->lo && v <= (uint64_t)e->hi;
}

const char *plan_enum_label(const struct op *o, uint64_t v)
{
	const struct ctf_type *en = o->enm;
	bool sgn = o->flags & OPF_SIGNED;
	for (size_t i = 0; i < en->nentries; i++)
		if (case_match(&en->entries[i], v, sgn))
			return en->entries[i].label;
	return NULL;
}

int plan_enum_labels(const struct op *o, uint64_t v, const char **labels, int max)
{
	const struct ctf_type *en = o->enm;
	bool sgn = o->flags & OPF_SIGNED;
	int n = 0;
	for (size_t i = 0; i < en->nentries && n < max; i++)
		if (case_match(&en->entries[i], v, sgn))
			labels[n++] = en->entries[i].label;
	return n;
}
