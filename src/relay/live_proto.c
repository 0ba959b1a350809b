/* live_proto.c — lttng-relayd's live viewer protocol: URL, requests and replies (see
 * live_proto.h). */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "relay/live_proto.h"
#include "relay/wire.h"

bool live_url_is_net(const char *s)
{
	return !strncmp(s, "net://", 6) || !strncmp(s, "net6://", 7);
}

/* One path component of at most cap-1 bytes, no control character: copied into out.
 * Returns the byte after it, or NULL. */
static const char *component(const char *p, char *out, size_t cap)
{
	size_t n = strcspn(p, "/");

	if (!n || n >= cap)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return NULL;
	memcpy(out, p, n);
	out[n] = 0;
	return p + n;
}

int live_url_parse(struct live_url *u, const char *url, char *err, size_t errlen)
{
	char sb[256];
	const char *p, *he;

	memset(u, 0, sizeof(*u));
	u->port = 5344;
	if (!strncmp(url, "net://", 6)) {
		p = url + 6;
	} else if (!strncmp(url, "net6://", 7)) {
		p = url + 7;
		u->v6 = true;
	} else {
		snprintf(err, errlen, "viewer URL '%s': give net://HOST[:PORT]/host/HOSTNAME/SESSION",
			 relay_shown(url, sb, sizeof(sb)));
		return -EINVAL;
	}
	if (*p == '[') {
		if (!(he = strchr(p, ']')))
			goto bad_host;
		if (he - p - 1 <= 0 || (size_t)(he - p - 1) >= sizeof(u->host))
			goto bad_host;
		memcpy(u->host, p + 1, (size_t)(he - p - 1));
		u->v6 = true;
		p = he + 1;
	} else {
		size_t n = strcspn(p, ":/");

		if (!n || n >= sizeof(u->host))
			goto bad_host;
		for (size_t i = 0; i < n; i++) {
			char c = p[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
			      c == '-' || c == '_'))
				goto bad_host;
		}
		memcpy(u->host, p, n);
		p += n;
	}
	if (*p == ':') {
		unsigned long v = 0;
		size_t n = strspn(++p, "0123456789");

		if (!n || n > 5)
			goto bad_port;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (unsigned long)(p[i] - '0');
		if (!v || v > 65535)
			goto bad_port;
		u->port = (uint16_t)v;
		p += n;
	}
	if (strncmp(p, "/host/", 6) || !(p = component(p + 6, u->hostname, sizeof(u->hostname))) || *p != '/' ||
	    !(p = component(p + 1, u->session, sizeof(u->session))) || *p) {
		snprintf(err, errlen, "viewer URL '%s': give net://HOST[:PORT]/host/HOSTNAME/SESSION",
			 relay_shown(url, sb, sizeof(sb)));
		return -EINVAL;
	}
	return 0;
bad_host:
	snprintf(err, errlen, "viewer URL '%s': no host, or a host a host name cannot be", relay_shown(url, sb, sizeof(sb)));
	return -EINVAL;
bad_port:
	snprintf(err, errlen, "viewer URL '%s': the port is not a number from 1 to 65535", relay_shown(url, sb, sizeof(sb)));
	return -EINVAL;
}

static void put_cmd(uint8_t *buf, uint32_t cmd, uint64_t payload)
{
	be64(buf, payload);
	be32(buf + 8, cmd);
	be32(buf + 12, 0);
}

size_t live_build_connect(uint8_t *buf)
{
	put_cmd(buf, LIVE_CONNECT, 20);
	be64(buf + 16, 0);                        /* viewer session id: the relay assigns it */
	be32(buf + 24, LIVE_MAJOR);
	be32(buf + 28, LIVE_MINOR);
	be32(buf + 32, 1);                        /* LTTNG_VIEWER_CLIENT_COMMAND */
	return 36;
}

size_t live_build_simple(uint8_t *buf, uint32_t cmd)
{
	put_cmd(buf, cmd, 0);
	return LIVE_CMD_HDR_LEN;
}

size_t live_build_id(uint8_t *buf, uint32_t cmd, uint64_t id)
{
	put_cmd(buf, cmd, 8);
	be64(buf + 16, id);
	return 24;
}

size_t live_build_attach(uint8_t *buf, uint64_t session_id, uint32_t seek)
{
	put_cmd(buf, LIVE_ATTACH_SESSION, 20);
	be64(buf + 16, session_id);
	be64(buf + 24, 0);                        /* offset: unused by the relay */
	be32(buf + 32, seek);
	return 36;
}

size_t live_build_get_packet(uint8_t *buf, uint64_t stream_id, uint64_t offset, uint32_t len)
{
	put_cmd(buf, LIVE_GET_PACKET, 20);
	be64(buf + 16, stream_id);
	be64(buf + 24, offset);
	be32(buf + 32, len);
	return 36;
}

long live_parse_connect(const uint8_t *p, size_t len, uint32_t *major, uint32_t *minor, uint64_t *viewer_id)
{
	if (len < 20)
		return 0;
	*viewer_id = rd64(p);
	*major = rd32(p + 8);
	*minor = rd32(p + 12);
	return 20;
}

