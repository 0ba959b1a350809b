/* proto.c — the control protocol's messages (see proto.h): building, parsing, and moving
 * them over a socket. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "ctl/proto.h"
#include "util/overrides.h"

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put32(char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (char)(v >> (8 * i));
}

static void put16(char *p, uint16_t v)
{
	p[0] = (char)v;
	p[1] = (char)(v >> 8);
}

int scry_ctl_header_parse(const uint8_t *buf, size_t len, struct scry_ctl_header *h, char *err, size_t errlen)
{
	if (len < SCRY_CTL_HEADER_SIZE) {
		snprintf(err, errlen, "malformed message: %zu bytes, shorter than a header (%d)", len,
			 SCRY_CTL_HEADER_SIZE);
		return -EPROTO;
	}
	h->magic = get32(buf);
	h->version = get16(buf + 4);
	h->type = get16(buf + 6);
	h->length = get32(buf + 8);
	if (h->magic != SCRY_CTL_MAGIC) {
		snprintf(err, errlen, "malformed message: bad magic 0x%08x (not a scry control message)", h->magic);
		return -EPROTO;
	}
	if (h->version != SCRY_CTL_VERSION) {
		snprintf(err, errlen, "protocol version %u not supported (this daemon speaks version %d)",
			 h->version, SCRY_CTL_VERSION);
		return -EPROTO;
	}
	if (h->type != SCRY_CTL_REQUEST && h->type != SCRY_CTL_REPLY) {
		snprintf(err, errlen, "malformed message: unknown message type %u", h->type);
		return -EPROTO;
	}
	if (h->length > SCRY_CTL_MAX_PAYLOAD) {
		snprintf(err, errlen, "message too large: %u bytes of payload (at most %u)", h->length,
			 SCRY_CTL_MAX_PAYLOAD);
		return -EMSGSIZE;
	}
	return 0;
}

static bool key_ok(const char *k, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '-'))
			return false;
	return true;
}

int scry_ctl_parse(const uint8_t *buf, size_t len, struct scry_ctl_msg *m, char *err, size_t errlen)
{
	struct scry_ctl_header h;
	size_t n = 0, off;
	int ret;

	memset(m, 0, sizeof(*m));
	if ((ret = scry_ctl_header_parse(buf, len, &h, err, errlen)))
		return ret;
	if (len - SCRY_CTL_HEADER_SIZE != h.length) {
		snprintf(err, errlen, "malformed message: header says %u bytes of payload, %zu came", h.length,
			 len - SCRY_CTL_HEADER_SIZE);
		return -EPROTO;
	}
	if (h.length && buf[len - 1] != 0) {
		snprintf(err, errlen, "malformed message: its last string is not NUL-terminated");
		return -EPROTO;
	}
	for (off = SCRY_CTL_HEADER_SIZE; off < len; off++)
		n += buf[off] == 0;
	if (n > SCRY_CTL_MAX_STRINGS) {
		snprintf(err, errlen, "message too large: %zu strings (at most %d)", n, SCRY_CTL_MAX_STRINGS);
		return -EMSGSIZE;
	}
	m->type = h.type;
	m->buf = malloc(h.length + 1);
	m->kv = calloc(n ? n : 1, sizeof(*m->kv));
	if (!m->buf || !m->kv) {
		scry_ctl_msg_free(m);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(m->buf, buf + SCRY_CTL_HEADER_SIZE, h.length);
	m->buf[h.length] = 0;
	for (off = 0; off < h.length;) {
		char *s = m->buf + off, *eq = strchr(s, '=');
		size_t slen = strlen(s);

		if (!eq || !key_ok(s, (size_t)(eq - s))) {
			snprintf(err, errlen, "malformed message: string %zu is not key=value with a key of [a-z0-9-]",
				 m->nkv + 1);
			scry_ctl_msg_free(m);
			return -EPROTO;
		}
		*eq = 0;
		m->kv[m->nkv].key = s;
		m->kv[m->nkv].value = eq + 1;
		m->nkv++;
		off += slen + 1;
	}
	return 0;
}

void scry_ctl_msg_free(struct scry_ctl_msg *m)
{
	free(m->buf);
	free(m->kv);
	memset(m, 0, sizeof(*m));
}

const char *scry_ctl_get(const struct scry_ctl_msg *m, const char *key)
{
	for (size_t i = 0; i < m->nkv; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].value;
	return NULL;
}

void scry_ctl_builder_init(struct scry_ctl_builder *b, enum scry_ctl_type type)
{
	memset(b, 0, sizeof(*b));
	b->cap = 256;
	b->buf = malloc(b->cap);
	if (!b->buf) {
		b->error = -ENOMEM;
		return;
	}
	memset(b->buf, 0, SCRY_CTL_HEADER_SIZE);
	put16(b->buf + 6, (uint16_t)type);
	b->len = SCRY_CTL_HEADER_SIZE;
}

void scry_ctl_add(struct scry_ctl_builder *b, const char *key, const char *value)
{
	size_t kl = strlen(key), vl = value ? strlen(value) : 0, need = kl + 1 + vl + 1;

	if (b->error)
		return;
	if (b->len - SCRY_CTL_HEADER_SIZE + need > SCRY_CTL_MAX_PAYLOAD || b->nstrings + 1 > SCRY_CTL_MAX_STRINGS) {
		b->error = -E2BIG;
		return;
	}
	if (b->len + need > b->cap) {
		size_t cap = b->cap;
		char *nb;

		while (b->len + need > cap)
			cap *= 2;
		if (!(nb = realloc(b->buf, cap))) {
			b->error = -ENOMEM;
			return;
		}
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, key, kl);
	b->buf[b->len + kl] = '=';
	if (vl)
		memcpy(b->buf + b->len + kl + 1, value, vl);
	b->buf[b->len + kl + 1 + vl] = 0;
	b->len += need;
	b->nstrings++;
}

void scry_ctl_addf(struct scry_ctl_builder *b, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		s = NULL;
		b->error = -ENOMEM;
	}
	va_end(ap);
	if (s)
		scry_ctl_add(b, key, s);
	free(s);
}

int scry_ctl_finish(struct scry_ctl_builder *b)
{
	if (b->error)
		return b->error;
	put32(b->buf, SCRY_CTL_MAGIC);
	put16(b->buf + 4, SCRY_CTL_VERSION);
	put32(b->buf + 8, (uint32_t)(b->len - SCRY_CTL_HEADER_SIZE));
	return 0;
}

void scry_ctl_builder_free(struct scry_ctl_builder *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

int scry_ctl_send(int fd, const struct scry_ctl_builder *b, char *err, size_t errlen)
{
	for (size_t off = 0; off < b->len;) {
		ssize_t n = send(fd, b->buf + off, b->len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			snprintf(err, errlen, "sending to the daemon: %s", strerror(e));
			return -e;
		}
		off += (size_t)n;
	}
	return 0;
}

static int read_all(int fd, uint8_t *buf, size_t len, char *err, size_t errlen)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = read(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			snprintf(err, errlen, "reading the daemon's reply: %s",
				 e == EAGAIN ? "timed out" : strerror(e));
			return -e;
		}
		if (n == 0) {
			snprintf(err, errlen, "the daemon closed the connection without a reply (see its log)");
			return -ECONNRESET;
		}
		off += (size_t)n;
	}
	return 0;
}

int scry_ctl_recv(int fd, struct scry_ctl_msg *m, char *err, size_t errlen)
{
	uint8_t *buf, hb[SCRY_CTL_HEADER_SIZE];
	struct scry_ctl_header h;
	int ret;

	if ((ret = read_all(fd, hb, sizeof(hb), err, errlen)) ||
	    (ret = scry_ctl_header_parse(hb, sizeof(hb), &h, err, errlen)))
		return ret;
	if (!(buf = malloc(sizeof(hb) + h.length))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(buf, hb, sizeof(hb));
	ret = read_all(fd, buf + sizeof(hb), h.length, err, errlen);
	if (!ret)
		ret = scry_ctl_parse(buf, sizeof(hb) + h.length, m, err, errlen);
	free(buf);
	return ret;
}

const char *scry_ctl_rundir(void)
{
	const char *d = scry_overrides()->rundir;

	return d ? d : "/run/scry";
}

int scry_ctl_socket_path(char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/control", scry_ctl_rundir());

	/* a sockaddr_un holds 108 bytes */
	return n < 0 || (size_t)n >= len || n >= 108 ? -ENAMETOOLONG : 0;
}
