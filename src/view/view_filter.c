/* view_filter.c — glue between the filter and `scry view`'s decoder: one filter schema per
 * (trace, event class) built from the decoding plans, and a value callback that walks the
 * decoded value buffer of the current event alongside the plan's ops. */
#include <stdlib.h>
#include <string.h>
#include "view/view_filter.h"

#define BAD UINT32_MAX

enum { CTX_STREAM = 0, CTX_EVENT = 1, CTX_PACKET_CPU = 2 };

struct vf_event {
	struct filter_field *fields;
	size_t nfields;
	struct filter_field *ctx;
	size_t nctx;
};

struct view_filter {
	struct filter *f;
	struct vf_event *ev;
	size_t nev;
	size_t *base;                  /* per trace: index of its first event class */
	const struct view_trace *traces;
	size_t ntraces;
	const struct view_stream *cur;
};

static void free_field(struct filter_field *ff)
{
	if (!ff)
		return;
	free((char *)ff->name);
	if (ff->members) {
		for (size_t i = 0; i < ff->nmembers; i++)
			free_field((struct filter_field *)&ff->members[i]);
		free((struct filter_field *)ff->members);
	}
	if (ff->elem) {
		free_field((struct filter_field *)ff->elem);
		free((struct filter_field *)ff->elem);
	}
}

static uint32_t nmembers(const struct plan *p, uint32_t i)
{
	uint32_t n = 0;
	for (uint32_t j = i + 1; j < p->n && p->ops[j].kind != OP_STRUCT_END; j = p->ops[j].next) {
		if (p->ops[j].next <= j)
			break;
		n++;
	}
	return n;
}

/* The subtree at op i as a filter field.  -1 on out of memory. */
static int build(const struct plan *p, uint32_t i, struct filter_field *out, int depth)
{
	const struct op *o = &p->ops[i];
	memset(out, 0, sizeof(*out));
	out->user = i;
	if (o->name && !(out->name = strndup(o->name, o->name_len)))
		return -1;
	if (depth > PLAN_MAX_NEST + 2) {
		out->type = FF_OTHER;
		return 0;
	}
	switch (o->kind) {
	case OP_INT:
		out->type = FF_INT;
		out->is_signed = o->flags & OPF_SIGNED;
		return 0;
	case OP_STRING:
	case OP_TEXT:
		out->type = FF_STRING;
		return 0;
	case OP_STRUCT: {
		uint32_t n = nmembers(p, i);
		out->type = FF_STRUCT;
		if (!n)
			return 0;
		struct filter_field *m = calloc(n, sizeof(*m));
		if (!m)
			return -1;
		out->members = m;
		out->nmembers = n;
		uint32_t j = i + 1;
		for (uint32_t k = 0; k < n; k++, j = p->ops[j].next)
			if (build(p, j, &m[k], depth + 1))
				return -1;
		return 0;
	}
	case OP_ARRAY: {
		out->type = o->len_reg >= 0 ? FF_SEQUENCE : FF_ARRAY;
		out->length = o->len;
		if (i + 1 >= p->n)
			return 0;
		struct filter_field *e = calloc(1, sizeof(*e));
		if (!e)
			return -1;
		out->elem = e;
		return build(p, i + 1, e, depth + 1);
	}
	default:
		out->type = FF_OTHER;
		return 0;
	}
}

/* Top-level members of a scope's plan (op 0 is the struct). */
static int build_scope(const struct plan *p, struct filter_field **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!p->n || p->ops[0].kind != OP_STRUCT)
		return 0;
	struct filter_field root;
	if (build(p, 0, &root, 0)) {
		free_field(&root);
		return -1;
	}
	free((char *)root.name);
	*out = (struct filter_field *)root.members;
	*n = root.nmembers;
	return 0;
}

