/* proto.h — lttng-relayd's producer protocol as scry speaks it (docs/RELAY.md): the relay's
 * URLs (net://, tcp://), the command numbers, the payloads scry sends built into byte
 * buffers, and the replies it reads parsed and checked.  Pure functions over bytes, no
 * socket: what relay.c sends and reads, and what the fuzzer (tests/fuzz/fuzz_relay.c)
 * feeds with garbage.  Every integer big-endian, every struct packed (lttng-tools'
 * sessiond-comm/relayd.h). */
#ifndef SCRY_RELAY_PROTO_H
#define SCRY_RELAY_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RELAY_DEFAULT_CTRL_PORT 5342
#define RELAY_DEFAULT_DATA_PORT 5343
#define RELAY_DEFAULT_LIVE_PORT 5344

#define RELAY_MAJOR 2
#define RELAY_MINOR 13          /* what scry offers; it speaks 11 and later (the 2.11 forms) */
#define RELAY_MIN_MINOR 11

#define RELAY_LTTNG_OK 10       /* lttng-error.h's LTTNG_OK */

enum relay_cmd {
	RELAY_ADD_STREAM = 1,
	RELAY_CREATE_SESSION = 2,
	RELAY_VERSION = 5,
	RELAY_SEND_METADATA = 6,
	RELAY_CLOSE_STREAM = 7,
	RELAY_SEND_INDEX = 13,
	RELAY_STREAMS_SENT = 16,
	RELAY_ROTATE_STREAMS = 18,
	RELAY_CREATE_TRACE_CHUNK = 19,
	RELAY_CLOSE_TRACE_CHUNK = 20,
	RELAY_TRACE_CHUNK_EXISTS = 21,
};

/* CLOSE_TRACE_CHUNK's command (lttng-tools' enum lttng_trace_chunk_command_type). */
enum relay_chunk_close {
	RELAY_CHUNK_MOVE_TO_COMPLETED = 0,   /* the chunk moved to NAME-DATE/archives/BEGIN-END-ID */
	RELAY_CHUNK_NO_OPERATION = 1,        /* left where it is */
};

#define RELAY_HDR_LEN 24        /* {u64 circuit_id, u64 data_size, u32 cmd, u32 cmd_version} */
#define RELAY_DATA_HDR_LEN 32   /* {u64 circuit_id, u64 stream_id, u64 net_seq_num, u32 size, u32 padding} */
#define RELAY_INDEX_LEN 80      /* SEND_INDEX's payload at minor >= 8 */

/* A relay's address: LTTng's net://HOST[:CTRL[:DATA]][/PATH] (net6:// for IPv6, HOST in
 * brackets), or -C tcp://HOST:PORT -D tcp://HOST:PORT. */
struct relay_url {
	char host[256];
	uint16_t ctrl_port, data_port;
	char path[256];         /* the trace's path under HOSTNAME/ at the relay ("": NAME-DATE) */
	bool v6;
};

/* net://... into u.  0 or -EINVAL with a one-line reason in err. */
int relay_url_parse(struct relay_url *u, const char *url, char *err, size_t errlen);
/* -C and -D (tcp://HOST:PORT each, the same host; one may be a net:// URL's spelling too). */
int relay_url_parse_cd(struct relay_url *u, const char *ctrl, const char *data, char *err, size_t errlen);
/* A session file's <net_output> (LTTng's session.xsd): its control_uri and data_uri,
 * tcp4://HOST:PORT/[PATH] (tcp6://[HOST]:PORT/, tcp://), as lttng saves them; the path
 * the control URI's.  0 or -EINVAL with a reason. */
int relay_url_parse_uris(struct relay_url *u, const char *ctrl, const char *data, char *err, size_t errlen);
/* The same two URIs of u, as lttng writes them (its uri_to_str_url). */
void relay_url_format_uris(const struct relay_url *u, char *ctrl, size_t clen, char *data, size_t dlen);
/* "net://HOST:CTRL:DATA[/PATH]" */
void relay_url_format(const struct relay_url *u, char *buf, size_t len);
/* Is s a relay URL (net://, net6://, tcp://, tcp6://) rather than a local path? */
bool relay_url_is_net(const char *s);

