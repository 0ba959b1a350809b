/* consumer.h — moves events from the per-CPU BPF ring buffers into CTF streams.
 * Driven by its owner: scry_consumer_poll() drains every ring once (no wakeup per event:
 * the BPF side never wakes us, the owner polls on a timer), carries the per-CPU loss
 * counters into the streams, and a timer flush closes packets so that a trace cut short
 * is readable up to its last flush.  The stream files are written by a writer thread
 * (ctf/writer.h): a poll never waits for the disk. */
#ifndef SCRY_CONSUMER_H
#define SCRY_CONSUMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ctf/trace_dir.h"
#include "kernel/probes.h"

/* Live mode: each event handed to a callback instead of a CTF stream (cpu, its bytes:
 * header, contexts, payload; valid during the call).  Per CPU in time order. */
typedef void (*scry_event_sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size);

/* A user-space filter: asked about each event whose id has its bit set (same arguments as
 * the sink); false drops the event before it reaches a stream or the sink. */
typedef bool (*scry_event_pred)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size);
#define SCRY_PRED_IDS_WORDS (65536 / 64)   /* a bit per uint16 event id */

struct scry_consumer_opts {
	struct scry_probes *probes;
	scry_event_sink sink;       /* non-NULL: every event handed to it too (live output) */
	void *sink_ctx;
	scry_event_pred pred;       /* non-NULL: events of the ids in pred_ids are filtered */
	void *pred_ctx;
	const uint64_t *pred_ids;   /* SCRY_PRED_IDS_WORDS words; valid while the consumer is */
	uint64_t stage_max_age_ns;  /* staged events are fetched at least this often (0: 20 ms) */
	struct ctf_trace_dir *tdir; /* the trace directory (its current kernel/ chunk gets the
				     * streams); NULL: no CTF streams */
	const char *channel;        /* "channel0" */
	const uint8_t *uuid;        /* 16 bytes */
	size_t ring_size;           /* bytes of each CPU's ring */
	uint32_t stream_id;
	size_t packet_size;
	uint64_t start_ts;
	unsigned keep_packets;      /* > 0: a flight recorder: no stream files, each CPU's last
				     * keep_packets packets kept in memory (scry_consumer_snapshot) */
	uint64_t tracefile_size, tracefile_count;   /* LTTng's stream file splitting (ctf/stream.h) */
	uint64_t ctx_mask;          /* the channel's contexts: call stacks are cut to their length
				     * in the streams, and the user ones' mappings captured into
				     * maps_dir's SCRY_MAPS_FILE (catalog/symbolize.h) */
	struct scry_dirh *maps_dir;
	/* packet sinks (ctf/stream.h: a relay's streams), one per stream opened, beside the
	 * trace directory's files or alone (tdir NULL); NULL: none.  Valid while c is. */
	const struct ctf_sink_factory *sinks;
	unsigned overwrite_packets;  /* > 0: an overwrite channel's sub-buffers per CPU waiting for
				      * the writer (ctf/stream.h), the oldest unwritten overwritten */
	uint64_t writer_queue;      /* the stream files are written by a writer thread, which
				     * may hold this many bytes of packets per stream (0:
				     * SCRY_WRITER_QUEUE; at least two rings and packets): a
				     * ring whose stream has no room waits in the kernel */
};

#define SCRY_WRITER_QUEUE (64ull << 20)

struct scry_consumer_stats {
	uint64_t events;            /* events written to the streams (without any: given to the sink) */
	uint64_t discarded;         /* events lost in the kernel (ring full or build area busy) */
	uint64_t truncated;         /* events whose strings were cut at SCRY_STR_MAX */
	uint64_t bytes;             /* bytes written to stream files */
	uint64_t clamped;           /* events whose timestamp was raised to keep a stream ordered */
	uint64_t lost;              /* events not written: the output failed (write_error), or
				     * too_big; counted once the rings gave them */
	uint64_t too_big;           /* events longer than a packet's payload (--packet-size) */
	int write_error;            /* -errno of the first failed write (every stream stopped
				     * there, the files end at their last complete packet), or 0 */
	uint64_t errors;            /* malformed ring records (cannot happen) */
	uint64_t filtered;          /* events the user-space filter rejected (not lost) */
	uint64_t lost_packets;      /* overwrite_packets: sub-buffers overwritten before written */
	uint64_t unfollowed;        /* children not followed: the follow set was full */
};

