/* event.c — builds struct scry_event: generic tracepoints from their tracefs format
 * (common_* dropped, LTTng names, CTF types), syscall entry/exit events, the built-ins
 * (syscall_*_unknown, sched_process_fork, signal_deliver and signal_generate in lttng-modules'
 * layout), and the BPF copy
 * operations of a generic tracepoint (scry_event_tp_ops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/statedump.h"
#include "catalog/tpformat.h"

struct builder {
	struct scry_event *ev;
	unsigned cap;
};

void scry_event_free(struct scry_event *ev)
{
	if (!ev)
		return;
	for (unsigned i = 0; i < ev->nfields; i++) {
		free(ev->fields[i].name);
		for (unsigned k = 0; k < ev->fields[i].nenums; k++)
			free(ev->fields[i].enums[k].name);
		free(ev->fields[i].enums);
	}
	free(ev->fields);
	free(ev->name);
	free(ev->system);
	free(ev->tp);
	free(ev->emf_uri);
	free(ev);
}

static struct scry_event *event_new(const char *name, const char *system, const char *tp,
				    enum scry_ekind kind, int nr)
{
	struct scry_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->kind = kind;
	ev->nr = nr;
	ev->name = strdup(name);
	ev->system = strdup(system);
	ev->tp = strdup(tp);
	if (!ev->name || !ev->system || !ev->tp) {
		scry_event_free(ev);
		return NULL;
	}
	return ev;
}

/* Append a field named `name` (escaped into a TSDL identifier); NULL on no memory. */
static struct scry_field *add(struct builder *b, const char *name, enum scry_ftype type, uint8_t size,
			      bool is_signed)
{
	struct scry_field *f;

	if (b->ev->nfields == b->cap) {
		unsigned ncap = b->cap ? b->cap * 2 : 8;
		struct scry_field *n = realloc(b->ev->fields, ncap * sizeof(*n));

		if (!n)
			return NULL;
		b->ev->fields = n;
		b->cap = ncap;
	}
	f = &b->ev->fields[b->ev->nfields];
	memset(f, 0, sizeof(*f));
	if (!(f->name = scry_ctf_ident(name)))
		return NULL;
	b->ev->nfields++;
	f->type = type;
	f->size = size;
	f->is_signed = is_signed;
	f->base = 10;
	f->length_field = -1;
	f->arg = -1;
	f->src = SCRY_SRC_NONE;
	return f;
}

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
			if (!(f = add(b, name, SCRY_F_STRING, 1, false)))
				goto nomem;
		} else {
			struct elem_type et = elem_of(ff);
			char *lname;
			int lidx = (int)b->ev->nfields;

			if (asprintf(&lname, "_%s_length", name) < 0)
				goto nomem;
			f = add(b, lname, SCRY_F_INT, 4, false);
			free(lname);
			if (!f)
				goto nomem;
			f->src = SCRY_SRC_LEN;
			if (!(f = add(b, name, SCRY_F_SEQ, et.size, et.is_signed)))
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
		if (!(f = add(b, "tid", SCRY_F_INT, 4, true)))   /* LTTng's: current's tid */
			goto nomem;
		f->conv = SCRY_CONV_TID;
	}
	if (ff->array != TPF_NOT_ARRAY && !strcmp(ff->type, "char") && scry_lttng_rwbs_flags(system, ff->name)) {
		f = add(b, name, SCRY_F_INT, 4, false);   /* LTTng's RWBS_FLAG_* bits */
		if (f) {
			f->conv = SCRY_CONV_RWBS;
			f->base = 16;
		}
	} else if (ff->array != TPF_NOT_ARRAY && !strcmp(ff->type, "char")) {
		f = add(b, name, SCRY_F_TEXT, 1, false);
		if (f)
			f->count = ff->size;
	} else if (ff->array > 0 && ff->size / (uint32_t)ff->array <= 8 &&
		   ((ff->size / (uint32_t)ff->array) & (ff->size / (uint32_t)ff->array - 1)) == 0) {
		f = add(b, name, SCRY_F_ARRAY, (uint8_t)(ff->size / (uint32_t)ff->array), ff->is_signed);
		if (f) {
			f->count = (uint32_t)ff->array;
			f->base = ff->is_pointer ? 16 : 10;
		}
	} else if (ff->array == TPF_NOT_ARRAY && ff->size == 4 && scry_lttng_softirq_vec(system, event, ff->name)) {
		/* LTTng's irq_softirq: u8 vec, then the same byte as enum irq_softirq_names "name" */
		const char *const *labels;
		size_t nl = scry_lttng_softirq_names(&labels);

		if (!(f = add(b, name, SCRY_F_INT, 1, false)))
			goto nomem;
		f->src = SCRY_SRC_FIXED;
		f->src_off = (uint16_t)ff->offset;
		f->src_size = 1;             /* the low byte (little-endian) */
		f = add(b, "name", SCRY_F_INT, 1, false);
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
			if (!(f = add(b, name, SCRY_F_INT, (uint8_t)narrow, ff->is_signed)))
				goto nomem;
			f->src = SCRY_SRC_FIXED;
			f->src_off = (uint16_t)ff->offset;
			f->src_size = (uint16_t)narrow;
			return 0;
		}
		f = add(b, name, SCRY_F_INT, (uint8_t)ff->size, ff->is_signed);
		if (f)
			f->base = is_address(ff) ? 16 : 10;
	} else {   /* odd-sized scalar or array of odd elements: raw bytes */
		f = add(b, name, SCRY_F_ARRAY, 1, false);
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
	if (!(b.ev = event_new(scry_lttng_event_name(system, name), system, name, SCRY_EV_TRACEPOINT, -1))) {
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

/* A sequence field `name` preceded by its uint32 length field `_name_length`. */
static struct scry_field *add_seq(struct builder *b, const char *name, enum scry_ftype type, uint8_t size)
{
	struct scry_field *f;
	char lname[160];
	int lidx = (int)b->ev->nfields;

	snprintf(lname, sizeof(lname), "_%s_length", name);
	if (!add(b, lname, SCRY_F_INT, 4, false) || !(f = add(b, name, type, size, false)))
		return NULL;
	f->length_field = lidx;
	return f;
}

/* "_NAME_what", an integer field about argument arg (see enum scry_faux). */
static struct scry_field *add_aux(struct builder *b, const char *name, const char *what, uint8_t size,
				  unsigned arg, enum scry_faux aux)
{
	struct scry_field *f;
	char fname[160];

	snprintf(fname, sizeof(fname), "_%s_%s", name, what);
	if (!(f = add(b, fname, SCRY_F_INT, size, false)))
		return NULL;
	f->base = aux == SCRY_AUX_PTR ? 16 : 10;
	f->arg = (int)arg;
	f->aux = aux;
	return f;
}

static struct scry_sc_op *add_op(struct scry_event *ev, uint8_t kind, unsigned arg)
{
	struct scry_sc_op *op = &ev->ops[ev->nops++];

	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->arg = (uint8_t)arg;
	return op;
}

/* The length of a SEQ/IOV operation from its argument's LEN (max: the elements kept). */
static void op_len(struct scry_sc_op *op, const struct scry_argspec *a, unsigned max)
{
	switch (a->len) {
	case SCRY_LEN_ARG:
		op->len_src = SCRY_SLEN_ARG;
		op->len_arg = a->len_arg;
		break;
	case SCRY_LEN_RET:
		op->len_src = SCRY_SLEN_RET;
		break;
	case SCRY_LEN_UPTR:
		op->len_src = SCRY_SLEN_UPTR;
		op->len_arg = a->len_arg;
		break;
	case SCRY_LEN_CONST:
		op->len_src = SCRY_SLEN_CONST;
		if (a->len_const < max)
			op->max = (uint16_t)a->len_const;
		break;
	default:
		op->len_src = SCRY_SLEN_CONST;
		break;
	}
}

/* A field `name` = uint32 length + elements of struct sd, the argument i's capture. */
static struct scry_field *add_structs(struct builder *b, const char *name, unsigned i, const char *type)
{
	const struct scry_struct_desc *sd = scry_struct_find(type);
	struct scry_field *f;

	if (!sd || !(f = add_seq(b, name, SCRY_F_STRUCTSEQ, 1)))
		return NULL;
	f->arg = (int)i;
	f->sdesc = sd;
	f->base = 16;
	return f;
}

/* The iovecs of a msghdr (nested: pointer and count in the msghdr read just before) or of
 * an argument; with --snaplen, each with its bytes (on exit, as many as the call read). */
static void add_iov_op(struct builder *b, const struct scry_argspec *a, unsigned i,
		       const struct scry_capture_opts *o, bool at_exit, bool nested)
{
	unsigned max = o->max_elems;
	struct scry_sc_op *op;

	if (!o->snaplen && max > SCRY_SEQ_MAX / 16)
		max = SCRY_SEQ_MAX / 16;
	if (max > 0xffff)
		max = 0xffff;
	op = add_op(b->ev, o->snaplen ? SCRY_SOP_IOV : SCRY_SOP_SEQ, i);
	op->elem = (uint16_t)(o->snaplen ? o->snaplen : 16);
	op->max = (uint16_t)max;
	if (o->snaplen && at_exit)
		op->flags |= SCRY_SOPF_RETDATA;
	if (nested) {
		op->flags |= SCRY_SOPF_NESTED;
		op->ptr_off = 16;                        /* msg_iov */
		op->len_src = SCRY_SLEN_FIELD64;
		op->len_arg = 24;                        /* msg_iovlen */
	} else {
		op_len(op, a, max);
	}
}

/* msghdr: the struct (one element), then nested in it msg_name's bytes and the iovecs.
 * On entry of an in-out msghdr (recvmsg), the struct alone. */
static bool add_msghdr(struct builder *b, const struct scry_syscall *sc, unsigned i,
		       const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	bool alone = !at_exit && a->dir == SCRY_DIR_INOUT;
	const char *type = alone ? "msghdr" : o->snaplen ? "msghdr_data" : "msghdr_iov";
	struct scry_sc_op *op;

	if (b->ev->nops + 3 > SCRY_MAX_SC_OPS)
		return false;
	if (!add_structs(b, sc->args[i].name, i, type)) {
		*failed = true;
		return false;
	}
	op = add_op(b->ev, SCRY_SOP_SEQ, i);
	op->elem = 56;
	op->max = 1;
	op->len_src = SCRY_SLEN_CONST;
	if (at_exit)
		op->flags |= SCRY_SOPF_OK_ONLY;
	if (alone)
		return true;
	op = add_op(b->ev, SCRY_SOP_SEQ, i);     /* msg_name, msg_namelen bytes (at most 128) */
	op->flags = SCRY_SOPF_NESTED;
	op->ptr_off = 0;
	op->len_src = SCRY_SLEN_FIELD32;
	op->len_arg = 8;
	op->elem = 1;
	op->max = 128;
	add_iov_op(b, a, i, o, at_exit, true);
	return true;
}

/* Kinds with operations of their own: iovec arrays, msghdr, fd sets, directory entries. */
static bool add_special(struct builder *b, const struct scry_syscall *sc, unsigned i,
			const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	const char *name = sc->args[i].name;
	struct scry_field *f;
	struct scry_sc_op *op;

	switch (a->kind) {
	case SCRY_A_IOVEC:
		if (!(f = add_structs(b, name, i, o->snaplen ? "iovec_data" : "iovec")))
			break;
		add_iov_op(b, a, i, o, at_exit, false);
		return true;
	case SCRY_A_MSGHDR:
		return add_msghdr(b, sc, i, o, at_exit, failed);
	case SCRY_A_FDSET:          /* longs holding nfds bits, at most 4096 descriptors */
		if (!(f = add_seq(b, name, SCRY_F_SEQ, 8)))
			break;
		f->arg = (int)i;
		f->base = 16;
		op = add_op(b->ev, SCRY_SOP_SEQ, i);
		op->elem = 8;
		op->max = 64;
		op->len_src = SCRY_SLEN_ARG_BITS;
		op->len_arg = a->len_arg;
		if (at_exit)
			op->flags |= SCRY_SOPF_OK_ONLY;
		return true;
	case SCRY_A_DIRENTS:
		if (!(f = add_structs(b, name, i, "dirents")))
			break;
		op = add_op(b->ev, SCRY_SOP_DIRENTS, i);
		op->max = SCRY_DIRENTS_MAX;
		op_len(op, a, SCRY_DIRENTS_MAX);
		op->flags |= SCRY_SOPF_OK_ONLY;
		return true;
	default:
		return false;
	}
	*failed = true;
	return false;
}

/* A captured argument (a direction kind, or strv) as a field written by an operation;
 * false when it cannot be captured with these options (then it stays a plain pointer). */
static bool add_capture(struct builder *b, const struct scry_syscall *sc, unsigned i,
			const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	const char *name = sc->args[i].name;
	const struct scry_struct_desc *sd = NULL;
	struct scry_field *f;
	struct scry_sc_op *op;
	unsigned elem = 1, max;

	if (a->kind == SCRY_A_STRV) {   /* the layout of SCRY_SOP_STRV */
		if (!add_aux(b, name, "ptr", 8, i, SCRY_AUX_PTR) || !add_aux(b, name, "count", 4, i, SCRY_AUX_COUNT) ||
		    !(f = add_seq(b, name, SCRY_F_STRSEQ, 1)))
			goto nomem;
		f->arg = (int)i;
		op = add_op(b->ev, SCRY_SOP_STRV, i);
		op->elem = (uint16_t)(o->strsize ? o->strsize + 2 : 1024);
		op->max = SCRY_STRV_MAX;
		return true;
	}
	switch (a->kind) {
	case SCRY_A_BUF:
		if (a->set && !strcmp(a->set, "path")) {
			max = SCRY_SEQ_MAX;     /* a path: whole (PATH_MAX) */
			break;
		}
		if (!o->snaplen)
			return false;
		max = o->snaplen;
		break;
	case SCRY_A_SOCKADDR:
		max = 128;
		break;
	case SCRY_A_STRUCT:
	case SCRY_A_ARRAY:
		if (!(sd = scry_struct_find(a->set)) || !sd->size || sd->size > SCRY_SEQ_MAX)
			return false;
		elem = sd->size;
		max = a->kind == SCRY_A_STRUCT ? 1 : o->max_elems;
		break;
	default:
		return add_special(b, sc, i, o, at_exit, failed);
	}
	if (max * elem > SCRY_SEQ_MAX)
		max = SCRY_SEQ_MAX / elem;
	if (!max)
		return false;
	if (!(f = add_seq(b, name, sd ? SCRY_F_STRUCTSEQ : SCRY_F_SEQ, 1)))
		goto nomem;
	f->arg = (int)i;
	f->sdesc = sd;
	f->base = 16;
	op = add_op(b->ev, SCRY_SOP_SEQ, i);
	op->elem = (uint16_t)elem;
	op->max = (uint16_t)max;
	if (at_exit)
		op->flags |= SCRY_SOPF_OK_ONLY;
	if (a->kind == SCRY_A_STRUCT)
		op->len_src = SCRY_SLEN_CONST;
	else
		op_len(op, a, max);
	return true;
nomem:
	*failed = true;
	return false;
}

static bool captured_at(const struct scry_argspec *a, bool at_exit)
{
	if (a->kind == SCRY_A_STRV)
		return !at_exit;
	if (!scry_akind_captures(a->kind))
		return false;
	if (at_exit)
		return a->dir == SCRY_DIR_OUT || a->dir == SCRY_DIR_INOUT;
	return a->dir == SCRY_DIR_IN || a->dir == SCRY_DIR_INOUT;
}

struct scry_event *scry_event_syscall_entry(const struct scry_syscall *sc, bool args_known,
					    const struct scry_capture_opts *o)
{
	struct builder b = { 0 };
	bool failed = false, uses_ops = false;
	char name[128];

	snprintf(name, sizeof(name), "syscall_entry_%s", sc->name);
	if (!(b.ev = event_new(name, "syscalls", sc->name, SCRY_EV_SYSCALL_ENTRY, sc->nr)))
		return NULL;
	if (!args_known) {   /* six raw registers, as syscall_entry_unknown records them */
		for (int i = 0; i < SCRY_MAX_ARGS; i++) {
			struct scry_field *f;
			char an[8];

			snprintf(an, sizeof(an), "arg%d", i);
			if (!(f = add(&b, an, SCRY_F_INT, 8, false)))
				goto fail;
			f->base = 16;
		}
		b.ev->nargs = SCRY_MAX_ARGS;
		return b.ev;
	}
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
		if (captured_at(&sc->spec[i], false))
			uses_ops = true;
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++) {
		const struct scry_syscall_arg *a = &sc->args[i];
		const struct scry_argspec *sp = &sc->spec[i];
		struct scry_field *f;

		if (uses_ops && captured_at(sp, false)) {
			if (add_capture(&b, sc, i, o, false, &failed))
				continue;
			if (failed)
				goto fail;
		}
		if (sp->kind == SCRY_A_PATH || sp->kind == SCRY_A_STR) {
			if (!(f = add(&b, a->name, SCRY_F_STRING, 1, false)))
				goto fail;
			b.ev->str_mask |= 1u << i;
			add_op(b.ev, SCRY_SOP_STR, i);
			b.ev->ops[b.ev->nops - 1].max = (uint16_t)(sp->kind == SCRY_A_STR && o->strsize ?
								   o->strsize + 2 : SCRY_STR_MAX);
		} else {
			if (!(f = add(&b, a->name, SCRY_F_INT, 8, a->is_signed)))
				goto fail;
			f->base = a->is_pointer ? 16 : 10;
			add_op(b.ev, SCRY_SOP_INT, i);
			if (a->size <= 4 && a->is_signed) {
				b.ev->s32_mask |= 1u << i;
				b.ev->ops[b.ev->nops - 1].flags = SCRY_SOPF_S32;
			} else if (a->size <= 4) {
				b.ev->u32_mask |= 1u << i;
				b.ev->ops[b.ev->nops - 1].flags = SCRY_SOPF_U32;
			}
		}
		f->arg = (int)i;
		b.ev->nargs++;
	}
	if (!uses_ops)
		b.ev->nops = 0;   /* the fixed layout: ints and strings */
	return b.ev;
fail:
	scry_event_free(b.ev);
	return NULL;
}

/* Calls returning a descriptor that no argument names (a socket, an anonymous inode...):
 * their exit records what the descriptor is (SCRY_SOP_FILE), as it was then. */
static bool returns_file(const char *name)
{
	static const char *const calls[] = {
		"socket", "accept", "accept4", "epoll_create", "epoll_create1", "eventfd", "eventfd2",
		"signalfd", "signalfd4", "timerfd_create", "inotify_init", "inotify_init1", "memfd_create",
		"memfd_secret", "pidfd_open", "pidfd_getfd", "fanotify_init", "userfaultfd",
		"perf_event_open", "open_by_handle_at", "io_uring_setup",
	};

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(calls[i], name))
			return true;
	return false;
}

