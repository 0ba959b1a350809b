/* numfmt.c — the small number printers strace uses everywhere: hex (0 as "0"), pointers
 * (NULL), octal permissions (%#03o), symbolic file modes, makedev() and the local-time
 * comment after timestamps. */
#include <time.h>
#include "format/format.h"
#include "format/fmt_internal.h"

void fmt_hex(struct outbuf *ob, uint64_t v)
{
	char b[20];
	int i = sizeof(b);

	if (!v) {
		ob_putc(ob, '0');
		return;
	}
	while (v) {
		b[--i] = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
	b[--i] = 'x';
	b[--i] = '0';
	ob_write(ob, b + i, sizeof(b) - (size_t)i);
}

void fmt_ptr(struct outbuf *ob, uint64_t v)
{
	if (v)
		fmt_hex(ob, v);
	else
		OB_LIT(ob, "NULL");
}

void fmt_oct(struct outbuf *ob, uint64_t v)
{
	char b[28];
	int i = sizeof(b);

	do {
		b[--i] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	if (b[i] != '0')
		b[--i] = '0';
	while (sizeof(b) - (size_t)i < 3)
		b[--i] = '0';
	ob_write(ob, b + i, sizeof(b) - (size_t)i);
}

static const struct fmt_xval ifmt[] = {
	{ 0140000, "S_IFSOCK" }, { 0120000, "S_IFLNK" }, { 0100000, "S_IFREG" },
	{ 0060000, "S_IFBLK" }, { 0040000, "S_IFDIR" }, { 0020000, "S_IFCHR" },
	{ 0010000, "S_IFIFO" },
};

void fmt_mode(struct outbuf *ob, uint64_t v)
{
	const char *type = fmt_xlookup(ifmt, sizeof(ifmt) / sizeof(ifmt[0]), v & 0170000);

	if ((v & 0170000 && !type) || v > 0177777) {
		fmt_oct(ob, v);
		return;
	}
	if (fmt_xlat_style != SCRY_XLAT_ABBREV && (type || v & 07000)) {   /* -X: 0100644 [/ * S_IFREG|0644 * /] */
		int style = fmt_xlat_style;

		fmt_oct(ob, v);
		if (style == SCRY_XLAT_RAW)
			return;
		OB_LIT(ob, " /* ");
		fmt_xlat_style = SCRY_XLAT_ABBREV;
		fmt_mode(ob, v);
		fmt_xlat_style = style;
		OB_LIT(ob, " */");
		return;
	}
	if (type) {
		ob_puts(ob, type);
		ob_putc(ob, '|');
	}
	if (v & 04000)
		OB_LIT(ob, "S_ISUID|");
	if (v & 02000)
		OB_LIT(ob, "S_ISGID|");
	if (v & 01000)
		OB_LIT(ob, "S_ISVTX|");
	fmt_oct(ob, v & 0777);
}

void fmt_dev(struct outbuf *ob, uint64_t dev)
{
	uint64_t major = ((dev >> 8) & 0xfff) | ((dev >> 32) & 0xfffff000);
	uint64_t minor = (dev & 0xff) | ((dev >> 12) & 0xffffff00);

	if (fmt_xlat_style != SCRY_XLAT_ABBREV) {   /* -X: 0x103 [/ * makedev(0x1, 0x3) * /] */
		fmt_hex(ob, dev);
		if (fmt_xlat_style == SCRY_XLAT_RAW)
			return;
		OB_LIT(ob, " /* ");
	}
	OB_LIT(ob, "makedev(");
	fmt_hex(ob, major);
	OB_LIT(ob, ", ");
	fmt_hex(ob, minor);
	ob_putc(ob, ')');
	if (fmt_xlat_style == SCRY_XLAT_VERBOSE)
		OB_LIT(ob, " */");
}

void fmt_time_comment(struct outbuf *ob, int64_t sec, uint64_t frac, unsigned frac_digits)
{
	uint64_t max = frac_digits == 6 ? 999999 : 999999999;
	time_t t = (time_t)sec;
	struct tm tm;
	char buf[64];
	size_t n;

	if ((sec == 0 && frac == 0) || frac > max || !localtime_r(&t, &tm))
		return;
	if (!(n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)))
		return;
	OB_LIT(ob, " /* ");
	ob_write(ob, buf, n);
	if (frac) {
		ob_putc(ob, '.');
		ob_u64_pad(ob, frac, (int)frac_digits);
	}
	if ((n = strftime(buf, sizeof(buf), "%z", &tm)))
		ob_write(ob, buf, n);
	OB_LIT(ob, " */");
}
