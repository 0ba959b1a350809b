/* live.c — a live session at lttng-relayd read through its viewer protocol (port 5344,
 * docs/RELAY.md): CONNECT, CREATE_SESSION, LIST_SESSIONS (waiting for the session), ATTACH
 * (seek last, as babeltrace2), then per stream GET_NEXT_INDEX and GET_PACKET as the merge
 * asks for them, GET_METADATA when the relay flags new metadata, GET_NEW_STREAMS when it
 * flags new streams or while waiting; DETACH at the end.  One blocking connection; every
 * reply read whole (10 s at most) and checked by src/relay/live_proto.c. */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "relay/live_proto.h"
#include "view/live.h"

#define IO_TIMEOUT_MS 10000

struct live_trace {
	uint64_t trace_id;
	uint64_t meta_id;
	bool has_meta, loaded;
	uint8_t *text;                     /* the metadata so far */
	size_t len, cap, loaded_len;
	char name[512];                    /* the relay's path of the trace, for messages */
};

struct live_sstate {
	uint64_t id;                       /* the relay's stream id */
	int trace;
	uint8_t *buf;                      /* the stream's current packet */
	size_t cap;
};

struct view_live {
	int fd;
	struct live_url url;
	char where[300];                   /* "net://HOST:PORT" */
	uint64_t session_id;
	uint32_t live_timer_us;
	struct live_trace traces[VIEW_LIVE_MAX_TRACES];
	size_t ntraces;
	struct live_sstate st[VIEW_LIVE_MAX_STREAMS + 1];
	bool failed, over;
	bool opened;                       /* failures printed (before: kept in msg for the caller) */
	char msg[512];
	struct view_stream *cur;           /* the stream whose packet is being fetched */
};

/* ---- errors and I/O ---- */

