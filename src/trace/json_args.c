/* json_args.c — the typed value of a syscall argument in `scry trace --json` (printer_json.c
 * writes the argument's name and its strace text around it): integers as numbers (signed
 * kinds sign-extended from the argument's C size), strings and buffers as their bytes,
 * string arrays as arrays, a captured struct as an object of its described fields, the
 * pointer of a capture apart; kinds without a plain value (iovecs, messages, fd sets,
 * directory entries, arrays of structs) have only their text.  An integer's JSON type follows
 * its declared C type (json_int: a number up to 32 bits, a decimal string at 64). */
#include <string.h>
#include "catalog/structs.h"
#include "trace/printer_int.h"
#include "util/json.h"

static const char *const kind_names[] = {
	[SCRY_A_INT] = "int", [SCRY_A_UINT] = "uint", [SCRY_A_HEX] = "hex", [SCRY_A_OCT] = "oct",
	[SCRY_A_PTR] = "ptr", [SCRY_A_FD] = "fd", [SCRY_A_DIRFD] = "dirfd", [SCRY_A_PID] = "pid",
	[SCRY_A_SIG] = "signal", [SCRY_A_MODE] = "mode", [SCRY_A_FLAGS] = "flags", [SCRY_A_ENUM] = "enum",
	[SCRY_A_PATH] = "path", [SCRY_A_STR] = "string", [SCRY_A_STRV] = "strings", [SCRY_A_BUF] = "bytes",
	[SCRY_A_STRUCT] = "struct", [SCRY_A_ARRAY] = "array", [SCRY_A_SOCKADDR] = "sockaddr",
	[SCRY_A_IOVEC] = "iovec", [SCRY_A_MSGHDR] = "msghdr", [SCRY_A_FDSET] = "fdset",
	[SCRY_A_DIRENTS] = "dirents",
};

const char *trace_json_kind(enum scry_akind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : NULL;
}

static uint64_t get_le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A struct of a described type: {"field": value, ...}, padding left out. */
static void put_struct(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p)
{
	bool first = true;

	ob_putc(ob, '{');
	for (unsigned i = 0; i < d->nfields; i++) {
		const struct scry_struct_field *f = &d->fields[i];
		unsigned n = f->count ? f->count : 1;

		if (!strncmp(f->name, "__pad", 5))
			continue;
		if (!first)
			ob_putc(ob, ',');
		first = false;
		json_cstr(ob, f->name);
		ob_putc(ob, ':');
		if (f->is_text) {
			const uint8_t *s = p + f->offset, *z = memchr(s, 0, n);

			json_str(ob, s, z ? (size_t)(z - s) : n);
			continue;
		}
		if (f->count)
			ob_putc(ob, '[');
		for (unsigned k = 0; k < n; k++) {
			const uint8_t *e = p + f->offset + (size_t)k * f->size;
			uint64_t v = f->big_endian ? 0 : get_le(e, f->size);

			if (f->big_endian)
				for (unsigned b = 0; b < f->size; b++)
					v = v << 8 | e[b];
			if (k)
				ob_putc(ob, ',');
			json_int(ob, v, f->size, f->is_signed);
		}
		if (f->count)
			ob_putc(ob, ']');
	}
	ob_putc(ob, '}');
}

/* The NUL-separated strings of a string array. */
static void put_strv(struct outbuf *ob, const struct scry_argval *v)
{
	const uint8_t *s = v->p, *end = v->p + v->len;

	ob_putc(ob, '[');
	for (uint32_t i = 0; i < v->n && s < end; i++) {
		const uint8_t *nul = memchr(s, 0, (size_t)(end - s));
		size_t n = nul ? (size_t)(nul - s) : (size_t)(end - s);

		if (i)
			ob_putc(ob, ',');
		json_str(ob, s, n);
		s += n + 1;
	}
	ob_putc(ob, ']');
}

void trace_json_arg_value(struct outbuf *ob, const struct trace_call *c, unsigned i, const struct scry_argval *v,
			  bool cut)
{
	const struct scry_argspec *spec = &c->specs[i];
	unsigned size = c->args && c->args[i].size ? c->args[i].size : 8;

	if (!v->have)
		return;
	switch (spec->kind) {
	case SCRY_A_INT: case SCRY_A_PID: case SCRY_A_SIG: case SCRY_A_FD: case SCRY_A_DIRFD:
		OB_LIT(ob, ",\"value\":");
		json_int(ob, v->v, size, true);
		return;
	case SCRY_A_UINT: case SCRY_A_HEX: case SCRY_A_OCT: case SCRY_A_PTR: case SCRY_A_MODE:
	case SCRY_A_FLAGS: case SCRY_A_ENUM:
		OB_LIT(ob, ",\"value\":");
		json_int(ob, v->v, size, false);
		return;
	default:
		break;
	}
	if (v->have_ptr) {
		OB_LIT(ob, ",\"ptr\":");
		json_int(ob, v->v, 8, false);
	}
	if (!v->p && spec->kind == SCRY_A_STRV && v->have_count) {   /* envp without its strings */
		OB_LIT(ob, ",\"count\":");
		json_int(ob, v->count, 4, false);
	}
	if (!v->p)
		return;
	switch (spec->kind) {
	case SCRY_A_PATH: case SCRY_A_STR: case SCRY_A_BUF: {
		const uint8_t *z = spec->kind == SCRY_A_BUF ? NULL : memchr(v->p, 0, v->len);

		OB_LIT(ob, ",\"value\":");
		json_str(ob, v->p, z ? (size_t)(z - v->p) : v->len);
		if (v->truncated || cut)
			OB_LIT(ob, ",\"truncated\":true");
		return;
	}
	case SCRY_A_STRV:
		OB_LIT(ob, ",\"value\":");
		put_strv(ob, v);
		if (v->have_count) {
			OB_LIT(ob, ",\"count\":");
			json_int(ob, v->count, 4, false);
		}
		if (cut)
			OB_LIT(ob, ",\"truncated\":true");
		return;
	case SCRY_A_STRUCT: {
		const struct scry_struct_desc *d = scry_struct_find(spec->set);

		if (v->n != 1 || !d || v->len < d->size)
			return;
		OB_LIT(ob, ",\"value\":");
		put_struct(ob, d, v->p);
		return;
	}
	default:
		return;
	}
}
