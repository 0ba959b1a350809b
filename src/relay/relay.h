/* relay.h — a session's streams sent to an lttng-relayd (LTTng's network output), as
 * lttng-consumerd sends them: a control connection (commands, each packet's index, the
 * metadata) and a data connection (the packets), docs/RELAY.md.
 *
 * The handshake (VERSION, CREATE_SESSION, CREATE_TRACE_CHUNK, the metadata stream), each
 * ADD_STREAM and STREAMS_SENT wait for the relay's answer (timeout_ns); a relay that refuses
 * a step, or speaks another major, gets a one-line error naming the step and its answer.
 * From then on nothing waits: packets and indexes go to bounded send queues, drained by
 * scry_relay_pump on the owner's event loop (non-blocking sockets); a packet the queue has
 * no room for, or that a relay gone away never took, is counted as not delivered, never
 * silently dropped.  Single-threaded. */
#ifndef SCRY_RELAY_RELAY_H
#define SCRY_RELAY_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ctf/stream.h"
#include "relay/proto.h"

#define SCRY_RELAY_DEFAULT_QUEUE   (64u << 20)          /* bytes queued at most */
#define SCRY_RELAY_DEFAULT_TIMEOUT (5000000000ULL)      /* a reply, or the last packets: 5 s */

struct scry_relay_opts {
	const struct relay_url *url;
	const char *session_name;       /* the session's name at the relay (HOSTNAME/NAME-DATE) */
	const char *hostname;           /* NULL: this machine's */
	uint32_t live_timer_us;         /* > 0: a live session */
	const char *snapshot;           /* non-NULL: a snapshot session at the relay, its one trace
					 * chunk (the snapshot's directory) so named; no indexes */
	size_t max_queue;               /* 0: SCRY_RELAY_DEFAULT_QUEUE */
	uint64_t timeout_ns;            /* 0: SCRY_RELAY_DEFAULT_TIMEOUT */
};

struct scry_relay_stats {
	uint64_t packets, events;            /* delivered: every byte sent, its index answered */
	uint64_t bytes;                      /* packet bytes queued for the relay */
	uint64_t lost_packets, lost_events;  /* not delivered (queue full, the relay gone): their
					      * packet_seq_num is a gap in the relay's copy */
	uint64_t beacons;                    /* live beacons sent */
	uint64_t queued;                     /* bytes waiting in the send queues */
};

struct scry_relay;

/* Connect and hand-shake up to the metadata stream.  0 or -errno with a one-line reason. */
int scry_relay_connect(struct scry_relay **out, const struct scry_relay_opts *o, char *err, size_t errlen);
/* The metadata, whole (as written to a trace's metadata file): what the relay has not had of
 * it appended (SEND_METADATA).  0 or -errno with a reason. */
int scry_relay_metadata(struct scry_relay *r, const char *text, char *err, size_t errlen);
/* The packet sinks of the session's streams: each stream opened is an ADD_STREAM. */
const struct ctf_sink_factory *scry_relay_sinks(struct scry_relay *r);
/* Every stream added: the relay publishes them to live viewers.  0 or -errno. */
int scry_relay_streams_sent(struct scry_relay *r, char *err, size_t errlen);
/* Send what the sockets take, read the replies; never waits. */
void scry_relay_pump(struct scry_relay *r);
/* The queues are past their high mark: the owner should stop moving events in (they wait
 * in the rings; the kernel counts what does not fit there). */
bool scry_relay_backlogged(const struct scry_relay *r);
/* The live timer's tick: a beacon (an index with no packet, ending at now) for every stream
 * that sent no packet since the last tick. */
void scry_relay_live_tick(struct scry_relay *r, uint64_t now);
/* Rotation through the relay's trace chunks, as lttng-sessiond does: the packets given so
 * far (every stream's last one of the chunk already handed to the sinks) stay in the
 * current chunk, which the relay archives (NAME-DATE/archives/BEGIN-END-ID: its path at the
 * relay in archive, "" when there was no current chunk); the next ones go to a new chunk
 * (next), or to none until a later scry_relay_rotate(r, true, ...).  Waits for the relay
 * (at most the timeout per step).  0 or -errno with a one-line reason. */
int scry_relay_rotate(struct scry_relay *r, bool next, char *archive, size_t len, char *err, size_t errlen);
/* A snapshot's end: every stream closed, the chunk closed where it is; its path at the
 * relay in path.  0 or -errno with a reason (then the snapshot is not whole). */
int scry_relay_finish_snapshot(struct scry_relay *r, char *path, size_t len, char *err, size_t errlen);
/* Wait (at most the timeout) until everything queued is sent and answered: what is not is
 * counted lost.  0, or -errno when the relay failed (the reason in scry_relay_error). */
int scry_relay_flush(struct scry_relay *r);
/* The metadata stream closed, everything flushed, the connections closed, r freed.  The
 * final totals in st (may be NULL), why it failed in error ("" if it did not; may be NULL). */
void scry_relay_close(struct scry_relay *r, struct scry_relay_stats *st, char *error, size_t errlen);
void scry_relay_stats(const struct scry_relay *r, struct scry_relay_stats *st);
/* Why the relay stopped taking packets ("" while it works). */
const char *scry_relay_error(const struct scry_relay *r);
/* "net://HOST:CTRL:DATA" */
const char *scry_relay_name(const struct scry_relay *r);
/* The session's directory at the relay, as it answered CREATE_SESSION (may be ""). */
const char *scry_relay_path(const struct scry_relay *r);

#endif