long live_parse_status(const uint8_t *p, size_t len, uint32_t *status)
{
	if (len < 4)
		return 0;
	*status = rd32(p);
	return 4;
}

long live_parse_list_hdr(const uint8_t *p, size_t len, uint32_t *count)
{
	if (len < 4)
		return 0;
	*count = rd32(p);
	return *count > LIVE_MAX_COUNT ? -EPROTO : 4;
}

/* A fixed char[n] field, maybe not NUL-terminated, into out (cap > n). */
static void fixed_str(char *out, const uint8_t *p, size_t n)
{
	size_t k = strnlen((const char *)p, n);

	memcpy(out, p, k);
	out[k] = 0;
}

long live_parse_session(const uint8_t *p, size_t len, struct live_session *s)
{
	if (len < LIVE_SESSION_LEN)
		return 0;
	s->id = rd64(p);
	s->live_timer = rd32(p + 8);
	s->clients = rd32(p + 12);
	s->streams = rd32(p + 16);
	fixed_str(s->hostname, p + 20, 64);
	fixed_str(s->name, p + 84, 255);
	return LIVE_SESSION_LEN;
}

long live_parse_streams_hdr(const uint8_t *p, size_t len, uint32_t *status, uint32_t *count)
{
	if (len < 8)
		return 0;
	*status = rd32(p);
	*count = rd32(p + 4);
	return *count > LIVE_MAX_COUNT ? -EPROTO : 8;
}

long live_parse_stream(const uint8_t *p, size_t len, struct live_stream *s)
{
	uint32_t md;

	if (len < LIVE_STREAM_LEN)
		return 0;
	s->id = rd64(p);
	s->trace_id = rd64(p + 8);
	md = rd32(p + 16);
	if (md > 1)
		return -EPROTO;
	s->metadata = md;
	fixed_str(s->path, p + 20, 4096);
	fixed_str(s->channel, p + 4116, 255);
	return LIVE_STREAM_LEN;
}

long live_parse_index(const uint8_t *p, size_t len, struct live_index *ix)
{
	if (len < LIVE_INDEX_LEN)
		return 0;
	ix->offset = rd64(p);
	ix->packet_size = rd64(p + 8);
	ix->content_size = rd64(p + 16);
	ix->ts_begin = rd64(p + 24);
	ix->ts_end = rd64(p + 32);
	ix->discarded = rd64(p + 40);
	ix->stream_id = rd64(p + 48);
	ix->status = rd32(p + 56);
	ix->flags = rd32(p + 60);
	if (ix->status == LIVE_INDEX_OK &&
	    (ix->packet_size % 8 || !ix->packet_size || ix->packet_size / 8 > LIVE_MAX_LEN ||
	     ix->content_size > ix->packet_size))
		return -EPROTO;
	return LIVE_INDEX_LEN;
}

long live_parse_packet_hdr(const uint8_t *p, size_t len, uint32_t *status, uint32_t *plen, uint32_t *flags)
{
	if (len < 12)
		return 0;
	*status = rd32(p);
	*plen = rd32(p + 4);
	*flags = rd32(p + 8);
	if (*plen > LIVE_MAX_LEN || (*status != LIVE_PACKET_OK && *plen))
		return -EPROTO;
	return 12;
}

long live_parse_metadata_hdr(const uint8_t *p, size_t len, uint64_t *mlen, uint32_t *status)
{
	if (len < 12)
		return 0;
	*mlen = rd64(p);
	*status = rd32(p + 8);
	if (*mlen > LIVE_MAX_LEN || (*status != LIVE_METADATA_OK && *mlen))
		return -EPROTO;
	return 12;
}

const char *live_cmd_name(uint32_t cmd)
{
	switch (cmd) {
	case LIVE_CONNECT: return "CONNECT";
	case LIVE_LIST_SESSIONS: return "LIST_SESSIONS";
	case LIVE_ATTACH_SESSION: return "ATTACH_SESSION";
	case LIVE_GET_NEXT_INDEX: return "GET_NEXT_INDEX";
	case LIVE_GET_PACKET: return "GET_PACKET";
	case LIVE_GET_METADATA: return "GET_METADATA";
	case LIVE_GET_NEW_STREAMS: return "GET_NEW_STREAMS";
	case LIVE_CREATE_SESSION: return "CREATE_SESSION";
	case LIVE_DETACH_SESSION: return "DETACH_SESSION";
	default: return "?";
	}
}

const char *live_attach_text(uint32_t status)
{
	switch (status) {
	case LIVE_ATTACH_OK: return "attached";
	case LIVE_ATTACH_ALREADY: return "another viewer is attached to the session (the relay allows one)";
	case LIVE_ATTACH_UNK: return "the relay knows no such session (it ended?)";
	case LIVE_ATTACH_NOT_LIVE: return "the session is not a live session (create it with --live)";
	case LIVE_ATTACH_SEEK_ERR: return "the relay refused the seek";
	case LIVE_ATTACH_NO_SESSION: return "no viewer session at the relay";
	default: return "an unknown answer";
	}
}