static void fail(struct view *v, const char *fmt, ...)
{
	struct view_live *L = v->live;
	va_list ap;

	if (L->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(L->msg, sizeof(L->msg), fmt, ap);
	va_end(ap);
	if (L->opened)
		fprintf(v->errf, "scry view: error: relay %s: %s\n", L->where, L->msg);
	L->failed = true;
	v->errors++;
}

/* 0, or -1 with errno (ETIMEDOUT, or ECONNRESET for a closed connection). */
static int io_all(int fd, void *buf, size_t len, bool rd)
{
	uint8_t *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = rd ? POLLIN : POLLOUT };
		int r = poll(&pfd, 1, IO_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			errno = r ? errno : ETIMEDOUT;
			return -1;
		}
		ssize_t n = rd ? recv(fd, p, len, 0) : send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = ECONNRESET;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static const char *io_text(int e)
{
	return e == ECONNRESET ? "the relay closed the connection" :
	       e == ETIMEDOUT ? "the relay did not answer in 10 s" : strerror(e);
}

/* Send a request, then read n bytes of its answer into reply.  0, or -1 (failed). */
static int request(struct view *v, uint32_t cmd, const uint8_t *req, size_t len, void *reply, size_t n)
{
	struct view_live *L = v->live;

	if (L->failed)
		return -1;
	if (io_all(L->fd, (void *)req, len, false) || io_all(L->fd, reply, n, true)) {
		fail(v, "%s: %s", live_cmd_name(cmd), io_text(errno));
		return -1;
	}
	return 0;
}

static int read_more(struct view *v, uint32_t cmd, void *buf, size_t n)
{
	if (io_all(v->live->fd, buf, n, true)) {
		fail(v, "%s: %s", live_cmd_name(cmd), io_text(errno));
		return -1;
	}
	return 0;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000 };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- metadata ---- */

static int trace_slot(struct view *v, uint64_t trace_id, const char *path)
{
	struct view_live *L = v->live;

	for (size_t i = 0; i < L->ntraces; i++)
		if (L->traces[i].trace_id == trace_id)
			return (int)i;
	if (L->ntraces == VIEW_LIVE_MAX_TRACES) {
		fail(v, "the session has more than %d traces", VIEW_LIVE_MAX_TRACES);
		return -1;
	}
	struct live_trace *lt = &L->traces[L->ntraces];
	lt->trace_id = trace_id;
	snprintf(lt->name, sizeof(lt->name), "%.500s", path);
	v->ntraces = ++L->ntraces;
	return (int)L->ntraces - 1;
}

/* Is s, not the stream being fetched, holding an event in the merge? */
static bool holds_event(const struct view *v, const struct view_stream *s)
{
	if (s == v->live->cur)
		return false;
	for (size_t i = 0; i < v->nheap; i++)
		if (v->heap[i] == s)
			return true;
	return false;
}

/* Every byte of metadata the relay has for trace k, then the trace rebuilt when it grew. */
static int fetch_metadata(struct view *v, int k)
{
	struct view_live *L = v->live;
	struct live_trace *lt = &L->traces[k];
	uint8_t req[64], hdr[12];

	if (!lt->has_meta)
		return 0;
	for (;;) {
		uint64_t mlen;
		uint32_t status;
		if (request(v, LIVE_GET_METADATA, req, live_build_id(req, LIVE_GET_METADATA, lt->meta_id), hdr, 12))
			return -1;
		if (live_parse_metadata_hdr(hdr, 12, &mlen, &status) <= 0) {
			fail(v, "GET_METADATA: a reply the viewer protocol has not (%" PRIu64 " bytes, status %u)", mlen,
			     status);
			return -1;
		}
		if (status == LIVE_NO_NEW_METADATA)
			break;
		if (status != LIVE_METADATA_OK) {
			fail(v, "GET_METADATA: the relay answered an error (status %u) for %s", status, lt->name);
			return -1;
		}
		if (lt->len + mlen > LIVE_MAX_LEN) {
			fail(v, "GET_METADATA: more than %u MiB of metadata", LIVE_MAX_LEN >> 20);
			return -1;
		}
		if (lt->len + mlen > lt->cap) {
			size_t nc = (lt->len + mlen) * 2;
			uint8_t *nt = realloc(lt->text, nc);
			if (!nt) {
				fail(v, "out of memory");
				return -1;
			}
			lt->text = nt;
			lt->cap = nc;
		}
		if (read_more(v, LIVE_GET_METADATA, lt->text + lt->len, (size_t)mlen))
			return -1;
		lt->len += (size_t)mlen;
	}
	if (lt->len == lt->loaded_len)
		return 0;
	struct view_trace nt, old = v->traces[k];
	char err[512];
	if (view_trace_load(&nt, lt->name, lt->text, lt->len, err, sizeof(err))) {
		fail(v, "the session's metadata: %s", err);
		return -1;
	}
	v->traces[k] = nt;
	lt->loaded_len = lt->len;
	if (lt->loaded) {
		/* events already decoded with the old plans are decoded again with the new */
		for (size_t i = 0; i < v->nstreams; i++) {
			struct view_stream *s = &v->streams[i];
			if (s->t == &v->traces[k] && view_stream_rebind(v, s, holds_event(v, s)))
				fail(v, "%s: an event could not be decoded again after the metadata grew", s->path);
		}
		view_trace_free(&old);
	}
	lt->loaded = true;
	v->gen++;
	return L->failed ? -1 : 0;
}

/* ---- streams ---- */

static int add_stream(struct view *v, const struct live_stream *ls)
{
	struct view_live *L = v->live;
	int k = trace_slot(v, ls->trace_id, ls->path);

	if (k < 0)
		return -1;
	if (ls->metadata) {
		L->traces[k].meta_id = ls->id;
		L->traces[k].has_meta = true;
		return 0;
	}
	if (v->nstreams == VIEW_LIVE_MAX_STREAMS) {
		fail(v, "the session has more than %d streams", VIEW_LIVE_MAX_STREAMS);
		return -1;
	}
	struct view_stream *s = &v->streams[v->nstreams];
	memset(s, 0, sizeof(*s));
	if (asprintf(&s->path, "%s/%s", ls->path, ls->channel) < 0) {
		s->path = NULL;
		fail(v, "out of memory");
		return -1;
	}
	s->relname = strrchr(s->path, '/') + 1;
	s->t = &v->traces[k];
	s->live_idx = (int)v->nstreams + 1;
	s->quiet_until = INT64_MIN;
	s->starved = true;
	L->st[s->live_idx] = (struct live_sstate){ .id = ls->id, .trace = k };
	v->nstreams++;
	v->starved[v->nstarved++] = s;
	return 0;
}

/* count stream entries following an ATTACH or GET_NEW_STREAMS answer. */
static int read_streams(struct view *v, uint32_t cmd, uint32_t count)
{
	uint8_t buf[LIVE_STREAM_LEN];
	struct live_stream ls;

	for (uint32_t i = 0; i < count; i++) {
		if (read_more(v, cmd, buf, sizeof(buf)))
			return -1;
		if (live_parse_stream(buf, sizeof(buf), &ls) <= 0) {
			fail(v, "%s: a stream the viewer protocol has not", live_cmd_name(cmd));
			return -1;
		}
		if (add_stream(v, &ls))
			return -1;
	}
	if (count)
		view_live_reorder(v);
	return 0;
}

static int new_streams(struct view *v)
{
	struct view_live *L = v->live;
	uint8_t req[64], hdr[8];
	uint32_t status, count;

	if (request(v, LIVE_GET_NEW_STREAMS, req, live_build_id(req, LIVE_GET_NEW_STREAMS, L->session_id), hdr, 8))
		return -1;
	if (live_parse_streams_hdr(hdr, 8, &status, &count) <= 0) {
		fail(v, "GET_NEW_STREAMS: a reply the viewer protocol has not (%u streams)", count);
		return -1;
	}
	if (status == LIVE_STREAMS_HUP) {
		L->over = true;
		return 0;
	}
	if (status == LIVE_STREAMS_ERR) {
		fail(v, "GET_NEW_STREAMS: the relay answered an error (the session is gone?)");
		return -1;
	}
	return status == LIVE_STREAMS_OK ? read_streams(v, LIVE_GET_NEW_STREAMS, count) : 0;
}

int view_live_more(struct view *v, struct view_stream *s)
{
	struct view_live *L = v->live;
	struct live_sstate *ss = &L->st[s->live_idx];
	struct live_trace *lt = &L->traces[ss->trace];
	uint8_t req[64], reply[LIVE_INDEX_LEN];
	struct live_index ix;

	if (L->failed)
		return 0;
	L->cur = s;
	if (!lt->loaded && (fetch_metadata(v, ss->trace) || !lt->loaded))
		goto none;                      /* no metadata yet: nothing can be decoded */
	if (request(v, LIVE_GET_NEXT_INDEX, req, live_build_id(req, LIVE_GET_NEXT_INDEX, ss->id), reply, sizeof(reply)))
		goto none;
	if (live_parse_index(reply, sizeof(reply), &ix) <= 0) {
		fail(v, "GET_NEXT_INDEX: an index the viewer protocol has not (packet of %" PRIu64 " bits, content %" PRIu64
		     ")", ix.packet_size, ix.content_size);
		goto none;
	}
	if ((ix.flags & LIVE_FLAG_NEW_METADATA) && fetch_metadata(v, ss->trace))
		goto none;
	if ((ix.flags & LIVE_FLAG_NEW_STREAM) && new_streams(v))
		goto none;
	switch (ix.status) {
	case LIVE_INDEX_OK: {
		uint32_t len = (uint32_t)(ix.packet_size / 8), status, plen, flags;
		uint8_t hdr[12];
		if (len > ss->cap) {
			uint8_t *nb = realloc(ss->buf, len);
			if (!nb) {
				fail(v, "out of memory");
				goto none;
			}
			ss->buf = nb;
			ss->cap = len;
		}
		if (request(v, LIVE_GET_PACKET, req, live_build_get_packet(req, ss->id, ix.offset, len), hdr, 12))
			goto none;
		if (live_parse_packet_hdr(hdr, 12, &status, &plen, &flags) <= 0 ||
		    (status == LIVE_PACKET_OK && plen != len)) {
			fail(v, "GET_PACKET: a reply the viewer protocol has not (%u bytes for %u asked)", plen, len);
			goto none;
		}
		if (status != LIVE_PACKET_OK) {
			fail(v, "GET_PACKET: the relay answered %s for %s at offset %" PRIu64,
			     status == LIVE_PACKET_EOF ? "end of file" : status == LIVE_PACKET_RETRY ? "retry" : "an error",
			     s->path, ix.offset);
			goto none;
		}
		if (read_more(v, LIVE_GET_PACKET, ss->buf, len))
			goto none;
		if ((flags & LIVE_FLAG_NEW_METADATA) && fetch_metadata(v, ss->trace))
			goto none;
		s->map = ss->buf;
		s->size = len;
		s->next_off = 0;
		L->cur = NULL;
		return 1;
	}
	case LIVE_INDEX_INACTIVE: {
		int64_t q = view_cycles_to_ns(s->t, ix.ts_end);
		if (q > s->quiet_until)
			s->quiet_until = q;
		L->cur = NULL;
		return 2;
	}
	case LIVE_INDEX_RETRY:
		L->cur = NULL;
		return 2;
	case LIVE_INDEX_HUP:
	case LIVE_INDEX_EOF:
		L->cur = NULL;
		return 0;
	default:
		fail(v, "GET_NEXT_INDEX: the relay answered %s for %s",
		     ix.status == LIVE_INDEX_ERR ? "an error" : "an unknown status", s->path);
		goto none;
	}
none:
	L->cur = NULL;
	return L->failed ? 0 : 2;
}

int view_live_wait(struct view *v)
{
	struct view_live *L = v->live;
	uint64_t us = L->live_timer_us / 4;

	if (L->failed)
		return -1;
	if (v->flush_ob) {
		/* what was printed is seen before the wait (a pipe, a terminal) */
		ob_flush(v->flush_ob);
		if (!v->flush_ob->error && fflush(v->flush_ob->f))
			v->flush_ob->error = 1;
	}
	sleep_us(us < 5000 ? 5000 : us > 100000 ? 100000 : us);
	if (new_streams(v))
		return -1;
	return L->over ? 1 : 0;
}

bool view_live_failed(const struct view *v)
{
	return v->live->failed;
}

/* ---- open and close ---- */

static int dial(struct view_live *L, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = L->url.v6 ? AF_INET6 : AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
	char port[8];
	int rc, saved = 0;

	snprintf(port, sizeof(port), "%u", L->url.port);
	if ((rc = getaddrinfo(L->url.host, port, &hints, &res))) {
		snprintf(err, errlen, "relay %s: %s", L->where, gai_strerror(rc));
		return -1;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
			freeaddrinfo(res);
			L->fd = fd;
			return 0;
		}
		saved = errno;
		close(fd);
	}
	freeaddrinfo(res);
	snprintf(err, errlen, "relay %s: %s (is lttng-relayd running, its live port %u?)", L->where,
		 strerror(saved ? saved : ECONNREFUSED), L->url.port);
	return -1;
}

