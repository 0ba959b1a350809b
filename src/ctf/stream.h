/* stream.h — one CTF data stream (a channel on one CPU): DIR/<channel>_<cpu> and its
 * LTTng packet index DIR/index/<channel>_<cpu>.idx (or, split, <channel>_<cpu>_<index>).
 *
 * Events arrive as complete byte records in their CTF layout (scry_abi.h: u16 id,
 * u64 timestamp, context, payload).  The stream packs them into packets (header +
 * context, see docs/FORMAT.md), keeps timestamps non-decreasing (an event older than
 * the current packet's last one is moved to its place in the packet; one older than
 * what is already written gets the last written timestamp), and writes each packet whole when it is
 * full or flushed.  A failed write (disk full) fails the stream: the file ends at its last
 * complete packet, nothing more is written, and every event not written is counted.
 * With a writer thread (opts.writer), the packets are written there: a full packet never
 * waits for the disk; close and seal wait until everything given to it is written. */
#ifndef SCRY_CTF_STREAM_H
#define SCRY_CTF_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/dirh.h"

struct ctf_writer;

/* What a packet sink is told of each packet besides its bytes: its context's values. */
struct ctf_packet_info {
	uint64_t packet_bits, content_bits;  /* as in the context: sizes in bits */
	uint64_t ts_begin, ts_end;
	uint64_t discarded;                  /* events_discarded (cumulative) */
	uint64_t seq;                        /* packet_seq_num */
	uint64_t stream_id;                  /* stream class id */
	uint64_t instance_id;                /* stream_instance_id */
	uint64_t events;                     /* events in the packet */
};

/* A packet sink beside the stream's files (a relay's stream, outputs of the engine): told
 * of each packet once complete (and written to the files, when there are), and of the
 * stream's end.  Its failures are its own: the stream goes on. */
struct ctf_packet_sink {
	void (*packet)(void *ctx, const uint8_t *pkt, size_t len, const struct ctf_packet_info *pi);
	void (*close)(void *ctx);   /* the stream closed: no more packets (ctx may be freed) */
};

/* Where each new stream's sink comes from (a consumer opens streams per CPU and chunk):
 * open returns the sink's ctx for the stream (channel, cpu, stream class id) or NULL with
 * a reason in err. */
struct ctf_sink_factory {
	const struct ctf_packet_sink *ops;
	void *(*open)(void *fctx, const char *channel, unsigned cpu, uint32_t stream_id, char *err, size_t errlen);
	void *fctx;
};

struct ctf_stream_opts {
	struct scry_dirh *kdir;     /* the trace's kernel/ directory (util/dirh.h: files made new in it, 0640) */
	struct scry_dirh *idir;     /* its index/ directory */
	const char *channel;        /* "channel0" */
	unsigned cpu;
	const uint8_t *uuid;        /* 16 bytes: the trace uuid */
	uint32_t stream_id;         /* stream class id (0) */
	uint64_t stream_instance_id;/* unique per stream of the trace (the cpu) */
	size_t packet_size;         /* bytes per packet, header included (e.g. 1 MiB) */
	uint64_t start_ts;          /* trace start (CLOCK_MONOTONIC ns): timestamp_begin of the first packet */
	unsigned keep_packets;      /* > 0: a flight recorder: no files, the last keep_packets
				     * packets kept in memory (the oldest overwritten), written
				     * by ctf_stream_snapshot; kdir, idir may be NULL */
	uint64_t tracefile_size;    /* > 0: LTTng's tracefile splitting: files <channel>_<cpu>_<index>
				     * (indexes likewise), a new one when the next packet would pass
				     * this size */
	uint64_t tracefile_count;   /* > 0: with tracefile_size, at most this many files: the
				     * oldest deleted */
	const struct ctf_packet_sink *sink;   /* non-NULL: told of every packet (with kdir and
					       * idir NULL: the only output, no files) */
	void *sink_ctx;
	/* > 0: LTTng's overwrite channel in a normal session: completed packets wait in a ring
	 * of overwrite_packets sub-buffers until the writer (ctf_stream_flush, seal, close)
	 * writes them; one completed while the ring is full overwrites the oldest unwritten one:
	 * a lost packet (a gap in packet_seq_num).  Not with a sink. */
	unsigned overwrite_packets;
	struct ctf_writer *writer;  /* non-NULL: the files written by this writer thread
				     * (ctf/writer.h; not with tracefile_size), which outlives
				     * the stream; NULL: written by the caller's thread */
	uint64_t writer_queue;      /* with a writer: the bytes it may hold for this stream
				     * (ctf_stream_room) */
};

