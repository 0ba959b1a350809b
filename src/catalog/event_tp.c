/* event_tp.c — generic tracepoints: their struct scry_event from the tracefs format (common_*
 * fields dropped; LTTng's event and field names, order and types; CTF types for the kernel's
 * C types, __data_loc/__rel_loc strings and arrays), and the BPF copy operations that record
 * one (scry_event_tp_ops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/tpformat.h"

struct elem_type {
	const char *name;
	uint8_t size;
	bool is_signed;
	uint8_t base;
};

static const struct elem_type elem_types[] = {
	{ "char", 1, false, 10 }, { "unsigned char", 1, false, 10 }, { "u8", 1, false, 10 },
	{ "__u8", 1, false, 10 }, { "uint8_t", 1, false, 10 }, { "bool", 1, false, 10 },
	{ "signed char", 1, true, 10 }, { "s8", 1, true, 10 }, { "__s8", 1, true, 10 },
	{ "int8_t", 1, true, 10 },
	{ "u16", 2, false, 10 }, { "__u16", 2, false, 10 }, { "unsigned short", 2, false, 10 },
	{ "uint16_t", 2, false, 10 }, { "s16", 2, true, 10 }, { "__s16", 2, true, 10 },
	{ "short", 2, true, 10 }, { "int16_t", 2, true, 10 },
	{ "u32", 4, false, 10 }, { "__u32", 4, false, 10 }, { "unsigned int", 4, false, 10 },
	{ "unsigned", 4, false, 10 }, { "uint32_t", 4, false, 10 },
	{ "int", 4, true, 10 }, { "s32", 4, true, 10 }, { "__s32", 4, true, 10 },
	{ "int32_t", 4, true, 10 }, { "pid_t", 4, true, 10 },
	{ "u64", 8, false, 10 }, { "__u64", 8, false, 10 }, { "unsigned long", 8, false, 10 },
	{ "unsigned long long", 8, false, 10 }, { "uint64_t", 8, false, 10 }, { "size_t", 8, false, 10 },
	{ "s64", 8, true, 10 }, { "__s64", 8, true, 10 }, { "long", 8, true, 10 },
	{ "long long", 8, true, 10 }, { "int64_t", 8, true, 10 }, { "loff_t", 8, true, 10 },
	{ "cpumask_t", 8, false, 16 },
};

/* Element type of a __data_loc/__rel_loc array; unknown types are opaque bytes. */
static struct elem_type elem_of(const struct tpformat_field *ff)
{
	struct elem_type bytes = { NULL, 1, false, 16 };

	if (ff->is_pointer)
		return (struct elem_type){ NULL, 8, false, 16 };
	for (size_t i = 0; i < sizeof(elem_types) / sizeof(elem_types[0]); i++)
		if (!strcmp(elem_types[i].name, ff->type))
			return elem_types[i];
	return bytes;
}

/* Kernel addresses stored as unsigned long: shown in hexadecimal. */
static bool is_address(const struct tpformat_field *ff)
{
	static const char *const names[] = { "call_site", "ip", "parent_ip", "caller", "function", "ptr" };
	size_t n = strlen(ff->name);

	if (ff->is_pointer)
		return true;
	if (strcmp(ff->type, "unsigned long"))
		return false;
	if ((n >= 4 && !strcmp(ff->name + n - 4, "addr")) || (n >= 7 && !strcmp(ff->name + n - 7, "address")))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(ff->name, names[i]))
			return true;
	return false;
}

