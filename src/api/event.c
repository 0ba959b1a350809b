/* event.c — libscry's events (see event.h): records decoded by the catalog
 * (scry_event_decode, catalog/record.h's contexts) and the accessors of scry.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/engine.h"
#include "api/event.h"
#include <scry/scry.h>

int scry_api_decoder_init(struct scry_api_decoder *d, struct scry_engine_session *s, unsigned chan, char *err,
			  size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->nevents = scry_session_events(s, chan, &d->events);
	for (size_t i = 0; i < d->nevents; i++)
		if (d->events[i] && d->events[i]->nfields > d->maxfields)
			d->maxfields = d->events[i]->nfields;
	if (!(d->vals = calloc(d->maxfields ? d->maxfields : 1, sizeof(*d->vals)))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	scry_record_layout_init(&d->layout, scry_session_ctx_mask(s, chan));
	return 0;
}

void scry_api_decoder_free(struct scry_api_decoder *d)
{
	free(d->vals);
	d->vals = NULL;
}

const struct scry_event *scry_api_decode(struct scry_api_decoder *d, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct scry_event *e = &d->e;

	memset(e, 0, sizeof(*e));
	if (scry_record_read(&d->layout, ev, size, &e->rec) || e->rec.id >= d->nevents || !d->events[e->rec.id] ||
	    scry_event_decode(d->events[e->rec.id], e->rec.payload, e->rec.payload_size, d->vals) < 0) {
		d->malformed++;
		return NULL;
	}
	e->kind = SCRY_EVENT_RECORD;
	e->ev = d->events[e->rec.id];
	e->layout = &d->layout;
	e->vals = d->vals;
	e->channel = d->channel;
	e->cpu = cpu;
	e->ts = e->rec.ts;
	return e;
}

const struct scry_event *scry_api_loss(struct scry_api_decoder *d, uint64_t n, uint64_t now)
{
	struct scry_event *e = &d->e;

	memset(e, 0, sizeof(*e));
	e->kind = SCRY_EVENT_LOSS;
	e->cpu = SCRY_CPU_NONE;
	e->ts = now;
	e->lost = n;
	return e;
}

enum scry_event_kind scry_event_kind(const struct scry_event *e)
{
	return e ? (enum scry_event_kind)e->kind : 0;
}

const char *scry_event_name(const struct scry_event *e)
{
	if (!e)
		return NULL;
	return e->kind == SCRY_EVENT_LOSS ? "scry_lost_events" : e->ev->name;
}

uint64_t scry_event_timestamp(const struct scry_event *e)
{
	return e ? e->ts : 0;
}

uint32_t scry_event_cpu(const struct scry_event *e)
{
	return e ? e->cpu : SCRY_CPU_NONE;
}

uint64_t scry_event_lost(const struct scry_event *e)
{
	return e ? e->lost : 0;
}

const char *scry_event_channel(const struct scry_event *e)
{
	return e ? e->channel : NULL;
}

unsigned scry_event_field_count(const struct scry_event *e)
{
	return e && e->ev ? e->ev->nfields : 0;
}

const char *scry_event_field_name(const struct scry_event *e, unsigned i)
{
	return e && e->ev && i < e->ev->nfields ? e->ev->fields[i].name : NULL;
}

/* The index of field name, or -1. */
static int field_index(const struct scry_event *e, const char *name)
{
	if (!e || !e->ev || !name)
		return -1;
	for (unsigned i = 0; i < e->ev->nfields; i++)
		if (!strcmp(e->ev->fields[i].name, name))
			return (int)i;
	return -1;
}

static enum scry_value_type value_type(enum scry_ftype t, bool is_signed)
{
	switch (t) {
	case SCRY_F_INT:
		return is_signed ? SCRY_VALUE_INT : SCRY_VALUE_UINT;
	case SCRY_F_STRING:
	case SCRY_F_TEXT:
		return SCRY_VALUE_STRING;
	default:
		return SCRY_VALUE_BYTES;
	}
}

enum scry_value_type scry_event_field_type(const struct scry_event *e, const char *name)
{
	int i = field_index(e, name);

	return i < 0 ? SCRY_VALUE_NONE : value_type(e->ev->fields[i].type, e->ev->fields[i].is_signed);
}

