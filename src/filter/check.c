/* check.c — references resolved against event schemas (fields, struct members, array
 * elements, contexts), the type checker shared by filter_parse (literals only), filter_check
 * (per event) and filter_lower, and the per-event results of filter_check. */
#include <stdlib.h>
#include <string.h>
#include "filter/internal.h"

static const struct filter_field *find_field(const struct filter_field *fs, size_t n, const char *name,
					     uint32_t *idx)
{
	for (size_t i = 0; i < n; i++)
		if (fs[i].name && !strcmp(fs[i].name, name)) {
			*idx = (uint32_t)i;
			return &fs[i];
		}
	return NULL;
}

/* Canonical text of the first k parts of a reference. */
static void ref_prefix(const struct ref *r, uint32_t k, char *buf, size_t n)
{
	size_t l = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < k && l < n; i++) {
		const struct ref_part *p = &r->parts[i];
		int w;
		if (p->is_index)
			w = snprintf(buf + l, n - l, "[%u]", p->index);
		else
			w = snprintf(buf + l, n - l, "%s%s", i ? "." : "", p->name);
		if (w < 0)
			break;
		l += (size_t)w;
	}
}

enum res_status filter_resolve(const struct filter *f, uint32_t r, const struct filter_schema *ev,
			       struct filter_access *out, char *msg, size_t msglen)
{
	const struct ref *ref = &f->refs[r];
	const struct filter_field *cur;
	uint32_t idx;
	memset(out, 0, sizeof(*out));
	out->ref = (uint16_t)r;
	out->ctx_id = -1;
	if (ref->is_ctx) {
		out->is_ctx = true;
		out->ctx_id = (int16_t)ref->ctx_id;
		out->cg_level = ref->cg_level;
		cur = ev->ctx ? find_field(ev->ctx, ev->nctx, ref->parts[0].name, &idx) : NULL;
	} else {
		cur = ev->fields ? find_field(ev->fields, ev->nfields, ref->parts[0].name, &idx) : NULL;
	}
	if (!cur)
		return RES_MISSING;
	out->top = idx;
	for (uint32_t k = 1; k < ref->nparts; k++) {
		const struct ref_part *p = &ref->parts[k];
		char pre[256];
		if (!p->is_index) {
			if (cur->type != FF_STRUCT) {
				ref_prefix(ref, k, pre, sizeof(pre));
				snprintf(msg, msglen, "'%s' is not a structure", pre);
				return RES_BADPATH;
			}
			const struct filter_field *m = cur->members ? find_field(cur->members, cur->nmembers, p->name, &idx) : NULL;
			if (!m)
				return RES_MISSING;
			out->steps[out->nsteps++] = (struct filter_step){ FILTER_STEP_MEMBER, idx };
			cur = m;
		} else {
			if ((cur->type != FF_ARRAY && cur->type != FF_SEQUENCE) || !cur->elem) {
				const struct filter_field *cap = NULL;
				char capname[130];
				uint32_t ci;

				/* lttng-modules' pointer (sendto's addr), scry's capture of it beside
				 * (_addr): say so */
				snprintf(capname, sizeof(capname), "_%s", ref->parts[0].name);
				if (k == 1 && !ref->is_ctx && cur->type == FF_INT)
					cap = find_field(ev->fields, ev->nfields, capname, &ci);
				ref_prefix(ref, k, pre, sizeof(pre));
				if (cap && (cap->type == FF_ARRAY || cap->type == FF_SEQUENCE))
					snprintf(msg, msglen, "'%s' is not an array (scry's capture of it is '%s')", pre,
						 capname);
				else
					snprintf(msg, msglen, "'%s' is not an array", pre);
				return RES_BADPATH;
			}
			if (cur->type == FF_ARRAY && p->index >= cur->length)
				return RES_MISSING;     /* LTTng: out of bounds -> false */
			out->steps[out->nsteps++] = (struct filter_step){ FILTER_STEP_INDEX, p->index };
			cur = cur->elem;
		}
	}
	out->type = (uint8_t)cur->type;
	out->is_signed = cur->is_signed;
	out->user = cur->user;
	return RES_OK;
}

