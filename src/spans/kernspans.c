/* kernspans.c — kernel spans (see kernspans.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include "consumer/ring.h"
#include "format/format.h"
#include "spans/kernspans.h"
#include "util/clock.h"

struct scry_kernspans {
	struct scry_otlp_exporter *exp;
	struct scry_procspans *parents;
	const struct scry_syscall_names *sn;
	int64_t realtime_off;            /* CLOCK_MONOTONIC -> wall */
	struct scry_ring ring;            /* the kernel's span records (consumer/ring.c reads it) */
	bool ring_open;
	struct scry_span_rec *q;
	size_t n, cap;
	uint64_t sent, malformed;
};

struct scry_kernspans *scry_kernspans_new(struct scry_otlp_exporter *exp, struct scry_procspans *parents,
					  const struct scry_syscall_names *sn)
{
	struct scry_kernspans *k = calloc(1, sizeof(*k));
	int64_t sec;
	uint64_t nsec;

	if (!k)
		return NULL;
	k->exp = exp;
	k->parents = parents;
	k->sn = sn;
	scry_clock_offset(&sec, &nsec);
	k->realtime_off = sec * 1000000000LL + (int64_t)nsec;
	return k;
}

int scry_kernspans_add(struct scry_kernspans *k, const void *rec, size_t size)
{
	if (size < sizeof(struct scry_span_rec)) {
		k->malformed++;
		return 0;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 256;
		struct scry_span_rec *q = realloc(k->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		k->q = q;
		k->cap = cap;
	}
	memcpy(&k->q[k->n++], rec, sizeof(struct scry_span_rec));
	return 0;
}

static int on_rec(void *ctx, const void *data, size_t size)
{
	return scry_kernspans_add(ctx, data, size) ? -ENOMEM : 0;
}

int scry_kernspans_open(struct scry_kernspans *k, int fd, char *err, size_t errlen)
{
	if (scry_ring_open_map(&k->ring, fd)) {
		snprintf(err, errlen, "cannot read the kernel spans' ring buffer");
		return -1;
	}
	k->ring_open = true;
	return 0;
}

void scry_kernspans_poll(struct scry_kernspans *k)
{
	if (k->ring_open)
		scry_ring_drain(&k->ring, on_rec, k);
}

static int by_start(const void *a, const void *b)
{
	const struct scry_span_rec *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static void random_id(uint8_t *b, size_t n)
{
	if (getrandom(b, n, 0) != (ssize_t)n)
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rand();
	b[0] |= 1;                        /* never all zero: an invalid id */
}

static void export_one(struct scry_kernspans *k, const struct scry_span_rec *r)
{
	struct scry_span s;
	char buf[64];
	const char *name;

	memset(&s, 0, sizeof(s));
	s.start_ns = (uint64_t)((int64_t)r->start_ns + k->realtime_off);
	s.end_ns = (uint64_t)((int64_t)r->end_ns + k->realtime_off);
	if (r->parent.span && (r->parent.trace_hi | r->parent.trace_lo)) {   /* the application's span */
		for (int b = 0; b < 8; b++) {
			s.trace_id[b] = (uint8_t)(r->parent.trace_hi >> (56 - 8 * b));
			s.trace_id[8 + b] = (uint8_t)(r->parent.trace_lo >> (56 - 8 * b));
			s.parent_id[b] = (uint8_t)(r->parent.span >> (56 - 8 * b));
		}
		s.has_parent = true;
	} else if (k->parents && scry_procspans_parent(k->parents, (int)r->pid, s.start_ns, s.trace_id, s.parent_id)) {
		s.has_parent = true;
	} else {
		random_id(s.trace_id, 16);
	}
	random_id(s.span_id, 8);
	switch (r->event) {
	case SCRY_ME_SYSCALL:
		name = k->sn ? k->sn->name(k->sn->ctx, r->nr) : NULL;
		if (!name) {
			snprintf(buf, sizeof(buf), "syscall_%u", r->nr);
			name = buf;
		}
		snprintf(s.name, sizeof(s.name), "%s", name);
		break;
	case SCRY_ME_BLOCK_IO:
		snprintf(s.name, sizeof(s.name), "block_io");
		break;
	default:
		snprintf(s.name, sizeof(s.name), "sched_wait");
	}
	scry_span_attr_int(&s, "process.pid", r->pid);
	scry_span_attr_int(&s, "thread.id", r->tid);
	scry_span_attr_str(&s, "thread.name", r->comm, strnlen(r->comm, sizeof(r->comm)));
	if (r->event == SCRY_ME_SYSCALL) {
		scry_span_attr_str(&s, "scry.syscall", s.name, strlen(s.name));
		scry_span_attr_int(&s, "scry.syscall.return", r->ret);
		if (r->ret < 0 && r->ret >= -4095) {
			const char *e = scry_errno_name((int)-r->ret);

			s.error = true;
			if (e)
				scry_span_attr_str(&s, "scry.syscall.errno", e, strlen(e));
		}
	} else if (r->event == SCRY_ME_BLOCK_IO) {
		scry_metric_majorminor(r->dev, buf, sizeof(buf));
		scry_span_attr_str(&s, "scry.block.device", buf, strlen(buf));
	}
	scry_otlp_submit(k->exp, &s);
	k->sent++;
}

void scry_kernspans_flush(struct scry_kernspans *k, uint64_t horizon, void (*pump)(void *, uint64_t), void *pump_ctx)
{
	size_t i;

	if (!k->n)
		return;
	qsort(k->q, k->n, sizeof(*k->q), by_start);
	for (i = 0; i < k->n && k->q[i].start_ns < horizon; i++) {
		if (pump)
			pump(pump_ctx, k->q[i].start_ns);
		export_one(k, &k->q[i]);
	}
	memmove(k->q, k->q + i, (k->n - i) * sizeof(*k->q));
	k->n -= i;
}

uint64_t scry_kernspans_sent(const struct scry_kernspans *k)
{
	return k->sent;
}

uint64_t scry_kernspans_malformed(const struct scry_kernspans *k)
{
	return k->malformed;
}

void scry_kernspans_free(struct scry_kernspans *k)
{
	if (!k)
		return;
	if (k->ring_open)
		scry_ring_close(&k->ring);
	free(k->q);
	free(k);
}
