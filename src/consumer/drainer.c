/* drainer.c — the drain thread (see drainer.h).  Each CPU's FIFO is two buffers of
 * records [u32 length][bytes, padded to 4]: the thread appends to one under the CPU's lock,
 * the owner swaps it with the other under the lock and hands its records out without it. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "consumer/drainer.h"

struct fifo {
	pthread_mutex_t lock;
	struct scry_ring *ring;
	uint8_t *fill, *work;        /* appended to / handed out */
	size_t len, cap, wcap;
	size_t max;
};

struct scry_drainer {
	pthread_t th;
	bool running;
	pthread_mutex_t wl;
	pthread_cond_t wake;
	bool stop;                   /* under wl */
	struct fifo *f;
	unsigned n;
};

/* One ring record appended to the FIFO; nonzero (the record stays in the ring) when the
 * FIFO is at its bound or memory is short. */
static int put(void *ctx, const void *data, size_t size)
{
	struct fifo *f = ctx;
	size_t need = 4 + ((size + 3) & ~(size_t)3);
	uint32_t len = (uint32_t)size;

	if (f->len + need > f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 1 << 20;
		uint8_t *nb;

		while (nc < f->len + need)
			nc *= 2;
		if (nc > f->max)
			nc = f->max;
		if (f->len + need > nc || !(nb = realloc(f->fill, nc)))
			return 1;
		f->fill = nb;
		f->cap = nc;
	}
	memcpy(f->fill + f->len, &len, 4);
	memcpy(f->fill + f->len + 4, data, size);
	f->len += need;
	return 0;
}

static void *drain_main(void *arg)
{
	struct scry_drainer *d = arg;

	pthread_mutex_lock(&d->wl);
	while (!d->stop) {
		long moved = 0;
		struct timespec ts;
		uint64_t ns;

		pthread_mutex_unlock(&d->wl);
		for (unsigned i = 0; i < d->n; i++) {
			long r;

			pthread_mutex_lock(&d->f[i].lock);
			r = scry_ring_drain(d->f[i].ring, put, &d->f[i]);
			pthread_mutex_unlock(&d->f[i].lock);
			if (r > 0)
				moved += r;
		}
		/* events coming: again soon; idle: rarely */
		ns = moved ? 1000000ULL : 10000000ULL;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)ns;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&d->wl);
		if (!d->stop)
			pthread_cond_timedwait(&d->wake, &d->wl, &ts);
	}
	pthread_mutex_unlock(&d->wl);
	return NULL;
}

int scry_drainer_start(struct scry_drainer **out, struct scry_ring **rings, unsigned n, size_t max, char *err,
		       size_t errlen)
{
	struct scry_drainer *d = calloc(1, sizeof(*d));
	pthread_condattr_t ca;
	int r;

	*out = NULL;
	if (!d || !(d->f = calloc(n, sizeof(*d->f)))) {
		free(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->n = n;
	for (unsigned i = 0; i < n; i++) {
		pthread_mutex_init(&d->f[i].lock, NULL);
		d->f[i].ring = rings[i];
		d->f[i].max = max;
	}
	pthread_mutex_init(&d->wl, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->wake, &ca);
	pthread_condattr_destroy(&ca);
	if ((r = pthread_create(&d->th, NULL, drain_main, d))) {
		snprintf(err, errlen, "cannot start the drain thread: %s", strerror(r));
		scry_drainer_free(d);
		return -r;
	}
	d->running = true;
	*out = d;
	return 0;
}

long scry_drainer_take(struct scry_drainer *d, unsigned i, scry_ring_fn fn, void *ctx)
{
	struct fifo *f = &d->f[i];
	uint8_t *b;
	size_t len, off = 0;
	long r;

	pthread_mutex_lock(&f->lock);
	r = scry_ring_drain(f->ring, put, f);
	b = f->fill;                 /* swap: the thread goes on in the other buffer */
	len = f->len;
	f->fill = f->work;
	f->work = b;
	{
		size_t c = f->cap;

		f->cap = f->wcap;
		f->wcap = c;
	}
	f->len = 0;
	pthread_mutex_unlock(&f->lock);
	if (r < 0)
		return r;
	while (off < len) {
		uint32_t n;

		memcpy(&n, b + off, 4);
		fn(ctx, b + off + 4, n);
		off += 4 + ((n + 3) & ~(size_t)3);
	}
	return (long)len;            /* what the ring gave went through the FIFO */
}

void scry_drainer_stop(struct scry_drainer *d)
{
	if (!d || !d->running)
		return;
	pthread_mutex_lock(&d->wl);
	d->stop = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->wl);
	pthread_join(d->th, NULL);
	d->running = false;
}

void scry_drainer_free(struct scry_drainer *d)
{
	if (!d)
		return;
	scry_drainer_stop(d);
	for (unsigned i = 0; i < d->n; i++) {
		pthread_mutex_destroy(&d->f[i].lock);
		free(d->f[i].fill);
		free(d->f[i].work);
	}
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->wl);
	free(d->f);
	free(d);
}