enum vtype vtype_of_access(const struct filter_access *a)
{
	switch (a->type) {
	case FF_INT: return V_INT;
	case FF_STRING: return V_STR;
	case FF_STRUCT: return V_STRUCT;
	case FF_ARRAY:
	case FF_SEQUENCE: return V_ARRAY;
	default: return V_OTHER;
	}
}

struct tc {
	const struct filter *f;
	const enum vtype *types;
	const char *event;
	struct filter_error *err;
};

static bool is_strish(enum vtype t)
{
	return t == V_STR || t == V_GLOB;
}

static int tc_err(struct tc *c, uint32_t off, uint32_t len, const char *msg)
{
	if (c->event)
		ferr_set(c->err, off, len, "%s (in event %s)", msg, c->event);
	else
		ferr_set(c->err, off, len, "%s", msg);
	return -1;
}

/* Type of node n; -1 on error.  An integer operand (of an operator, of && || !, or the whole
 * expression) must not be a string. */
static int tc_node(struct tc *c, uint32_t ni, enum vtype *out);

static int tc_int_operand(struct tc *c, uint32_t ni, const char *what)
{
	enum vtype t;
	if (tc_node(c, ni, &t))
		return -1;
	if (is_strish(t)) {
		const struct node *n = &c->f->nodes[ni];
		char msg[160];
		snprintf(msg, sizeof(msg), "%s needs an integer here, not a string", what);
		return tc_err(c, n->start, n->end - n->start, msg);
	}
	return 0;
}

static const char *op_text(uint8_t op)
{
	switch (op) {
	case T_MINUS: return "'-'";
	case T_PLUS: return "'+'";
	case T_NOT: return "'!'";
	case T_BNOT: return "'~'";
	default: return tok_name((enum tok_kind)op);
	}
}

static int tc_node(struct tc *c, uint32_t ni, enum vtype *out)
{
	const struct node *n = &c->f->nodes[ni];
	switch (n->kind) {
	case N_INT:
		*out = V_INT;
		return 0;
	case N_STR:
		*out = c->f->strs[n->idx].glob ? V_GLOB : V_STR;
		return 0;
	case N_REF: {
		enum vtype t = c->types[n->idx];
		const char *name = c->f->refs[n->idx].text;
		char msg[200];
		if (t == V_STRUCT) {
			snprintf(msg, sizeof(msg), "'%.60s' is a structure: compare one of its fields", name);
			return tc_err(c, n->pos, n->len, msg);
		}
		if (t == V_ARRAY) {
			snprintf(msg, sizeof(msg), "'%.60s' is an array: compare one of its elements (%.60s[0]...)",
				 name, name);
			return tc_err(c, n->pos, n->len, msg);
		}
		if (t == V_OTHER) {
			snprintf(msg, sizeof(msg), "'%.60s' has a type filters do not support (floating point, variant)",
				 name);
			return tc_err(c, n->pos, n->len, msg);
		}
		*out = t;
		return 0;
	}
	case N_UNARY: {
		char what[32];
		snprintf(what, sizeof(what), "%s", op_text(n->op));
		if (tc_int_operand(c, n->a, what))
			return -1;
		*out = V_INT;
		return 0;
	}
	case N_LOGICAL:
		if (tc_int_operand(c, n->a, op_text(n->op)) || tc_int_operand(c, n->b, op_text(n->op)))
			return -1;
		*out = V_INT;
		return 0;
	case N_BINARY: {
		bool cmp = n->op == T_EQ || n->op == T_NE || n->op == T_LT || n->op == T_LE || n->op == T_GT ||
			   n->op == T_GE;
		if (!cmp) {
			if (tc_int_operand(c, n->a, op_text(n->op)) || tc_int_operand(c, n->b, op_text(n->op)))
				return -1;
			*out = V_INT;
			return 0;
		}
		enum vtype l, r;
		if (tc_node(c, n->a, &l) || tc_node(c, n->b, &r))
			return -1;
		*out = V_INT;
		bool eq = n->op == T_EQ || n->op == T_NE;
		if ((is_strish(l) && r == V_INT) || (l == V_INT && is_strish(r)))
			return tc_err(c, n->pos, n->len, "cannot compare a string with an integer");
		if (!eq && (is_strish(l) || is_strish(r))) {
			char msg[120];
			snprintf(msg, sizeof(msg), "strings cannot be compared with %s (only == and != compare strings)",
				 op_text(n->op));
			return tc_err(c, n->pos, n->len, msg);
		}
		if (l == V_GLOB && r == V_GLOB)
			return tc_err(c, n->pos, n->len, "cannot compare two glob patterns");
		return 0;
	}
	}
	return tc_err(c, n->pos, n->len, "internal error: bad node");
}

