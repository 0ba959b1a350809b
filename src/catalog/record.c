/* record.c — reading a record's header and contexts (see record.h). */
#include <string.h>
#include "catalog/catalog.h"
#include "catalog/record.h"

void scry_record_layout_init(struct scry_record_layout *l, uint64_t ctx_mask)
{
	size_t pos = SCRY_EVENT_HEADER_SIZE;

	l->ctx_mask = ctx_mask;
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		l->ctx_off[c] = -1;
		if (!(ctx_mask & (1ULL << c)))
			continue;
		l->ctx_off[c] = (int16_t)pos;
		pos += scry_context_size(1ULL << c);
	}
	l->payload_off = (uint16_t)pos;
}

/* Call stack context c's frames in the record of size bytes: its word (scry_abi.h) read,
 * false (*n = 0) when it places them outside the record's part past the contexts. */
static bool stack_at(const struct scry_record_layout *l, const uint8_t *bytes, size_t size, int c,
		     uint32_t *n, size_t *off)
{
	uint32_t w;

	memcpy(&w, bytes + l->ctx_off[c], 4);
	*n = w & 0xffff;
	*off = w >> 16;
	if (*n > SCRY_CALLSTACK_SLOTS || *off < l->payload_off || *off > size || size - *off < 8 * (size_t)*n) {
		*n = 0;
		return false;
	}
	return true;
}

/* Where the payload of a record (size bytes, at least payload_off) ends: where its first
 * call stack's frames begin, else at its end. */
static size_t payload_end(const struct scry_record_layout *l, const uint8_t *bytes, size_t size)
{
	size_t end = size, off;
	uint32_t n;

	for (int c = SCRY_CTX_CALLSTACK_KERNEL; c <= SCRY_CTX_CALLSTACK_USER; c++)
		if (l->ctx_off[c] >= 0 && stack_at(l, bytes, size, c, &n, &off) && off < end)
			end = off;
	return end;
}

int scry_record_read(const struct scry_record_layout *l, const uint8_t *bytes, size_t size,
		     struct scry_record *r)
{
	if (size < l->payload_off)
		return -1;
	memcpy(&r->id, bytes, 2);
	memcpy(&r->ts, bytes + 2, 8);
	r->bytes = bytes;
	r->size = size;
	r->payload = bytes + l->payload_off;
	r->payload_size = payload_end(l, bytes, size) - l->payload_off;
	return 0;
}

bool scry_record_ctx(const struct scry_record_layout *l, const struct scry_record *r, int ctx, int64_t *v)
{
	const struct scry_context_desc *d;
	const uint8_t *p;
	uint32_t u;

	if (ctx < 0 || ctx >= SCRY_CTX_NR || l->ctx_off[ctx] < 0)
		return false;
	d = scry_context(ctx);
	p = r->bytes + l->ctx_off[ctx];
	if (d->type != SCRY_F_INT)
		return false;
	if (d->size == 1) {
		*v = d->is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
		return true;
	}
	if (d->size == 8) {
		memcpy(v, p, 8);
		return true;
	}
	memcpy(&u, p, 4);
	*v = d->is_signed ? (int64_t)(int32_t)u : (int64_t)u;
	return true;
}

const char *scry_record_text(const struct scry_record_layout *l, const struct scry_record *r, int ctx, size_t *len)
{
	const struct scry_context_desc *d;
	const char *s;

	if (ctx < 0 || ctx >= SCRY_CTX_NR || l->ctx_off[ctx] < 0)
		return NULL;
	d = scry_context(ctx);
	if (d->type != SCRY_F_TEXT)
		return NULL;
	s = (const char *)r->bytes + l->ctx_off[ctx];
	*len = strnlen(s, d->count);
	return s;
}

const uint64_t *scry_record_callstack(const struct scry_record_layout *l, const struct scry_record *r, int ctx,
				      uint32_t *n)
{
	size_t off;

	if (ctx < 0 || ctx >= SCRY_CTX_NR || l->ctx_off[ctx] < 0 || scry_context(ctx)->type != SCRY_F_SEQ)
		return NULL;
	if (!stack_at(l, r->bytes, r->size, ctx, n, &off))
		return (const uint64_t *)(const void *)r->payload;   /* none: 0 frames */
	return (const uint64_t *)(const void *)(r->bytes + off);
}

size_t scry_record_compact(const struct scry_record_layout *l, const uint8_t *in, size_t size, uint8_t *out)
{
	size_t from = 0, to = 0, end, off, past = 0;

	if (size < l->payload_off)
		return 0;
	end = payload_end(l, in, size);
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		uint32_t n;

		if (l->ctx_off[c] < 0 || scry_context(c)->type != SCRY_F_SEQ)
			continue;
		memcpy(out + to, in + from, (size_t)l->ctx_off[c] - from);
		to += (size_t)l->ctx_off[c] - from;
		/* frames overlapping the previous stack's (never from the programs) are
		 * dropped: out stays within size bytes */
		if (stack_at(l, in, size, c, &n, &off) && off < past)
			n = 0;
		else if (n)
			past = off + 8 * (size_t)n;
		memcpy(out + to, &n, 4);
		memcpy(out + to + 4, in + off, 8 * (size_t)n);
		to += 4 + 8 * (size_t)n;
		from = (size_t)l->ctx_off[c] + 4;
	}
	memcpy(out + to, in + from, end - from);
	return to + end - from;
}

const char *scry_record_procname(const struct scry_record_layout *l, const struct scry_record *r, size_t *len)
{
	return scry_record_text(l, r, SCRY_CTX_PROCNAME, len);
}
