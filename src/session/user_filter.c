/* user_filter.c — see user_filter.h: the filter evaluated in user space on the recorded
 * bytes of an event (header, the session's contexts in enum scry_ctx order, the payload
 * decoded with the catalog's scry_event_decode), values read as the CTF metadata lays them
 * out: array and sequence elements, strings of a string array, members of captured structs
 * (structs.h, tails included). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/record.h"
#include "consumer/consumer.h"
#include "filter/filter.h"
#include "session/user_filter.h"
#include "util/cgroup.h"
#include "util/log.h"

#define MAX_DEPTH 4                    /* struct nesting, as ctf/metadata.c allows */

struct scry_user_filter {
	const struct scry_filters *f;
	const struct scry_event *const *events;
	size_t n;
	uint64_t ids[SCRY_PRED_IDS_WORDS];
	struct scry_record_layout layout;  /* where the contexts are */
	struct scry_fieldval *vals;        /* the current event's payload */
	const struct scry_event *ev;       /* ... its description, record and ring CPU */
	struct scry_record rec;
	unsigned cpu;
	uint64_t anc_id, anc;              /* the last cgroup's ancestor at level anc_level */
	unsigned anc_level;
	int anc_ret;
};

/* ---- reading values --------------------------------------------------------------------- */

static int64_t rd_int(const uint8_t *p, unsigned size, bool is_signed, bool big_endian)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < size; k++)
		v |= (uint64_t)p[big_endian ? size - 1 - k : k] << (8 * k);
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return (int64_t)v;
}

static bool scalar_type(const struct scry_struct_desc *d)
{
	return d->nfields == 1 && !d->ntails && !d->fields[0].count && !strcmp(d->fields[0].name, d->name);
}

static int elem_value(const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
		      const struct filter_step *st, unsigned n, int depth, struct filter_value *out);

/* Element idx of a sequence of d at p (len bytes), then steps st[0..n) inside it. */
static int seq_elem(const struct scry_struct_desc *d, const uint8_t *p, size_t len, uint32_t idx,
		    const struct filter_step *st, unsigned n, int depth, struct filter_value *out)
{
	size_t pos = 0, e;

	for (uint32_t k = 0; k < idx; k++) {
		if (!(e = scry_struct_span(d, p + pos, len - pos, NULL)))
			return -1;
		pos += e;
	}
	return elem_value(d, p + pos, len - pos, st, n, depth, out);
}

/* A member of a captured struct (or the tails appended to it), by the steps that follow
 * the element's index. */
static int elem_value(const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
		      const struct filter_step *st, unsigned n, int depth, struct filter_value *out)
{
	struct scry_tail_val tv[8];
	uint32_t m;

	if (depth > MAX_DEPTH || d->ntails > 8)
		return -1;
	if (scalar_type(d)) {
		if (n || avail < d->fields[0].size)
			return -1;
		out->i = rd_int(p, d->fields[0].size, d->fields[0].is_signed, d->fields[0].big_endian);
		return 0;
	}
	if (!n || st[0].kind != FILTER_STEP_MEMBER)
		return -1;
	m = st[0].index;
	if (m < d->nfields) {
		const struct scry_struct_field *sf = &d->fields[m];
		size_t bytes = (size_t)sf->size * (sf->count ? sf->count : 1);
		const uint8_t *q = p + sf->offset;

		if (sf->offset + bytes > avail)
			return -1;
		if (sf->is_text) {
			if (n != 1)
				return -1;
			out->s = (const char *)q;
			out->len = strnlen(out->s, bytes);
			return 0;
		}
		if (sf->count) {
			if (n != 2 || st[1].kind != FILTER_STEP_INDEX || st[1].index >= sf->count)
				return -1;
			q += (size_t)st[1].index * sf->size;
		} else if (n != 1) {
			return -1;
		}
		out->i = rd_int(q, sf->size, sf->is_signed, sf->big_endian);
		return 0;
	}
	if (!scry_struct_span(d, p, avail, tv))
		return -1;
	m -= d->nfields;
	for (unsigned k = 0; k < d->ntails; k++) {
		const struct scry_struct_tail *t = &d->tails[k];

		if (t->kind == SCRY_TAIL_STRING) {
			if (m--)
				continue;
			if (n != 1)
				return -1;
			out->s = (const char *)tv[k].p;
			out->len = tv[k].len;
			return 0;
		}
		if (m == 0) {                         /* _NAME_length */
			if (n != 1)
				return -1;
			out->i = tv[k].n;
			return 0;
		}
		if (m == 1) {
			if (n < 2 || st[1].kind != FILTER_STEP_INDEX || st[1].index >= tv[k].n)
				return -1;
			if (t->kind == SCRY_TAIL_BYTES) {
				if (n != 2)
					return -1;
				out->i = tv[k].p[st[1].index];
				return 0;
			}
			if (!t->elem)
				return -1;
			return seq_elem(t->elem, tv[k].p, tv[k].len, st[1].index, st + 2, n - 2, depth + 1, out);
		}
		m -= 2;
	}
	return -1;
}