int filter_typecheck(const struct filter *f, const enum vtype *types, const char *event,
		     struct filter_error *err)
{
	struct tc c = { f, types, event, err };
	enum vtype t;
	if (tc_node(&c, f->root, &t))
		return -1;
	if (is_strish(t)) {
		const struct node *n = &f->nodes[f->root];
		return tc_err(&c, n->start, n->end - n->start,
			      "a string alone is not a condition (compare it: == \"...\")");
	}
	return 0;
}

static void clear_check(struct filter *f)
{
	free(f->ev_status);
	free(f->access);
	free(f->access_ok);
	f->ev_status = NULL;
	f->access = NULL;
	f->access_ok = NULL;
	f->nevents = 0;
	f->checked = false;
}

static int missing_error(const struct filter *f, uint32_t r, struct filter_error *err)
{
	const struct ref *ref = &f->refs[r];
	if (ref->is_ctx && ref->ctx_id < 0)
		ferr_set(err, ref->pos, ref->len, "unknown context '%s' (scry list contexts shows them)",
			 ref->parts[0].name);
	else if (ref->is_ctx)
		ferr_set(err, ref->pos, ref->len, "no selected event has the context '%s'", ref->parts[0].name);
	else if (ref->nparts == 1)
		ferr_set(err, ref->pos, ref->len, "no selected event has a field '%s'", ref->text);
	else
		ferr_set(err, ref->pos, ref->len, "no selected event has a field '%s' (or the index is past the end)",
			 ref->text);
	return -1;
}

