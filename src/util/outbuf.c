/* outbuf.c — output buffer flushing and number/time formatting (scry view, scry trace). */
#include <stdlib.h>
#include <time.h>
#include "util/outbuf.h"

int ob_init(struct outbuf *ob, FILE *f)
{
	ob->buf = malloc(OUTBUF_SIZE);
	ob->n = 0;
	ob->f = f;
	ob->error = 0;
	ob->flushes = 0;
	return ob->buf ? 0 : -1;
}

void ob_flush(struct outbuf *ob)
{
	if (ob->n && !ob->error && fwrite(ob->buf, 1, ob->n, ob->f) != ob->n)
		ob->error = 1;
	ob->n = 0;
	ob->flushes++;
}

void ob_free(struct outbuf *ob)
{
	ob_flush(ob);
	if (!ob->error && fflush(ob->f))
		ob->error = 1;
	free(ob->buf);
	ob->buf = NULL;
}

void ob_write_slow(struct outbuf *ob, const void *p, size_t len)
{
	ob_flush(ob);
	if (len > OUTBUF_SIZE / 2) {
		if (!ob->error && fwrite(p, 1, len, ob->f) != len)
			ob->error = 1;
		return;
	}
	memcpy(ob->buf, p, len);
	ob->n = len;
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void ob_u64(struct outbuf *ob, uint64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof(tmp), *p = e;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digits2 + 2 * r, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	ob_write(ob, p, (size_t)(e - p));
}

void ob_i64(struct outbuf *ob, int64_t v)
{
	if (v < 0) {
		ob_putc(ob, '-');
		ob_u64(ob, (uint64_t)0 - (uint64_t)v);
	} else {
		ob_u64(ob, (uint64_t)v);
	}
}

void ob_u64_pad(struct outbuf *ob, uint64_t v, int width)
{
	char tmp[24];
	int i = 0;
	char *e = tmp + sizeof(tmp), *p = e;

	if (width == 9 && v < 1000000000) {   /* nanoseconds: two digits at a time */
		uint32_t x = (uint32_t)v;

		for (int k = 0; k < 4; k++) {
			p -= 2;
			memcpy(p, digits2 + 2 * (x % 100), 2);
			x /= 100;
		}
		*--p = (char)('0' + x);
		ob_write(ob, p, 9);
		return;
	}
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
		i++;
	} while (v);
	while (i++ < width)
		*--p = '0';
	ob_write(ob, p, (size_t)(e - p));
}

void ob_hex_upper(struct outbuf *ob, uint64_t v)
{
	char tmp[20];
	char *e = tmp + sizeof(tmp), *p = e;
	do {
		*--p = "0123456789ABCDEF"[v & 15];
		v >>= 4;
	} while (v);
	ob_write(ob, p, (size_t)(e - p));
}

void ob_oct(struct outbuf *ob, uint64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof(tmp), *p = e;
	do {
		*--p = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	ob_write(ob, p, (size_t)(e - p));
}

void ob_bin(struct outbuf *ob, uint64_t v, unsigned width)
{
	char tmp[64];
	if (width > 64 || !width)
		width = 64;
	for (unsigned i = 0; i < width; i++)
		tmp[i] = (char)('0' + ((v >> (width - 1 - i)) & 1));
	ob_write(ob, tmp, width);
}

void tod_lookup(struct tod_cache *c, int64_t sec)
{
	if (c->valid && c->sec == sec)
		return;
	time_t t = (time_t)sec;
	struct tm tm;
	if (c->gmt)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	snprintf(c->hms, sizeof(c->hms), "%02d:%02d:%02d", tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100);
	snprintf(c->date, sizeof(c->date), "%04d-%02d-%02d", (tm.tm_year + 1900) % 10000, (tm.tm_mon + 1) % 100,
		 tm.tm_mday % 100);
	c->gmtoff = tm.tm_gmtoff;
	c->sec = sec;
	c->valid = 1;
}
