/* dirent.c — getdents64's directory entries as strace prints them: with -v the list,
 *   [{d_ino=1234, d_off=..., d_reclen=24, d_type=DT_DIR, d_name="."}, ...]
 * otherwise the buffer's address and the count, 0x7ffd... / * 5 entries * /.  The capture
 * (struct dirents) counts every record and copies those within the first
 * SCRY_DIRENTS_MAX bytes: a longer list ends with "...". */
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
	const struct scry_struct_desc *d = scry_struct_find("dirents"), *ed = scry_struct_find("dirent64");
	struct scry_tail_val ents;
	uint64_t bytes = 0;
	bool known = fmt_resolve_len(spec, all, ret, have_ret, &bytes);
	uint32_t total;
	size_t pos = 0, e;

	if (!val->p || val->n != 1 || !d || !ed || !scry_struct_span(d, val->p, val->len, &ents)) {
		fmt_ptr(ob, val->v);
		return;
	}
	total = (uint32_t)fmt_get(val->p, 4);
	if (!(o && o->verbose)) {
		fmt_ptr(ob, val->v);
		OB_LIT(ob, " /* ");
		ob_u64(ob, total);
		ob_puts(ob, !total && known && bytes ? "+ entries */" : " entries */");
		return;
	}
	if (!total && known && bytes) {
		fmt_ptr(ob, val->v);           /* nothing could be read */
		return;
	}
	ob_putc(ob, '[');
	for (uint32_t k = 0; k < ents.n && (e = scry_struct_span(ed, ents.p + pos, ents.len - pos, NULL)); k++) {
		struct scry_tail_val name;

		scry_struct_span(ed, ents.p + pos, ents.len - pos, &name);
		if (k)
			OB_LIT(ob, ", ");
		put_dirent(ob, ents.p + pos, &name);
		pos += e;
	}
	if (total > ents.n)
		ob_puts(ob, ents.n ? ", ..." : "...");
	ob_putc(ob, ']');
}