/* CONNECT, CREATE_SESSION, then the session of the URL (LIST_SESSIONS until it is there). */
static int find_session(struct view *v, char *err, size_t errlen)
{
	struct view_live *L = v->live;
	uint8_t req[64], rep[LIVE_SESSION_LEN];
	uint32_t major, minor, status, count;
	uint64_t vid;
	bool told = false;

	if (request(v, LIVE_CONNECT, req, live_build_connect(req), rep, 20))
		goto failed;
	live_parse_connect(rep, 20, &major, &minor, &vid);
	if (major != LIVE_MAJOR) {
		snprintf(err, errlen, "relay %s: CONNECT: the relay speaks %u.%u, scry speaks 2.x: another major", L->where,
			 major, minor);
		return -1;
	}
	if (request(v, LIVE_CREATE_SESSION, req, live_build_simple(req, LIVE_CREATE_SESSION), rep, 4))
		goto failed;
	live_parse_status(rep, 4, &status);
	if (status != 1) {
		snprintf(err, errlen, "relay %s: CREATE_SESSION refused (status %u)", L->where, status);
		return -1;
	}
	for (;;) {
		struct live_session s, best = { 0 };
		bool found = false;
		if (request(v, LIVE_LIST_SESSIONS, req, live_build_simple(req, LIVE_LIST_SESSIONS), rep, 4))
			goto failed;
		if (live_parse_list_hdr(rep, 4, &count) <= 0) {
			snprintf(err, errlen, "relay %s: LIST_SESSIONS: a reply the viewer protocol has not (%u sessions)",
				 L->where, count);
			return -1;
		}
		for (uint32_t i = 0; i < count; i++) {
			if (read_more(v, LIVE_LIST_SESSIONS, rep, LIVE_SESSION_LEN))
				goto failed;
			live_parse_session(rep, LIVE_SESSION_LEN, &s);
			if (!strcmp(s.hostname, L->url.hostname) && !strcmp(s.name, L->url.session) &&
			    (!found || s.id > best.id)) {
				best = s;
				found = true;
			}
		}
		if (found) {
			L->session_id = best.id;
			L->live_timer_us = best.live_timer;
			return 0;
		}
		if (!told)
			fprintf(v->errf, "scry view: waiting for session %s of host %s at relay %s\n", L->url.session,
				L->url.hostname, L->where);
		told = true;
		sleep_us(200000);
	}
failed:
	snprintf(err, errlen, "relay %s: %s", L->where, L->msg);
	return -1;
}

