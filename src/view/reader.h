/* reader.h — reading CTF traces for `scry view`: find the traces under a directory, map
 * their stream files, walk packets and events, and merge all streams by time
 * (src/view/reader.c); or follow a live session at lttng-relayd, whose packets come from
 * the relay one by one (src/view/live.c). */
#ifndef SCRY_VIEW_READER_H
#define SCRY_VIEW_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "util/outbuf.h"
#include "view/plan.h"

struct view_event_class {
	const struct ctf_event_class *ec;
	const char *name;
	size_t name_len;
	struct plan ctx, fields;
};

struct view_sclass {
	const struct ctf_stream_class *sc;
	struct plan pctx, ehdr, ectx;
	struct view_event_class **by_id;   /* indexed by event id, NULL if unknown */
	uint64_t nids;
};

struct view_trace {
	char *dir;
	struct ctf_metadata *m;
	struct plan pkt_header;
	struct view_sclass *sclasses;
	size_t nsclasses;
	struct view_event_class *events;
	size_t nevents;
	uint64_t freq;
	int64_t offset_ns;                 /* clock origin: offset_s + offset, in ns */
};

struct view_stream {
	struct view_trace *t;
	char *path;                        /* full path */
	const char *relname;               /* file name */
	const uint8_t *map;
	uint64_t size;
	int index;                         /* tie-break order */
	/* current packet */
	struct view_sclass *sc;
	uint64_t pkt_off, pkt_bytes, next_off;
	struct cursor cur;
	struct dec_state st;
	struct vbuf pvals;                 /* packet context values */
	uint64_t stream_id, instance_id;
	bool have_packet, eof, failed;
	uint64_t prev_discarded;
	uint64_t prev_ts_end;
	bool had_packet_before;
	/* current event */
	const struct view_event_class *ev;
	uint64_t cycles;                   /* the current event's clock value */
	uint64_t nevents_read;             /* events decoded so far */
	int64_t ts_ns;                     /* ns since the epoch */
	struct vbuf vals;                  /* stream event context, event context, payload */
	size_t nv_ectx, nv_ctx;            /* values of each scope */
	uint64_t ev_off;                   /* file offset of the event (errors) */
	uint64_t ev_pos;                   /* bit position of the event in its packet */
	int64_t cpu_id;
	/* live: the stream's packets come from the relay one at a time (map: the last one) */
	bool starved;                      /* no packet at hand, the stream goes on */
	int64_t quiet_until;               /* ns: the relay said no event before this (a beacon) */
	int live_idx;                      /* its place (from 1) in src/view/live.c; 0: a file */
};

struct view {
	struct view_trace *traces;
	size_t ntraces;
	struct view_stream *streams;
	size_t nstreams;
	struct view_stream **heap;
	size_t nheap;
	bool started;
	int errors;                        /* corrupt packets met */
	FILE *errf;                        /* warnings and errors (stderr) */
	bool gmt;                          /* times in warnings */
	/* live (view_open_live, src/view/live.c); NULL when reading files */
	struct view_live *live;
	struct view_stream **starved;      /* live streams waiting for a packet */
	size_t nstarved;
	uint64_t gen;                      /* bumped when a trace's metadata grew: filters rebuilt */
	struct outbuf *flush_ob;           /* flushed before waiting for the relay */
};

/* Open every trace under dir.  0, or -1 with a one-line reason. */
int view_open(struct view *v, const char *dir, FILE *errf, char *err, size_t errlen);
/* Next event in time order, or NULL at the end.  The returned stream's current event is
 * valid until the next call. */
struct view_stream *view_next(struct view *v);
void view_close(struct view *v);

/* A trace from its metadata (text or packetized), named name in messages.  0 or -1. */
int view_trace_load(struct view_trace *t, const char *name, const uint8_t *raw, size_t rawlen, char *err,
		    size_t errlen);
void view_trace_free(struct view_trace *t);
/* After s's trace was rebuilt in place from longer metadata: s's stream class looked up
 * again, and its current event (has_event) decoded again with the new plans.  0, or -1
 * (the stream reported corrupt). */
int view_stream_rebind(struct view *v, struct view_stream *s, bool has_event);
/* Live streams were added: the order of equal times (trace, then channel_CPU) again. */
void view_live_reorder(struct view *v);

int64_t view_cycles_to_ns(const struct view_trace *t, uint64_t cycles);

#endif
