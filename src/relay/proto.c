/* proto.c — lttng-relayd's producer protocol: URLs, payloads and replies (see proto.h). */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "relay/proto.h"
#include "relay/wire.h"

const char *relay_shown(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len && i < 200; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = 0;
	return buf;
}

/* A port number: 1..65535. */
static int parse_port(const char *s, size_t n, uint16_t *out)
{
	unsigned long v = 0;

	if (!n || n > 5)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (!v || v > 65535)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

/* After the scheme: HOST (or [V6HOST]), then ':'-separated ports up to '/' or the end.
 * *rest: the first character after the ports. */
static int parse_hostports(struct relay_url *u, const char *p, uint16_t *ports, unsigned maxports, unsigned *nports,
			   const char **rest, const char *url, char *err, size_t errlen)
{
	const char *h = p, *he;
	char sb[256];

	if (*p == '[') {
		h = p + 1;
		if (!(he = strchr(h, ']'))) {
			snprintf(err, errlen, "relay URL '%s': no ']' after the IPv6 address", relay_shown(url, sb, sizeof(sb)));
			return -EINVAL;
		}
		p = he + 1;
		u->v6 = true;
	} else {
		he = h + strcspn(h, ":/");
		p = he;
	}
	if (he == h || (size_t)(he - h) >= sizeof(u->host)) {
		snprintf(err, errlen, "relay URL '%s': %s host", relay_shown(url, sb, sizeof(sb)), he == h ? "no" : "too long a");
		return -EINVAL;
	}
	for (const char *c = h; c < he; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f || *c == '[' || *c == ']' || *c == '/') {
			snprintf(err, errlen, "relay URL '%s': the host has a character a host name has not",
				 relay_shown(url, sb, sizeof(sb)));
			return -EINVAL;
		}
	memcpy(u->host, h, (size_t)(he - h));
	u->host[he - h] = 0;
	*nports = 0;
	while (*p == ':') {
		size_t n = strcspn(p + 1, ":/");

		if (*nports == maxports || parse_port(p + 1, n, &ports[*nports])) {
			snprintf(err, errlen, "relay URL '%s': %s", relay_shown(url, sb, sizeof(sb)),
				 *nports == maxports ? "too many ports" : "a port is a number from 1 to 65535");
			return -EINVAL;
		}
		(*nports)++;
		p += 1 + n;
	}
	*rest = p;
	return 0;
}

static const char *after_scheme(const char *url, bool *v6, bool *tcp)
{
	static const struct { const char *s; bool v6, tcp; } schemes[] = {
		{ "net://", false, false }, { "net6://", true, false }, { "tcp://", false, true }, { "tcp4://", false, true },
		{ "tcp6://", true, true },
	};

	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (!strncmp(url, schemes[i].s, strlen(schemes[i].s))) {
			*v6 = schemes[i].v6;
			*tcp = schemes[i].tcp;
			return url + strlen(schemes[i].s);
		}
	return NULL;
}

bool relay_url_is_net(const char *s)
{
	bool v6, tcp;

	return s && after_scheme(s, &v6, &tcp);
}

int relay_url_parse(struct relay_url *u, const char *url, char *err, size_t errlen)
{
	uint16_t ports[2];
	unsigned n;
	bool v6, tcp;
	const char *p = after_scheme(url, &v6, &tcp), *rest;
	char sb[256], sr[256];
	int ret;

	memset(u, 0, sizeof(*u));
	if (!p || tcp) {
		snprintf(err, errlen, "relay URL '%s': give net://HOST[:CTRL_PORT[:DATA_PORT]][/PATH] (tcp:// is for -C and -D)",
			 relay_shown(url, sb, sizeof(sb)));
		return -EINVAL;
	}
	u->v6 = v6;
	if ((ret = parse_hostports(u, p, ports, 2, &n, &rest, url, err, errlen)))
		return ret;
	u->ctrl_port = n > 0 ? ports[0] : RELAY_DEFAULT_CTRL_PORT;
	u->data_port = n > 1 ? ports[1] : RELAY_DEFAULT_DATA_PORT;
	if (*rest == '/') {
		while (*rest == '/')
			rest++;
		if (strlen(rest) >= sizeof(u->path) || strstr(rest, "..")) {
			snprintf(err, errlen, "relay URL '%s': the path is too long or has '..'", relay_shown(url, sb, sizeof(sb)));
			return -EINVAL;
		}
		snprintf(u->path, sizeof(u->path), "%s", rest);
		for (size_t k = strlen(u->path); k && u->path[k - 1] == '/'; k--)
			u->path[k - 1] = 0;
	} else if (*rest) {
		snprintf(err, errlen, "relay URL '%s': unexpected '%s'", relay_shown(url, sb, sizeof(sb)), relay_shown(rest, sr, sizeof(sr)));
		return -EINVAL;
	}
	return 0;
}

/* One of -C/-D: tcp://HOST:PORT (net:// accepted too), no path. */
static int parse_one(struct relay_url *u, uint16_t *port, const char *url, const char *opt, char *err, size_t errlen)
{
	uint16_t ports[1];
	unsigned n;
	bool v6, tcp;
	const char *p = after_scheme(url, &v6, &tcp), *rest;
	char sb[256];
	int ret;

	if (!p) {
		snprintf(err, errlen, "%s '%s': give tcp://HOST:PORT", opt, relay_shown(url, sb, sizeof(sb)));
		return -EINVAL;
	}
	u->v6 = v6;
	if ((ret = parse_hostports(u, p, ports, 1, &n, &rest, url, err, errlen)))
		return ret;
	if (*rest && strcmp(rest, "/")) {
		snprintf(err, errlen, "%s '%s': no path in a -C or -D URL", opt, relay_shown(url, sb, sizeof(sb)));
		return -EINVAL;
	}
	*port = n ? ports[0] : !strcmp(opt, "-C") ? RELAY_DEFAULT_CTRL_PORT : RELAY_DEFAULT_DATA_PORT;
	return 0;
}

int relay_url_parse_cd(struct relay_url *u, const char *ctrl, const char *data, char *err, size_t errlen)
{
	struct relay_url d;
	char sb[256], sd[256];
	int ret;

	memset(u, 0, sizeof(*u));
	memset(&d, 0, sizeof(d));
	if (!ctrl || !data) {
		snprintf(err, errlen, "-C and -D go together (the relay's control and data URLs)");
		return -EINVAL;
	}
	if ((ret = parse_one(u, &u->ctrl_port, ctrl, "-C", err, errlen)) ||
	    (ret = parse_one(&d, &u->data_port, data, "-D", err, errlen)))
		return ret;
	if (strcmp(u->host, d.host) || u->v6 != d.v6) {
		snprintf(err, errlen, "-C %s and -D %s: one relay, one host (scry streams to a single relay)",
			 relay_shown(ctrl, sb, sizeof(sb)), relay_shown(data, sd, sizeof(sd)));
		return -EINVAL;
	}
	return 0;
}

int relay_url_parse_uris(struct relay_url *u, const char *ctrl, const char *data, char *err, size_t errlen)
{
	char c[300], d[300], sb[256];
	const char *cp;
	int ret;

	memset(u, 0, sizeof(*u));
	if (!strstr(ctrl, "://") || !strstr(data, "://") || strlen(ctrl) >= sizeof(c) || strlen(data) >= sizeof(d)) {
		snprintf(err, errlen, "control_uri '%s' and data_uri '%s': give tcp4://HOST:PORT/ each",
			 relay_shown(ctrl, sb, sizeof(sb)), relay_shown(data, c, sizeof(c)));
		return -EINVAL;
	}
	/* the path is the control URI's (the data URI repeats it): parsed apart */
	cp = strchr(strstr(ctrl, "://") + 3, '/');
	snprintf(c, sizeof(c), "%.*s", cp ? (int)(cp - ctrl) : (int)strlen(ctrl), ctrl);
	cp = strchr(strstr(data, "://") + 3, '/');
	snprintf(d, sizeof(d), "%.*s", cp ? (int)(cp - data) : (int)strlen(data), data);
	if ((ret = relay_url_parse_cd(u, c, d, err, errlen)))
		return ret;
	cp = strchr(strstr(ctrl, "://") + 3, '/');
	while (cp && *cp == '/')
		cp++;
	if (cp && *cp) {
		if (strlen(cp) >= sizeof(u->path) || strstr(cp, "..")) {
			snprintf(err, errlen, "control_uri '%s': the path is too long or has '..'", relay_shown(ctrl, sb, sizeof(sb)));
			return -EINVAL;
		}
		snprintf(u->path, sizeof(u->path), "%s", cp);
		for (size_t k = strlen(u->path); k && u->path[k - 1] == '/'; k--)
			u->path[k - 1] = 0;
	}
	return 0;
}

void relay_url_format_uris(const struct relay_url *u, char *ctrl, size_t clen, char *data, size_t dlen)
{
	const char *s = u->v6 ? "tcp6" : "tcp4", *o = u->v6 ? "[" : "", *c = u->v6 ? "]" : "";

	snprintf(ctrl, clen, "%s://%s%s%s:%u/%s", s, o, u->host, c, u->ctrl_port, u->path);
	snprintf(data, dlen, "%s://%s%s%s:%u/%s", s, o, u->host, c, u->data_port, u->path);
}

void relay_url_format(const struct relay_url *u, char *buf, size_t len)
{
	snprintf(buf, len, "%s://%s%s%s:%u:%u%s%s", u->v6 ? "net6" : "net", u->v6 ? "[" : "", u->host, u->v6 ? "]" : "",
		 u->ctrl_port, u->data_port, u->path[0] ? "/" : "", u->path);
}

void relay_put_hdr(uint8_t hdr[RELAY_HDR_LEN], uint32_t cmd, uint64_t payload_len)
{
	be64(hdr, 0);
	be64(hdr + 8, payload_len);
	be32(hdr + 16, cmd);
	be32(hdr + 20, 0);
}

void relay_put_data_hdr(uint8_t hdr[RELAY_DATA_HDR_LEN], uint64_t handle, uint64_t net_seq, uint32_t size)
{
	be64(hdr, 0);
	be64(hdr + 8, handle);
	be64(hdr + 16, net_seq);
	be32(hdr + 24, size);
	be32(hdr + 28, 0);
}

long relay_build_version(uint8_t *buf, size_t cap, uint32_t major, uint32_t minor)
{
	if (cap < 8)
		return -ENOSPC;
	be32(buf, major);
	be32(buf + 4, minor);
	return 8;
}

long relay_build_create_session(uint8_t *buf, size_t cap, const struct relay_session_args *a)
{
	size_t ln = strlen(a->name) + 1, lh = strlen(a->hostname) + 1, lb = a->base_path[0] ? strlen(a->base_path) + 1 : 0;
	size_t len = 59 + ln + lh + lb;
	uint8_t *p = buf;

	if (cap < len)
		return -ENOSPC;
	be32(p, (uint32_t)ln);
	be32(p + 4, (uint32_t)lh);
	be32(p + 8, (uint32_t)lb);
	be32(p + 12, a->live_timer_us);
	p[16] = a->snapshot;
	p[17] = 0;                        /* the name does not hold its creation time */
	memcpy(p + 18, a->sessiond_uuid, 16);
	be64(p + 34, a->session_id);
	be64(p + 42, a->creation_time);
	p[50] = 0;                        /* current_chunk_id: not set (CREATE_TRACE_CHUNK follows) */
	be64(p + 51, 0);
	memcpy(p + 59, a->name, ln);
	memcpy(p + 59 + ln, a->hostname, lh);
	if (lb)
		memcpy(p + 59 + ln + lh, a->base_path, lb);
	return (long)len;
}

long relay_build_create_chunk(uint8_t *buf, size_t cap, uint64_t chunk_id, uint64_t creation_time, const char *name)
{
	size_t ln = name ? strlen(name) + 1 : 0;

	if (cap < 20 + ln)
		return -ENOSPC;
	be64(buf, chunk_id);
	be64(buf + 8, creation_time);
	be32(buf + 16, (uint32_t)ln);     /* 0: no name override */
	if (ln)
		memcpy(buf + 20, name, ln);
	return (long)(20 + ln);
}

long relay_build_add_stream(uint8_t *buf, size_t cap, const char *channel, const char *path, uint64_t chunk_id)
{
	size_t lc = strlen(channel) + 1, lp = strlen(path) + 1, len = 32 + lc + lp;

	if (cap < len)
		return -ENOSPC;
	be32(buf, (uint32_t)lc);
	be32(buf + 4, (uint32_t)lp);
	be64(buf + 8, 0);                 /* tracefile_size: the relay's files are not split */
	be64(buf + 16, 0);                /* tracefile_count */
	be64(buf + 24, chunk_id);
	memcpy(buf + 32, channel, lc);
	memcpy(buf + 32 + lc, path, lp);
	return (long)len;
}

long relay_build_rotate_streams(uint8_t *buf, size_t cap, const uint64_t *handles, const uint64_t *at_seq, size_t n,
				bool has_new, uint64_t new_chunk)
{
	size_t len = 13 + 16 * n;

	if (cap < len || n > UINT32_MAX)
		return -ENOSPC;
	be32(buf, (uint32_t)n);
	buf[4] = has_new;                 /* new_chunk_id, packed (the relay takes the three layouts) */
	be64(buf + 5, has_new ? new_chunk : 0);
	for (size_t i = 0; i < n; i++) {
		be64(buf + 13 + 16 * i, handles[i]);
		be64(buf + 21 + 16 * i, at_seq[i]);
	}
	return (long)len;
}

long relay_build_close_chunk(uint8_t *buf, size_t cap, uint64_t chunk_id, uint64_t close_time, enum relay_chunk_close cmd)
{
	if (cap < 21)
		return -ENOSPC;
	be64(buf, chunk_id);
	be64(buf + 8, close_time);
	buf[16] = 1;                      /* close_command set */
	be32(buf + 17, (uint32_t)cmd);
	return 21;
}

long relay_build_chunk_exists(uint8_t *buf, size_t cap, uint64_t chunk_id)
{
	if (cap < 8)
		return -ENOSPC;
	be64(buf, chunk_id);
	return 8;
}

long relay_build_close_stream(uint8_t *buf, size_t cap, uint64_t handle, uint64_t last_net_seq)
{
	if (cap < 16)
		return -ENOSPC;
	be64(buf, handle);
	be64(buf + 8, last_net_seq);
	return 16;
}

long relay_build_index(uint8_t *buf, size_t cap, const struct relay_index *ix)
{
	const uint64_t v[10] = { ix->handle, ix->net_seq, ix->packet_bits, ix->content_bits, ix->ts_begin,
				 ix->ts_end, ix->discarded, ix->stream_id, ix->instance_id, ix->packet_seq };

	if (cap < RELAY_INDEX_LEN)
		return -ENOSPC;
	for (int i = 0; i < 10; i++)
		be64(buf + 8 * i, v[i]);
	return RELAY_INDEX_LEN;
}

long relay_parse_version(const uint8_t *p, size_t len, uint32_t *major, uint32_t *minor)
{
	if (len < 8)
		return 0;
	*major = rd32(p);
	*minor = rd32(p + 4);
	return 8;
}

/* A reply ending in a path: its length (a u32 at off) then its bytes, NUL-padded by the
 * relay; the path copied into path (pathcap bytes, cut to fit).  The reply's size, 0 while
 * incomplete, -EPROTO for a length past LTTNG_PATH_MAX. */
static long parse_path_tail(const uint8_t *p, size_t len, size_t off, char *path, size_t pathcap)
{
	uint32_t plen = rd32(p + off);

	if (plen > 4096)                  /* LTTNG_PATH_MAX */
		return -EPROTO;
	if (len < off + 4 + (size_t)plen)
		return 0;
	if (pathcap) {
		size_t n = plen < pathcap ? plen : pathcap - 1;

		memcpy(path, p + off + 4, n);
		path[n] = 0;
		path[strnlen(path, n)] = 0;
	}
	return (long)(off + 4 + plen);
}

long relay_parse_create_session(const uint8_t *p, size_t len, uint64_t *id, uint32_t *ret, char *path,
				size_t pathcap)
{
	if (len < 16)
		return 0;
	*id = rd64(p);
	*ret = rd32(p + 8);
	return parse_path_tail(p, len, 12, path, pathcap);
}

long relay_parse_add_stream(const uint8_t *p, size_t len, uint64_t *handle, uint32_t *ret)
{
	if (len < 12)
		return 0;
	*handle = rd64(p);
	*ret = rd32(p + 8);
	return 12;
}

long relay_parse_generic(const uint8_t *p, size_t len, uint32_t *ret)
{
	if (len < 4)
		return 0;
	*ret = rd32(p);
	return 4;
}

long relay_parse_close_chunk(const uint8_t *p, size_t len, uint32_t *ret, char *path, size_t pathcap)
{
	if (len < 8)
		return 0;
	*ret = rd32(p);
	return parse_path_tail(p, len, 4, path, pathcap);
}

long relay_parse_chunk_exists(const uint8_t *p, size_t len, uint32_t *ret, bool *exists)
{
	if (len < 5)
		return 0;
	*ret = rd32(p);
	*exists = p[4] != 0;
	return 5;
}

const char *relay_cmd_name(uint32_t cmd)
{
	switch (cmd) {
	case RELAY_ADD_STREAM: return "ADD_STREAM";
	case RELAY_CREATE_SESSION: return "CREATE_SESSION";
	case RELAY_VERSION: return "VERSION";
	case RELAY_SEND_METADATA: return "SEND_METADATA";
	case RELAY_CLOSE_STREAM: return "CLOSE_STREAM";
	case RELAY_SEND_INDEX: return "SEND_INDEX";
	case RELAY_STREAMS_SENT: return "STREAMS_SENT";
	case RELAY_CREATE_TRACE_CHUNK: return "CREATE_TRACE_CHUNK";
	case RELAY_ROTATE_STREAMS: return "ROTATE_STREAMS";
	case RELAY_CLOSE_TRACE_CHUNK: return "CLOSE_TRACE_CHUNK";
	case RELAY_TRACE_CHUNK_EXISTS: return "TRACE_CHUNK_EXISTS";
	default: return "?";
	}
}

void relay_code_text(uint32_t code, char *buf, size_t len)
{
	static const char *const names[] = {
		[10] = "LTTNG_OK", [11] = "LTTNG_ERR_UNK", [12] = "LTTNG_ERR_UND", [13] = "LTTNG_ERR_SESSION_STARTED",
		[15] = "LTTNG_ERR_NOT_SUPPORTED", [16] = "LTTNG_ERR_NO_SESSION", [17] = "LTTNG_ERR_CREATE_DIR_FAIL",
		[18] = "LTTNG_ERR_SESSION_FAIL", [26] = "LTTNG_ERR_NOMEM", [97] = "LTTNG_ERR_INVALID",
		[152] = "LTTNG_ERR_INVALID_PROTOCOL", [153] = "LTTNG_ERR_FILE_CREATION_ERROR",
	};

	if (code < sizeof(names) / sizeof(names[0]) && names[code])
		snprintf(buf, len, "%s (%u)", names[code], code);
	else
		snprintf(buf, len, "error code %u", code);
}
