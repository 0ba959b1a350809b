/* imap.h — a small open-addressing hash map from a positive int key (tid, pid) to a
 * pointer, used by the `scry trace` printer for its per-task and per-process state. */
#ifndef SCRY_TRACE_IMAP_H
#define SCRY_TRACE_IMAP_H

#include <stddef.h>

struct imap_slot {
	int key;                /* 0: empty */
	void *val;
};

struct imap {
	struct imap_slot *slots;
	size_t cap;             /* power of two, or 0 */
	size_t n;
};

/* NULL when absent.  key must be > 0. */
void *imap_get(const struct imap *m, int key);
/* Insert or replace; -1 when out of memory. */
int imap_put(struct imap *m, int key, void *val);
/* The removed value, or NULL. */
void *imap_del(struct imap *m, int key);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (m->slots[i].key) ...  (no changes
 * to the map while iterating). */
void imap_free(struct imap *m);

#endif /* SCRY_TRACE_IMAP_H */
