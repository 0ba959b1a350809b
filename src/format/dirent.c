/* dirent.c — getdents64's directory entries as strace prints them: with -v the list,
 *   [{d_ino=1234, d_off=..., d_reclen=24, d_type=DT_DIR, d_name="."}, ...]
 * otherwise the buffer's address and the count, 0x7ffd... / * 5 entries * /.  The capture
 * covers the first SCRY_DIRENTS_MAX bytes of the buffer: when it ends before the bytes
 * returned, the list ends with "..." and the count with "+". */
#include "catalog/structs.h"
#include "format/format.h"
#include "format/fmt_internal.h"

static void put_dirent(struct outbuf *ob, const uint8_t *p, const struct scry_tail_val *name)
{
	OB_LIT(ob, "{d_ino=");
	ob_u64(ob, fmt_get(p, 8));
	OB_LIT(ob, ", d_off=");
	ob_u64(ob, fmt_get(p + 8, 8));
	OB_LIT(ob, ", d_reclen=");
	ob_u64(ob, fmt_get(p + 16, 2));
	OB_LIT(ob, ", d_type=");
	fmt_named(ob, "dirent_type", p[18]);
	OB_LIT(ob, ", d_name=");
	scry_fmt_str(ob, name->p, name->len, name->len, false);
	ob_putc(ob, '}');
}

void fmt_dirents_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		     const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	const struct scry_struct_desc *d = scry_struct_find("dirent64");
	uint64_t total = 0, covered = 0;
	bool known = fmt_resolve_len(spec, all, ret, have_ret, &total);
	size_t pos = 0, e;
	uint32_t i;

	if (!val->p || !d) {
		fmt_ptr(ob, val->v);
		return;
	}
	for (i = 0; i < val->n && (e = scry_struct_span(d, val->p + pos, val->len - pos, NULL)); i++, pos += e)
		covered += fmt_get(val->p + pos + 16, 2);
	if (!(o && o->verbose)) {
		fmt_ptr(ob, val->v);
		OB_LIT(ob, " /* ");
		ob_u64(ob, i);
		ob_puts(ob, known && covered < total ? "+ entries */" : " entries */");
		return;
	}
	if (!i && known && total) {
		fmt_ptr(ob, val->v);           /* nothing could be read */
		return;
	}
	ob_putc(ob, '[');
	pos = 0;
	for (uint32_t k = 0; k < i; k++) {
		struct scry_tail_val name;

		e = scry_struct_span(d, val->p + pos, val->len - pos, &name);
		if (k)
			OB_LIT(ob, ", ");
		put_dirent(ob, val->p + pos, &name);
		pos += e;
	}
	if (known && covered < total)
		OB_LIT(ob, ", ...");
	ob_putc(ob, ']');
}
