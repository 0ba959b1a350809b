/* live_proto.h — lttng-relayd's live viewer protocol (port 5344) as `scry view net://…`
 * speaks it (docs/RELAY.md): the viewer URL, the requests built into byte buffers and the
 * replies parsed and checked.  Pure functions over bytes, no socket: what src/view/live.c
 * sends and reads, and what the fuzzer (tests/fuzz/fuzz_live.c) feeds with garbage.  Every
 * integer big-endian, every struct packed (lttng-tools' bin/lttng-relayd/lttng-viewer-abi.h,
 * read, not copied). */
#ifndef SCRY_RELAY_LIVE_PROTO_H
#define SCRY_RELAY_LIVE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LIVE_MAJOR 2
#define LIVE_MINOR 4              /* what scry asks for (babeltrace2 asks the same) */

enum live_cmd {
	LIVE_CONNECT = 1,
	LIVE_LIST_SESSIONS = 2,
	LIVE_ATTACH_SESSION = 3,
	LIVE_GET_NEXT_INDEX = 4,
	LIVE_GET_PACKET = 5,
	LIVE_GET_METADATA = 6,
	LIVE_GET_NEW_STREAMS = 7,
	LIVE_CREATE_SESSION = 8,
	LIVE_DETACH_SESSION = 9,
};

#define LIVE_FLAG_NEW_METADATA 0x1
#define LIVE_FLAG_NEW_STREAM   0x2

enum { LIVE_ATTACH_OK = 1, LIVE_ATTACH_ALREADY, LIVE_ATTACH_UNK, LIVE_ATTACH_NOT_LIVE, LIVE_ATTACH_SEEK_ERR,
       LIVE_ATTACH_NO_SESSION };
enum { LIVE_INDEX_OK = 1, LIVE_INDEX_RETRY, LIVE_INDEX_HUP, LIVE_INDEX_ERR, LIVE_INDEX_INACTIVE, LIVE_INDEX_EOF };
enum { LIVE_PACKET_OK = 1, LIVE_PACKET_RETRY, LIVE_PACKET_ERR, LIVE_PACKET_EOF };
enum { LIVE_METADATA_OK = 1, LIVE_NO_NEW_METADATA, LIVE_METADATA_ERR };
enum { LIVE_STREAMS_OK = 1, LIVE_STREAMS_NO_NEW, LIVE_STREAMS_ERR, LIVE_STREAMS_HUP };
enum { LIVE_SEEK_BEGINNING = 1, LIVE_SEEK_LAST = 2 };

#define LIVE_CMD_HDR_LEN 16       /* {u64 data_size, u32 cmd, u32 cmd_version} */
#define LIVE_SESSION_LEN 339      /* {u64 id, u32 live_timer, u32 clients, u32 streams, char host[64], char name[255]} */
#define LIVE_STREAM_LEN 4371      /* {u64 id, u64 ctf_trace_id, u32 metadata, char path[4096], char channel[255]} */
#define LIVE_INDEX_LEN 64
#define LIVE_MAX_LEN (256u << 20) /* a packet or a metadata reply larger than this is refused */
#define LIVE_MAX_COUNT 65536      /* sessions or streams in one reply */

/* net://HOST[:PORT]/host/HOSTNAME/SESSION (net6://[V6]…), babeltrace2's lttng-live URL. */
struct live_url {
	char host[256];
	uint16_t port;
	bool v6;
	char hostname[65];        /* the traced machine's name, as the relay knows it */
	char session[256];
};

struct live_session {
	uint64_t id;
	uint32_t live_timer, clients, streams;
	char hostname[65], name[256];
};

struct live_stream {
	uint64_t id, trace_id;
	bool metadata;
	char path[4097], channel[256];
};

struct live_index {
	uint64_t offset, packet_size, content_size, ts_begin, ts_end, discarded, stream_id;
	uint32_t status, flags;
};

/* url into u.  0 or -EINVAL with a one-line reason in err. */
int live_url_parse(struct live_url *u, const char *url, char *err, size_t errlen);
/* Does s look like a viewer URL (net:// or net6://)? */
bool live_url_is_net(const char *s);

/* A request: the command header and its payload in buf (cap >= 64).  Returns the length. */
size_t live_build_connect(uint8_t *buf);
size_t live_build_simple(uint8_t *buf, uint32_t cmd);                 /* LIST_SESSIONS, CREATE_SESSION */
size_t live_build_id(uint8_t *buf, uint32_t cmd, uint64_t id);        /* GET_NEXT_INDEX, GET_METADATA, GET_NEW_STREAMS, DETACH */
size_t live_build_attach(uint8_t *buf, uint64_t session_id, uint32_t seek);
size_t live_build_get_packet(uint8_t *buf, uint64_t stream_id, uint64_t offset, uint32_t len);

/* Replies.  Each parser takes the bytes received so far: it returns the length of what it
 * parsed when they hold it whole (its fields set), 0 when more are needed, -EPROTO when they
 * cannot be one.  Variable parts (sessions, streams, packet and metadata bytes) follow their
 * header and are read by the caller: the header parser checks their count or length. */
long live_parse_connect(const uint8_t *p, size_t len, uint32_t *major, uint32_t *minor, uint64_t *viewer_id);
long live_parse_status(const uint8_t *p, size_t len, uint32_t *status);
long live_parse_list_hdr(const uint8_t *p, size_t len, uint32_t *count);
long live_parse_session(const uint8_t *p, size_t len, struct live_session *s);
long live_parse_streams_hdr(const uint8_t *p, size_t len, uint32_t *status, uint32_t *count);
long live_parse_stream(const uint8_t *p, size_t len, struct live_stream *s);
long live_parse_index(const uint8_t *p, size_t len, struct live_index *ix);
long live_parse_packet_hdr(const uint8_t *p, size_t len, uint32_t *status, uint32_t *plen, uint32_t *flags);
long live_parse_metadata_hdr(const uint8_t *p, size_t len, uint64_t *mlen, uint32_t *status);

const char *live_cmd_name(uint32_t cmd);
/* An attach or index status in words ("LTTNG_VIEWER_ATTACH_ALREADY: another viewer is attached"). */
const char *live_attach_text(uint32_t status);

#endif