static int build_event(const struct view_sclass *sc, const struct view_event_class *ec, struct vf_event *ve)
{
	if (build_scope(&ec->fields, &ve->fields, &ve->nfields))
		return -1;
	struct filter_field *sctx, *ectx;
	size_t ns, nc;
	if (build_scope(&sc->ectx, &sctx, &ns))
		return -1;
	if (build_scope(&ec->ctx, &ectx, &nc)) {
		for (size_t i = 0; i < ns; i++)
			free_field(&sctx[i]);
		free(sctx);
		return -1;
	}
	ve->ctx = calloc(ns + nc + 1, sizeof(*ve->ctx));
	if (!ve->ctx) {
		for (size_t i = 0; i < ns; i++)
			free_field(&sctx[i]);
		for (size_t i = 0; i < nc; i++)
			free_field(&ectx[i]);
		free(sctx);
		free(ectx);
		return -1;
	}
	bool have_cpu = false;
	for (size_t i = 0; i < ns; i++) {
		ve->ctx[ve->nctx] = sctx[i];
		ve->ctx[ve->nctx++].user = (uintptr_t)CTX_STREAM << 32 | i;
		have_cpu |= sctx[i].name && !strcmp(sctx[i].name, "cpu_id");
	}
	for (size_t i = 0; i < nc; i++) {
		ve->ctx[ve->nctx] = ectx[i];
		ve->ctx[ve->nctx++].user = (uintptr_t)CTX_EVENT << 32 | i;
		have_cpu |= ectx[i].name && !strcmp(ectx[i].name, "cpu_id");
	}
	free(sctx);
	free(ectx);
	/* $ctx.cpu_id is the CPU of the stream (packet context) when not recorded per event */
	if (!have_cpu) {
		struct filter_field *c = &ve->ctx[ve->nctx++];
		memset(c, 0, sizeof(*c));
		c->name = strdup("cpu_id");
		c->type = FF_INT;
		c->is_signed = true;
		c->user = (uintptr_t)CTX_PACKET_CPU << 32;
		if (!c->name)
			return -1;
	}
	return 0;
}

static void free_event(struct vf_event *ve)
{
	for (size_t i = 0; i < ve->nfields; i++)
		free_field(&ve->fields[i]);
	free(ve->fields);
	for (size_t i = 0; i < ve->nctx; i++)
		free_field(&ve->ctx[i]);
	free(ve->ctx);
}

void view_filter_free(struct view_filter *vf)
{
	if (!vf)
		return;
	for (size_t i = 0; i < vf->nev; i++)
		free_event(&vf->ev[i]);
	free(vf->ev);
	free(vf->base);
	free(vf);
}

/* $ctx.container's cgroup ids: those the traces' env names a matching container for. */
static size_t trace_container_ids(void *arg, const char *pat, size_t len, bool glob, uint64_t *out, size_t max)
{
	const struct view *v = arg;
	size_t n = 0;

	for (size_t t = 0; t < v->ntraces; t++) {
		const struct ctf_metadata *m = v->traces[t].m;

		for (size_t i = 0; i < m->ncgroups; i++)
			if (filter_container_match(pat, len, glob, m->cgroups[i].container)) {
				if (n < max)
					out[n] = m->cgroups[i].id;
				n++;
			}
	}
	return n;
}

struct view_filter *view_filter_new(const struct view *v, struct filter *f, struct filter_error *err)
{
	struct view_filter *vf = calloc(1, sizeof(*vf));
	struct filter_schema *schemas = NULL;
	if (!vf)
		goto oom;
	if (filter_containers_by(f, trace_container_ids, (void *)v, err)) {   /* by the trace's env */
		free(vf);
		return NULL;
	}
	vf->f = f;
	vf->traces = v->traces;
	vf->ntraces = v->ntraces;
	vf->base = calloc(v->ntraces ? v->ntraces : 1, sizeof(*vf->base));
	if (!vf->base)
		goto oom;
	size_t total = 0;
	for (size_t t = 0; t < v->ntraces; t++) {
		vf->base[t] = total;
		total += v->traces[t].nevents;
	}
	vf->ev = calloc(total ? total : 1, sizeof(*vf->ev));
	schemas = calloc(total ? total : 1, sizeof(*schemas));
	if (!vf->ev || !schemas)
		goto oom;
	vf->nev = total;
	size_t nschemas = 0;
	for (size_t t = 0; t < v->ntraces; t++) {
		const struct view_trace *tr = &v->traces[t];
		for (size_t s = 0; s < tr->nsclasses; s++) {
			const struct view_sclass *sc = &tr->sclasses[s];
			for (uint64_t id = 0; id < sc->nids; id++) {
				const struct view_event_class *ec = sc->by_id[id];
				if (!ec)
					continue;
				size_t e = vf->base[t] + (size_t)(ec - tr->events);
				if (build_event(sc, ec, &vf->ev[e]))
					goto oom;
			}
		}
		for (size_t e = 0; e < tr->nevents; e++) {
			struct vf_event *ve = &vf->ev[vf->base[t] + e];
			schemas[nschemas++] = (struct filter_schema){
				.event_name = tr->events[e].name,
				.nfields = ve->nfields,
				.fields = ve->fields,
				.nctx = ve->nctx,
				.ctx = ve->ctx,
			};
		}
	}
	if (filter_check(f, schemas, nschemas, err)) {
		free(schemas);
		view_filter_free(vf);
		return NULL;
	}
	free(schemas);
	return vf;
oom:
	free(schemas);
	view_filter_free(vf);
	memset(err, 0, sizeof(*err));
	snprintf(err->msg, sizeof(err->msg), "out of memory");
	return NULL;
}

