/* ustacks.c — see ustacks.h.  The copies wait in a hash by (thread, timestamp), each
 * with the bytes the kernel read; one is unwound when its event is handed over, in time
 * order, so that the mappings of the calls before it (ld.so's mmap of a library) are known
 * then, even for a process already gone. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "catalog/unwind.h"
#include "scry_abi.h"
#include "trace/ustacks.h"

#define BUCKETS 4096
#define CLASSES 5                  /* copies' sizes rounded up to 4, 8, 16, 32, 64 KiB */
#define POOL_MAX (64u << 20)       /* bytes of freed copies kept for the next ones */

struct copy {
	struct copy *next;
	unsigned cls;              /* its size class */
	uint64_t ts;
	uint32_t tid, tgid;
	__u64 regs[SCRY_DWREGS_N];
	uint32_t size;
	uint8_t data[];
};

struct trace_ustacks {
	struct ring_buffer *rb;
	struct scry_unwinder *unw;
	struct scry_syms *syms;
	struct copy *b[BUCKETS];
	size_t n;
	struct copy *pool[CLASSES];   /* freed copies, by size class: no page faults of fresh
				       * memory for each copy (malloc's cost at high rates) */
	size_t pooled;                /* their bytes */
	struct trace_ustacks_stats st;
};

static unsigned bucket(uint32_t tid, uint64_t ts)
{
	uint64_t h = (ts ^ ((uint64_t)tid << 32)) * 0x9e3779b97f4a7c15ULL;

	return (unsigned)(h >> 52) % BUCKETS;
}

static size_t class_bytes(unsigned cls)
{
	return sizeof(struct copy) + ((size_t)4096 << cls);
}

/* A copy of size bytes of data: from the pool, else new. */
static struct copy *copy_get(struct trace_ustacks *u, uint32_t size)
{
	unsigned cls = 0;
	struct copy *c;

	while (cls < CLASSES - 1 && ((size_t)4096 << cls) < size)
		cls++;
	if (((size_t)4096 << cls) < size)
		return NULL;
	if ((c = u->pool[cls])) {
		u->pool[cls] = c->next;
		u->pooled -= class_bytes(cls);
		return c;
	}
	if ((c = malloc(class_bytes(cls))))
		c->cls = cls;
	return c;
}

static void copy_put(struct trace_ustacks *u, struct copy *c)
{
	if (u->pooled + class_bytes(c->cls) > POOL_MAX) {
		free(c);
		return;
	}
	c->next = u->pool[c->cls];
	u->pool[c->cls] = c;
	u->pooled += class_bytes(c->cls);
}

static int on_rec(void *ctx, void *data, size_t size)
{
	struct trace_ustacks *u = ctx;
	const struct scry_ustack_rec *r = data;
	struct copy *c;
	unsigned k;

	if (size < sizeof(*r) || r->size > size - sizeof(*r))
		return 0;
	if (!(c = copy_get(u, r->size))) {
		u->st.oom++;
		return 0;
	}
	c->ts = r->ts;
	c->tid = r->tid;
	c->tgid = r->tgid;
	memcpy(c->regs, r->regs, sizeof(c->regs));
	c->size = r->size;
	memcpy(c->data, r->data, r->size);
	/* the mappings of its instruction read now, while the process most likely lives */
	scry_syms_capture(u->syms, (int)c->tgid, c->regs[SCRY_DWREG_IP], NULL);
	k = bucket(c->tid, c->ts);
	c->next = u->b[k];
	u->b[k] = c;
	u->n++;
	return 0;
}

struct trace_ustacks *trace_ustacks_new(int fd, struct scry_syms *syms)
{
	struct trace_ustacks *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->syms = syms;
	if (!(u->unw = scry_unwinder_new(syms)) || !(u->rb = ring_buffer__new(fd, on_rec, u, NULL))) {
		trace_ustacks_free(u);
		return NULL;
	}
	return u;
}

/* The copies before horizon freed; counted as orphans or not. */
static void drop(struct trace_ustacks *u, uint64_t horizon, bool count)
{
	for (unsigned k = 0; u->n && k < BUCKETS; k++)
		for (struct copy **pp = &u->b[k], *c; (c = *pp);) {
			if (c->ts < horizon) {
				*pp = c->next;
				copy_put(u, c);
				u->n--;
				u->st.orphans += count;
			} else {
				pp = &c->next;
			}
		}
}

void trace_ustacks_free(struct trace_ustacks *u)
{
	if (!u)
		return;
	drop(u, UINT64_MAX, false);
	for (unsigned k = 0; k < CLASSES; k++)
		while (u->pool[k]) {
			struct copy *c = u->pool[k];

			u->pool[k] = c->next;
			free(c);
		}
	ring_buffer__free(u->rb);
	scry_unwinder_free(u->unw);
	free(u);
}

void trace_ustacks_drain(struct trace_ustacks *u)
{
	ring_buffer__consume(u->rb);
}

unsigned trace_ustacks_take(struct trace_ustacks *u, int tid, uint64_t ts, uint64_t *ips, unsigned max)
{
	struct copy **pp = &u->b[bucket((uint32_t)tid, ts)], *c;
	unsigned n;

	for (; (c = *pp); pp = &c->next)
		if (c->tid == (uint32_t)tid && c->ts == ts)
			break;
	if (!c) {
		u->st.missing++;
		return 0;
	}
	*pp = c->next;
	u->n--;
	n = scry_unwind(u->unw, &(struct scry_ustack){ .pid = c->tid, .tgid = c->tgid, .regs = c->regs,
						       .data = c->data, .size = c->size }, ips, max);
	copy_put(u, c);
	u->st.unwound++;
	return n;
}

void trace_ustacks_expire(struct trace_ustacks *u, uint64_t horizon)
{
	drop(u, horizon, true);
}

void trace_ustacks_forget(struct trace_ustacks *u, int tgid)
{
	scry_unwinder_forget(u->unw, tgid);
}

const struct trace_ustacks_stats *trace_ustacks_stats(const struct trace_ustacks *u)
{
	return &u->st;
}
