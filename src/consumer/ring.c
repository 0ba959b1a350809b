/* ring.c — BPF ring buffer reader with batched consumer-position updates (see ring.h).
 * Memory layout (kernel/bpf/ringbuf.c): page 0 consumer_pos (rw), page 1 producer_pos,
 * then the data pages mapped twice in a row so that a record never wraps.  The data is
 * mapped as the records reach it: the whole span is reserved (no access) at open, its first
 * RING_FIRST_MAP bytes mapped, and the mapped part doubled whenever a record lies beyond it.
 * The kernel fills every page table entry of a ring mapping at mmap time and clears them at
 * munmap: an 8 MiB ring mapped whole (16 MiB twice over, 4097 pages) costs ~2.5 ms of CPU to
 * map and unmap per CPU, which a short run (scry trace -- /bin/true: a few KiB of records)
 * never needs. */
#include <errno.h>
#include <fcntl.h>
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

/* The data mapped at open; beyond, as records reach it (ring_reach). */
#define RING_FIRST_MAP (64u << 10)

static size_t span(const struct scry_ring *r)
{
	return r->page_size + 2 * r->size;
}

/* The data mapped at least up to byte end (of the 2 * size mapped twice over): the mapped
 * part doubled (or more) in place, over the reserved span.  0, or -errno. */
static int ring_reach(struct scry_ring *r, size_t end)
{
	size_t want = r->mapped ? r->mapped : RING_FIRST_MAP;

	if (end <= r->mapped)
		return 0;
	if (end > 2 * r->size)
		return -EFAULT;
	while (want < end)
		want *= 2;
	want = (want + r->page_size - 1) & ~(r->page_size - 1);
	if (want > 2 * r->size)
		want = 2 * r->size;
	/* the file's offset: the producer page at page_size, the data right after it */
	if (mmap(r->data + r->mapped, want - r->mapped, PROT_READ, MAP_SHARED | MAP_FIXED, r->fd,
		 (off_t)(2 * r->page_size + r->mapped)) == MAP_FAILED)
		return -errno;
	r->mapped = want;
	return 0;
}

int scry_ring_open(struct scry_ring *r, int map_fd, size_t size)
{
	memset(r, 0, sizeof(*r));
	if (!size || (size & (size - 1)))
		return -EINVAL;         /* the kernel's ring sizes are powers of two */
	r->size = size;
	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* our own descriptor: the data is mapped later, whenever the map's owner closes its */
	if ((r->fd = fcntl(map_fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	r->consumer_pos = mmap(NULL, r->page_size, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (r->consumer_pos == MAP_FAILED) {
		int e = -errno;

		close(r->fd);
		r->fd = -1;
		r->consumer_pos = NULL;
		return e;
	}
	/* the span reserved, then the producer page and the data's first part mapped over it */
	r->prod_map = mmap(NULL, span(r), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->prod_map == MAP_FAILED ||
	    mmap(r->prod_map, r->page_size, PROT_READ, MAP_SHARED | MAP_FIXED, map_fd, r->page_size) == MAP_FAILED) {
		int e = -errno;

		if (r->prod_map != MAP_FAILED)
			munmap(r->prod_map, span(r));
		munmap(r->consumer_pos, r->page_size);
		close(r->fd);
		r->fd = -1;
		r->consumer_pos = NULL;
		r->prod_map = NULL;
		return e;
	}
	r->producer_pos = r->prod_map;
	r->data = (uint8_t *)r->prod_map + r->page_size;
	int e = ring_reach(r, RING_FIRST_MAP < 2 * size ? RING_FIRST_MAP : 2 * size);
	if (e) {
		scry_ring_close(r);
		return e;
	}
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

	int err = 0;

	while (cons < prod) {
		const uint8_t *rec = r->data + (cons & mask);

		if ((err = ring_reach(r, (cons & mask) + BPF_RINGBUF_HDR_SZ)))
			break;
		uint32_t len = __atomic_load_n((const uint32_t *)rec, __ATOMIC_ACQUIRE);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break;                   /* reserved, not yet committed: later */
		uint32_t dlen = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		if ((err = ring_reach(r, (cons & mask) + BPF_RINGBUF_HDR_SZ + dlen)))
			break;
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
	if (err && cons == start)
		return err;              /* nothing read: the data could not be mapped */
	return (long)(cons - start);
}

size_t scry_ring_pending(const struct scry_ring *r)
{
	return __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE) - *r->consumer_pos;
}

void scry_ring_close(struct scry_ring *r)
{
	if (r->prod_map)
		munmap(r->prod_map, span(r));     /* what was mapped, and the rest of the span */
	if (r->consumer_pos)
		munmap(r->consumer_pos, r->page_size);
	if (r->fd >= 0 && (r->prod_map || r->consumer_pos))
		close(r->fd);
	r->fd = -1;
	r->prod_map = NULL;
	r->consumer_pos = NULL;
	r->mapped = 0;
}