/* A payload field of the current event, by top index and steps. */
static int field_value(struct scry_user_filter *u, const struct filter_access *a, struct filter_value *out)
{
	const struct scry_field *sf;
	const struct scry_fieldval *v;
	const struct filter_step *st = a->steps;
	unsigned n = a->nsteps;

	if (a->top >= u->ev->nfields)
		return -1;
	sf = &u->ev->fields[a->top];
	v = &u->vals[a->top];
	switch (sf->type) {
	case SCRY_F_INT:
		if (n)
			return -1;
		out->i = (int64_t)v->v;
		return 0;
	case SCRY_F_STRING:
	case SCRY_F_TEXT:
		if (n)
			return -1;
		out->s = (const char *)v->p;
		out->len = sf->type == SCRY_F_TEXT ? strnlen(out->s, v->len) : v->len;
		return 0;
	default:
		break;
	}
	if (!n || st[0].kind != FILTER_STEP_INDEX || st[0].index >= v->n)
		return -1;                            /* past the end of a sequence: false */
	switch (sf->type) {
	case SCRY_F_ARRAY:
	case SCRY_F_SEQ:
		if (n != 1)
			return -1;
		out->i = rd_int(v->p + (size_t)st[0].index * sf->size, sf->size, sf->is_signed, false);
		return 0;
	case SCRY_F_STRSEQ: {
		const uint8_t *p = v->p, *end = v->p + v->len, *nul;

		if (n != 1)
			return -1;
		for (uint32_t k = 0;; k++) {
			if (!(nul = memchr(p, 0, (size_t)(end - p))))
				return -1;
			if (k == st[0].index)
				break;
			p = nul + 1;
		}
		out->s = (const char *)p;
		out->len = (size_t)(nul - p);
		return 0;
	}
	case SCRY_F_STRUCTSEQ:
		if (!sf->sdesc)
			return -1;
		return seq_elem(sf->sdesc, v->p, v->len, st[0].index, st + 1, n - 1, 0, out);
	default:
		return -1;
	}
}

static int get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	struct scry_user_filter *u = arg;

	memset(out, 0, sizeof(*out));
	if (!a->is_ctx)
		return field_value(u, a, out);
	if (a->ctx_id < 0 || a->ctx_id >= SCRY_CTX_NR)
		return -1;
	if (u->layout.ctx_off[a->ctx_id] < 0) {
		if (a->ctx_id != SCRY_CTX_CPU_ID)
			return -1;
		out->i = u->cpu;                      /* the ring's CPU: what the kernel would record */
		return 0;
	}
	if (scry_context(a->ctx_id)->type == SCRY_F_TEXT) {
		out->s = scry_record_text(&u->layout, &u->rec, a->ctx_id, &out->len);
		return 0;
	}
	if (!scry_record_ctx(&u->layout, &u->rec, a->ctx_id, &out->i))
		return -1;
	if (a->cg_level && a->ctx_id == SCRY_CTX_CGROUP_ID) {   /* $ctx.container: the cgroup's ancestor */
		if (!u->anc_level || u->anc_id != (uint64_t)out->i || u->anc_level != a->cg_level) {
			u->anc_id = (uint64_t)out->i;
			u->anc_level = a->cg_level;
			u->anc_ret = scry_cgroup_ancestor(u->anc_id, a->cg_level, &u->anc);
		}
		out->i = (int64_t)u->anc;
		return u->anc_ret;   /* a cgroup gone since: no value (the expression is false) */
	}
	return 0;
}

