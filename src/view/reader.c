/* reader.c — open CTF traces (a directory holding `metadata`, or up to 3 levels above such
 * directories), compile their decoding plans, map the stream files, walk packets (header
 * magic/uuid/stream class, context sizes, discarded-events warnings) and events, and hand
 * out events in time order through a binary heap (stable by stream for equal times). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/outbuf.h"
#include "view/live.h"
#include "view/reader.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define MAX_TRACE_DEPTH 3
#define MAX_METADATA (256u << 20)

static const struct ctf_stream_class empty_sclass;

/* ---- time ---- */

int64_t view_cycles_to_ns(const struct view_trace *t, uint64_t cycles)
{
	if (t->freq == 1000000000u)
		return t->offset_ns + (int64_t)cycles;
	return t->offset_ns + (int64_t)((unsigned __int128)cycles * 1000000000u / t->freq);
}

static void fmt_time(char *buf, size_t len, int64_t ns, int gmt)
{
	struct tod_cache c = { .gmt = gmt };
	int64_t sec = ns / 1000000000, rem = ns % 1000000000;
	if (rem < 0) {
		rem += 1000000000;
		sec--;
	}
	tod_lookup(&c, sec);
	snprintf(buf, len, "%s.%09" PRId64, c.hms, rem);
}

/* ---- trace loading ---- */

static int read_file(const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = -1;
	uint8_t *buf = NULL;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat stt;
	if (fstat(fd, &stt) || stt.st_size > MAX_METADATA) {
		snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "too large");
		goto cleanup;
	}
	size_t cap = (size_t)stt.st_size, n = 0;
	buf = malloc(cap + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto cleanup;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*data = buf;
	*len = n;
	buf = NULL;
	ret = 0;
cleanup:
	free(buf);
	close(fd);
	return ret;
}

static int compile_trace(struct view_trace *t, char *err, size_t errlen)
{
	struct ctf_metadata *m = t->m;
	struct plan_ctx c = { .arena = &m->arena, .trace_bo = m->bo, .err = err, .errlen = errlen };
	size_t nsc = m->nstreams ? m->nstreams : 1;

	if (plan_compile(&c, m->packet_header, SCOPE_PACKET_HEADER, &t->pkt_header))
		return -1;
	int base_regs = c.nregs;
	t->sclasses = calloc(nsc, sizeof(*t->sclasses));
	t->events = calloc(m->nevents ? m->nevents : 1, sizeof(*t->events));
	if (!t->sclasses || !t->events) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->nsclasses = nsc;
	t->nevents = m->nevents;
	for (size_t i = 0; i < nsc; i++) {
		struct view_sclass *vs = &t->sclasses[i];
		vs->sc = m->nstreams ? &m->streams[i] : &empty_sclass;
		c.nregs = base_regs;
		c.nscopes = 0;
		c.scopes[c.nscopes++] = &t->pkt_header;
		if (plan_compile(&c, vs->sc->packet_context, SCOPE_PACKET_CONTEXT, &vs->pctx))
			return -1;
		c.scopes[c.nscopes++] = &vs->pctx;
		if (plan_compile(&c, vs->sc->event_header, SCOPE_EVENT_HEADER, &vs->ehdr))
			return -1;
		c.scopes[c.nscopes++] = &vs->ehdr;
		if (plan_compile(&c, vs->sc->event_context, SCOPE_OTHER, &vs->ectx))
			return -1;
		c.scopes[c.nscopes++] = &vs->ectx;
		int sregs = c.nregs, nscopes = c.nscopes;
		uint64_t maxid = 0;
		for (size_t e = 0; e < m->nevents; e++) {
			const struct ctf_event_class *ec = &m->events[e];
			if (ec->stream_id != vs->sc->id && !(m->nstreams == 0))
				continue;
			if (ec->id >= (1u << 22)) {
				snprintf(err, errlen, "metadata: event id %" PRIu64 " too large", ec->id);
				return -1;
			}
			if (ec->id + 1 > maxid)
				maxid = ec->id + 1;
			struct view_event_class *ve = &t->events[e];
			ve->ec = ec;
			ve->name = ec->name;
			ve->name_len = strlen(ec->name);
			c.nregs = sregs;
			c.nscopes = nscopes;
			if (plan_compile(&c, ec->context, SCOPE_OTHER, &ve->ctx))
				return -1;
			c.scopes[c.nscopes++] = &ve->ctx;
			if (plan_compile(&c, ec->fields, SCOPE_OTHER, &ve->fields))
				return -1;
		}
		vs->nids = maxid;
		vs->by_id = calloc(maxid ? maxid : 1, sizeof(*vs->by_id));
		if (!vs->by_id) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (size_t e = 0; e < m->nevents; e++) {
			const struct ctf_event_class *ec = &m->events[e];
			if (ec->stream_id != vs->sc->id && !(m->nstreams == 0))
				continue;
			if (vs->by_id[ec->id]) {
				snprintf(err, errlen, "metadata: duplicate event id %" PRIu64 " in stream %" PRIu64, ec->id,
					 vs->sc->id);
				return -1;
			}
			vs->by_id[ec->id] = &t->events[e];
		}
	}
	const struct ctf_clock *clk = m->nclocks ? &m->clocks[0] : NULL;
	t->freq = clk ? clk->freq : 1000000000u;
	t->offset_ns = 0;
	if (clk)
		t->offset_ns = clk->offset_s * 1000000000 +
			       (int64_t)((unsigned __int128)clk->offset * 1000000000u / clk->freq);
	return 0;
}