static struct scry_field *add_text(struct builder *b, const char *name, uint32_t count);

/* The int[2] argument of pipe, pipe2 and socketpair, or -1. */
static int fd_pair_arg(const struct scry_syscall *sc)
{
	if (strcmp(sc->name, "pipe") && strcmp(sc->name, "pipe2") && strcmp(sc->name, "socketpair"))
		return -1;
	for (unsigned i = 0; i < sc->nargs; i++)
		if (sc->spec[i].kind == SCRY_A_ARRAY && sc->spec[i].dir == SCRY_DIR_OUT)
			return (int)i;
	return -1;
}

/* PREFIX_mode (octal), PREFIX_ino, PREFIX_name: one SCRY_SOP_FILE record. */
static bool add_file_fields(struct builder *b, const char *prefix)
{
	char n[3][32];
	struct scry_field *f;

	snprintf(n[0], sizeof(n[0]), "%s_mode", prefix);
	snprintf(n[1], sizeof(n[1]), "%s_ino", prefix);
	snprintf(n[2], sizeof(n[2]), "%s_name", prefix);
	if (!(f = add(b, n[0], SCRY_F_INT, 4, false)))
		return false;
	f->base = 8;
	return add(b, n[1], SCRY_F_INT, 8, false) && add_text(b, n[2], SCRY_FILE_NAME);
}