bool scry_user_filter_match(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct scry_user_filter *u = ctx;
	struct filter_values v = { .get = get, .arg = u };
	struct scry_record *r = &u->rec;

	if (scry_record_read(&u->layout, ev, size, r) < 0 || r->id >= u->n ||
	    scry_event_decode(u->events[r->id], r->payload, r->payload_size, u->vals) < 0)
		return false;
	u->ev = u->events[r->id];
	u->cpu = cpu;
	size_t sub;
	const struct filter *e = scry_filters_expr(u->f, r->id, &sub);

	v.event = sub;
	return e ? filter_eval(e, &v) : true;
}

/* ---- setting up ------------------------------------------------------------------------- */

/* Why the kernel cannot read access a of ev. */
static const char *reason(const struct scry_event *ev, const struct filter_access *a)
{
	const struct scry_field *sf = !a->is_ctx && a->top < ev->nfields ? &ev->fields[a->top] : NULL;

	for (unsigned k = 0; k < a->nsteps; k++)
		if (a->steps[k].kind == FILTER_STEP_MEMBER)
			return "struct members";
	if (!sf || !a->nsteps)
		return "this field";
	if (sf->type == SCRY_F_STRSEQ)
		return "string arrays";
	if (sf->type == SCRY_F_SEQ && sf->size == 1 && ev->kind != SCRY_EV_TRACEPOINT)
		return "captured data";
	return "array elements";
}

int scry_user_filter_new(struct scry_user_filter **out, const struct scry_filters *f,
			 const struct scry_event *const *events, size_t n, uint64_t ctx_mask,
			 char *err, size_t errlen)
{
	struct scry_user_filter *u = NULL;
	size_t maxf = 1;
	int ret = -ENOMEM;

	*out = NULL;
	for (size_t i = 0; i < n && !u; i++)
		if (scry_filters_use(f, i) == SCRY_FILTER_USER && !(u = calloc(1, sizeof(*u))))
			goto oom;
	if (!u)
		return 0;
	if (n > 65536) {
		snprintf(err, errlen, "filter: too many events for user-space filtering");
		ret = -E2BIG;
		goto fail;
	}
	u->f = f;
	u->events = events;
	u->n = n;
	scry_record_layout_init(&u->layout, ctx_mask);
	for (size_t i = 0; i < n; i++) {
		if (scry_filters_use(f, i) != SCRY_FILTER_USER)
			continue;
		u->ids[i >> 6] |= 1ULL << (i & 63);
		if (events[i]->nfields > maxf)
			maxf = events[i]->nfields;
		size_t sub;
		const struct filter *expr = scry_filters_expr(f, i, &sub);

		for (size_t r = 0; expr && r < filter_nrefs(expr); r++) {
			const struct filter_access *a = filter_event_access(expr, sub, r);

			if (!a || !a->is_ctx || a->ctx_id == SCRY_CTX_CPU_ID ||
			    (a->ctx_id >= 0 && a->ctx_id < SCRY_CTX_NR && (ctx_mask & (1ULL << a->ctx_id))))
				continue;
			int ur = scry_filters_user_ref(f, i);

			snprintf(err, errlen, "filter: `%s` is not recorded, and the filter of %s is evaluated "
				 "in user space (the kernel filter cannot %s%s%s); scry record: add it with -c",
				 filter_ref_text(expr, r), events[i]->name, ur >= 0 ? "read `" : "run here: ",
				 ur >= 0 ? filter_ref_text(expr, (size_t)ur) : scry_filters_user_why(f, i),
				 ur >= 0 ? "`" : "");
			ret = -EINVAL;
			goto fail;
		}
	}
	if (!(u->vals = calloc(maxf, sizeof(*u->vals))))
		goto oom;
	*out = u;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	scry_user_filter_free(u);
	return ret;
}

void scry_user_filter_explain(const struct scry_user_filter *u)
{
	for (size_t i = 0; i < u->n; i++) {
		int r = scry_filters_user_ref(u->f, i);
		size_t sub;
		const struct filter *expr = scry_filters_expr(u->f, i, &sub);
		const struct filter_access *a = r >= 0 && expr ? filter_event_access(expr, sub, (size_t)r) : NULL;
		const char *why = scry_filters_user_why(u->f, i);

		if (a)
			scry_log(SCRY_LOG_VERBOSE, "scry: filter: %s: `%s` is evaluated in user space (the kernel filter cannot read %s)",
				u->events[i]->name, filter_ref_text(expr, (size_t)r), reason(u->events[i], a));
		else if (why)
			scry_log(SCRY_LOG_VERBOSE, "scry: filter: %s: evaluated in user space (this kernel cannot run its filter: %s)",
				u->events[i]->name, why);
	}
}

