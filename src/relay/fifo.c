/* fifo.c — the relay's send queues (see fifo.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "relay/fifo.h"

int relay_fifo_put(struct relay_fifo *f, const void *p, size_t n)
{
	if (!n)
		return 0;                /* a command without payload (p may be NULL) */
	if (f->tail + n > f->cap) {
		size_t len = relay_fifo_len(f);

		if (f->head && len + n <= f->cap) {      /* room at the front: move what waits */
			memmove(f->buf, f->buf + f->head, len);
		} else {
			size_t cap = f->cap ? f->cap : 4096;
			uint8_t *b;

			while (cap < len + n)
				cap *= 2;
			if (!(b = malloc(cap)))
				return -ENOMEM;
			if (len)
				memcpy(b, f->buf + f->head, len);
			free(f->buf);
			f->buf = b;
			f->cap = cap;
		}
		f->head = 0;
		f->tail = len;
	}
	memcpy(f->buf + f->tail, p, n);
	f->tail += n;
	f->in += n;
	return 0;
}

int relay_fifo_send(struct relay_fifo *f, int fd)
{
	while (f->head < f->tail) {
		ssize_t n = send(fd, f->buf + f->head, f->tail - f->head, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		f->head += (size_t)n;
		f->out += (uint64_t)n;
	}
	f->head = f->tail = 0;
	return 0;
}

void relay_fifo_clear(struct relay_fifo *f)
{
	f->out += relay_fifo_len(f);
	f->head = f->tail = 0;
}

void relay_fifo_free(struct relay_fifo *f)
{
	free(f->buf);
	memset(f, 0, sizeof(*f));
}
