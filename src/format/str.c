/* str.c — strings and byte buffers as strace quotes them: printable ASCII as is, \" \\ \t
 * \n \v \f \r, other bytes in octal (three digits when an octal digit follows), cut at the
 * -s size with `...` after the closing quote when more was there. */
#include "format/format.h"
#include "format/fmt_internal.h"

static void put_escaped(struct outbuf *ob, const uint8_t *p, size_t n)
{
	char tmp[64];
	size_t t = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (t > sizeof(tmp) - 8) {
			ob_write(ob, tmp, t);
			t = 0;
		}
		switch (c) {
		case '"': tmp[t++] = '\\'; tmp[t++] = '"'; continue;
		case '\\': tmp[t++] = '\\'; tmp[t++] = '\\'; continue;
		case '\t': tmp[t++] = '\\'; tmp[t++] = 't'; continue;
		case '\n': tmp[t++] = '\\'; tmp[t++] = 'n'; continue;
		case '\v': tmp[t++] = '\\'; tmp[t++] = 'v'; continue;
		case '\f': tmp[t++] = '\\'; tmp[t++] = 'f'; continue;
		case '\r': tmp[t++] = '\\'; tmp[t++] = 'r'; continue;
		default: break;
		}
		if (c >= 0x20 && c < 0x7f) {
			tmp[t++] = (char)c;
			continue;
		}
		tmp[t++] = '\\';
		if (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7') {
			tmp[t++] = (char)('0' + (c >> 6));
			tmp[t++] = (char)('0' + ((c >> 3) & 7));
		} else if (c >= 0100) {
			tmp[t++] = (char)('0' + (c >> 6));
			tmp[t++] = (char)('0' + ((c >> 3) & 7));
		} else if (c >= 010) {
			tmp[t++] = (char)('0' + ((c >> 3) & 7));
		}
		tmp[t++] = (char)('0' + (c & 7));
	}
	ob_write(ob, tmp, t);
}

void scry_fmt_str_hex(struct outbuf *ob, const uint8_t *p, size_t len, size_t max, bool more)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = len < max ? len : max;

	ob_putc(ob, '"');
	for (size_t i = 0; p && i < n; i++) {
		char x[4] = { '\\', 'x', hex[p[i] >> 4], hex[p[i] & 15] };

		ob_write(ob, x, 4);
	}
	ob_putc(ob, '"');
	if (more || len > max)
		OB_LIT(ob, "...");
}

unsigned fmt_xflag;

/* -x: a byte other than printable ASCII and \t\n\v\f\r puts the whole string in hex
 * (strace's string_quote; the strings captured end before their NUL). */
static bool wants_hex(const uint8_t *p, size_t n)
{
	if (fmt_xflag >= 2)
		return true;
	for (size_t i = 0; fmt_xflag && p && i < n; i++)
		if (p[i] > 0x7e || (p[i] < ' ' && (unsigned)(p[i] - 9) >= 5))
			return true;
	return false;
}

void scry_fmt_str(struct outbuf *ob, const uint8_t *p, size_t len, size_t max, bool more)
{
	size_t n = len < max ? len : max;

	if (fmt_xflag && wants_hex(p, n)) {
		scry_fmt_str_hex(ob, p, len, max, more);
		return;
	}
	ob_putc(ob, '"');
	if (p)
		put_escaped(ob, p, n);
	ob_putc(ob, '"');
	if (more || len > max)
		OB_LIT(ob, "...");
}