const uint64_t *scry_user_filter_ids(const struct scry_user_filter *u)
{
	return u->ids;
}

void scry_user_filter_free(struct scry_user_filter *u)
{
	if (!u)
		return;
	free(u->vals);
	free(u);
}

/* ---- captured struct elements as filter fields -------------------------------------------- */

/* Nodes are counted when a->ff is NULL, built otherwise. */
struct arena {
	struct filter_field *ff;
	size_t nff;
	char *s;
	size_t ns;
};

static struct filter_field *node(struct arena *a, size_t k, enum filter_ftype type, const char *name)
{
	struct filter_field *f = a->ff ? &a->ff[k] : NULL;

	if (f) {
		memset(f, 0, sizeof(*f));
		f->type = type;
		f->name = name;
	}
	return f;
}

static size_t take(struct arena *a, size_t k)
{
	size_t at = a->nff;

	a->nff += k;
	return at;
}

static const char *length_name(struct arena *a, const char *name)
{
	size_t l = strlen(name) + sizeof("__length");
	char *s = a->s ? a->s + a->ns : NULL;

	if (s)
		snprintf(s, l, "_%s_length", name);
	a->ns += l;
	return s;
}

static struct filter_field *int_node(struct arena *a, const char *name, bool is_signed)
{
	struct filter_field *f = node(a, take(a, 1), FF_INT, name);

	if (f)
		f->is_signed = is_signed;
	return f;
}

static struct filter_field *elem_node(struct arena *a, const struct scry_struct_desc *d, int depth)
{
	size_t at = take(a, 1), nm = d->nfields, mat, k = 0;
	struct filter_field *e = node(a, at, FF_STRUCT, NULL), *m;

	if (scalar_type(d)) {
		if (e) {
			e->type = FF_INT;
			e->is_signed = d->fields[0].is_signed;
		}
		return e;
	}
	if (depth > MAX_DEPTH) {
		if (e)
			e->type = FF_OTHER;
		return e;
	}
	for (unsigned t = 0; t < d->ntails; t++)
		nm += d->tails[t].kind == SCRY_TAIL_STRING ? 1 : 2;
	mat = take(a, nm);                           /* the members, contiguous */
	if (e) {
		e->members = &a->ff[mat];
		e->nmembers = nm;
	}
	for (unsigned i = 0; i < d->nfields; i++) {
		const struct scry_struct_field *sf = &d->fields[i];

		m = node(a, mat + k++, sf->is_text ? FF_STRING : sf->count ? FF_ARRAY : FF_INT, sf->name);
		if (m)
			m->is_signed = sf->is_signed;
		if (!sf->is_text && sf->count) {
			struct filter_field *el = int_node(a, NULL, sf->is_signed);
			if (m) {
				m->length = sf->count;
				m->elem = el;
			}
		}
	}
	for (unsigned t = 0; t < d->ntails; t++) {
		const struct scry_struct_tail *tl = &d->tails[t];
		struct filter_field *el;

		if (tl->kind == SCRY_TAIL_STRING) {
			node(a, mat + k++, FF_STRING, tl->name);
			continue;
		}
		node(a, mat + k++, FF_INT, length_name(a, tl->name));
		m = node(a, mat + k++, FF_SEQUENCE, tl->name);
		el = tl->kind == SCRY_TAIL_BYTES || !tl->elem ? int_node(a, NULL, false) : elem_node(a, tl->elem, depth + 1);
		if (m)
			m->elem = el;
	}
	return e;
}

size_t scry_user_elem_size(const struct scry_struct_desc *d, size_t *name_bytes)
{
	struct arena a = { 0 };

	elem_node(&a, d, 0);
	*name_bytes = a.ns;
	return a.nff;
}

const struct filter_field *scry_user_elem_schema(const struct scry_struct_desc *d, struct filter_field **nodes,
						 char **names)
{
	struct arena a = { .ff = *nodes, .s = *names };
	const struct filter_field *e = elem_node(&a, d, 0);

	*nodes += a.nff;
	*names += a.ns;
	return e;
}
