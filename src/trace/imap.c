/* imap.c — see imap.h.  Linear probing, deletion by backward shift (no tombstones). */
#include <stdint.h>
#include <stdlib.h>
#include "trace/imap.h"

static size_t slot_of(int key, size_t cap)
{
	uint32_t h = (uint32_t)key * 2654435761u;

	return (size_t)h & (cap - 1);
}

void *imap_get(const struct imap *m, int key)
{
	if (!m->cap || key <= 0)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->slots[i].key == key)
			return m->slots[i].val;
		if (!m->slots[i].key)
			return NULL;
	}
}

static int grow(struct imap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct imap_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slots[i].key)
			continue;
		for (j = slot_of(m->slots[i].key, ncap); ns[j].key; j = (j + 1) & (ncap - 1))
			;
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->cap = ncap;
	return 0;
}

int imap_put(struct imap *m, int key, void *val)
{
	size_t i;

	if (key <= 0)
		return -1;
	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return -1;
	for (i = slot_of(key, m->cap); m->slots[i].key; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key) {
			m->slots[i].val = val;
			return 0;
		}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
	return 0;
}

void *imap_del(struct imap *m, int key)
{
	size_t i, j, mask = m->cap - 1;
	void *val;

	if (!m->cap || key <= 0)
		return NULL;
	for (i = slot_of(key, m->cap); m->slots[i].key != key; i = (i + 1) & mask)
		if (!m->slots[i].key)
			return NULL;
	val = m->slots[i].val;
	/* backward shift: move later entries of the run into the hole when their home slot
	 * does not lie (cyclically) between the hole and them */
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t home = slot_of(m->slots[j].key, m->cap);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->slots[i].val = NULL;
	m->n--;
	return val;
}

void imap_free(struct imap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
