/* container.c — `$ctx.container` in a filter: each `$ctx.container == "PATTERN"` (or `!=`,
 * either operand order) becomes, at start, a test of the cgroup id the kernel checks cheaply:
 * `($ctx.cgroup_id == ID1 || $ctx.cgroup_id == ID2 ...)` (negated for `!=`), over the cgroup
 * v2 directories whose innermost container (util/cgroup.h) has an id PATTERN matches (a
 * string: the whole id; a glob: `"abc*"`, an id prefix as docker's).  Every directory of a
 * matching container counts (its own and those below it, as they are at start). */
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "filter/internal.h"
#include "util/cgroup.h"

#define MAX_IDS 64       /* cgroup directories one pattern may match */

struct match {
	const struct fstr *pat;
	uint64_t ids[MAX_IDS];
	size_t n;
	bool too_many;
};

bool filter_container_match(const char *pat, size_t plen, bool glob, const char *id)
{
	size_t len = strlen(id);

	return glob ? filter_glob_match(pat, plen, id, len) : str_equal(pat, plen, id, len);
}

static void match_dir(const char *path, void *ctx)
{
	struct match *m = ctx;
	struct scry_container c;
	uint64_t id;

	if (!scry_container_of_cgroup(path, &c) || !filter_container_match(m->pat->s, m->pat->len, m->pat->glob, c.id))
		return;
	if (!(id = scry_cgroup_id(path)))
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->ids[i] == id)
			return;
	if (m->n == MAX_IDS)
		m->too_many = true;
	else
		m->ids[m->n++] = id;
}

static int add_node(struct filter *f, const struct node *n)
{
	struct node *g;

	if (f->nnodes >= FILTER_MAX_NODES || !(g = realloc(f->nodes, (f->nnodes + 1) * sizeof(*g))))
		return -1;
	f->nodes = g;
	f->nodes[f->nnodes] = *n;
	return (int)f->nnodes++;
}

/* A balanced `||` of `ref == ids[k]` for k in [lo, hi) (hi > lo), like x; its index or -1. */
static int any_of(struct filter *f, const struct node *x, uint32_t ref, const uint64_t *ids, size_t lo, size_t hi)
{
	struct node n = *x;
	int a, b;

	if (hi - lo == 1) {
		n.kind = N_REF;
		n.idx = ref;
		n.height = 1;
		if ((a = add_node(f, &n)) < 0)
			return -1;
		n.kind = N_INT;
		n.ival = (int64_t)ids[lo];
		if ((b = add_node(f, &n)) < 0)
			return -1;
		n.kind = N_BINARY;
		n.op = T_EQ;
		n.height = 2;
	} else {
		size_t mid = lo + (hi - lo) / 2;

		if ((a = any_of(f, x, ref, ids, lo, mid)) < 0 || (b = any_of(f, x, ref, ids, mid, hi)) < 0)
			return -1;
		n.kind = N_LOGICAL;
		n.op = T_LOR;
		n.height = (uint16_t)(1 + (f->nodes[a].height > f->nodes[b].height ? f->nodes[a].height
											: f->nodes[b].height));
	}
	n.a = (uint32_t)a;
	n.b = (uint32_t)b;
	return add_node(f, &n);
}

static bool is_ref(const struct filter *f, uint32_t n, uint32_t ref)
{
	return f->nodes[n].kind == N_REF && f->nodes[n].idx == ref;
}

int filter_containers(struct filter *f, struct filter_error *err)
{
	return filter_containers_by(f, NULL, NULL, err);
}

int filter_containers_by(struct filter *f, filter_container_ids_fn ids, void *arg, struct filter_error *err)
{
	uint32_t ref = UINT32_MAX, nodes;
	struct ref *r;

	for (uint32_t i = 0; i < f->nrefs; i++)
		if (f->refs[i].is_ctx && !strcmp(f->refs[i].parts[0].name, "container"))
			ref = i;
	if (ref == UINT32_MAX)
		return 0;
	nodes = f->nnodes;
	for (uint32_t i = 0; i < nodes; i++) {   /* the comparisons (nodes added are not) */
		struct node *x = &f->nodes[i];
		struct match m = { 0 };
		uint32_t s;
		int chain;

		if (x->kind != N_BINARY || (x->op != T_EQ && x->op != T_NE))
			continue;
		if (is_ref(f, x->a, ref) && f->nodes[x->b].kind == N_STR)
			s = f->nodes[x->b].idx;
		else if (is_ref(f, x->b, ref) && f->nodes[x->a].kind == N_STR)
			s = f->nodes[x->a].idx;
		else
			continue;
		m.pat = &f->strs[s];
		if (ids) {
			m.n = ids(arg, m.pat->s, m.pat->len, m.pat->glob, m.ids, MAX_IDS);
			m.too_many = m.n > MAX_IDS;
			m.n = m.too_many ? MAX_IDS : m.n;
		} else {
			scry_cgroup_walk(16, match_dir, &m);
		}
		if (!m.n || m.too_many) {
			if (m.n)
				ferr_set(err, x->start, x->end - x->start, "'%s' matches more than %d cgroups of "
					 "containers: give more of the id", m.pat->s, MAX_IDS);
			else
				ferr_set(err, x->start, x->end - x->start, "no container's id matches '%s' (%s)",
					 m.pat->s, ids ? "none named in the trace" : "no such cgroup under the cgroup2 mount");
			return -1;
		}
		if ((chain = any_of(f, x, ref, m.ids, 0, m.n)) < 0)
			goto oom;
		x = &f->nodes[i];   /* (moved) */
		if (x->op == T_EQ) {
			struct node c = f->nodes[chain];

			c.pos = x->pos;
			c.len = x->len;
			*x = c;
		} else {
			x->kind = N_UNARY;
			x->op = T_NOT;
			x->a = (uint32_t)chain;
			x->height = (uint16_t)(f->nodes[chain].height + 1);
		}
	}
	for (uint32_t i = 0; i < nodes; i++) {   /* any use left is not a comparison with a string */
		const struct node *x = &f->nodes[i];

		if (x->kind == N_REF && x->idx == ref) {
			bool used = false;

			for (uint32_t k = 0; k < f->nnodes && !used; k++)
				used = (f->nodes[k].kind == N_BINARY || f->nodes[k].kind == N_LOGICAL) &&
				       (f->nodes[k].a == i || f->nodes[k].b == i);
			for (uint32_t k = 0; k < f->nnodes && !used; k++)
				used = f->nodes[k].kind == N_UNARY && f->nodes[k].a == i;
			if (used || f->root == i) {
				ferr_set(err, x->pos, x->len, "$ctx.container compares only with == or != against a "
					 "string or a glob pattern (\"ID\", \"PREFIX*\")");
				return -1;
			}
		}
	}
	/* the reference is now the cgroup id's */
	r = &f->refs[ref];
	free(r->parts[0].name);
	free(r->text);
	r->parts[0].name = strdup("cgroup_id");
	r->text = strdup("$ctx.cgroup_id");
	r->ctx_id = SCRY_CTX_CGROUP_ID;
	if (!r->parts[0].name || !r->text)
		goto oom;
	return 0;
oom:
	ferr_set(err, 0, 0, "out of memory (or more than %d operators) expanding $ctx.container", FILTER_MAX_NODES);
	return -1;
}