/* The command header for cmd with payload_len bytes following. */
void relay_put_hdr(uint8_t hdr[RELAY_HDR_LEN], uint32_t cmd, uint64_t payload_len);
/* The data connection's header of a packet. */
void relay_put_data_hdr(uint8_t hdr[RELAY_DATA_HDR_LEN], uint64_t handle, uint64_t net_seq, uint32_t size);

/* Payload builders: each writes into buf (cap bytes) and returns the length, or -ENOSPC. */
long relay_build_version(uint8_t *buf, size_t cap, uint32_t major, uint32_t minor);
struct relay_session_args {
	const char *name, *hostname, *base_path;   /* base_path "" for none */
	uint32_t live_timer_us;                    /* 0: not live */
	bool snapshot;
	const uint8_t *sessiond_uuid;              /* 16 bytes, not nil */
	uint64_t session_id;
	uint64_t creation_time;                    /* seconds since the Epoch */
};
long relay_build_create_session(uint8_t *buf, size_t cap, const struct relay_session_args *a);
/* name: the chunk's directory (a snapshot's), or NULL: the relay names it (BEGIN-ID). */
long relay_build_create_chunk(uint8_t *buf, size_t cap, uint64_t chunk_id, uint64_t creation_time, const char *name);
long relay_build_add_stream(uint8_t *buf, size_t cap, const char *channel, const char *path, uint64_t chunk_id);
/* ROTATE_STREAMS: the n streams (relay handles) go to chunk new_chunk (none: has_new false)
 * from the packet whose packet_seq_num is at_seq[i] on (the metadata's: ignored). */
long relay_build_rotate_streams(uint8_t *buf, size_t cap, const uint64_t *handles, const uint64_t *at_seq, size_t n,
				bool has_new, uint64_t new_chunk);
long relay_build_close_chunk(uint8_t *buf, size_t cap, uint64_t chunk_id, uint64_t close_time, enum relay_chunk_close cmd);
long relay_build_chunk_exists(uint8_t *buf, size_t cap, uint64_t chunk_id);
long relay_build_close_stream(uint8_t *buf, size_t cap, uint64_t handle, uint64_t last_net_seq);
/* SEND_INDEX of a packet (sizes in bits; a beacon: packet_bits 0, ts_end the time). */
struct relay_index {
	uint64_t handle, net_seq, packet_bits, content_bits, ts_begin, ts_end, discarded, stream_id,
		instance_id, packet_seq;
};
long relay_build_index(uint8_t *buf, size_t cap, const struct relay_index *ix);

/* Replies.  Each parser takes the bytes received so far: it returns the reply's length when
 * they hold it whole (its fields set), 0 when more are needed, -EPROTO when they cannot be
 * one.  The relay's return code is left to the caller (RELAY_LTTNG_OK, else a refusal). */
long relay_parse_version(const uint8_t *p, size_t len, uint32_t *major, uint32_t *minor);
long relay_parse_create_session(const uint8_t *p, size_t len, uint64_t *id, uint32_t *ret, char *path,
				size_t pathcap);
long relay_parse_add_stream(const uint8_t *p, size_t len, uint64_t *handle, uint32_t *ret);
long relay_parse_generic(const uint8_t *p, size_t len, uint32_t *ret);
/* CLOSE_TRACE_CHUNK's: {ret, path_len, path} (the chunk's path at the relay; none on error). */
long relay_parse_close_chunk(const uint8_t *p, size_t len, uint32_t *ret, char *path, size_t pathcap);
/* TRACE_CHUNK_EXISTS's: {ret, u8 exists}. */
long relay_parse_chunk_exists(const uint8_t *p, size_t len, uint32_t *ret, bool *exists);

/* The name of a command, for messages ("CREATE_SESSION"). */
const char *relay_cmd_name(uint32_t cmd);
/* A relay's return code in words ("LTTNG_ERR_UNK (11)"). */
void relay_code_text(uint32_t code, char *buf, size_t len);

#endif