/* An integer value v of a signed or unsigned type as int64 or uint64: 0 or -ERANGE. */
static int int_value(uint64_t v, bool is_signed, int64_t *i, uint64_t *u)
{
	if (i) {
		if (!is_signed && v > INT64_MAX)
			return -ERANGE;
		*i = (int64_t)v;
	} else {
		if (is_signed && (int64_t)v < 0)
			return -ERANGE;
		*u = v;
	}
	return 0;
}

static int field_int(const struct scry_event *e, const char *name, int64_t *i, uint64_t *u)
{
	int k = field_index(e, name);

	if (k < 0)
		return -ENOENT;
	if (e->ev->fields[k].type != SCRY_F_INT || !(i || u))
		return -EINVAL;
	return int_value(e->vals[k].v, e->ev->fields[k].is_signed, i, u);
}

int scry_event_field_int(const struct scry_event *e, const char *name, int64_t *v)
{
	return v ? field_int(e, name, v, NULL) : -EINVAL;
}

int scry_event_field_uint(const struct scry_event *e, const char *name, uint64_t *v)
{
	return v ? field_int(e, name, NULL, v) : -EINVAL;
}

/* Text of at most n bytes, NUL-padded: its length. */
static size_t text_len(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);

	return z ? (size_t)(z - p) : n;
}

const char *scry_event_field_string(const struct scry_event *e, const char *name, size_t *len)
{
	int k = field_index(e, name);
	const struct scry_fieldval *v;
	size_t n;

	if (k < 0 || (e->ev->fields[k].type != SCRY_F_STRING && e->ev->fields[k].type != SCRY_F_TEXT))
		return NULL;
	v = &e->vals[k];
	if (!v->p)
		return NULL;
	n = e->ev->fields[k].type == SCRY_F_TEXT ? text_len(v->p, v->len) : v->len;
	/* a STRING is NUL-terminated in the record; a TEXT (char[N]) NUL-padded, and without
	 * its NUL when full (the kernel's texts never are): then refused, not read beyond */
	if (n >= v->len && e->ev->fields[k].type == SCRY_F_TEXT)
		return NULL;
	if (len)
		*len = n;
	return (const char *)v->p;
}

const void *scry_event_field_bytes(const struct scry_event *e, const char *name, size_t *len)
{
	int k = field_index(e, name);

	if (k < 0 || value_type(e->ev->fields[k].type, false) != SCRY_VALUE_BYTES)
		return NULL;
	if (len)
		*len = e->vals[k].len;
	return e->vals[k].p;
}

/* The context named name if the event carries it, else -1. */
static int context_id(const struct scry_event *e, const char *name)
{
	int c;

	if (!e || e->kind != SCRY_EVENT_RECORD || !name || (c = scry_context_by_name(name)) < 0 ||
	    !(e->layout->ctx_mask & (1ULL << c)))
		return -1;
	return c;
}

unsigned scry_event_context_count(const struct scry_event *e)
{
	return e && e->kind == SCRY_EVENT_RECORD ? (unsigned)__builtin_popcountll(e->layout->ctx_mask) : 0;
}

const char *scry_event_context_name(const struct scry_event *e, unsigned i)
{
	if (!e || e->kind != SCRY_EVENT_RECORD)
		return NULL;
	for (int c = 0; c < SCRY_CTX_NR; c++)
		if ((e->layout->ctx_mask & (1ULL << c)) && !i--)
			return scry_context(c)->name;
	return NULL;
}

enum scry_value_type scry_event_context_type(const struct scry_event *e, const char *name)
{
	int c = context_id(e, name);
	const struct scry_context_desc *d;

	if (c < 0)
		return SCRY_VALUE_NONE;
	d = scry_context(c);
	return value_type(d->type, d->is_signed);
}

int scry_event_context_int(const struct scry_event *e, const char *name, int64_t *v)
{
	int c = context_id(e, name);
	int64_t x;

	if (c < 0)
		return -ENOENT;
	if (!v || scry_context(c)->type != SCRY_F_INT || !scry_record_ctx(e->layout, &e->rec, c, &x))
		return -EINVAL;
	*v = x;
	return 0;
}

const char *scry_event_context_string(const struct scry_event *e, const char *name, size_t *len)
{
	int c = context_id(e, name);
	const char *t;
	size_t n;

	if (c < 0 || scry_context(c)->type != SCRY_F_TEXT || !(t = scry_record_text(e->layout, &e->rec, c, &n)) ||
	    !memchr(t, 0, scry_context(c)->count))
		return NULL;
	if (len)
		*len = n;
	return t;
}
