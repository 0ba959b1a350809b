/* profile.c — the profile's tables (see profile.h): strings, frames and mappings interned
 * through open-addressing hash tables, samples appended. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

void scry_prof_init(struct scry_prof *p)
{
	memset(p, 0, sizeof(*p));
	p->event = "cpu-clock";
}

void scry_prof_free(struct scry_prof *p)
{
	for (size_t i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->str_ix.slots);
	free(p->frames);
	free(p->frame_ix.slots);
	free(p->maps);
	free(p->map_ix.slots);
	free(p->stack);
	free(p->samples);
	memset(p, 0, sizeof(*p));
}

static uint64_t fnv(const void *data, size_t n, uint64_t h)
{
	const unsigned char *c = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV0 0xcbf29ce484222325ULL

/* Grow *arr (element size sz) to hold one more. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? 2 * *cap : 64;
	void *a = realloc(*arr, nc * sz);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = nc;
	return 0;
}

/* The slot of an item hashed h for which eq(ctx, index) holds, or the empty slot where it
 * goes; the table grown (rehashed through hash_of) to stay below half full. */
typedef bool (*eq_fn)(const struct scry_prof *p, uint32_t ix, const void *key);
typedef uint64_t (*hash_fn)(const struct scry_prof *p, uint32_t ix);

static uint32_t *slot(const struct scry_prof *p, struct scry_prof_table *t, uint64_t h, eq_fn eq, const void *key)
{
	for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (!t->slots[i] || eq(p, t->slots[i] - 1, key))
			return &t->slots[i];
}

static int table_fit(const struct scry_prof *p, struct scry_prof_table *t, size_t n, hash_fn hash)
{
	struct scry_prof_table nt;

	if (2 * (n + 1) <= t->cap)
		return 0;
	nt.cap = t->cap ? 2 * t->cap : 256;
	if (!(nt.slots = calloc(nt.cap, sizeof(*nt.slots))))
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i])
			continue;
		size_t j = hash(p, t->slots[i] - 1) & (nt.cap - 1);
		while (nt.slots[j])
			j = (j + 1) & (nt.cap - 1);
		nt.slots[j] = t->slots[i];
	}
	free(t->slots);
	*t = nt;
	return 0;
}

static uint64_t str_hash(const struct scry_prof *p, uint32_t ix) { return fnv(p->strs[ix], strlen(p->strs[ix]), FNV0); }
static bool str_eq(const struct scry_prof *p, uint32_t ix, const void *key) { return !strcmp(p->strs[ix], key); }

uint32_t scry_prof_str(struct scry_prof *p, const char *s)
{
	uint32_t *sl;

	if (table_fit(p, &p->str_ix, p->nstrs, str_hash) ||
	    grow((void **)&p->strs, &p->capstrs, p->nstrs, sizeof(*p->strs)))
		return UINT32_MAX;
	sl = slot(p, &p->str_ix, fnv(s, strlen(s), FNV0), str_eq, s);
	if (*sl)
		return *sl - 1;
	if (!(p->strs[p->nstrs] = strdup(s)))
		return UINT32_MAX;
	*sl = (uint32_t)++p->nstrs;
	return *sl - 1;
}

static uint64_t frame_h(const struct scry_prof_frame *f)
{
	uint64_t h = fnv(&f->name, sizeof(f->name), FNV0);

	h = fnv(&f->mapping, sizeof(f->mapping), h);
	h = fnv(&f->addr, sizeof(f->addr), h);
	return fnv(&f->kernel, sizeof(f->kernel), h);
}
static uint64_t frame_hash(const struct scry_prof *p, uint32_t ix) { return frame_h(&p->frames[ix]); }
static bool frame_eq(const struct scry_prof *p, uint32_t ix, const void *key)
{
	const struct scry_prof_frame *a = &p->frames[ix], *b = key;

	return a->name == b->name && a->mapping == b->mapping && a->addr == b->addr && a->kernel == b->kernel &&
	       a->inlined == b->inlined && a->func == b->func && a->file == b->file && a->line == b->line;
}

uint32_t scry_prof_frame(struct scry_prof *p, const struct scry_prof_frame *f)
{
	uint32_t *sl;

	if (table_fit(p, &p->frame_ix, p->nframes, frame_hash) ||
	    grow((void **)&p->frames, &p->capframes, p->nframes, sizeof(*p->frames)))
		return UINT32_MAX;
	sl = slot(p, &p->frame_ix, frame_h(f), frame_eq, f);
	if (*sl)
		return *sl - 1;
	p->frames[p->nframes] = *f;
	*sl = (uint32_t)++p->nframes;
	return *sl - 1;
}

static uint64_t map_h(const struct scry_prof_mapping *m)
{
	uint64_t h = fnv(&m->path, sizeof(m->path), FNV0);

	h = fnv(&m->start, sizeof(m->start), h);
	return fnv(&m->limit, sizeof(m->limit), h);
}
static uint64_t map_hash(const struct scry_prof *p, uint32_t ix) { return map_h(&p->maps[ix]); }
static bool map_eq(const struct scry_prof *p, uint32_t ix, const void *key)
{
	const struct scry_prof_mapping *a = &p->maps[ix], *b = key;

	return a->path == b->path && a->start == b->start && a->limit == b->limit && a->pgoff == b->pgoff &&
	       a->build_id == b->build_id;
}

uint32_t scry_prof_mapping(struct scry_prof *p, const struct scry_prof_mapping *m)
{
	uint32_t *sl;

	if (table_fit(p, &p->map_ix, p->nmaps, map_hash) ||
	    grow((void **)&p->maps, &p->capmaps, p->nmaps, sizeof(*p->maps)))
		return UINT32_MAX;
	sl = slot(p, &p->map_ix, map_h(m), map_eq, m);
	if (*sl)
		return *sl - 1;
	p->maps[p->nmaps] = *m;
	*sl = (uint32_t)++p->nmaps;
	return *sl - 1;
}

int scry_prof_add(struct scry_prof *p, uint32_t pid, uint32_t tgid, const char *comm, uint64_t count,
		  const uint32_t *frames, uint32_t nframes)
{
	uint32_t c = scry_prof_str(p, comm);

	if (c == UINT32_MAX || grow((void **)&p->samples, &p->capsamples, p->nsamples, sizeof(*p->samples)))
		return -ENOMEM;
	while (p->nstack + nframes > p->capstack)
		if (grow((void **)&p->stack, &p->capstack, p->capstack, sizeof(*p->stack)))
			return -ENOMEM;
	memcpy(p->stack + p->nstack, frames, nframes * sizeof(*frames));
	p->samples[p->nsamples++] = (struct scry_prof_sample){
		.pid = pid, .tgid = tgid, .comm = c, .count = count, .first = (uint32_t)p->nstack, .nframes = nframes,
	};
	p->nstack += nframes;
	p->total += count;
	return 0;
}

void scry_prof_frame_label(const struct scry_prof *p, uint32_t frame, char *buf, size_t len)
{
	const struct scry_prof_frame *f = &p->frames[frame];

	snprintf(buf, len, "%s%s", p->strs[f->name], f->kernel ? "_[k]" : "");
}
