/* decode.c — reading an event's payload back from the bytes scry's BPF side wrote, with the
 * catalog's own description of the event (live mode: `scry trace`).  Recorded traces are
 * read through their CTF metadata instead (src/view). */
#include <string.h>
#include "catalog/catalog.h"

/* Bytes of n elements of a struct with tails (variable size) at p. */
static int var_elems(const struct scry_struct_desc *d, const uint8_t *p, size_t avail, uint64_t n,
		     uint64_t *bytes)
{
	size_t pos = 0, e;

	for (uint64_t k = 0; k < n; k++) {
		if (!(e = scry_struct_span(d, p + pos, avail - pos, NULL)))
			return -1;
		pos += e;
	}
	*bytes = pos;
	return 0;
}

int scry_event_decode(const struct scry_event *ev, const uint8_t *p, size_t size, struct scry_fieldval *vals)
{
	size_t pos = 0;

	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *f = &ev->fields[i];
		struct scry_fieldval *v = &vals[i];
		uint64_t n = 0, bytes;

		memset(v, 0, sizeof(*v));
		v->p = p + pos;
		switch (f->type) {
		case SCRY_F_INT:
			if (size - pos < f->size)
				return -1;
			memcpy(&n, p + pos, f->size);
			if (f->is_signed && f->size < 8 && (n >> (f->size * 8 - 1)) & 1)
				n |= ~0ULL << (f->size * 8);
			v->v = n;
			v->len = f->size;
			pos += f->size;
			continue;
		case SCRY_F_STRING: {
			const uint8_t *nul = memchr(p + pos, 0, size - pos);

			if (!nul)
				return -1;
			v->len = (uint32_t)(nul - (p + pos));
			pos += v->len + 1;
			continue;
		}
		case SCRY_F_STRSEQ:
			if (f->length_field < 0 || (unsigned)f->length_field >= i)
				return -1;
			v->n = (uint32_t)vals[f->length_field].v;
			for (uint32_t k = 0; k < v->n; k++) {
				const uint8_t *nul = memchr(p + pos, 0, size - pos);

				if (!nul)
					return -1;
				pos = (size_t)(nul - p) + 1;
			}
			v->len = (uint32_t)(p + pos - v->p);
			continue;
		case SCRY_F_TEXT:
		case SCRY_F_ARRAY:
			n = f->count;
			bytes = n * f->size;
			break;
		case SCRY_F_SEQ:
		case SCRY_F_STRUCTSEQ:
			if (f->length_field < 0 || (unsigned)f->length_field >= i)
				return -1;
			n = vals[f->length_field].v;
			if (f->type == SCRY_F_STRUCTSEQ && f->sdesc && f->sdesc->ntails) {
				if (var_elems(f->sdesc, p + pos, size - pos, n, &bytes) < 0)
					return -1;
				break;
			}
			bytes = n * (f->type == SCRY_F_SEQ ? f->size : f->sdesc ? f->sdesc->size : 0);
			break;
		default:
			return -1;
		}
		if (bytes > size - pos)
			return -1;
		v->n = (uint32_t)n;
		v->len = (uint32_t)bytes;
		pos += bytes;
	}
	return (int)pos;
}