int view_open_live(struct view *v, const char *url, FILE *errf, char *err, size_t errlen)
{
	struct view_live *L;
	uint8_t req[64], rep[8];
	uint32_t status, count;

	memset(v, 0, sizeof(*v));
	v->errf = errf;
	L = calloc(1, sizeof(*L));
	v->streams = calloc(VIEW_LIVE_MAX_STREAMS, sizeof(*v->streams));
	v->heap = calloc(VIEW_LIVE_MAX_STREAMS, sizeof(*v->heap));
	v->starved = calloc(VIEW_LIVE_MAX_STREAMS, sizeof(*v->starved));
	v->traces = calloc(VIEW_LIVE_MAX_TRACES, sizeof(*v->traces));
	if (!L || !v->streams || !v->heap || !v->starved || !v->traces) {
		free(L);
		snprintf(err, errlen, "out of memory");
		goto error;
	}
	v->live = L;
	L->fd = -1;
	if (live_url_parse(&L->url, url, err, errlen))
		goto error;
	snprintf(L->where, sizeof(L->where), "net://%s%s%s:%u", L->url.v6 ? "[" : "", L->url.host,
		 L->url.v6 ? "]" : "", L->url.port);
	if (dial(L, err, errlen) || find_session(v, err, errlen))
		goto error;
	if (request(v, LIVE_ATTACH_SESSION, req, live_build_attach(req, L->session_id, LIVE_SEEK_LAST), rep, 8))
		goto failed;
	if (live_parse_streams_hdr(rep, 8, &status, &count) <= 0) {
		snprintf(err, errlen, "relay %s: ATTACH_SESSION: a reply the viewer protocol has not (%u streams)", L->where,
			 count);
		goto error;
	}
	if (status != LIVE_ATTACH_OK) {
		snprintf(err, errlen, "relay %s: ATTACH_SESSION %s of host %s: %s", L->where, L->url.session,
			 L->url.hostname, live_attach_text(status));
		goto error;
	}
	if (read_streams(v, LIVE_ATTACH_SESSION, count))
		goto failed;
	for (size_t k = 0; k < L->ntraces; k++)
		if (fetch_metadata(v, (int)k))
			goto failed;
	L->opened = true;
	return 0;
failed:
	snprintf(err, errlen, "relay %s: %s", L->where, L->msg);
error:
	v->errors = 0;
	view_close(v);
	return -1;
}

void view_live_close(struct view *v)
{
	struct view_live *L = v->live;
	uint8_t req[64], rep[4];

	if (L->fd >= 0 && L->session_id && !L->failed && !L->over)
		request(v, LIVE_DETACH_SESSION, req, live_build_id(req, LIVE_DETACH_SESSION, L->session_id), rep, 4);
	if (L->fd >= 0)
		close(L->fd);
	for (size_t k = 0; k < L->ntraces; k++)
		free(L->traces[k].text);
	for (size_t i = 1; i <= v->nstreams && i <= VIEW_LIVE_MAX_STREAMS; i++)
		free(L->st[i].buf);
	free(L);
	v->live = NULL;
}
