/* event_syscall.c — syscall entry and exit events: their fields from the syscall's argument
 * specs (registers as integers, strings, and the memory captured through BPF operations:
 * buffers, structs, iovecs, msghdrs, fd sets, directory entries, argv-like string arrays),
 * the exit's return value and what a returned descriptor is (SCRY_SOP_FILE). */
#include <stdio.h>
#include <string.h>
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/lttng_syscall_find.h"

/* A sequence field `name` preceded by its uint32 length field `_name_length`. */
static struct scry_field *add_seq(struct builder *b, const char *name, enum scry_ftype type, uint8_t size)
{
	struct scry_field *f;
	char lname[160];
	int lidx = (int)b->ev->nfields;

	snprintf(lname, sizeof(lname), "_%s_length", name);
	if (!scry_event_add(b, lname, SCRY_F_INT, 4, false) || !(f = scry_event_add(b, name, type, size, false)))
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
	if (!(f = scry_event_add(b, fname, SCRY_F_INT, size, false)))
		return NULL;
	f->base = aux == SCRY_AUX_PTR ? 16 : 10;
	f->arg = (int)arg;
	f->aux = aux;
	return f;
}

/* One more operation; past SCRY_MAX_SC_OPS a scratch one, and the event is refused
 * (sc_overflow: the builders check it before they return). */
static bool sc_overflow;

static struct scry_sc_op *add_op(struct scry_event *ev, uint8_t kind, unsigned arg)
{
	static struct scry_sc_op scratch;
	struct scry_sc_op *op = ev->nops < SCRY_MAX_SC_OPS ? &ev->ops[ev->nops++] : &scratch;