/* Advance *vi past the values of the subtree at op i; the op index after it, or BAD. */
static uint32_t skip(const struct plan *p, uint32_t i, const struct val **vi, const struct val *vend, int depth)
{
	if (i >= p->n || depth > PLAN_MAX_NEST + 2)
		return BAD;
	const struct op *o = &p->ops[i];
	switch (o->kind) {
	case OP_INT:
	case OP_FLOAT:
	case OP_STRING:
	case OP_TEXT:
		if (*vi >= vend)
			return BAD;
		(*vi)++;
		return i + 1;
	case OP_STRUCT: {
		uint32_t j = i + 1;
		while (j < p->n && p->ops[j].kind != OP_STRUCT_END) {
			j = skip(p, j, vi, vend, depth + 1);
			if (j == BAD)
				return BAD;
		}
		return o->next;
	}
	case OP_ARRAY: {
		if (*vi >= vend)
			return BAD;
		uint64_t n = (*vi)++->u;
		for (uint64_t k = 0; k < n; k++)
			if (skip(p, i + 1, vi, vend, depth + 1) == BAD)
				return BAD;
		return o->next;
	}
	case OP_VARIANT: {
		if (*vi >= vend)
			return BAD;
		uint64_t opt = (*vi)++->u;
		if (opt >= o->nopts || skip(p, o->opts[opt], vi, vend, depth + 1) == BAD)
			return BAD;
		return o->next;
	}
	default:
		return BAD;
	}
}

/* Op index of member k of the struct at op i, with *vi moved to its values. */
static uint32_t member(const struct plan *p, uint32_t i, uint32_t k, const struct val **vi, const struct val *vend)
{
	if (i >= p->n || p->ops[i].kind != OP_STRUCT)
		return BAD;
	uint32_t j = i + 1;
	for (uint32_t m = 0; m < k; m++) {
		if (j >= p->n || p->ops[j].kind == OP_STRUCT_END)
			return BAD;
		j = skip(p, j, vi, vend, 0);
		if (j == BAD)
			return BAD;
	}
	return j < p->n && p->ops[j].kind != OP_STRUCT_END ? j : BAD;
}

static int vf_get(void *arg, const struct filter_access *a, struct filter_value *out)
{
	struct view_filter *vf = arg;
	const struct view_stream *s = vf->cur;
	const struct val *vend = s->vals.v + s->vals.n;
	const struct plan *p;
	const struct val *vi;
	uint32_t i;
	if (a->is_ctx) {
		unsigned scope = (unsigned)(a->user >> 32);
		uint32_t k = (uint32_t)a->user;
		if (scope == CTX_PACKET_CPU) {
			if (s->cpu_id < 0)
				return -1;
			out->i = s->cpu_id;
			return 0;
		}
		p = scope == CTX_STREAM ? &s->sc->ectx : &s->ev->ctx;
		vi = s->vals.v + (scope == CTX_STREAM ? 0 : s->nv_ectx);
		i = member(p, 0, k, &vi, vend);
	} else {
		p = &s->ev->fields;
		vi = s->vals.v + s->nv_ectx + s->nv_ctx;
		i = member(p, 0, a->top, &vi, vend);
	}
	for (uint8_t st = 0; st < a->nsteps && i != BAD; st++) {
		const struct filter_step *step = &a->steps[st];
		if (step->kind == FILTER_STEP_MEMBER) {
			i = member(p, i, step->index, &vi, vend);
			continue;
		}
		if (p->ops[i].kind != OP_ARRAY || vi >= vend)
			return -1;
		uint64_t n = vi++->u;
		if (step->index >= n)
			return -1;                  /* past the end of a sequence: false */
		for (uint32_t e = 0; e < step->index; e++)
			if (skip(p, i + 1, &vi, vend, 0) == BAD)
				return -1;
		i = i + 1;
	}
	if (i == BAD || i >= p->n || vi >= vend)
		return -1;
	const struct op *o = &p->ops[i];
	switch (o->kind) {
	case OP_INT:
		out->i = (int64_t)vi->u;
		return 0;
	case OP_STRING:
	case OP_TEXT:
		out->s = (const char *)vi->p;
		out->len = (size_t)vi->u;
		return 0;
	default:
		return -1;
	}
}

bool view_filter_match(struct view_filter *vf, const struct view_stream *s)
{
	size_t t = (size_t)(s->t - vf->traces);
	if (t >= vf->ntraces || !s->ev)
		return false;
	size_t e = vf->base[t] + (size_t)(s->ev - s->t->events);
	vf->cur = s;
	struct filter_values v = { e, vf_get, vf };
	return filter_eval(vf->f, &v);
}