static int add_tp_field(struct builder *b, const char *system, const char *event,
			const struct tpformat_field *ff, char *err, size_t errlen)
{
	const char *name = scry_lttng_field_name(system, event, ff->name), *tid_before;
	struct scry_field *f;

	if (ff->offset > UINT16_MAX || ff->size > UINT16_MAX || ff->offset + ff->size > UINT16_MAX) {
		snprintf(err, errlen, "field '%s' lies beyond 64 KiB of the record", ff->name);
		return -1;
	}
	if (ff->loc != TPF_PLAIN) {
		bool is_str = ff->array == TPF_ARRAY_DYN && !strcmp(ff->type, "char");
		enum scry_fsrc src = ff->loc == TPF_DATA_LOC ? SCRY_SRC_LOC : SCRY_SRC_REL;

		if (is_str) {
			if (!(f = scry_event_add(b, name, SCRY_F_STRING, 1, false)))
				goto nomem;
		} else {
			struct elem_type et = elem_of(ff);
			char *lname;
			int lidx = (int)b->ev->nfields;

			if (asprintf(&lname, "_%s_length", name) < 0)
				goto nomem;
			f = scry_event_add(b, lname, SCRY_F_INT, 4, false);
			free(lname);
			if (!f)
				goto nomem;
			f->src = SCRY_SRC_LEN;
			if (!(f = scry_event_add(b, name, SCRY_F_SEQ, et.size, et.is_signed)))
				goto nomem;
			f->base = et.base;
			f->length_field = lidx;
		}
		f->src = src;
		f->src_off = (uint16_t)ff->offset;
		f->src_size = (uint16_t)ff->size;
		return 0;
	}
	if (ff->array == TPF_ARRAY_DYN || ff->size == 0) {
		snprintf(err, errlen, "field '%s' has no fixed size (flexible array)", ff->name);
		return -1;
	}
	if ((tid_before = scry_lttng_tid_before(system, event)) && !strcmp(ff->name, tid_before)) {
		if (!(f = scry_event_add(b, "tid", SCRY_F_INT, 4, true)))   /* LTTng's: current's tid */
			goto nomem;
		f->conv = SCRY_CONV_TID;
	}
	if (ff->array != TPF_NOT_ARRAY && !strcmp(ff->type, "char") && scry_lttng_rwbs_flags(system, ff->name)) {
		f = scry_event_add(b, name, SCRY_F_INT, 4, false);   /* LTTng's RWBS_FLAG_* bits */
		if (f) {
			f->conv = SCRY_CONV_RWBS;
			f->base = 16;
		}
	} else if (ff->array != TPF_NOT_ARRAY && !strcmp(ff->type, "char")) {
		f = scry_event_add(b, name, SCRY_F_TEXT, 1, false);
		if (f)
			f->count = ff->size;
	} else if (ff->array > 0 && ff->size / (uint32_t)ff->array <= 8 &&
		   ((ff->size / (uint32_t)ff->array) & (ff->size / (uint32_t)ff->array - 1)) == 0) {
		f = scry_event_add(b, name, SCRY_F_ARRAY, (uint8_t)(ff->size / (uint32_t)ff->array), ff->is_signed);
		if (f) {
			f->count = (uint32_t)ff->array;
			f->base = ff->is_pointer ? 16 : 10;
		}
	} else if (ff->array == TPF_NOT_ARRAY && ff->size == 4 && scry_lttng_softirq_vec(system, event, ff->name)) {
		/* LTTng's irq_softirq: u8 vec, then the same byte as enum irq_softirq_names "name" */
		const char *const *labels;
		size_t nl = scry_lttng_softirq_names(&labels);

		if (!(f = scry_event_add(b, name, SCRY_F_INT, 1, false)))
			goto nomem;
		f->src = SCRY_SRC_FIXED;
		f->src_off = (uint16_t)ff->offset;
		f->src_size = 1;             /* the low byte (little-endian) */
		f = scry_event_add(b, "name", SCRY_F_INT, 1, false);
		if (f && !(f->enums = calloc(nl, sizeof(*f->enums))))
			goto nomem;
		for (size_t k = 0; f && k < nl; k++) {
			if (!(f->enums[k].name = strdup(labels[k])))
				goto nomem;
			f->enums[k].value = (int64_t)k;
			f->nenums++;
		}
		if (f) {
			f->src = SCRY_SRC_FIXED;
			f->src_off = (uint16_t)ff->offset;
			f->src_size = 1;
		}
		return f ? 0 : (snprintf(err, errlen, "out of memory"), -1);
	} else if (ff->array == TPF_NOT_ARRAY && (ff->size == 1 || ff->size == 2 || ff->size == 4 || ff->size == 8)) {
		unsigned narrow = scry_lttng_field_size(system, event, ff->name);

		if (narrow && narrow < ff->size) {   /* LTTng's narrower type: the low bytes */
			if (!(f = scry_event_add(b, name, SCRY_F_INT, (uint8_t)narrow, ff->is_signed)))
				goto nomem;
			f->src = SCRY_SRC_FIXED;
			f->src_off = (uint16_t)ff->offset;
			f->src_size = (uint16_t)narrow;
			return 0;
		}
		f = scry_event_add(b, name, SCRY_F_INT, (uint8_t)ff->size, ff->is_signed);
		if (f)
			f->base = is_address(ff) ? 16 : 10;
	} else {   /* odd-sized scalar or array of odd elements: raw bytes */
		f = scry_event_add(b, name, SCRY_F_ARRAY, 1, false);
		if (f) {
			f->count = ff->size;
			f->base = 16;
		}
	}
	if (!f)
		goto nomem;
	f->src = SCRY_SRC_FIXED;
	f->src_off = (uint16_t)ff->offset;
	f->src_size = (uint16_t)ff->size;
	if (f->type == SCRY_F_INT && f->size == 4 && f->is_signed)
		f->adjust = (int16_t)scry_lttng_field_adjust(system, event, ff->name);
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

struct scry_event *scry_event_from_format(const char *system, const char *name, const char *text,
					  size_t len, char *err, size_t errlen)
{
	struct tpformat fmt;
	struct builder b = { 0 };
	char perr[160];

	const char *const *order;
	size_t norder = 0;

	if (tpformat_parse(text, len, &fmt, perr, sizeof(perr)) < 0) {
		snprintf(err, errlen, "bad format file: %s", perr);
		return NULL;
	}
	if (!(b.ev = scry_event_new(scry_lttng_event_name(system, name), system, name, SCRY_EV_TRACEPOINT, -1))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* LTTng's order of the fields it orders (scry_lttng_field_order), then the others */
	order = scry_lttng_field_order(system, name, &norder);
	for (size_t k = 0; k < norder; k++)
		for (unsigned i = 0; i < fmt.nfields; i++)
			if (!fmt.fields[i].is_common && !strcmp(fmt.fields[i].name, order[k]) &&
			    add_tp_field(&b, system, name, &fmt.fields[i], err, errlen) < 0)
				goto fail;
	for (unsigned i = 0; i < fmt.nfields; i++) {
		bool ordered = false;

		for (size_t k = 0; k < norder; k++)
			ordered |= !strcmp(fmt.fields[i].name, order[k]);
		if (fmt.fields[i].is_common || ordered)
			continue;
		if (add_tp_field(&b, system, name, &fmt.fields[i], err, errlen) < 0)
			goto fail;
	}
	for (unsigned i = 0; i < b.ev->nfields; i++)
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(b.ev->fields[i].name, b.ev->fields[j].name)) {
				snprintf(err, errlen, "two fields named '%s'", b.ev->fields[i].name);
				goto fail;
			}
	tpformat_free(&fmt);
	return b.ev;
fail:
	tpformat_free(&fmt);
	scry_event_free(b.ev);
	return NULL;
}

int scry_event_tp_ops(const struct scry_event *ev, struct scry_tp_desc *out)
{
	unsigned n = 0;
	int copy = -1;     /* index of the COPY that adjacent fixed fields extend */

	memset(out, 0, sizeof(*out));
	if (!ev || ev->kind != SCRY_EV_TRACEPOINT)
		return -1;
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *f = &ev->fields[i];
		struct scry_tp_op op = { 0 };

		if (f->conv == SCRY_CONV_TID || f->conv == SCRY_CONV_RWBS) {
			if (n == SCRY_MAX_TP_OPS)
				return -1;
			out->ops[n++] = f->conv == SCRY_CONV_TID ?
				(struct scry_tp_op){ SCRY_OP_TID, 0, 4, 0 } :
				(struct scry_tp_op){ SCRY_OP_RWBS, f->src_off, f->src_size, 0 };
			copy = -1;
			continue;
		}
		switch (f->src) {
		case SCRY_SRC_FIXED:
			if (copy >= 0 && out->ops[copy].src_off + out->ops[copy].len == f->src_off &&
			    out->ops[copy].len + f->src_size <= SCRY_STR_MAX) {
				out->ops[copy].len = (uint16_t)(out->ops[copy].len + f->src_size);
			} else {
				if (n == SCRY_MAX_TP_OPS)
					return -1;
				copy = (int)n;
				out->ops[n++] = (struct scry_tp_op){ SCRY_OP_COPY, f->src_off, f->src_size, 0 };
			}
			if (f->adjust) {   /* applied after the COPY that holds the field */
				if (n == SCRY_MAX_TP_OPS)
					return -1;
				out->ops[n++] = (struct scry_tp_op){ SCRY_OP_ADD32, f->src_off, 4, (uint16_t)f->adjust };
			}
			continue;
		case SCRY_SRC_LEN:
			continue;   /* written by the SEQ op that follows */
		case SCRY_SRC_LOC:
		case SCRY_SRC_REL:
			if (f->type == SCRY_F_STRING)
				op.kind = f->src == SCRY_SRC_LOC ? SCRY_OP_STR_LOC : SCRY_OP_STR_REL;
			else if (f->type == SCRY_F_SEQ)
				op.kind = f->src == SCRY_SRC_LOC ? SCRY_OP_SEQ_LOC : SCRY_OP_SEQ_REL;
			else
				return -1;
			op.src_off = f->src_off;
			op.len = SCRY_STR_MAX;
			op.elem = f->type == SCRY_F_SEQ ? f->size : 0;
			break;
		default:
			return -1;
		}
		if (n == SCRY_MAX_TP_OPS)
			return -1;
		out->ops[n++] = op;
		copy = -1;
	}
	out->nops = (uint16_t)n;
	/* sched_switch concerns next as much as current (prev): SCRY_TP_NEXT_TASK */
	if (!strcmp(ev->system, "sched") && !strcmp(ev->tp, "sched_switch"))
		for (unsigned i = 0; i < ev->nfields; i++)
			if (!strcmp(ev->fields[i].name, "next_tid") && ev->fields[i].src == SCRY_SRC_FIXED &&
			    ev->fields[i].src_size == 4) {
				out->flags |= SCRY_TP_NEXT_TASK;
				out->task_off = ev->fields[i].src_off;
			}
	return (int)n;
}
