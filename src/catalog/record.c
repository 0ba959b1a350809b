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
	r->payload_size = size - l->payload_off;
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
	uint32_t len;

	if (ctx < 0 || ctx >= SCRY_CTX_NR || l->ctx_off[ctx] < 0 || scry_context(ctx)->type != SCRY_F_SEQ)
		return NULL;
	memcpy(&len, r->bytes + l->ctx_off[ctx], 4);
	*n = len < SCRY_CALLSTACK_SLOTS ? len : SCRY_CALLSTACK_SLOTS;
	return (const uint64_t *)(const void *)(r->bytes + l->ctx_off[ctx] + 4);
}

size_t scry_record_compact(const struct scry_record_layout *l, const uint8_t *in, size_t size, uint8_t *out)
{
	size_t from = 0, to = 0;

	if (size < l->payload_off)
		return 0;
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		uint32_t len;
		size_t keep;

		if (l->ctx_off[c] < 0 || scry_context(c)->type != SCRY_F_SEQ)
			continue;
		memcpy(&len, in + l->ctx_off[c], 4);
		if (len > SCRY_CALLSTACK_SLOTS)
			len = SCRY_CALLSTACK_SLOTS;
		keep = (size_t)l->ctx_off[c] + 4 + 8 * (size_t)len;
		memmove(out + to, in + from, keep - from);
		to += keep - from;
		from = (size_t)l->ctx_off[c] + scry_context_size(1ULL << c);
	}
	memmove(out + to, in + from, size - from);
	return to + size - from;
}

const char *scry_record_procname(const struct scry_record_layout *l, const struct scry_record *r, size_t *len)
{
	return scry_record_text(l, r, SCRY_CTX_PROCNAME, len);
}