struct scry_event *scry_event_syscall_exit(const struct scry_syscall *sc, const struct scry_capture_opts *o)
{
	struct builder b = { 0 };
	int pair;
	bool failed = false;
	char name[128];

	snprintf(name, sizeof(name), "syscall_exit_%s", sc->name);
	if (!(b.ev = event_new(name, "syscalls", sc->name, SCRY_EV_SYSCALL_EXIT, sc->nr)))
		return NULL;
	if (!add(&b, "ret", SCRY_F_INT, 8, true))
		goto fail;
	add_op(b.ev, SCRY_SOP_RET, 0);
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
		if (captured_at(&sc->spec[i], true) && !add_capture(&b, sc, i, o, true, &failed) && failed)
			goto fail;
	if (returns_file(sc->name)) {   /* SCRY_SOP_FILE: what the new descriptor is */
		if (!add_file_fields(&b, "fd"))
			goto fail;
		add_op(b.ev, SCRY_SOP_FILE, 0);
	} else if ((pair = fd_pair_arg(sc)) >= 0) {   /* ... the two of a pipe */
		if (!add_file_fields(&b, "fd0") || !add_file_fields(&b, "fd1"))
			goto fail;
		add_op(b.ev, SCRY_SOP_FILE, (unsigned)pair)->flags = SCRY_SOPF_PAIR;
	}
	if (b.ev->nops == 1)
		b.ev->nops = 0;   /* ret only: the fixed layout */
	return b.ev;
fail:
	scry_event_free(b.ev);
	return NULL;
}

