/* record.h — the one reader of scry's record bytes in user space (scry_abi.h: u16 event id,
 * u64 timestamp, the channel's contexts in enum scry_ctx order, then the payload, which
 * scry_event_decode reads field by field).  Every consumer of records goes through it: the
 * live printer (trace/live.c), the user-space filter (session/user_filter.c), and the record
 * sinks to come. */
#ifndef SCRY_CATALOG_RECORD_H
#define SCRY_CATALOG_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "scry_abi.h"

/* Where each context of a channel sits in its records. */
struct scry_record_layout {
	uint64_t ctx_mask;                 /* 1 << enum scry_ctx */
	int16_t ctx_off[SCRY_CTX_NR];      /* byte offset in a record, -1: not recorded */
	uint16_t payload_off;              /* header + contexts */
};

struct scry_record {
	uint16_t id;                       /* event id (the channel's) */
	uint64_t ts;                       /* CLOCK_MONOTONIC ns */
	const uint8_t *bytes;              /* the whole record */
	size_t size;
	const uint8_t *payload;            /* bytes + payload_off */
	size_t payload_size;
};

void scry_record_layout_init(struct scry_record_layout *l, uint64_t ctx_mask);
/* Read a record's header: 0, or -1 when size cannot hold its header and contexts. */
int scry_record_read(const struct scry_record_layout *l, const uint8_t *bytes, size_t size,
		     struct scry_record *r);
/* An integer context of r (sign-extended as enum scry_ctx says); false if not recorded. */
bool scry_record_ctx(const struct scry_record_layout *l, const struct scry_record *r, int ctx, int64_t *v);
/* A text context (procname, hostname: NUL-padded), or NULL if not recorded. */
const char *scry_record_text(const struct scry_record_layout *l, const struct scry_record *r, int ctx, size_t *len);
/* A call stack context: *n addresses (NULL if not recorded), in r's bytes past its
 * payload, where the programs put them (scry_abi.h). */
const uint64_t *scry_record_callstack(const struct scry_record_layout *l, const struct scry_record *r, int ctx,
				      uint32_t *n);
/* The CTF form of a record (size bytes at in): its call stacks in their contexts' place,
 * each its count and frames (LTTng's sequence), before the payload.  Writes out (not
 * overlapping in; at most size bytes), returns its size (0: in is too short). */
size_t scry_record_compact(const struct scry_record_layout *l, const uint8_t *in, size_t size, uint8_t *out);
/* The procname context (up to SCRY_COMM_LEN bytes, NUL-padded), or NULL if not recorded. */
const char *scry_record_procname(const struct scry_record_layout *l, const struct scry_record *r, size_t *len);

#endif