	if (op == &scratch)
		sc_overflow = true;

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
static bool add_msghdr(struct builder *b, const struct scry_syscall *sc, unsigned i, const char *name,
		       const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	bool alone = !at_exit && a->dir == SCRY_DIR_INOUT;
	const char *type = alone ? "msghdr" : o->snaplen ? "msghdr_data" : "msghdr_iov";
	struct scry_sc_op *op;

	if (b->ev->nops + 3 > SCRY_MAX_SC_OPS)
		return false;
	if (!add_structs(b, name, i, type)) {
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
static bool add_special(struct builder *b, const struct scry_syscall *sc, unsigned i, const char *name,
			const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	struct scry_field *f;
	struct scry_sc_op *op;

	switch (a->kind) {
	case SCRY_A_IOVEC:
		if (!(f = add_structs(b, name, i, o->snaplen ? "iovec_data" : "iovec")))
			break;
		add_iov_op(b, a, i, o, at_exit, false);
		return true;
	case SCRY_A_MSGHDR:
		return add_msghdr(b, sc, i, name, o, at_exit, failed);
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
		op->max = o->dirents_count ? 0 : SCRY_DIRENTS_MAX;   /* 0: every record only counted */
		op_len(op, a, SCRY_DIRENTS_MAX);
		op->flags |= SCRY_SOPF_OK_ONLY;
		return true;
	default:
		return false;
	}
	*failed = true;
	return false;
}

/* A string array (argv, envp) as SCRY_SOP_STRV writes it: the pointer, its count, then its
 * strings.  As lttng-modules records it, the pointer `X` (uint64, hexadecimal), then
 * _X_count and the strings `_X`; an environment without --capture env the pointer and count
 * alone (SCRY_SOPF_COUNT).  Without lttng-modules' layout (a syscall it does not know):
 * _X_ptr, _X_count, X. */
static bool add_strv(struct builder *b, const struct scry_syscall *sc, unsigned i, const char *name,
		     const struct scry_capture_opts *o, bool lttng)
{
	char strs[160];

	struct scry_field *f;
	struct scry_sc_op *op;

	if (scry_argspec_is_env(sc->spec, i) && !(o->what & SCRY_CAPTURE_ENV)) {
		if (!(f = scry_event_add(b, name, SCRY_F_INT, 8, false)) ||
		    !add_aux(b, name, "count", 4, i, SCRY_AUX_COUNT))
			return false;
		f->base = 16;
		f->arg = (int)i;
		add_op(b->ev, SCRY_SOP_STRV, i)->flags = SCRY_SOPF_COUNT;
		return true;
	}
	snprintf(strs, sizeof(strs), "_%s", name);
	if (lttng) {
		if (!(f = scry_event_add(b, name, SCRY_F_INT, 8, false)))
			return false;
		f->base = 16;
		f->arg = (int)i;
		f->aux = SCRY_AUX_PTR;
	} else if (!add_aux(b, name, "ptr", 8, i, SCRY_AUX_PTR)) {
		return false;
	}
	if (!add_aux(b, name, "count", 4, i, SCRY_AUX_COUNT) ||
	    !(f = add_seq(b, lttng ? strs : name, SCRY_F_STRSEQ, 1)))
		return false;
	f->arg = (int)i;
	op = add_op(b->ev, SCRY_SOP_STRV, i);
	op->elem = (uint16_t)(o->strsize ? o->strsize + 2 : 1024);
	op->max = SCRY_STRV_MAX;
	return true;
}

/* A captured argument (a direction kind, or strv) as a field written by an operation;
 * false when it cannot be captured with these options (then it stays a plain pointer). */
static bool add_capture(struct builder *b, const struct scry_syscall *sc, unsigned i, const char *name,
			const struct scry_capture_opts *o, bool at_exit, bool *failed)
{
	const struct scry_argspec *a = &sc->spec[i];
	const struct scry_struct_desc *sd = NULL;
	struct scry_field *f;
	struct scry_sc_op *op;
	unsigned elem = 1, max;

	if (a->kind == SCRY_A_STRV) {
		if (!add_strv(b, sc, i, name, o, scry_lttng_syscall(sc->name, sc->nr) != NULL))
			goto nomem;
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
		return add_special(b, sc, i, name, o, at_exit, failed);
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

/* PREFIX_family ... PREFIX_path: one struct scry_sock_rec (SCRY_SOP_SOCK), its fields as
 * scry_abi.h lays them out. */
static bool add_sock_fields(struct builder *b, const char *prefix)
{
	static const struct { const char *name; uint8_t size; uint8_t count; } f[] = {
		{ "family", 2, 0 }, { "type", 2, 0 }, { "protocol", 2, 0 }, { "state", 1, 0 }, { "path_len", 1, 0 },
		{ "lport", 2, 0 }, { "rport", 2, 0 }, { "pad", 4, 0 }, { "ino", 8, 0 }, { "peer_ino", 8, 0 },
		{ "laddr", 1, 16 }, { "raddr", 1, 16 }, { "path", 1, SCRY_SOCK_PATH },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct scry_field *x;
		char n[40];

		snprintf(n, sizeof(n), "%s%s_%s", !strcmp(f[i].name, "pad") ? "_" : "", prefix, f[i].name);
		if (!(x = scry_event_add(b, n, f[i].count ? SCRY_F_ARRAY : SCRY_F_INT, f[i].size, false)))
			return false;
		if (f[i].count) {
			x->count = f[i].count;
			x->base = 16;
		}
	}
	return true;
}

/* The first descriptor argument of sc, or -1. */
static int fd_arg(const struct scry_syscall *sc)
{
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
		if (sc->spec[i].kind == SCRY_A_FD)
			return (int)i;
	return -1;
}

/* The name of scry's own field for argument i where lttng-modules has none: the kernel's,
 * or with a leading '_' when lttng-modules names another field so (read's entry: `_buf`,
 * its pointer, lttng-modules' `buf` being on the exit). */
static const char *own_name(const struct scry_lttng_syscall *lt, const char *name, char *buf, size_t n)
{
	if (!scry_lttng_uses(lt, name))
		return name;
	snprintf(buf, n, "_%s", name);
	return buf;
}

/* An integer field `name` of argument i, its value as lttng-modules' C type has it when lf
 * says (sign- or zero-extended from 32 bits), else as the kernel's (a->size). */
static struct scry_field *add_int_arg(struct builder *b, const struct scry_syscall *sc, unsigned i,
				      const char *name, const struct scry_lttng_field *lf, bool fixed)
{
	const struct scry_syscall_arg *a = &sc->args[i];
	bool is_signed = lf ? lf->is_signed : a->is_signed;
	unsigned size = lf ? lf->size : a->size;
	struct scry_field *f;
	uint8_t ext = 0;

	if (!(f = scry_event_add(b, name, SCRY_F_INT, 8, is_signed)))
		return NULL;
	f->base = (lf ? lf->hex : a->is_pointer) ? 16 : 10;
	f->arg = (int)i;
	if (size <= 4)
		ext = is_signed ? SCRY_SOPF_S32 : SCRY_SOPF_U32;
	add_op(b->ev, SCRY_SOP_INT, i)->flags = ext;
	if (fixed && ext == SCRY_SOPF_S32)
		b->ev->s32_mask |= 1u << i;
	else if (fixed && ext == SCRY_SOPF_U32)
		b->ev->u32_mask |= 1u << i;
	return f;
}

/* The arguments in the order of the entry's fields: lttng-modules' first, in its order,
 * when that is not the arguments' (poll: timeout_msecs before nfds), else all in order (the
 * fixed layout).  The count is sc->nargs. */
static bool entry_order(const struct scry_syscall *sc, const struct scry_lttng_syscall *lt, unsigned *order)
{
	unsigned n = 0, last = 0;
	bool in_order = true, seen[SCRY_MAX_ARGS] = { false };

	for (unsigned k = 0; lt && k < lt->nentry; k++) {
		const struct scry_lttng_field *lf = &lt->entry[k];

		if (lf->arg < 0 || (unsigned)lf->arg >= sc->nargs || lf->kind == SCRY_LF_COMPUTED || seen[lf->arg])
			continue;
		if (n && (unsigned)lf->arg < last)
			in_order = false;
		last = (unsigned)lf->arg;
		seen[lf->arg] = true;
		order[n++] = (unsigned)lf->arg;
	}
	if (in_order) {
		for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
			order[i] = i;
		return true;
	}
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
		if (!seen[i])
			order[n++] = i;
	return false;
}

/* lttng-modules' entry fields, in its names and order, its integers where scry reads more
 * (a string array, a struct, a buffer): then scry's capture follows as `_NAME`. */
struct scry_event *scry_event_syscall_entry(const struct scry_syscall *sc, bool args_known,
					    const struct scry_capture_opts *o)
{
	const struct scry_lttng_syscall *lt = scry_lttng_syscall(sc->name, sc->nr);
	struct builder b = { 0 };
	bool failed = false, uses_ops = false;
	unsigned order[SCRY_MAX_ARGS];
	char name[128];

	snprintf(name, sizeof(name), "syscall_entry_%s", sc->name);
	if (!(b.ev = scry_event_new(name, "syscalls", sc->name, SCRY_EV_SYSCALL_ENTRY, sc->nr)))
		return NULL;
	if (!args_known) {   /* six raw registers, as syscall_entry_unknown records them */
		for (int i = 0; i < SCRY_MAX_ARGS; i++) {
			struct scry_field *f;
			char an[8];

			snprintf(an, sizeof(an), "arg%d", i);
			if (!(f = scry_event_add(&b, an, SCRY_F_INT, 8, false)))
				goto fail;
			f->base = 16;
		}
		b.ev->nargs = SCRY_MAX_ARGS;
		return b.ev;
	}
	if (!entry_order(sc, lt, order))
		uses_ops = true;   /* not the arguments' order: written by operations */
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++)
		if (captured_at(&sc->spec[i], false))
			uses_ops = true;
	if ((o->what & SCRY_CAPTURE_SOCK) && fd_arg(sc) >= 0)
		uses_ops = true;   /* the socket at the call: sk_* after the arguments */
	for (unsigned k = 0; k < sc->nargs && k < SCRY_MAX_ARGS; k++) {
		unsigned i = order[k];
		const struct scry_syscall_arg *a = &sc->args[i];
		const struct scry_argspec *sp = &sc->spec[i];
		const struct scry_lttng_field *lf = lt ? scry_lttng_arg_field(lt->entry, lt->nentry, i) : NULL;
		char own[160], cap[160];
		const char *fname = lf ? lf->name : own_name(lt, a->name, own, sizeof(own));
		struct scry_field *f;

		if (uses_ops && captured_at(sp, false)) {
			bool env_ptr = scry_argspec_is_env(sc->spec, i) && !(o->what & SCRY_CAPTURE_ENV);

			if (lf && lf->kind == SCRY_LF_INT && !env_ptr && sp->kind != SCRY_A_STRV) {
				/* LTTng's pointer, then scry's capture */
				if (!add_int_arg(&b, sc, i, lf->name, lf, false))
					goto fail;
				snprintf(cap, sizeof(cap), "_%s", lf->name);
				if (!add_capture(&b, sc, i, cap, o, false, &failed) && failed)
					goto fail;
				b.ev->nargs++;
				continue;
			}
			if (add_capture(&b, sc, i, fname, o, false, &failed)) {
				b.ev->nargs++;
				continue;
			}
			if (failed)
				goto fail;
		}
		if (lf ? lf->kind == SCRY_LF_STRING : (sp->kind == SCRY_A_PATH || sp->kind == SCRY_A_STR)) {
			if (!(f = scry_event_add(&b, fname, SCRY_F_STRING, 1, false)))
				goto fail;
			f->arg = (int)i;
			b.ev->str_mask |= 1u << i;
			add_op(b.ev, SCRY_SOP_STR, i);
			b.ev->ops[b.ev->nops - 1].max = (uint16_t)(sp->kind == SCRY_A_STR && o->strsize ?
								   o->strsize + 2 : SCRY_STR_MAX);
		} else if (!add_int_arg(&b, sc, i, fname, lf, true)) {
			goto fail;
		}
		b.ev->nargs++;
	}
	if ((o->what & SCRY_CAPTURE_SOCK) && fd_arg(sc) >= 0) {
		if (!add_sock_fields(&b, "sk"))
			goto fail;
		add_op(b.ev, SCRY_SOP_SOCK, (unsigned)fd_arg(sc));
	}
	if (!uses_ops)
		b.ev->nops = 0;   /* the fixed layout: ints and strings */
	if (sc_overflow)
		goto fail;
	return b.ev;
fail:
	if (sc_overflow)
		fprintf(stderr, "scry: %s: more than %d operations\n", b.ev->name, SCRY_MAX_SC_OPS);
	sc_overflow = false;
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
	if (!(f = scry_event_add(b, n[0], SCRY_F_INT, 4, false)))
		return false;
	f->base = 8;
	return scry_event_add(b, n[1], SCRY_F_INT, 8, false) && scry_event_add_text(b, n[2], SCRY_FILE_NAME);
}

/* lttng-modules' int[2] (pipe's fildes, socketpair's socket): SCRY_SLEN_FIXED. */
static bool add_int_pair(struct builder *b, unsigned i, const struct scry_lttng_field *lf)
{
	struct scry_field *f = scry_event_add(b, lf->name, SCRY_F_ARRAY, lf->size, lf->is_signed);
	struct scry_sc_op *op;

	if (!f || lf->size != 4)
		return false;
	f->count = 2;
	f->base = 10;
	op = add_op(b->ev, SCRY_SOP_SEQ, i);
	op->elem = 4;
	op->max = 2;
	op->len_src = SCRY_SLEN_FIXED;
	op->flags = SCRY_SOPF_OK_ONLY;
	return true;
}

/* ret, lttng-modules' exit fields (the pointers it records at the exit, its int[2]), each
 * followed by scry's capture of the same argument as `_NAME`; then scry's other captures,
 * and what a returned descriptor is. */
struct scry_event *scry_event_syscall_exit(const struct scry_syscall *sc, const struct scry_capture_opts *o)
{
	const struct scry_lttng_syscall *lt = scry_lttng_syscall(sc->name, sc->nr);
	struct builder b = { 0 };
	struct scry_field *f;
	bool failed = false, done[SCRY_MAX_ARGS] = { false };
	int pair;
	char name[128];

	snprintf(name, sizeof(name), "syscall_exit_%s", sc->name);
	if (!(b.ev = scry_event_new(name, "syscalls", sc->name, SCRY_EV_SYSCALL_EXIT, sc->nr)))
		return NULL;
	if (!(f = scry_event_add(&b, "ret", SCRY_F_INT, 8, lt && lt->nexit ? lt->exit[0].is_signed : true)))
		goto fail;
	if (lt && lt->nexit && lt->exit[0].hex)
		f->base = 16;
	add_op(b.ev, SCRY_SOP_RET, 0);
	for (unsigned k = 1; lt && k < lt->nexit; k++) {
		const struct scry_lttng_field *lf = &lt->exit[k];
		unsigned i = (unsigned)lf->arg;
		char cap[160];

		if (lf->arg < 0 || i >= sc->nargs || done[i] || b.ev->nops + 2 > SCRY_MAX_SC_OPS)
			continue;
		if (lf->kind == SCRY_LF_INT) {
			if (!add_int_arg(&b, sc, i, lf->name, lf, false))
				goto fail;
		} else if (lf->kind == SCRY_LF_ARRAY2) {
			if (!add_int_pair(&b, i, lf))
				goto fail;
		} else {
			continue;
		}
		done[i] = true;
		snprintf(cap, sizeof(cap), "_%s", lf->name);
		if (captured_at(&sc->spec[i], true) && !add_capture(&b, sc, i, cap, o, true, &failed) && failed)
			goto fail;
	}
	for (unsigned i = 0; i < sc->nargs && i < SCRY_MAX_ARGS; i++) {
		char own[160];

		if (!done[i] && captured_at(&sc->spec[i], true) &&
		    !add_capture(&b, sc, i, own_name(lt, sc->args[i].name, own, sizeof(own)), o, true, &failed) &&
		    failed)
			goto fail;
	}
	if (returns_file(sc->name)) {   /* SCRY_SOP_FILE: what the new descriptor is */
		if (!add_file_fields(&b, "fd"))
			goto fail;
		add_op(b.ev, SCRY_SOP_FILE, 0);
	} else if ((pair = fd_pair_arg(sc)) >= 0) {   /* ... the two of a pipe */
		if (!add_file_fields(&b, "fd0") || !add_file_fields(&b, "fd1"))
			goto fail;
		add_op(b.ev, SCRY_SOP_FILE, (unsigned)pair)->flags = SCRY_SOPF_PAIR;
	}
	if ((o->what & SCRY_CAPTURE_SOCK) && (!strcmp(sc->name, "accept") || !strcmp(sc->name, "accept4"))) {
		if (!add_sock_fields(&b, "rsk"))   /* the accepted socket, at the exit */
			goto fail;
		add_op(b.ev, SCRY_SOP_SOCK, 0)->flags = SCRY_SOPF_RETFD;
	}
	if (b.ev->nops == 1)
		b.ev->nops = 0;   /* ret only: the fixed layout */
	if (sc_overflow)
		goto fail;
	return b.ev;
fail:
	if (sc_overflow)
		fprintf(stderr, "scry: %s: more than %d operations\n", b.ev->name, SCRY_MAX_SC_OPS);
	sc_overflow = false;
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