struct ctf_stream_stats {
	uint64_t events;            /* written, or waiting in the current packet */
	uint64_t lost;              /* appended but not written: the stream failed, or too_big */
	uint64_t too_big;           /* events longer than a packet's payload */
	int error;                  /* the write error that failed the stream (-errno), or 0 */
	uint64_t packets;
	uint64_t bytes;             /* bytes written to the stream file */
	uint64_t clamped;           /* events whose timestamp was raised to keep order */
	uint64_t reordered;         /* events moved back to their place in the packet */
	uint64_t lost_packets;      /* overwrite_packets: packets overwritten before written */
};

struct ctf_stream;

struct ctf_stream *ctf_stream_open(const struct ctf_stream_opts *o, char *err, size_t errlen);
/* Append one event (len bytes).  Events longer than a packet's payload are refused (-E2BIG);
 * a write error fails the stream and is returned, then returned again by every later
 * append (each such event counted lost). */
int ctf_stream_append(struct ctf_stream *s, const void *ev, size_t len);
/* Stop writing (another stream of the trace failed): the current packet's events are lost. */
void ctf_stream_fail(struct ctf_stream *s, int error);
/* Cumulative count of events lost on this stream so far (goes into the next packet). */
void ctf_stream_set_discarded(struct ctf_stream *s, uint64_t cumulative);
/* Write the current packet now if it holds any event (timer flush). */
int ctf_stream_flush(struct ctf_stream *s);
/* The stream's packets written out up to end_ts, as at its close, the file kept open (a
 * stopped session: every stream's packets reach the stop, as LTTng's stop flushes them);
 * a flight recorder's is only flushed (its held packets keep their room). */
int ctf_stream_seal(struct ctf_stream *s, uint64_t end_ts);
/* Flush, write one (empty) packet if the stream never had one, close the files, free s.
 * Returns the error of a write or close here (not the error that failed the stream before).
 * end_ts: timestamp_end of the last packet if later than its last event.
 * final (may be NULL): the stream's totals, the last packets included. */
int ctf_stream_close(struct ctf_stream *s, uint64_t end_ts, struct ctf_stream_stats *final);
/* The totals so far (with a writer: its bytes written and the events of the packets it
 * could not write included).  Valid until the next call on s. */
const struct ctf_stream_stats *ctf_stream_stats(struct ctf_stream *s);
/* With a writer: may bytes more of events be appended without passing writer_queue (the
 * writer holding nothing always leaves room)?  Without one, always true. */
bool ctf_stream_room(const struct ctf_stream *s, size_t bytes);
/* Block until ctf_stream_room(s, bytes) (a final drain, a stop). */
void ctf_stream_wait_room(struct ctf_stream *s, size_t bytes);
/* The error that failed the stream (its writer's included), or 0. */
int ctf_stream_error(struct ctf_stream *s);
/* Nothing more before ts will be in the stream (a live tick drained everything older): its
 * next packet begins no earlier, and an event older than ts that still comes gets ts
 * (counted in clamped).  A live viewer then never sees a packet begin before a beacon.
 * Only between packets (no event pending). */
void ctf_stream_idle_until(struct ctf_stream *s, uint64_t ts);
/* The context values of the packet pkt (len bytes), as a sink is told of them. */
void ctf_packet_info_of(const uint8_t *pkt, struct ctf_packet_info *pi);

/* A flight recorder's stream (keep_packets) written as a stream of the trace whose kernel/
 * and kernel/index/ directories are kdir and idir (<channel>_<cpu> and its index): the packets it holds, oldest
 * first (with their packet_seq_num: those overwritten are a gap), then the events of the
 * current packet as one more packet; at most max_bytes (0: no bound) of the newest packets.
 * The stream goes on recording.  *bytes, *packets: what was written.  0 or -errno. */
int ctf_stream_snapshot(struct ctf_stream *s, struct scry_dirh *kdir, struct scry_dirh *idir, uint64_t max_bytes,
			uint64_t *bytes, uint64_t *packets, char *err, size_t errlen);
/* The same packets handed to sink (ctx) instead of files (a snapshot sent to a relay). */
int ctf_stream_snapshot_to(struct ctf_stream *s, const struct ctf_packet_sink *sink, void *ctx, uint64_t max_bytes,
			   uint64_t *bytes, uint64_t *packets, char *err, size_t errlen);

#endif
