/* wire.h — what both of lttng-relayd's protocols (the producer's, proto.c, and the live
 * viewer's, live_proto.c) share on the wire: big-endian integers in and out of byte buffers
 * (every field is packed and big-endian), and how a peer's or user's string is shown in a
 * one-line error.  Private to src/relay/. */
#ifndef SCRY_RELAY_WIRE_H
#define SCRY_RELAY_WIRE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void be32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static inline void be64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static inline uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static inline uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

/* s as an error shows it: on one line, control characters as '?' (at most 200 bytes of it,
 * into buf). */
const char *relay_shown(const char *s, char *buf, size_t len);

#endif
