/* fifo.h — a byte queue (what waits to be written to a socket) with running totals of the
 * bytes put in and taken out, so that a packet's end can be told sent by its position. */
#ifndef SCRY_RELAY_FIFO_H
#define SCRY_RELAY_FIFO_H

#include <stddef.h>
#include <stdint.h>

struct relay_fifo {
	uint8_t *buf;
	size_t head, tail, cap;     /* bytes buf[head..tail) wait */
	uint64_t in, out;           /* bytes ever put in, taken out */
};

static inline size_t relay_fifo_len(const struct relay_fifo *f) { return f->tail - f->head; }
/* Append n bytes (grown as needed).  0 or -ENOMEM. */
int relay_fifo_put(struct relay_fifo *f, const void *p, size_t n);
/* Write what fd takes now (non-blocking, MSG_NOSIGNAL).  0 (EAGAIN included) or -errno. */
int relay_fifo_send(struct relay_fifo *f, int fd);
void relay_fifo_clear(struct relay_fifo *f);   /* what waits is dropped (out catches up) */
void relay_fifo_free(struct relay_fifo *f);

#endif
