/* packet.h — the byte layout of scry's CTF packets and of LTTng's packet index files
 * (docs/FORMAT.md), shared by the stream writer (stream.c) and the recovery of a trace
 * whose recorder died (recover.c).  Private to src/ctf/. */
#ifndef SCRY_CTF_PACKET_H
#define SCRY_CTF_PACKET_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define CTF_MAGIC          0xC1FC1FC1u
#define PKT_HEADER_SIZE    32
#define PKT_CONTEXT_SIZE   52
#define PKT_EVENTS_OFF     (PKT_HEADER_SIZE + PKT_CONTEXT_SIZE)   /* 84 */
#define PKT_MAX_SIZE       (1u << 30)

/* Offsets in a packet (header then context), little-endian fields. */
#define OFF_MAGIC          0
#define OFF_UUID           4
#define OFF_STREAM_ID      20
#define OFF_INSTANCE_ID    24
#define OFF_TS_BEGIN       32
#define OFF_TS_END         40
#define OFF_CONTENT_SIZE   48
#define OFF_PACKET_SIZE    56
#define OFF_SEQ_NUM        64
#define OFF_DISCARDED      72
#define OFF_CPU_ID         80

/* LTTng's ctf_packet_index_file_hdr / ctf_packet_index (format 1.1), big-endian. */
#define CTF_INDEX_MAGIC    0xC1F1DCC1u
#define CTF_INDEX_MAJOR    1
#define CTF_INDEX_MINOR    1
#define CTF_INDEX_HDR_LEN  16
#define CTF_INDEX_LEN      72

static inline void put_le32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static inline void put_le64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }
static inline void put_be32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static inline void put_be64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static inline uint32_t get_le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }
static inline uint64_t get_le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }

/* The index file's header. */
static inline void ctf_index_header(uint8_t hdr[CTF_INDEX_HDR_LEN])
{
	put_be32(hdr + 0, CTF_INDEX_MAGIC);
	put_be32(hdr + 4, CTF_INDEX_MAJOR);
	put_be32(hdr + 8, CTF_INDEX_MINOR);
	put_be32(hdr + 12, CTF_INDEX_LEN);
}

/* The index entry of the packet whose header and context are pkt, at file offset off. */
static inline void ctf_index_entry(uint8_t ent[CTF_INDEX_LEN], const uint8_t *pkt, uint64_t off)
{
	put_be64(ent + 0, off);
	put_be64(ent + 8, get_le64(pkt + OFF_PACKET_SIZE));
	put_be64(ent + 16, get_le64(pkt + OFF_CONTENT_SIZE));
	put_be64(ent + 24, get_le64(pkt + OFF_TS_BEGIN));
	put_be64(ent + 32, get_le64(pkt + OFF_TS_END));
	put_be64(ent + 40, get_le64(pkt + OFF_DISCARDED));
	put_be64(ent + 48, get_le32(pkt + OFF_STREAM_ID));
	put_be64(ent + 56, get_le64(pkt + OFF_INSTANCE_ID));
	put_be64(ent + 64, get_le64(pkt + OFF_SEQ_NUM));
}

#endif
