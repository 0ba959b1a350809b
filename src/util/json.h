/* json.h — the JSON values scry writes (scry view --json, scry trace --json), chosen so
 * that every common reader (jq, Python, JavaScript, Go) gets them exactly:
 *   - integers are numbers while |v| <= 2^53 (a double holds them exactly), and beyond that
 *     strings with the exact decimal value ("18446744073709551615"): jq and JavaScript would
 *     round a larger number;
 *   - strings are UTF-8 with strict escaping; a byte that is not part of valid UTF-8 is
 *     written as the lone surrogate U+DC80 + byte ("\udc88" for 0x88), as Python's
 *     "surrogateescape" does: nothing valid UTF-8 decodes to can look like it, so the bytes
 *     are recoverable (Python: s.encode("utf-8", "surrogateescape"); a reader that rejects
 *     lone surrogates shows U+FFFD).
 * See docs/FORMAT.md, "JSON output". */
#ifndef SCRY_UTIL_JSON_H
#define SCRY_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/outbuf.h"

#define JSON_SAFE_INT (1ULL << 53)

void json_str(struct outbuf *ob, const void *p, size_t len);   /* "..." */
void json_cstr(struct outbuf *ob, const char *s);              /* "...", null for NULL */
void json_i64(struct outbuf *ob, int64_t v);
void json_u64(struct outbuf *ob, uint64_t v);
/* An integer of a declared C type of size bytes (its low size bytes of v, sign-extended when
 * is_signed), its JSON type following the declared type, never the value: a number when
 * the type has at most 32 bits, an exact decimal string when it has 64 ("18446744073709551615",
 * "3"), as protobuf's JSON mapping writes int64 and uint64. */
void json_int(struct outbuf *ob, uint64_t v, unsigned size, bool is_signed);

#endif /* SCRY_UTIL_JSON_H */
