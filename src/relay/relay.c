/* relay.c — a session's streams sent to lttng-relayd (see relay.h, docs/RELAY.md): the
 * connections, the handshake and the commands that wait for their answer, the send queues
 * of packets and indexes drained without waiting, beacons, and the count of what was not
 * delivered. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "relay/fifo.h"
#include "relay/relay.h"
#include "util/clock.h"

/* A stream at the relay: the packet sink of one CTF stream. */
struct relay_stream {
	struct scry_relay *r;
	uint64_t handle;             /* the relay's stream id */
	uint64_t next_seq;           /* net_seq_num of the next packet */
	uint64_t stream_id, instance_id;
	char name[300];              /* CHANNEL_CPU */
	uint64_t next_pseq;          /* packet_seq_num after the last packet queued */
	bool sent_since_tick;        /* an index since the last live tick */
	bool any;                    /* an index ever sent (a beacon means something) */
	bool closed;                 /* no more packets (its CLOSE_STREAM sent at the relay's close) */
	bool close_sent;
	struct relay_stream *next;
};

/* A packet sent: delivered once the data queue's out passes end and the relay answered its
 * index (both go in packet order: the oldest answered index is the oldest packet's). */
struct pkt_rec {
	uint64_t end, events;
};

struct scry_relay {
	struct relay_url url;
	char name[300];
	char path[512];              /* the session's directory at the relay */
	int cfd, dfd;
	uint32_t minor;
	uint32_t live_timer_us;
	uint64_t meta_handle;
	uint64_t chunk_id;           /* the current trace chunk (has_chunk), and the next one's id */
	uint64_t next_chunk_id;
	uint64_t chunk_created;      /* the current chunk's creation time (s since the Epoch) */
	uint64_t next_created;       /* and the one being made's */
	bool has_chunk;
	bool rotated;                /* a chunk was archived: the last one is archived at the close */
	bool snapshot;               /* a snapshot session: no indexes, no rotation */
	bool meta_closed;
	size_t max_queue;
	uint64_t timeout_ns;
	struct relay_fifo cq, dq;    /* control, data */
	uint32_t *pend;              /* commands waiting for their 4-byte answer, oldest first */
	size_t pend_head, npend, pend_cap;
	uint8_t rbuf[64];            /* an answer's bytes received so far */
	size_t rlen;
	struct pkt_rec *recs;        /* packets not yet delivered, oldest first */
	size_t rec_head, nrec, rec_cap;
	uint64_t acked;              /* packet indexes answered, their packet not yet counted */
	char *meta;                  /* the metadata sent so far */
	size_t meta_len;
	struct relay_stream *streams;
	struct scry_relay_stats st;
	bool failed;
	char error[512];
	struct ctf_sink_factory factory;
};

static const struct ctf_packet_sink relay_sink_ops;

/* In the answers awaited: a packet's SEND_INDEX (its answer makes it delivered). */
#define PACKET_INDEX 0x80000000u

/* The relay stops taking packets: the connections closed, what waits counted lost. */
static void __attribute__((format(printf, 2, 3))) fail(struct scry_relay *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return;
	r->failed = true;
	n = snprintf(r->error, sizeof(r->error), "relay %s: ", r->name);
	va_start(ap, fmt);
	vsnprintf(r->error + n, sizeof(r->error) - (size_t)n, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < r->nrec; i++) {
		r->st.lost_packets++;
		r->st.lost_events += r->recs[(r->rec_head + i) % r->rec_cap].events;
	}
	r->nrec = 0;
	r->acked = 0;
	relay_fifo_clear(&r->cq);
	relay_fifo_clear(&r->dq);
	r->npend = 0;
	if (r->cfd >= 0)
		close(r->cfd);
	if (r->dfd >= 0)
		close(r->dfd);
	r->cfd = r->dfd = -1;
}