int filter_check(struct filter *f, const struct filter_schema *events, size_t nevents,
		 struct filter_error *err)
{
	struct filter_error dummy;
	if (!err)
		err = &dummy;
	clear_check(f);
	size_t nr = f->nrefs;
	size_t ne = nevents;
	f->ev_status = calloc(ne ? ne : 1, 1);
	size_t na = ne * nr;
	if (!na)
		na = 1;
	f->access = calloc(na, sizeof(*f->access));
	f->access_ok = calloc(na, 1);
	if (!f->ev_status || !f->access || !f->access_ok) {
		clear_check(f);
		ferr_set(err, 0, 0, "out of memory");
		return -1;
	}
	f->nevents = ne;
	/* resolve */
	struct filter_error badpath[FILTER_MAX_REFS];
	bool has_badpath[FILTER_MAX_REFS] = { false };
	bool found[FILTER_MAX_REFS] = { false };
	for (size_t e = 0; e < ne; e++) {
		for (size_t r = 0; r < nr; r++) {
			char msg[160];
			struct filter_access *a = &f->access[e * nr + r];
			enum res_status st = filter_resolve(f, (uint32_t)r, &events[e], a, msg, sizeof(msg));
			if (st == RES_OK) {
				f->access_ok[e * nr + r] = 1;
				found[r] = true;
			} else if (st == RES_BADPATH) {
				f->ev_status[e] = FILTER_EV_MISTYPED;
				if (!has_badpath[r]) {
					has_badpath[r] = true;
					ferr_set(&badpath[r], f->refs[r].pos, f->refs[r].len, "%s (in event %s)", msg,
						 events[e].event_name ? events[e].event_name : "?");
				}
			}
		}
	}
	for (size_t r = 0; r < nr; r++) {
		if (found[r])
			continue;
		if (has_badpath[r]) {
			*err = badpath[r];
		} else {
			missing_error(f, (uint32_t)r, err);
		}
		clear_check(f);
		return -1;
	}
	/* type check each event that has every reference */
	bool any = false, type_failed = false;
	struct filter_error first_type;
	for (size_t e = 0; e < ne; e++) {
		bool all = true;
		enum vtype types[FILTER_MAX_REFS];
		for (size_t r = 0; r < nr; r++) {
			if (!f->access_ok[e * nr + r]) {
				all = false;
				break;
			}
			types[r] = vtype_of_access(&f->access[e * nr + r]);
		}
		if (!all) {
			if (f->ev_status[e] != FILTER_EV_MISTYPED)
				f->ev_status[e] = FILTER_EV_MISSING;
			continue;
		}
		struct filter_error te;
		if (filter_typecheck(f, types, events[e].event_name ? events[e].event_name : "?", &te)) {
			f->ev_status[e] = FILTER_EV_MISTYPED;
			if (!type_failed)
				first_type = te;
			type_failed = true;
			continue;
		}
		f->ev_status[e] = FILTER_EV_MATCHABLE;
		any = true;
	}
	if (!any && nr > 0) {
		if (type_failed) {
			*err = first_type;
		} else {
			/* every reference exists somewhere, but never all in one event: find the
			 * first reference that has no event in common with the ones before it */
			uint32_t bad = 0, other = UINT32_MAX;
			for (uint32_t r = 1; r < nr && other == UINT32_MAX; r++) {
				bool together = false;
				for (size_t e = 0; e < ne && !together; e++) {
					bool ok = true;
					for (uint32_t q = 0; q <= r && ok; q++)
						ok = f->access_ok[e * nr + q];
					together = ok;
				}
				if (!together) {
					bad = r;
					for (uint32_t q = 0; q < r && other == UINT32_MAX; q++) {
						bool pair = false;
						for (size_t e = 0; e < ne && !pair; e++)
							pair = f->access_ok[e * nr + q] && f->access_ok[e * nr + r];
						if (!pair)
							other = q;
					}
					if (other == UINT32_MAX)
						other = UINT32_MAX - 1;
				}
			}
			const struct ref *rb = &f->refs[bad];
			if (other < nr)
				ferr_set(err, rb->pos, rb->len,
					 "no selected event has both '%s' and '%s' (a field an event lacks makes the "
					 "whole filter false for it)", f->refs[other].text, rb->text);
			else
				ferr_set(err, rb->pos, rb->len,
					 "no selected event has '%s' together with the other fields of the filter", rb->text);
		}
		clear_check(f);
		return -1;
	}
	f->checked = true;
	return 0;
}

enum filter_ev_status filter_event_status(const struct filter *f, size_t event)
{
	if (!f->checked || event >= f->nevents)
		return FILTER_EV_MISSING;
	return (enum filter_ev_status)f->ev_status[event];
}

size_t filter_nrefs(const struct filter *f)
{
	return f->nrefs;
}

const char *filter_ref_text(const struct filter *f, size_t i)
{
	return i < f->nrefs ? f->refs[i].text : NULL;
}

const struct filter_access *filter_event_access(const struct filter *f, size_t event, size_t ref)
{
	if (!f->checked || event >= f->nevents || ref >= f->nrefs || !f->access_ok[event * f->nrefs + ref])
		return NULL;
	return &f->access[event * f->nrefs + ref];
}
