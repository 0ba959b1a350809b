/* container.c — `$ctx.container` in a filter: each `$ctx.container == "PATTERN"` (or `!=`,
 * either operand order) becomes, at start, a test of cgroup ids the kernel checks cheaply:
 * `(ANC(L1) == ID1 || ANC(L2) == ID2 ...)` (negated for `!=`), where IDk is the cgroup v2
 * directory of a container whose id PATTERN matches (a string: the whole id; a glob:
 * `"abc*"`, an id prefix as docker's; util/cgroup.h names them), Lk its depth under the
 * cgroup2 root, and ANC(L) the id of the task's cgroup's ancestor at depth L (a reference
 * to `$ctx.cgroup_id` with cg_level L: bpf_get_current_ancestor_cgroup_id(L)): every cgroup
 * below the container's counts, made before the start or after it (a filter evaluated in
 * user space finds the ancestor from the recorded cgroup id, util/cgroup.h: a cgroup
 * removed before its event is read is then no container's).  Given the ids of a
 * trace instead (scry view: the cgroups its env names), the comparisons are of the
 * event's own cgroup id with those (cg_level 0): a cgroup the env does not name is no
 * container's. */
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "filter/internal.h"
#include "util/cgroup.h"

#define MAX_IDS 64       /* cgroup directories one pattern may match */

struct match {
	const struct fstr *pat;
	size_t root_len;          /* of the cgroup2 mount's path (the walk's paths start with it) */
	uint64_t ids[MAX_IDS];
	uint8_t level[MAX_IDS];   /* the directory's depth under the root (0: compare exactly) */
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

	struct scry_container up;
	char parent[4096];
	const char *slash = strrchr(path, '/');
	unsigned level = 0;

	if (!scry_container_of_cgroup(path, &c) || !filter_container_match(m->pat->s, m->pat->len, m->pat->glob, c.id))
		return;
	/* a directory below the container's own: its ancestor test covers it */
	if (slash && (size_t)(slash - path) > m->root_len &&
	    snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path) < (int)sizeof(parent) &&
	    scry_container_of_cgroup(parent, &up) && !strcmp(up.id, c.id) && up.runtime == c.runtime)
		return;
	for (const char *s = path + m->root_len; *s; s++)
		level += *s == '/';
	if (!level || level > 255 || !(id = scry_cgroup_id(path)))
		return;
	for (size_t i = 0; i < m->n; i++)
		if (m->ids[i] == id)
			return;
	if (m->n == MAX_IDS) {
		m->too_many = true;
	} else {
		m->level[m->n] = (uint8_t)level;
		m->ids[m->n++] = id;
	}
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

/* The reference to the cgroup id at level (0: the task's own) made from the container's
 * reference cref (its text for messages): cref itself for the first level asked, a copy for
 * the others.  Its index, or UINT32_MAX out of memory or references. */
static uint32_t level_ref(struct filter *f, uint32_t cref, uint32_t base, uint8_t level, bool *leveled)
{
	struct ref *r;

	if (!*leveled) {
		*leveled = true;
		f->refs[cref].cg_level = level;
		return cref;
	}
	for (uint32_t i = 0; i < f->nrefs; i++)
		if ((i == cref || i >= base) && f->refs[i].cg_level == level)
			return i;
	if (f->nrefs >= FILTER_MAX_REFS || !(r = realloc(f->refs, (f->nrefs + 1) * sizeof(*r))))
		return UINT32_MAX;
	f->refs = r;
	r[f->nrefs] = r[cref];
	r[f->nrefs].cg_level = level;
	r[f->nrefs].parts[0].name = strdup(r[cref].parts[0].name);
	r[f->nrefs].text = strdup(r[cref].text);
	if (!r[f->nrefs].parts[0].name || !r[f->nrefs].text) {
		free(r[f->nrefs].parts[0].name);
		free(r[f->nrefs].text);
		return UINT32_MAX;
	}
	return f->nrefs++;
}

/* A balanced `||` of `refs[k] == ids[k]` for k in [lo, hi) (hi > lo), like x; its index or -1. */
static int any_of(struct filter *f, const struct node *x, const uint32_t *refs, const uint64_t *ids, size_t lo,
		  size_t hi)
{
	struct node n = *x;
	int a, b;

	if (hi - lo == 1) {
		n.kind = N_REF;
		n.idx = refs[lo];
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

		if ((a = any_of(f, x, refs, ids, lo, mid)) < 0 || (b = any_of(f, x, refs, ids, mid, hi)) < 0)
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
	uint32_t ref = UINT32_MAX, nodes, base = f->nrefs, refs[MAX_IDS];
	char root[4096];
	bool leveled = false;
	struct ref *r;

	for (uint32_t i = 0; i < f->nrefs; i++)
		if (f->refs[i].is_ctx && !strcmp(f->refs[i].parts[0].name, "container"))
			ref = i;
	if (ref == UINT32_MAX)
		return 0;
	/* the reference is now the cgroup id's (copies per level made below) */
	r = &f->refs[ref];
	free(r->parts[0].name);
	free(r->text);
	r->parts[0].name = strdup("cgroup_id");
	r->text = strdup("$ctx.cgroup_id");
	r->ctx_id = SCRY_CTX_CGROUP_ID;
	if (!r->parts[0].name || !r->text)
		goto oom;
	if (!ids && scry_cgroup_root(root, sizeof(root))) {
		ferr_set(err, f->refs[ref].pos, f->refs[ref].len, "$ctx.container: no cgroup2 mount");
		return -1;
	}
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
			m.root_len = strlen(root);
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
		for (size_t k = 0; k < m.n; k++)
			if ((refs[k] = level_ref(f, ref, base, ids ? 0 : m.level[k], &leveled)) == UINT32_MAX)
				goto oom;
		if ((chain = any_of(f, x, refs, m.ids, 0, m.n)) < 0)
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
	return 0;
oom:
	ferr_set(err, 0, 0, "out of memory (or more than %d operators or %d references) expanding $ctx.container",
		 FILTER_MAX_NODES, FILTER_MAX_REFS);
	return -1;
}