static int push_pending(struct scry_relay *r, uint32_t cmd)
{
	if (r->npend == r->pend_cap) {
		size_t cap = r->pend_cap ? r->pend_cap * 2 : 256;
		uint32_t *p = malloc(cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (size_t i = 0; i < r->npend; i++)
			p[i] = r->pend[(r->pend_head + i) % r->pend_cap];
		free(r->pend);
		r->pend = p;
		r->pend_cap = cap;
		r->pend_head = 0;
	}
	r->pend[(r->pend_head + r->npend++) % r->pend_cap] = cmd;
	return 0;
}

static int push_rec(struct scry_relay *r, uint64_t end, uint64_t events)
{
	if (r->nrec == r->rec_cap) {
		size_t cap = r->rec_cap ? r->rec_cap * 2 : 64;
		struct pkt_rec *p = malloc(cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		for (size_t i = 0; i < r->nrec; i++)
			p[i] = r->recs[(r->rec_head + i) % r->rec_cap];
		free(r->recs);
		r->recs = p;
		r->rec_cap = cap;
		r->rec_head = 0;
	}
	r->recs[(r->rec_head + r->nrec++) % r->rec_cap] = (struct pkt_rec){ end, events };
	return 0;
}

/* A command queued on the control connection (reply: one more 4-byte answer awaited). */
static int queue_cmd(struct scry_relay *r, uint32_t cmd, const void *payload, size_t len, const void *more,
		     size_t more_len, bool reply)
{
	uint8_t hdr[RELAY_HDR_LEN];

	relay_put_hdr(hdr, cmd & ~PACKET_INDEX, len + more_len);
	if (relay_fifo_put(&r->cq, hdr, sizeof(hdr)) || relay_fifo_put(&r->cq, payload, len) ||
	    (more_len && relay_fifo_put(&r->cq, more, more_len)) || (reply && push_pending(r, cmd))) {
		fail(r, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The answers received so far read; a refusal fails the relay. */
static void read_replies(struct scry_relay *r)
{
	while (!r->failed) {
		ssize_t n = recv(r->cfd, r->rbuf + r->rlen, sizeof(r->rbuf) - r->rlen, MSG_DONTWAIT);
		size_t off = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				fail(r, "control connection: %s", strerror(errno));
			return;
		}
		if (n == 0) {
			fail(r, "the relay closed the control connection");
			return;
		}
		r->rlen += (size_t)n;
		for (;;) {
			uint32_t code;
			long k = relay_parse_generic(r->rbuf + off, r->rlen - off, &code);

			if (k <= 0)
				break;
			if (!r->npend) {
				fail(r, "an answer to no command (protocol error)");
				return;
			}
			uint32_t cmd = r->pend[r->pend_head];

			r->pend_head = (r->pend_head + 1) % r->pend_cap;
			r->npend--;
			off += (size_t)k;
			if (code != RELAY_LTTNG_OK) {
				char t[64];

				relay_code_text(code, t, sizeof(t));
				fail(r, "%s refused: %s", relay_cmd_name(cmd & ~PACKET_INDEX), t);
				return;
			}
			if (cmd & PACKET_INDEX)
				r->acked++;
		}
		memmove(r->rbuf, r->rbuf + off, r->rlen - off);
		r->rlen -= off;
	}
}

/* Packets wholly sent: delivered. */
static void account(struct scry_relay *r)
{
	while (r->nrec && r->recs[r->rec_head].end <= r->dq.out && r->acked) {
		r->acked--;
		r->st.packets++;
		r->st.events += r->recs[r->rec_head].events;
		r->rec_head = (r->rec_head + 1) % r->rec_cap;
		r->nrec--;
	}
}

void scry_relay_pump(struct scry_relay *r)
{
	int e;

	if (!r || r->failed)
		return;
	if (relay_fifo_len(&r->cq) && (e = relay_fifo_send(&r->cq, r->cfd))) {
		fail(r, "control connection: %s", strerror(-e));
		return;
	}
	if (relay_fifo_len(&r->dq) && (e = relay_fifo_send(&r->dq, r->dfd))) {
		fail(r, "data connection: %s", strerror(-e));
		return;
	}
	if (r->npend)
		read_replies(r);
	account(r);
}

/* Everything queued sent and answered, or the deadline: then what is left is lost. */
static int drain(struct scry_relay *r, uint64_t deadline, const char *what)
{
	while (!r->failed && (relay_fifo_len(&r->cq) || relay_fifo_len(&r->dq) || r->npend)) {
		struct pollfd p[2] = {
			{ .fd = r->cfd, .events = (relay_fifo_len(&r->cq) ? POLLOUT : 0) | (r->npend ? POLLIN : 0) },
			{ .fd = r->dfd, .events = relay_fifo_len(&r->dq) ? POLLOUT : 0 },
		};
		uint64_t now = scry_monotonic_ns();

		if (now >= deadline) {
			fail(r, "%s: no answer within %.0f s (%zu bytes and %zu answers pending)", what,
			     r->timeout_ns / 1e9, relay_fifo_len(&r->cq) + relay_fifo_len(&r->dq), r->npend);
			break;
		}
		int ms = (int)((deadline - now) / 1000000 + 1);

		if (poll(p, 2, ms) < 0 && errno != EINTR) {
			fail(r, "poll: %s", strerror(errno));
			break;
		}
		scry_relay_pump(r);
	}
	return r->failed ? -EPIPE : 0;
}

/* A command whose answer is waited for: queued after everything before it, sent, and its
 * answer read whole by parse (0: more bytes needed).  0 or -errno (r failed, the reason
 * naming the step). */
typedef long (*reply_parser)(const uint8_t *p, size_t len, void *out);

static int sync_cmd(struct scry_relay *r, uint32_t cmd, const void *payload, size_t len, reply_parser parse,
		    void *out)
{
	uint64_t deadline = scry_monotonic_ns() + r->timeout_ns;
	uint8_t buf[4200];
	size_t got = 0;
	int ret;

	if (r->failed)
		return -EPIPE;
	/* every answer awaited read first: the command's answer is the next bytes */
	if ((ret = drain(r, deadline, relay_cmd_name(cmd))) || (ret = queue_cmd(r, cmd, payload, len, NULL, 0, false)) ||
	    (ret = drain(r, deadline, relay_cmd_name(cmd))))
		return ret;
	for (;;) {
		long k = parse(buf, got, out);
		struct pollfd p = { .fd = r->cfd, .events = POLLIN };
		uint64_t now = scry_monotonic_ns();
		ssize_t n;

		if (k > 0)
			return 0;
		if (k < 0 || got == sizeof(buf)) {
			fail(r, "%s: a malformed answer (protocol error)", relay_cmd_name(cmd));
			return -EPROTO;
		}
		if (now >= deadline) {
			fail(r, "%s: no answer within %.0f s", relay_cmd_name(cmd), r->timeout_ns / 1e9);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) <= 0)
			continue;
		n = recv(r->cfd, buf + got, sizeof(buf) - got, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			fail(r, "%s: %s", relay_cmd_name(cmd),
			     n == 0 ? "the relay closed the connection (it refused the step)" : strerror(errno));
			return -EPIPE;
		}
		if (n > 0)
			got += (size_t)n;
	}
}

struct ans {
	uint32_t a, b;
	uint64_t id;
	char *path;
	size_t pathcap;
};

static long p_version(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	return relay_parse_version(p, len, &a->a, &a->b);
}

static long p_session(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	return relay_parse_create_session(p, len, &a->id, &a->a, a->path, a->pathcap);
}

static long p_stream(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	return relay_parse_add_stream(p, len, &a->id, &a->a);
}

static long p_generic(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	return relay_parse_generic(p, len, &a->a);
}

static long p_close_chunk(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	return relay_parse_close_chunk(p, len, &a->a, a->path, a->pathcap);
}

static long p_chunk_exists(const uint8_t *p, size_t len, void *o)
{
	struct ans *a = o;
	bool e = false;
	long k = relay_parse_chunk_exists(p, len, &a->a, &e);

	a->b = e;
	return k;
}

/* The relay's code for cmd: LTTNG_OK, or r failed with the step and the answer. */
static int check_code(struct scry_relay *r, uint32_t cmd, uint32_t code)
{
	char t[64];

	if (code == RELAY_LTTNG_OK)
		return 0;
	relay_code_text(code, t, sizeof(t));
	fail(r, "%s refused: %s", relay_cmd_name(cmd), t);
	return -EPROTO;
}

/* A TCP connection to host:port, non-blocking, within the deadline. */
static int dial(struct scry_relay *r, uint16_t port, const char *what, uint64_t deadline, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = r->url.v6 ? AF_INET6 : AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai, *a;
	char ps[8];
	int fd = -1, e = 0, one = 1;

	snprintf(ps, sizeof(ps), "%u", port);
	if ((e = getaddrinfo(r->url.host, ps, &hints, &ai))) {
		snprintf(err, errlen, "relay %s: cannot resolve '%s': %s", r->name, r->url.host, gai_strerror(e));
		return -EHOSTUNREACH;
	}
	for (a = ai; a; a = a->ai_next) {
		struct pollfd p;
		socklen_t sl = sizeof(e);

		fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			uint64_t now = scry_monotonic_ns();

			p = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (now < deadline && poll(&p, 1, (int)((deadline - now) / 1000000 + 1)) == 1 &&
			    !getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl) && !e)
				break;
			if (!e)
				e = ETIMEDOUT;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		snprintf(err, errlen, "relay %s: cannot connect to its %s port %s:%u: %s", r->name, what, r->url.host,
			 port, strerror(e));
		return -e;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* This process as a session daemon: a uuid of its own, a session id per session. */
static void sessiond_identity(uint8_t uuid[16], uint64_t *session_id)
{
	static uint8_t u[16];
	static uint64_t next = 1;
	static int have;

	if (!have) {
		if (getrandom(u, 16, 0) != 16) {
			uint64_t t = scry_monotonic_ns() ^ (uint64_t)getpid() << 32;
			memcpy(u, &t, 8);
			memcpy(u + 8, &t, 8);
			u[0] |= 1;
		}
		u[6] = (u[6] & 0x0f) | 0x40;
		u[8] = (u[8] & 0x3f) | 0x80;
		have = 1;
	}
	memcpy(uuid, u, 16);
	*session_id = next++;
}

/* r's error into err: -errno of a failed step. */
static int step_failed(struct scry_relay *r, int ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", r->error[0] ? r->error : "relay: failed");
	return ret ? ret : -EPROTO;
}

static int handshake(struct scry_relay *r, const struct scry_relay_opts *o, char *err, size_t errlen)
{
	uint8_t buf[4400], uuid[16];
	char host[256] = "";
	struct ans a = { 0 };
	long n;
	int ret;
	uint64_t now_s = (uint64_t)time(NULL);
	struct relay_session_args sa = { .name = o->session_name, .base_path = r->url.path,
					 .live_timer_us = o->live_timer_us, .sessiond_uuid = uuid, .snapshot = o->snapshot != NULL,
					 .creation_time = now_s };

	/* VERSION: both sides use the lower minor; another major closes */
	n = relay_build_version(buf, sizeof(buf), RELAY_MAJOR, RELAY_MINOR);
	if ((ret = sync_cmd(r, RELAY_VERSION, buf, (size_t)n, p_version, &a)))
		return step_failed(r, ret, err, errlen);
	if (a.a != RELAY_MAJOR) {
		snprintf(err, errlen, "relay %s: VERSION: the relay speaks %u.%u, scry speaks %u.x: another major",
			 r->name, a.a, a.b, RELAY_MAJOR);
		return -EPROTONOSUPPORT;
	}
	r->minor = a.b < RELAY_MINOR ? a.b : RELAY_MINOR;
	if (r->minor < RELAY_MIN_MINOR) {
		snprintf(err, errlen, "relay %s: VERSION: the relay speaks 2.%u, scry needs 2.%u or later", r->name,
			 a.b, RELAY_MIN_MINOR);
		return -EPROTONOSUPPORT;
	}
	/* CREATE_SESSION (the 2.11 form) */
	if (o->hostname)
		snprintf(host, sizeof(host), "%s", o->hostname);
	else
		gethostname(host, sizeof(host) - 1);
	sa.hostname = host;
	sessiond_identity(uuid, &sa.session_id);
	if ((n = relay_build_create_session(buf, sizeof(buf), &sa)) < 0) {
		snprintf(err, errlen, "relay %s: session name or hostname too long", r->name);
		return -ENAMETOOLONG;
	}
	a.path = r->path;
	a.pathcap = sizeof(r->path);
	if ((ret = sync_cmd(r, RELAY_CREATE_SESSION, buf, (size_t)n, p_session, &a)) ||
	    (ret = check_code(r, RELAY_CREATE_SESSION, a.a)))
		return step_failed(r, ret, err, errlen);
	/* the first trace chunk (mandatory before ADD_STREAM at 2.11) */
	if ((n = relay_build_create_chunk(buf, sizeof(buf), 0, now_s, o->snapshot)) < 0) {
		snprintf(err, errlen, "relay %s: snapshot name too long", r->name);
		return -ENAMETOOLONG;
	}
	if ((ret = sync_cmd(r, RELAY_CREATE_TRACE_CHUNK, buf, (size_t)n, p_generic, &a)) ||
	    (ret = check_code(r, RELAY_CREATE_TRACE_CHUNK, a.a)))
		return step_failed(r, ret, err, errlen);
	r->has_chunk = true;
	r->chunk_id = 0;
	r->next_chunk_id = 1;
	r->chunk_created = now_s;
	/* the metadata stream */
	n = relay_build_add_stream(buf, sizeof(buf), "metadata", "kernel", 0);
	if ((ret = sync_cmd(r, RELAY_ADD_STREAM, buf, (size_t)n, p_stream, &a)) ||
	    (ret = check_code(r, RELAY_ADD_STREAM, a.a)))
		return step_failed(r, ret, err, errlen);
	r->meta_handle = a.id;
	return 0;
}

static void *sink_open(void *fctx, const char *channel, unsigned cpu, uint32_t stream_id, char *err, size_t errlen)
{
	struct scry_relay *r = fctx;
	struct relay_stream *rs;
	uint8_t buf[600];
	char name[300];
	struct ans a = { 0 };
	long n;
	int ret;

	snprintf(name, sizeof(name), "%s_%u", channel, cpu);
	if (r->failed) {
		snprintf(err, errlen, "%s", r->error);
		return NULL;
	}
	/* the stream reopened by a local rotation (the trace files' next chunk): the relay's
	 * stream goes on, its own rotation is ROTATE_STREAMS (scry_relay_rotate) */
	for (rs = r->streams; rs; rs = rs->next)
		if (rs->closed && !rs->close_sent && rs->stream_id == stream_id && !strcmp(rs->name, name)) {
			rs->closed = false;
			return rs;
		}
	if ((n = relay_build_add_stream(buf, sizeof(buf), name, "kernel", r->chunk_id)) < 0) {
		snprintf(err, errlen, "relay %s: stream name '%s' too long", r->name, name);
		return NULL;
	}
	if ((ret = sync_cmd(r, RELAY_ADD_STREAM, buf, (size_t)n, p_stream, &a)) ||
	    (ret = check_code(r, RELAY_ADD_STREAM, a.a))) {
		step_failed(r, ret, err, errlen);
		return NULL;
	}
	if (!(rs = calloc(1, sizeof(*rs)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*rs = (struct relay_stream){ .r = r, .handle = a.id, .stream_id = stream_id, .instance_id = cpu,
				     .next = r->streams };
	snprintf(rs->name, sizeof(rs->name), "%s", name);
	r->streams = rs;
	return rs;
}

/* A packet of a stream: its bytes on the data connection, its index on the control one. */
static void sink_packet(void *ctx, const uint8_t *pkt, size_t len, const struct ctf_packet_info *pi)
{
	struct relay_stream *rs = ctx;
	struct scry_relay *r = rs->r;
	uint8_t dh[RELAY_DATA_HDR_LEN], ix[RELAY_INDEX_LEN];
	struct relay_index x = { .handle = rs->handle, .net_seq = rs->next_seq, .packet_bits = pi->packet_bits,
				 .content_bits = pi->content_bits, .ts_begin = pi->ts_begin, .ts_end = pi->ts_end,
				 .discarded = pi->discarded, .stream_id = pi->stream_id,
				 .instance_id = pi->instance_id, .packet_seq = pi->seq };

	if (r->failed || relay_fifo_len(&r->dq) + relay_fifo_len(&r->cq) + len + 256 > r->max_queue) {
		if (!r->failed && !r->st.lost_packets)
			scry_relay_pump(r);      /* make room if the sockets take some */
		if (r->failed || relay_fifo_len(&r->dq) + relay_fifo_len(&r->cq) + len + 256 > r->max_queue) {
			r->st.lost_packets++;    /* its packet_seq_num is a gap in the relay's copy */
			r->st.lost_events += pi->events;
			return;
		}
	}
	relay_put_data_hdr(dh, rs->handle, rs->next_seq, (uint32_t)len);
	relay_build_index(ix, sizeof(ix), &x);
	if (r->snapshot)
		r->acked++;              /* no index: delivered once its bytes left */
	if (relay_fifo_put(&r->dq, dh, sizeof(dh)) || relay_fifo_put(&r->dq, pkt, len) ||
	    push_rec(r, r->dq.in, pi->events) ||
	    (!r->snapshot && queue_cmd(r, RELAY_SEND_INDEX | PACKET_INDEX, ix, sizeof(ix), NULL, 0, true))) {
		fail(r, "out of memory");
		r->st.lost_packets++;
		r->st.lost_events += pi->events;
		return;
	}
	r->st.bytes += len;
	rs->next_seq++;
	rs->next_pseq = pi->seq + 1;
	rs->sent_since_tick = true;
	rs->any = true;
	scry_relay_pump(r);
}

/* The stream's end: its CLOSE_STREAM waits for the relay's close (after the last rotation,
 * which names every stream). */
static void sink_close(void *ctx)
{
	struct relay_stream *rs = ctx;

	rs->closed = true;
}

static void send_close_stream(struct scry_relay *r, struct relay_stream *rs)
{
	uint8_t buf[16];

	if (rs->close_sent || r->failed)
		return;
	rs->close_sent = true;
	relay_build_close_stream(buf, sizeof(buf), rs->handle, rs->next_seq ? rs->next_seq - 1 : UINT64_MAX);
	queue_cmd(r, RELAY_CLOSE_STREAM, buf, sizeof(buf), NULL, 0, true);
}

static const struct ctf_packet_sink relay_sink_ops = { .packet = sink_packet, .close = sink_close };

int scry_relay_connect(struct scry_relay **out, const struct scry_relay_opts *o, char *err, size_t errlen)
{
	struct scry_relay *r = calloc(1, sizeof(*r));
	uint64_t deadline;
	int ret;

	*out = NULL;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->cfd = r->dfd = -1;
	r->url = *o->url;
	relay_url_format(&r->url, r->name, sizeof(r->name));
	r->live_timer_us = o->live_timer_us;
	r->snapshot = o->snapshot != NULL;
	r->max_queue = o->max_queue ? o->max_queue : SCRY_RELAY_DEFAULT_QUEUE;
	r->timeout_ns = o->timeout_ns ? o->timeout_ns : SCRY_RELAY_DEFAULT_TIMEOUT;
	r->factory = (struct ctf_sink_factory){ .ops = &relay_sink_ops, .open = sink_open, .fctx = r };
	deadline = scry_monotonic_ns() + r->timeout_ns;
	if ((ret = r->cfd = dial(r, r->url.ctrl_port, "control", deadline, err, errlen)) < 0 ||
	    (ret = r->dfd = dial(r, r->url.data_port, "data", deadline, err, errlen)) < 0 ||
	    (ret = handshake(r, o, err, errlen))) {
		scry_relay_close(r, NULL, NULL, 0);
		return ret;
	}
	*out = r;
	return 0;
}

/* The top-level statements of TSDL text t: each ends with a ';' outside braces, strings and
 * comments.  *end: past the statement starting at p (and its newlines). */
static const char *next_statement(const char *p)
{
	int depth = 0;

	while (*p) {
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
			continue;
		}
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			continue;
		}
		if (*p == '{')
			depth++;
		else if (*p == '}')
			depth--;
		else if (*p == ';' && depth <= 0) {
			p++;
			while (*p == '\n')
				p++;
			return p;
		}
		p++;
	}
	return p;
}

int scry_relay_metadata(struct scry_relay *r, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);
	uint8_t pl[12] = { 0 };
	uint64_t h = htobe64(r->meta_handle);
	const char *add;
	char *owned = NULL, *keep;
	size_t addlen = 0;

	if (r->failed) {
		snprintf(err, errlen, "%s", r->error);
		return -EPIPE;
	}
	/* What the relay has not had: the tail when the text only grew (one channel: new events
	 * come last), else each statement it has not had (a stream class's events come after
	 * it, whatever their place) */
	if (len >= r->meta_len && !memcmp(text, r->meta ? r->meta : "", r->meta_len)) {
		add = text + r->meta_len;
		addlen = len - r->meta_len;
	} else {
		char *buf = malloc(len + 1);
		const char *p = text;

		if (!buf) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		while (*p) {
			const char *e = next_statement(p);
			size_t n = (size_t)(e - p);
			char *hold = strndup(p, n);

			if (!hold) {
				free(buf);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			if (!strstr(r->meta, hold)) {
				memcpy(buf + addlen, p, n);
				addlen += n;
			}
			free(hold);
			p = e;
		}
		add = owned = buf;
	}
	if (addlen) {
		memcpy(pl, &h, 8);
		if (queue_cmd(r, RELAY_SEND_METADATA, pl, sizeof(pl), add, addlen, false)) {
			snprintf(err, errlen, "%s", r->error);
			free(owned);
			return -ENOMEM;
		}
	}
	free(owned);
	if (!(keep = strdup(text))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	free(r->meta);
	r->meta = keep;
	r->meta_len = len;
	scry_relay_pump(r);
	return 0;
}

/* A command waited for, its 4-byte code checked: 0 or -errno (r failed, the reason naming
 * the step). */
static int sync_ok(struct scry_relay *r, uint32_t cmd, const void *payload, size_t len)
{
	struct ans a = { 0 };
	int ret;

	if ((ret = sync_cmd(r, cmd, payload, len, p_generic, &a)))
		return ret;
	return check_code(r, cmd, a.a);
}

/* ROTATE_STREAMS: every stream (the metadata's too) to chunk next (none: has_next false),
 * each from its next packet on. */
static int rotate_streams(struct scry_relay *r, bool has_next, uint64_t next)
{
	size_t n = 1, k = 0;
	uint64_t *h, *at;
	uint8_t *buf;
	long len;
	int ret;

	for (struct relay_stream *rs = r->streams; rs; rs = rs->next)
		n++;
	h = calloc(n, sizeof(*h));
	at = calloc(n, sizeof(*at));
	buf = malloc(13 + 16 * n);
	if (!h || !at || !buf) {
		free(h);
		free(at);
		free(buf);
		fail(r, "out of memory");
		return -ENOMEM;
	}
	h[k++] = r->meta_handle;
	for (struct relay_stream *rs = r->streams; rs; rs = rs->next, k++) {
		h[k] = rs->handle;
		at[k] = rs->next_pseq;
	}
	len = relay_build_rotate_streams(buf, 13 + 16 * n, h, at, n, has_next, next);
	ret = sync_ok(r, RELAY_ROTATE_STREAMS, buf, (size_t)len);
	free(h);
	free(at);
	free(buf);
	return ret;
}

/* Every metadata statement again: a new chunk's metadata file starts empty (the relay
 * forgets what it had at ROTATE_STREAMS). */
static int resend_metadata(struct scry_relay *r)
{
	uint8_t pl[12] = { 0 };
	uint64_t h = htobe64(r->meta_handle);

	if (!r->meta_len)
		return 0;
	memcpy(pl, &h, 8);
	return queue_cmd(r, RELAY_SEND_METADATA, pl, sizeof(pl), r->meta, r->meta_len, false);
}

/* The current chunk closed with cmd; its path at the relay in path (may be NULL).  Then,
 * when wait, wait (at most the timeout) until the relay let it go: every stream moved on,
 * the chunk is where the answer said, whole (a live viewer reading it holds it too). */
static int close_chunk(struct scry_relay *r, enum relay_chunk_close cmd, bool wait, char *path, size_t pathlen)
{
	uint8_t buf[32];
	char p[4200] = "";
	struct ans a = { .path = p, .pathcap = sizeof(p) };
	uint64_t deadline = scry_monotonic_ns() + r->timeout_ns, id = r->chunk_id, now = (uint64_t)time(NULL);
	long n = relay_build_close_chunk(buf, sizeof(buf), id, now, cmd);
	int ret;

	if ((ret = sync_cmd(r, RELAY_CLOSE_TRACE_CHUNK, buf, (size_t)n, p_close_chunk, &a)) ||
	    (ret = check_code(r, RELAY_CLOSE_TRACE_CHUNK, a.a)))
		return ret;
	r->has_chunk = false;
	if (path && cmd == RELAY_CHUNK_MOVE_TO_COMPLETED && !strstr(p, "/archives/")) {
		/* the relay answers the session's directory for its first archive: the name
		 * added as the relay makes it, BEGIN-END-ID in local time */
		char b[32], e[32];
		time_t tb = (time_t)r->chunk_created, te = (time_t)now;
		struct tm tm;

		strftime(b, sizeof(b), "%Y%m%dT%H%M%S%z", localtime_r(&tb, &tm));
		strftime(e, sizeof(e), "%Y%m%dT%H%M%S%z", localtime_r(&te, &tm));
		snprintf(path, pathlen, "%s/archives/%s-%s-%llu", p, b, e, (unsigned long long)id);
	} else if (path) {
		snprintf(path, pathlen, "%s", p);
	}
	n = relay_build_chunk_exists(buf, sizeof(buf), id);
	while (wait) {
		struct ans e = { 0 };

		if ((ret = sync_cmd(r, RELAY_TRACE_CHUNK_EXISTS, buf, (size_t)n, p_chunk_exists, &e)) ||
		    (ret = check_code(r, RELAY_TRACE_CHUNK_EXISTS, e.a)))
			return ret;
		if (!e.b)
			return 0;
		if (scry_monotonic_ns() >= deadline) {
			fail(r, "CLOSE_TRACE_CHUNK: the relay still holds chunk %llu after %.0f s", (unsigned long long)id,
			     r->timeout_ns / 1e9);
			return -ETIMEDOUT;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000 * 1000 }, NULL);
	}
	return 0;
}

/* A new chunk made (CREATE_TRACE_CHUNK): its id. */
static int create_chunk(struct scry_relay *r, uint64_t *id)
{
	uint8_t buf[32];
	uint64_t now = (uint64_t)time(NULL);
	long n = relay_build_create_chunk(buf, sizeof(buf), r->next_chunk_id, now, NULL);
	int ret = sync_ok(r, RELAY_CREATE_TRACE_CHUNK, buf, (size_t)n);

	if (!ret) {
		*id = r->next_chunk_id++;
		r->next_created = now;
	}
	return ret;
}

int scry_relay_rotate(struct scry_relay *r, bool next, char *archive, size_t len, char *err, size_t errlen)
{
	uint64_t id = 0;
	int ret;

	if (r->failed) {
		snprintf(err, errlen, "%s", r->error);
		return -EPIPE;
	}
	if (!r->has_chunk && !next) {
		snprintf(err, errlen, "relay %s: no trace chunk to archive", r->name);
		return -EINVAL;
	}
	/* as lttng-sessiond: the next chunk made, every packet so far delivered, the streams
	 * moved to it, the current one closed into the archives */
	if ((next && (ret = create_chunk(r, &id))) || (ret = scry_relay_flush(r)) ||
	    (ret = rotate_streams(r, next, id)) || (next && (ret = resend_metadata(r))))
		goto out;
	if (r->has_chunk) {
		if ((ret = close_chunk(r, RELAY_CHUNK_MOVE_TO_COMPLETED, true, archive, len)))
			goto out;
		r->rotated = true;
	} else if (archive && len) {
		archive[0] = 0;
	}
	if (next) {
		r->chunk_id = id;
		r->chunk_created = r->next_created;
		r->has_chunk = true;
	}
out:
	if (ret)
		snprintf(err, errlen, "%s", r->error[0] ? r->error : "relay: rotation failed");
	scry_relay_pump(r);
	return ret;
}

int scry_relay_finish_snapshot(struct scry_relay *r, char *path, size_t len, char *err, size_t errlen)
{
	uint8_t buf[16];
	int ret;

	for (struct relay_stream *rs = r->streams; rs; rs = rs->next)
		send_close_stream(r, rs);
	relay_build_close_stream(buf, sizeof(buf), r->meta_handle, UINT64_MAX);
	if (!r->failed && !queue_cmd(r, RELAY_CLOSE_STREAM, buf, sizeof(buf), NULL, 0, true))
		r->meta_closed = true;
	if ((ret = scry_relay_flush(r)) || (ret = close_chunk(r, RELAY_CHUNK_NO_OPERATION, true, path, len)))
		snprintf(err, errlen, "%s", r->error[0] ? r->error : "relay: the snapshot failed");
	return ret;
}

const struct ctf_sink_factory *scry_relay_sinks(struct scry_relay *r)
{
	return &r->factory;
}

int scry_relay_streams_sent(struct scry_relay *r, char *err, size_t errlen)
{
	struct ans a = { 0 };
	int ret;

	if ((ret = sync_cmd(r, RELAY_STREAMS_SENT, NULL, 0, p_generic, &a)) ||
	    (ret = check_code(r, RELAY_STREAMS_SENT, a.a)))
		return step_failed(r, ret, err, errlen);
	return 0;
}

bool scry_relay_backlogged(const struct scry_relay *r)
{
	return r && !r->failed && relay_fifo_len(&r->dq) + relay_fifo_len(&r->cq) > r->max_queue / 2;
}

void scry_relay_live_tick(struct scry_relay *r, uint64_t now)
{
	uint64_t k = 0;

	if (!r || r->failed)
		return;
	for (struct relay_stream *rs = r->streams; rs; rs = rs->next, k++) {
		if (!rs->closed && rs->any && !rs->sent_since_tick) {
			uint8_t ix[RELAY_INDEX_LEN];
			/* a nanosecond apart: a viewer cannot order streams whose next messages are
			 * identical (babeltrace2 warns), and an earlier promise is still true */
			struct relay_index x = { .handle = rs->handle, .net_seq = rs->next_seq - 1,
						 .ts_end = now > k ? now - k : now, .stream_id = rs->stream_id };

			relay_build_index(ix, sizeof(ix), &x);
			if (queue_cmd(r, RELAY_SEND_INDEX, ix, sizeof(ix), NULL, 0, true))
				return;
			r->st.beacons++;
		}
		rs->sent_since_tick = false;
	}
	scry_relay_pump(r);
}

int scry_relay_flush(struct scry_relay *r)
{
	if (!r)
		return 0;
	return drain(r, scry_monotonic_ns() + r->timeout_ns, "sending the last packets");
}

void scry_relay_stats(const struct scry_relay *r, struct scry_relay_stats *st)
{
	*st = r->st;
	st->queued = relay_fifo_len(&r->cq) + relay_fifo_len(&r->dq);
}

void scry_relay_close(struct scry_relay *r, struct scry_relay_stats *st, char *error, size_t errlen)
{
	if (!r)
		return;
	if (!r->failed && r->cfd >= 0 && r->meta_handle) {
		uint8_t buf[16];

		/* as lttng-sessiond's destroy: a last rotation to no chunk, the current one archived
		 * when the session rotated, else left in place; a live viewer then reads the
		 * chunk's packets to their end after the session is gone */
		if (r->has_chunk && !r->snapshot && !scry_relay_flush(r) && !rotate_streams(r, false, 0))
			close_chunk(r, r->rotated ? RELAY_CHUNK_MOVE_TO_COMPLETED : RELAY_CHUNK_NO_OPERATION, r->rotated,
				    NULL, 0);
		for (struct relay_stream *rs = r->streams; rs; rs = rs->next)
			send_close_stream(r, rs);
		if (!r->meta_closed) {
			relay_build_close_stream(buf, sizeof(buf), r->meta_handle, UINT64_MAX);
			queue_cmd(r, RELAY_CLOSE_STREAM, buf, sizeof(buf), NULL, 0, true);
		}
		scry_relay_flush(r);
	}
	if (st)
		scry_relay_stats(r, st);
	if (error)
		snprintf(error, errlen, "%s", r->error);
	if (r->cfd >= 0)
		close(r->cfd);
	if (r->dfd >= 0)
		close(r->dfd);
	while (r->streams) {
		struct relay_stream *n = r->streams->next;

		free(r->streams);
		r->streams = n;
	}
	relay_fifo_free(&r->cq);
	relay_fifo_free(&r->dq);
	free(r->pend);
	free(r->recs);
	free(r->meta);
	free(r);
}

const char *scry_relay_error(const struct scry_relay *r)
{
	return r ? r->error : "";
}

const char *scry_relay_name(const struct scry_relay *r)
{
	return r->name;
}

const char *scry_relay_path(const struct scry_relay *r)
{
	return r->path;
}
