/* outbuf.h — one large output buffer flushed with fwrite, and hand-written integer and
 * time-of-day formatters for the text and JSON sinks (src/util/outbuf.c). */
#ifndef SCRY_UTIL_OUTBUF_H
#define SCRY_UTIL_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUTBUF_SIZE (1 << 20)
#define OUTBUF_SLACK 512      /* room always available after ob_reserve() for short items */

struct outbuf {
	char *buf;
	size_t n;
	FILE *f;
	int error;            /* a write failed (EPIPE...) */
	unsigned long flushes;   /* how many times buf was emptied (text made in it moved) */
};

int ob_init(struct outbuf *ob, FILE *f);
void ob_flush(struct outbuf *ob);
void ob_free(struct outbuf *ob);
void ob_write_slow(struct outbuf *ob, const void *p, size_t len);

static inline void ob_reserve(struct outbuf *ob)
{
	if (ob->n > OUTBUF_SIZE - OUTBUF_SLACK)
		ob_flush(ob);
}

static inline void ob_write(struct outbuf *ob, const void *p, size_t len)
{
	if (ob->n + len <= OUTBUF_SIZE - OUTBUF_SLACK) {
		memcpy(ob->buf + ob->n, p, len);
		ob->n += len;
	} else {
		ob_write_slow(ob, p, len);
	}
}

#define OB_LIT(ob, s) ob_write((ob), (s), sizeof(s) - 1)

static inline void ob_putc(struct outbuf *ob, char c)
{
	ob_reserve(ob);
	ob->buf[ob->n++] = c;
}

static inline void ob_puts(struct outbuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

void ob_u64(struct outbuf *ob, uint64_t v);
void ob_i64(struct outbuf *ob, int64_t v);
void ob_u64_pad(struct outbuf *ob, uint64_t v, int width);   /* zero-padded */
void ob_hex_upper(struct outbuf *ob, uint64_t v);             /* digits only */
void ob_oct(struct outbuf *ob, uint64_t v);
void ob_bin(struct outbuf *ob, uint64_t v, unsigned width);

/* Broken-down time of a second, cached (localtime_r/gmtime_r called once per second). */
struct tod_cache {
	int64_t sec;
	int valid;
	int gmt;
	char hms[16];         /* "HH:MM:SS" */
	char date[16];        /* "YYYY-MM-DD" */
	long gmtoff;          /* seconds east of UTC */
};

void tod_lookup(struct tod_cache *c, int64_t sec);

#endif
