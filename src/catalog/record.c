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

const char *scry_record_procname(const struct scry_record_layout *l, const struct scry_record *r, size_t *len)
{
	return scry_record_text(l, r, SCRY_CTX_PROCNAME, len);
}
