/* ring.c — BPF ring buffer reader with batched consumer-position updates (see ring.h).
 * Memory layout (kernel/bpf/ringbuf.c): page 0 consumer_pos (rw), page 1 producer_pos,
 * then the data pages mapped twice in a row so that a record never wraps. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "consumer/ring.h"

#ifndef BPF_RINGBUF_BUSY_BIT
#define BPF_RINGBUF_BUSY_BIT (1U << 31)
#define BPF_RINGBUF_DISCARD_BIT (1U << 30)
#define BPF_RINGBUF_HDR_SZ 8
#endif

/* Publish the consumer position after this many bytes even within one drain, so that a
 * long drain of a full ring gives producers room early. */
#define RELEASE_EVERY (256u << 10)

int scry_ring_open(struct scry_ring *r, int map_fd, size_t size)
{
	memset(r, 0, sizeof(*r));
	if (!size || (size & (size - 1)))
		return -EINVAL;         /* the kernel's ring sizes are powers of two */
	r->fd = map_fd;
	r->size = size;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	r->consumer_pos = mmap(NULL, r->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (r->consumer_pos == MAP_FAILED) {
		r->consumer_pos = NULL;
		return -errno;
	}
	r->prod_map = mmap(NULL, r->page_size + 2 * size, PROT_READ, MAP_SHARED, map_fd, r->page_size);
	if (r->prod_map == MAP_FAILED) {
		int e = -errno;
		munmap(r->consumer_pos, r->page_size);
		r->consumer_pos = NULL;
		r->prod_map = NULL;
		return e;
	}
	r->producer_pos = r->prod_map;
	r->data = (uint8_t *)r->prod_map + r->page_size;
	return 0;
}

int scry_ring_open_map(struct scry_ring *r, int map_fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	memset(r, 0, sizeof(*r));
	if (map_fd < 0)
		return -EBADF;
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_RINGBUF)
		return -EINVAL;
	return scry_ring_open(r, map_fd, info.max_entries);
}

long scry_ring_drain(struct scry_ring *r, scry_ring_fn fn, void *ctx)
{
	unsigned long cons = *r->consumer_pos, start = cons, released = cons;
	unsigned long prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
	const unsigned long mask = r->size - 1;

	while (cons < prod) {
		const uint8_t *rec = r->data + (cons & mask);
		uint32_t len = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;                   /* reserved, not yet committed: later */
		uint32_t dlen = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		if (!(len & BPF_RINGBUF_DISCARD_BIT) && fn(ctx, rec + BPF_RINGBUF_HDR_SZ, dlen))
			break;
		cons += (dlen + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
		if (cons - released >= RELEASE_EVERY) {
			__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
			released = cons;
		}
		if (cons >= prod)
			prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
	}
	if (cons != released)
		__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
	return (long)(cons - start);
}

size_t scry_ring_pending(const struct scry_ring *r)
{
	return __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE) - *r->consumer_pos;
}

void scry_ring_close(struct scry_ring *r)
{
	if (r->prod_map)
		munmap(r->prod_map, r->page_size + 2 * r->size);
	if (r->consumer_pos)
		munmap(r->consumer_pos, r->page_size);
	r->prod_map = NULL;
	r->consumer_pos = NULL;
}
