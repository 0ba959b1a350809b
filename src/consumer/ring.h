/* ring.h — reader of one BPF ring buffer (BPF_MAP_TYPE_RINGBUF) mapped into our memory.
 * Unlike libbpf's ring_buffer__consume(), which publishes the consumer position after
 * every record, scry_ring_drain() publishes it once per batch, so the producing CPU does
 * not take a cache miss on every reservation while the consumer runs on another CPU. */
#ifndef SCRY_RING_H
#define SCRY_RING_H

#include <stddef.h>
#include <stdint.h>

struct scry_ring {
	int fd;
	size_t size;                 /* data area bytes (power of two) */
	size_t page_size;
	unsigned long *consumer_pos; /* read-write page */
	void *prod_map;              /* producer page + data mapped twice (the span reserved) */
	unsigned long *producer_pos;
	uint8_t *data;
	size_t mapped;               /* data bytes mapped so far (of 2 * size): as records reach */
};

/* One record: len bytes at data.  Return nonzero to stop the drain (record kept). */
typedef int (*scry_ring_fn)(void *ctx, const void *data, size_t len);

int scry_ring_open(struct scry_ring *r, int map_fd, size_t size);
/* The same, the size the map's own (its max_entries, asked of the kernel). */
int scry_ring_open_map(struct scry_ring *r, int map_fd);
/* Hand every committed record to fn in order; returns the bytes consumed (headers
 * included) or -errno (nothing consumed: the data beyond the mapped part cannot be mapped). */
long scry_ring_drain(struct scry_ring *r, scry_ring_fn fn, void *ctx);
/* Bytes committed or reserved and not yet consumed. */
size_t scry_ring_pending(const struct scry_ring *r);
void scry_ring_close(struct scry_ring *r);

#endif
