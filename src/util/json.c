/* json.c — see json.h. */
#include <string.h>
#include "util/json.h"

static const char hex[] = "0123456789abcdef";

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid (overlong forms,
 * surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void u_escape(struct outbuf *ob, unsigned cp)
{
	char u[6] = { '\\', 'u', hex[cp >> 12 & 15], hex[cp >> 8 & 15], hex[cp >> 4 & 15], hex[cp & 15] };

	ob_write(ob, u, 6);
}

void json_str(struct outbuf *ob, const void *p, size_t n)
{
	const unsigned char *s = p;

	ob_putc(ob, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t run = i;

		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {                  /* a run of plain ASCII at once */
			ob_write(ob, s + i, run - i);
			i = run;
			continue;
		}
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			ob_write(ob, e, 2);
			i++;
		} else if (c < 0x20) {
			const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" :
					c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;

			if (e)
				ob_write(ob, e, 2);
			else
				u_escape(ob, c);
			i++;
		} else {
			size_t l = utf8_len(s + i, n - i);

			if (l) {
				ob_write(ob, s + i, l);
				i += l;
			} else {                /* not UTF-8: surrogateescape */
				u_escape(ob, 0xdc00u + c);
				i++;
			}
		}
	}
	ob_putc(ob, '"');
}

void json_cstr(struct outbuf *ob, const char *s)
{
	if (s)
		json_str(ob, s, strlen(s));
	else
		OB_LIT(ob, "null");
}

void json_u64(struct outbuf *ob, uint64_t v)
{
	if (v <= JSON_SAFE_INT) {
		ob_u64(ob, v);
		return;
	}
	ob_putc(ob, '"');
	ob_u64(ob, v);
	ob_putc(ob, '"');
}

void json_i64(struct outbuf *ob, int64_t v)
{
	if (v >= -(int64_t)JSON_SAFE_INT && v <= (int64_t)JSON_SAFE_INT) {
		ob_i64(ob, v);
		return;
	}
	ob_putc(ob, '"');
	ob_i64(ob, v);
	ob_putc(ob, '"');
}

void json_int(struct outbuf *ob, uint64_t v, unsigned size, bool is_signed)
{
	if (size && size < 8) {
		v &= (1ULL << (size * 8)) - 1;
		if (is_signed && (v >> (size * 8 - 1)) & 1)
			v |= ~0ULL << (size * 8);
	}
	if (!size || size >= 8)
		ob_putc(ob, '"');
	if (is_signed)
		ob_i64(ob, (int64_t)v);
	else
		ob_u64(ob, v);
	if (!size || size >= 8)
		ob_putc(ob, '"');
}