struct scry_consumer;

int scry_consumer_open(struct scry_consumer **out, const struct scry_consumer_opts *o, char *err, size_t errlen);
/* Drain every ring once.  Returns the bytes consumed (>= 0) or -errno. */
long scry_consumer_poll(struct scry_consumer *c);
/* How long the owner may wait before the next poll: the time the fill rate seen so far
 * takes to fill a sixteenth of a ring (0.2 to 20 ms), 0 after a poll that moved a lot. */
uint64_t scry_consumer_poll_delay_ns(const struct scry_consumer *c);
/* Write out partly filled packets.  Returns the write error that stopped the streams, or 0. */
int scry_consumer_flush(struct scry_consumer *c);
/* The programs stopped writing (their switch off) at end_ts: what every CPU staged and its
 * ring hold moved into the streams, and their packets written out up to end_ts (a trace
 * complete on disk, every stream's last packet reaching end_ts); the streams stay open for
 * more.  Returns the write error that stopped the streams, or 0. */
int scry_consumer_drain(struct scry_consumer *c, uint64_t end_ts);
/* The live timer's tick (LTTng's live and switch timers) at now: what every CPU staged and
 * its ring hold moved into the streams, every stream's partly filled packet written out, and
 * a stream that never had a packet given an empty one (at the start), so that a live viewer
 * has an index of every stream.  The write error, or 0. */
int scry_consumer_live_tick(struct scry_consumer *c, uint64_t now);
/* A channel's switch timer (LTTng's): what every CPU staged and its ring hold moved into the
 * streams, their partly filled packets written out.  The write error, or 0. */
int scry_consumer_switch(struct scry_consumer *c);
/* The fullest CPU ring's bytes not yet consumed, and a ring's size (LTTng's monitor timer
 * samples buffer usage). */
void scry_consumer_usage(const struct scry_consumer *c, uint64_t *used, uint64_t *size);
/* Running totals (events and bytes so far). */
void scry_consumer_stats(struct scry_consumer *c, struct scry_consumer_stats *out);
/* A flight recorder's streams written as the streams of the trace td (its kernel/
 * directory), after a drain of the rings: each at most max_bytes (0: no bound) of its
 * newest packets.  Recording goes on.  *bytes: what was written.  0 or -errno. */
int scry_consumer_snapshot(struct scry_consumer *c, struct ctf_trace_dir *td, uint64_t max_bytes, uint64_t *bytes,
			   char *err, size_t errlen);
/* The same, each stream's packets to a sink opened from f (a relay's), closed after. */
int scry_consumer_snapshot_to(struct scry_consumer *c, const struct ctf_sink_factory *f, uint64_t max_bytes,
			      uint64_t *bytes, char *err, size_t errlen);
/* Rotation: the rings drained, every stream closed (its last packet ends at end_ts): the
 * files in the chunk are complete, the caller may move it away; then
 * scry_consumer_rotate_open opens new streams in tdir's new chunk (packets from start_ts).  The totals
 * go on across chunks.  0 or -errno with a reason. */
int scry_consumer_rotate_close(struct scry_consumer *c, uint64_t end_ts, char *err, size_t errlen);
int scry_consumer_rotate_open(struct scry_consumer *c, uint64_t start_ts, char *err, size_t errlen);
/* Final drain, close every stream (end_ts: timestamp_end of the last packets), free c.
 * Write errors are in out (write_error, lost), not in the return value. */
int scry_consumer_close(struct scry_consumer *c, uint64_t end_ts, struct scry_consumer_stats *out);

#endif