void view_trace_free(struct view_trace *t)
{
	plan_free(&t->pkt_header);
	for (size_t i = 0; i < t->nsclasses; i++) {
		plan_free(&t->sclasses[i].pctx);
		plan_free(&t->sclasses[i].ehdr);
		plan_free(&t->sclasses[i].ectx);
		free(t->sclasses[i].by_id);
	}
	for (size_t i = 0; i < t->nevents; i++) {
		plan_free(&t->events[i].ctx);
		plan_free(&t->events[i].fields);
	}
	free(t->sclasses);
	free(t->events);
	tsdl_free(t->m);
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

int view_trace_load(struct view_trace *t, const char *dir, const uint8_t *raw, size_t rawlen, char *err,
		    size_t errlen)
{
	char path[4096];
	char *text = NULL;
	size_t textlen;
	char perr[400];
	int ret = -1;
	memset(t, 0, sizeof(*t));
	t->dir = strdup(dir);
	if (!t->dir) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/metadata", dir);
	text = tsdl_unpacketize(raw, rawlen, &textlen, perr, sizeof(perr));
	if (!text) {
		snprintf(err, errlen, "%s: %s", path, perr);
		goto cleanup;
	}
	if (!text[strspn(text, " \t\r\n")]) {
		snprintf(err, errlen, "%s: the metadata is empty: no event can be decoded", path);
		goto cleanup;
	}
	t->m = tsdl_parse(text, textlen, perr, sizeof(perr));
	if (!t->m) {
		snprintf(err, errlen, "%s: %s", path, perr);
		goto cleanup;
	}
	if (compile_trace(t, perr, sizeof(perr))) {
		snprintf(err, errlen, "%s: %s", path, perr);
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(text);
	return ret;
}

static int load_trace(struct view_trace *t, const char *dir, char *err, size_t errlen)
{
	char path[4096];
	uint8_t *raw = NULL;
	size_t rawlen;
	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (read_file(path, &raw, &rawlen, err, errlen))
		return -1;
	int ret = view_trace_load(t, dir, raw, rawlen, err, errlen);
	free(raw);
	return ret;
}

/* ---- discovery ---- */

struct found {
	char **dirs;
	size_t n, cap;
};

static int found_add(struct found *f, const char *dir)
{
	if (f->n == f->cap) {
		size_t nc = f->cap ? f->cap * 2 : 4;
		char **nd = realloc(f->dirs, nc * sizeof(*nd));
		if (!nd)
			return -1;
		f->dirs = nd;
		f->cap = nc;
	}
	f->dirs[f->n] = strdup(dir);
	return f->dirs[f->n] ? (int)f->n++ * 0 : -1;
}

static int find_traces(struct found *f, const char *dir, int depth)
{
	char path[4096];
	struct stat stt;
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (!stat(path, &stt) && S_ISREG(stt.st_mode))
		return found_add(f, dir);
	if (depth >= MAX_TRACE_DEPTH)
		return 0;
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return 0;
	int ret = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		if (!ret && nm[0] != '.' &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, nm) < sizeof(path)) {
			if (!stat(path, &stt) && S_ISDIR(stt.st_mode))
				ret = find_traces(f, path, depth + 1);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

static int add_streams(struct view *v, struct view_trace *t, char *err, size_t errlen)
{
	struct dirent **ents = NULL;
	int n = scandir(t->dir, &ents, NULL, alphasort);
	int ret = 0;
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", t->dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		char path[4096];
		struct stat stt;
		if (ret || nm[0] == '.' || !strcmp(nm, "metadata"))
			goto next;
		snprintf(path, sizeof(path), "%s/%s", t->dir, nm);
		if (stat(path, &stt) || !S_ISREG(stt.st_mode) || stt.st_size == 0)
			goto next;
		struct view_stream *ns = realloc(v->streams, (v->nstreams + 1) * sizeof(*ns));
		if (!ns) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			goto next;
		}
		v->streams = ns;
		struct view_stream *s = &v->streams[v->nstreams];
		memset(s, 0, sizeof(*s));
		s->t = t;
		s->path = strdup(path);
		if (!s->path) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			goto next;
		}
		s->relname = strrchr(s->path, '/') + 1;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(s->path);
			ret = -1;
			goto next;
		}
		void *map = mmap(NULL, (size_t)stt.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (map == MAP_FAILED) {
			snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
			free(s->path);
			ret = -1;
			goto next;
		}
		madvise(map, (size_t)stt.st_size, MADV_SEQUENTIAL);
		s->map = map;
		s->size = (uint64_t)stt.st_size;
		s->index = (int)v->nstreams;
		v->nstreams++;
next:
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int view_open(struct view *v, const char *dir, FILE *errf, char *err, size_t errlen)
{
	struct found f = { 0 };
	struct stat stt;
	int ret = -1;
	memset(v, 0, sizeof(*v));
	v->errf = errf;
	if (stat(dir, &stt)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(stt.st_mode)) {
		snprintf(err, errlen, "%s: not a directory", dir);
		return -1;
	}
	if (find_traces(&f, dir, 0)) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	if (!f.n) {
		snprintf(err, errlen, "%s: no CTF trace found (no 'metadata' file within 3 levels)", dir);
		goto cleanup;
	}
	v->traces = calloc(f.n, sizeof(*v->traces));
	if (!v->traces) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < f.n; i++) {
		if (load_trace(&v->traces[i], f.dirs[i], err, errlen)) {
			view_trace_free(&v->traces[i]);
			goto cleanup;
		}
		v->ntraces++;
		if (add_streams(v, &v->traces[i], err, errlen))
			goto cleanup;
	}
	v->heap = calloc(v->nstreams ? v->nstreams : 1, sizeof(*v->heap));
	if (!v->heap) {
		snprintf(err, errlen, "out of memory");
		goto cleanup;
	}
	ret = 0;
cleanup:
	for (size_t i = 0; i < f.n; i++)
		free(f.dirs[i]);
	free(f.dirs);
	if (ret)
		view_close(v);
	return ret;
}

void view_close(struct view *v)
{
	if (v->live)
		view_live_close(v);
	for (size_t i = 0; i < v->nstreams; i++) {
		struct view_stream *s = &v->streams[i];
		if (s->map && !s->live_idx)
			munmap((void *)s->map, (size_t)s->size);
		free(s->path);
		free(s->pvals.v);
		free(s->vals.v);
	}
	free(v->streams);
	for (size_t i = 0; i < v->ntraces; i++)
		view_trace_free(&v->traces[i]);
	free(v->traces);
	free(v->heap);
	free(v->starved);
	memset(v, 0, sizeof(*v));
}

/* ---- packets and events ---- */

static void corrupt(struct view *v, struct view_stream *s, uint64_t off, const char *what)
{
	fprintf(v->errf, "scry view: error: %s: corrupt packet at offset %" PRIu64 ": %s\n", s->path, off, what);
	s->failed = true;
	s->eof = true;
	v->errors++;
}

#define HAS(st, r) ((st)->role_set & (1u << (r)))

static void discarded_warning(struct view *v, struct view_stream *s, uint64_t count, uint64_t begin, uint64_t end)
{
	char b[64], e[64], uuid[48] = "";
	const uint8_t *u = s->t->m->uuid;
	fmt_time(b, sizeof(b), view_cycles_to_ns(s->t, begin), v->gmt);
	fmt_time(e, sizeof(e), view_cycles_to_ns(s->t, end), v->gmt);
	if (s->t->m->has_uuid)
		snprintf(uuid, sizeof(uuid),
			 " (UUID: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x)", u[0], u[1],
			 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	const char *tname = strrchr(s->t->dir, '/');
	tname = tname && tname[1] ? tname + 1 : s->t->dir;
	/* the layout of babeltrace2's text sink warning */
	fprintf(v->errf,
		"WARNING: Tracer discarded %" PRIu64 " event%s between [%s] and [%s] in trace \"%s\"%s within stream "
		"\"%s\" (stream class ID: %" PRIu64 ", stream ID: %" PRIu64 ").\n",
		count, count == 1 ? "" : "s", b, e, tname, uuid, s->path, s->stream_id, s->instance_id);
}

/* Load the next packet that holds events.  1: ready, 0: end of stream (or failed). */
static int load_packet(struct view *v, struct view_stream *s)
{
	char err[256];
	for (;;) {
		if (s->next_off >= s->size) {
			if (s->live_idx && !s->failed) {
				/* live: the relay's next packet of the stream, if it has one */
				int r = view_live_more(v, s);
				if (r == 1)
					continue;
				if (r == 2) {
					s->starved = true;
					return 0;
				}
			}
			s->eof = true;
			return 0;
		}
		struct view_trace *t = s->t;
		uint64_t off = s->next_off, remaining = s->size - off;
		s->pkt_off = off;
		s->cur.base = s->map + off;
		s->cur.pos = 0;
		s->cur.limit = remaining * 8;
		struct dec_state *st = &s->st;
		st->role_set = 0;
		st->uuid = NULL;
		if (plan_exec(&t->pkt_header, &s->cur, st, NULL, err, sizeof(err))) {
			corrupt(v, s, off, err);
			return 0;
		}
		if (HAS(st, ROLE_MAGIC) && st->role[ROLE_MAGIC] != CTF_MAGIC) {
			snprintf(err, sizeof(err), "bad magic 0x%08" PRIx64 " (expected 0xc1fc1fc1)", st->role[ROLE_MAGIC]);
			corrupt(v, s, off, err);
			return 0;
		}
		if (st->uuid && t->m->has_uuid && memcmp(st->uuid, t->m->uuid, 16)) {
			corrupt(v, s, off, "packet uuid differs from the trace uuid");
			return 0;
		}
		uint64_t sid = HAS(st, ROLE_STREAM_ID) ? st->role[ROLE_STREAM_ID] : t->sclasses[0].sc->id;
		struct view_sclass *sc = NULL;
		for (size_t i = 0; i < t->nsclasses; i++)
			if (t->sclasses[i].sc->id == sid)
				sc = &t->sclasses[i];
		if (!sc) {
			snprintf(err, sizeof(err), "unknown stream class id %" PRIu64, sid);
			corrupt(v, s, off, err);
			return 0;
		}
		if (s->have_packet && sc != s->sc) {
			corrupt(v, s, off, "stream class changes between packets");
			return 0;
		}
		s->sc = sc;
		s->stream_id = sid;
		s->instance_id = HAS(st, ROLE_STREAM_INSTANCE) ? st->role[ROLE_STREAM_INSTANCE] : (uint64_t)s->index;
		s->pvals.n = 0;
		if (plan_exec(&sc->pctx, &s->cur, st, &s->pvals, err, sizeof(err))) {
			corrupt(v, s, off, err);
			return 0;
		}
		uint64_t content = HAS(st, ROLE_CONTENT_SIZE) ? st->role[ROLE_CONTENT_SIZE] : 0;
		uint64_t packet = HAS(st, ROLE_PACKET_SIZE) ? st->role[ROLE_PACKET_SIZE] : 0;
		if (!HAS(st, ROLE_PACKET_SIZE))
			packet = HAS(st, ROLE_CONTENT_SIZE) ? (content + 7) & ~(uint64_t)7 : remaining * 8;
		if (!HAS(st, ROLE_CONTENT_SIZE))
			content = packet;
		if (packet % 8 == 0 && packet / 8 > remaining && content <= packet && content >= s->cur.pos) {
			snprintf(err, sizeof(err),
				 "incomplete: %" PRIu64 " of its %" PRIu64 " bytes in the file (its recorder died "
				 "writing it; `scry recover` cuts it)", remaining, packet / 8);
			corrupt(v, s, off, err);
			return 0;
		}
		if (packet % 8 || packet == 0 || packet / 8 > remaining || content > packet || content < s->cur.pos) {
			snprintf(err, sizeof(err),
				 "bad sizes: content_size %" PRIu64 " bits, packet_size %" PRIu64 " bits, %" PRIu64
				 " bytes left in the file",
				 content, packet, remaining);
			corrupt(v, s, off, err);
			return 0;
		}
		s->cur.limit = content;
		s->pkt_bytes = packet / 8;
		s->next_off = off + packet / 8;
		s->cpu_id = HAS(st, ROLE_CPU_ID) ? (int64_t)st->role[ROLE_CPU_ID] : -1;
		uint64_t ts_begin = HAS(st, ROLE_TS_BEGIN) ? st->role[ROLE_TS_BEGIN] : st->clock;
		uint64_t ts_end = HAS(st, ROLE_TS_END) ? st->role[ROLE_TS_END] : ts_begin;
		if (HAS(st, ROLE_DISCARDED)) {
			uint64_t d = st->role[ROLE_DISCARDED];
			if (d > s->prev_discarded)
				discarded_warning(v, s, d - s->prev_discarded,
						  s->had_packet_before ? s->prev_ts_end : ts_begin, ts_end);
			s->prev_discarded = d;
		}
		s->prev_ts_end = ts_end;
		s->had_packet_before = true;
		s->have_packet = true;
		if (s->cur.pos < s->cur.limit)
			return 1;
	}
}

/* Decode the stream's next event.  1: an event, 0: end (or failed). */
static int read_event(struct view *v, struct view_stream *s)
{
	char err[256];
	if (s->eof)
		return 0;
	if (!s->have_packet || s->cur.pos >= s->cur.limit)
		if (!load_packet(v, s))
			return 0;
	struct dec_state *st = &s->st;
	struct view_sclass *sc = s->sc;
	uint64_t start = s->cur.pos;
	s->ev_off = s->pkt_off + start / 8;
	s->ev_pos = start;
	st->role_set &= ~(1u << ROLE_EVENT_ID);
	if (plan_exec(&sc->ehdr, &s->cur, st, NULL, err, sizeof(err)))
		goto bad;
	uint64_t id = HAS(st, ROLE_EVENT_ID) ? st->role[ROLE_EVENT_ID] : 0;
	if (id >= sc->nids || !sc->by_id[id]) {
		snprintf(err, sizeof(err), "unknown event id %" PRIu64, id);
		goto bad;
	}
	const struct view_event_class *ev = sc->by_id[id];
	s->vals.n = 0;
	if (plan_exec(&sc->ectx, &s->cur, st, &s->vals, err, sizeof(err)))
		goto bad;
	s->nv_ectx = s->vals.n;
	if (plan_exec(&ev->ctx, &s->cur, st, &s->vals, err, sizeof(err)))
		goto bad;
	s->nv_ctx = s->vals.n - s->nv_ectx;
	if (plan_exec(&ev->fields, &s->cur, st, &s->vals, err, sizeof(err)))
		goto bad;
	if (s->cur.pos == start) {
		snprintf(err, sizeof(err), "event of size 0");
		goto bad;
	}
	if (s->nevents_read && st->clock < s->cycles) {
		/* a stream's events never go back in time: a damaged timestamp, which a time-
		 * ordered merge cannot place (babeltrace2 stops there too) */
		snprintf(err, sizeof(err), "timestamp goes back in time (%" PRIu64 " clock cycles before the "
			 "previous event of the stream)", s->cycles - st->clock);
		goto bad;
	}
	s->ev = ev;
	s->cycles = st->clock;
	s->ts_ns = view_cycles_to_ns(s->t, st->clock);
	s->nevents_read++;
	return 1;
bad: {
	char msg[400];
	snprintf(msg, sizeof(msg), "event at offset %" PRIu64 ": %s", s->ev_off, err);
	corrupt(v, s, s->pkt_off, msg);
	return 0;
}
}

/* ---- merge ---- */

static inline int before(const struct view_stream *a, const struct view_stream *b)
{
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns;
	return a->index < b->index;
}

static void sift_down(struct view *v, size_t i)
{
	struct view_stream **h = v->heap;
	size_t n = v->nheap;
	struct view_stream *x = h[i];
	for (;;) {
		size_t l = 2 * i + 1;
		if (l >= n)
			break;
		size_t m = l + 1 < n && before(h[l + 1], h[l]) ? l + 1 : l;
		if (!before(h[m], x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static void sift_up(struct view *v, size_t i)
{
	struct view_stream **h = v->heap;
	struct view_stream *x = h[i];
	while (i) {
		size_t p = (i - 1) / 2;
		if (!before(x, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static int cmp_stream_order(const void *a, const void *b)
{
	const struct view_stream *x = *(struct view_stream *const *)a, *y = *(struct view_stream *const *)b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->stream_id != y->stream_id)
		return x->stream_id < y->stream_id ? -1 : 1;
	if (x->instance_id != y->instance_id)
		return x->instance_id < y->instance_id ? -1 : 1;
	return strcmp(x->relname, y->relname);
}

/* ---- live: streams whose next packet the relay may not have yet ---- */

int view_stream_rebind(struct view *v, struct view_stream *s, bool has_event)
{
	struct view_sclass *sc = NULL;
	for (size_t i = 0; s->sc && i < s->t->nsclasses; i++)
		if (s->t->sclasses[i].sc->id == s->stream_id)
			sc = &s->t->sclasses[i];
	s->sc = sc;
	if (!has_event) {
		if (!sc)
			s->have_packet = false;
		return 0;
	}
	/* the packet again from its start (its discarded count is not warned of twice: the
	 * stream's last count is already this packet's), then the event at its bit position */
	uint64_t pos = s->ev_pos, clock = s->cycles;
	s->next_off = s->pkt_off;
	s->have_packet = false;
	if (!load_packet(v, s))
		return -1;
	s->cur.pos = pos;
	s->st.clock = clock;
	s->nevents_read--;
	return read_event(v, s) ? 0 : -1;
}

static void starve(struct view *v, struct view_stream *s)
{
	v->starved[v->nstarved++] = s;
}

/* The next event of a live view: the earliest of the streams' current events, once every
 * stream without a packet at hand is known to have nothing before it (a beacon), waiting
 * for the relay otherwise.  NULL when the session is over (or the relay failed). */
static struct view_stream *live_next(struct view *v)
{
	if (v->nheap && v->started) {
		struct view_stream *top = v->heap[0];
		if (read_event(v, top)) {
			sift_down(v, 0);
		} else {
			v->heap[0] = v->heap[--v->nheap];
			if (v->nheap)
				sift_down(v, 0);
			if (top->starved && !top->eof)
				starve(v, top);
		}
	}
	v->started = true;
	for (;;) {
		int64_t until = v->nheap ? v->heap[0]->ts_ns : INT64_MAX;
		bool blocked = false;
		for (size_t i = 0; i < v->nstarved;) {
			struct view_stream *s = v->starved[i];
			if (until != INT64_MAX && s->quiet_until >= until) {
				i++;
				continue;
			}
			s->starved = false;
			if (read_event(v, s)) {
				v->starved[i] = v->starved[--v->nstarved];
				v->heap[v->nheap++] = s;
				sift_up(v, v->nheap - 1);
				until = v->heap[0]->ts_ns;
				continue;
			}
			if (!s->starved || s->eof) {        /* ended */
				v->starved[i] = v->starved[--v->nstarved];
				continue;
			}
			if (until == INT64_MAX || s->quiet_until < until)
				blocked = true;
			i++;
		}
		if (view_live_failed(v))
			return NULL;
		if (!blocked && v->nheap)
			return v->heap[0];
		/* a stream with nothing known yet, or no event at all: wait for the relay */
		int over = view_live_wait(v);
		if (over < 0)
			return NULL;
		if (over && !v->nheap && !v->nstarved)
			return NULL;
	}
}

static int cmp_live_order(const void *a, const void *b)
{
	const struct view_stream *x = *(struct view_stream *const *)a, *y = *(struct view_stream *const *)b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return strverscmp(x->relname, y->relname);
}

void view_live_reorder(struct view *v)
{
	struct view_stream **order = calloc(v->nstreams ? v->nstreams : 1, sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < v->nstreams; i++)
		order[i] = &v->streams[i];
	qsort(order, v->nstreams, sizeof(*order), cmp_live_order);
	for (size_t i = 0; i < v->nstreams; i++)
		order[i]->index = (int)i;
	free(order);
	for (size_t i = v->nheap / 2; i-- > 0;)
		sift_down(v, i);
}

struct view_stream *view_next(struct view *v)
{
	if (v->live)
		return live_next(v);
	if (!v->started) {
		v->started = true;
		struct view_stream **order = calloc(v->nstreams ? v->nstreams : 1, sizeof(*order));
		for (size_t i = 0; i < v->nstreams; i++)
			if (read_event(v, &v->streams[i]))
				v->heap[v->nheap++] = &v->streams[i];
		if (order) {
			for (size_t i = 0; i < v->nstreams; i++)
				order[i] = &v->streams[i];
			qsort(order, v->nstreams, sizeof(*order), cmp_stream_order);
			for (size_t i = 0; i < v->nstreams; i++)
				order[i]->index = (int)i;
			free(order);
		}
		for (size_t i = 0; i < v->nheap; i++)
			sift_up(v, i);
	} else if (v->nheap) {
		if (read_event(v, v->heap[0])) {
			sift_down(v, 0);
		} else {
			v->heap[0] = v->heap[--v->nheap];
			if (v->nheap)
				sift_down(v, 0);
		}
	}
	return v->nheap ? v->heap[0] : NULL;
}
