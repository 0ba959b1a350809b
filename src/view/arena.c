/* arena.c — bump allocator owning everything parsed from one metadata text. */
#include <stdlib.h>
#include <string.h>
#include "view/tsdl.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

#define ARENA_CHUNK (64 * 1024)

void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *n = c->next;
		free(c);
		c = n;
	}
	a->head = NULL;
}