static struct scry_field *add_text(struct builder *b, const char *name, uint32_t count)
{
	struct scry_field *f = add(b, name, SCRY_F_TEXT, 1, false);

	if (f)
		f->count = count;
	return f;
}

struct scry_event *scry_event_builtin(const char *name)
{
	struct builder b = { 0 };
	struct scry_field *f;

	if (!strcmp(name, "syscall_entry_unknown")) {
		if (!(b.ev = event_new(name, "raw_syscalls", "sys_enter", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!add(&b, "id", SCRY_F_INT, 8, true) || !(f = add(&b, "args", SCRY_F_ARRAY, 8, false)))
			goto fail;
		f->count = SCRY_MAX_ARGS;
		f->base = 16;
	} else if (!strcmp(name, "syscall_exit_unknown")) {
		if (!(b.ev = event_new(name, "raw_syscalls", "sys_exit", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!add(&b, "id", SCRY_F_INT, 8, true) || !add(&b, "ret", SCRY_F_INT, 8, true))
			goto fail;
	} else if (!strcmp(name, "sched_process_fork")) {
		/* lttng-modules sched.h: ctf_array_text parent_comm, pid_t parent_tid, parent_pid,
		 * unsigned int parent_ns_inum, child_comm, child_tid,
		 * ctf_sequence(pid_t, vtids, ..., u8 length), child_pid, unsigned int child_ns_inum */
		if (!(b.ev = event_new(name, "sched", "sched_process_fork", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!add_text(&b, "parent_comm", SCRY_COMM_LEN) || !add(&b, "parent_tid", SCRY_F_INT, 4, true) ||
		    !add(&b, "parent_pid", SCRY_F_INT, 4, true) || !add(&b, "parent_ns_inum", SCRY_F_INT, 4, false) ||
		    !add_text(&b, "child_comm", SCRY_COMM_LEN) || !add(&b, "child_tid", SCRY_F_INT, 4, true) ||
		    !add(&b, "_vtids_length", SCRY_F_INT, 1, false) ||
		    !(f = add(&b, "vtids", SCRY_F_SEQ, 4, true)))
			goto fail;
		f->length_field = (int)b.ev->nfields - 2;
		if (!add(&b, "child_pid", SCRY_F_INT, 4, true) || !add(&b, "child_ns_inum", SCRY_F_INT, 4, false))
			goto fail;
	} else if (!strcmp(name, "signal_deliver") || !strcmp(name, "signal_generate")) {
		/* lttng-modules signal.h, deliver: int sig, errno, code; unsigned long sa_handler,
		 * sa_flags; generate: int sig, errno, code; ctf_array_text comm; pid_t pid; int
		 * group, result.  Then scry's: generate's target tgid, and for both the views of the
		 * siginfo union (src/bpf/signals.bpf.h): pid and uid (kill, queue, child), status,
		 * utime and stime (child), addr (fault), value (queue, timer) */
		static const struct { const char *name; uint8_t size; bool is_signed; uint8_t base; } head[] = {
			{ "sig", 4, true, 10 }, { "errno", 4, true, 10 }, { "code", 4, true, 10 },
		}, deliver[] = {
			{ "sa_handler", 8, false, 16 }, { "sa_flags", 8, false, 16 },
		}, generate[] = {
			{ "pid", 4, true, 10 }, { "group", 4, true, 10 }, { "result", 4, true, 10 },
			{ "tgid", 4, true, 10 },
		}, views[] = {
			{ "si_pid", 4, true, 10 }, { "si_uid", 4, false, 10 }, { "si_status", 4, true, 10 },
			{ "si_utime", 8, true, 10 }, { "si_stime", 8, true, 10 }, { "si_addr", 8, false, 16 },
			{ "si_value", 8, false, 16 },
		};
		bool gen = !strcmp(name, "signal_generate");
		const struct { const void *v; size_t n; } parts[] = {
			{ head, 3 }, { gen ? (const void *)generate : (const void *)deliver, gen ? 4 : 2 }, { views, 7 },
		};

		if (!(b.ev = event_new(name, "signal", name, SCRY_EV_BUILTIN, -1)))
			return NULL;
		for (size_t k = 0; k < 3; k++)
			for (size_t i = 0; i < parts[k].n; i++) {
				const typeof(head[0]) *d = (const typeof(head[0]) *)parts[k].v + i;

				if (gen && k == 1 && i == 0 && !add_text(&b, "comm", SCRY_COMM_LEN))
					goto fail;
				if (!(f = add(&b, d->name, SCRY_F_INT, d->size, d->is_signed)))
					goto fail;
				f->base = d->base;
			}
	} else if (scry_sd_find(name) >= 0) {
		const struct scry_sd_spec *sp = &scry_sd_specs[scry_sd_find(name)];

		if (!(b.ev = event_new(name, "lttng_statedump", name, SCRY_EV_BUILTIN, -1)))
			return NULL;
		for (unsigned i = 0; i < sp->nfields; i++) {
			if (!(f = add(&b, sp->fields[i].name, sp->fields[i].type, sp->fields[i].size,
				      sp->fields[i].is_signed)))
				goto fail;
			f->base = sp->fields[i].base;
			f->count = sp->fields[i].count;
		}
	} else {
		return NULL;
	}
	return b.ev;
fail:
	scry_event_free(b.ev);
	return NULL;
}

bool scry_event_reads_strings(const struct scry_event *ev)
{
	for (unsigned i = 0; i < ev->nops; i++)
		if (ev->ops[i].kind == SCRY_SOP_STR || ev->ops[i].kind == SCRY_SOP_STRV)
			return true;
	return ev->str_mask != 0;
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
