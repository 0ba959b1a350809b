/* stream.c — one CTF data stream file and its LTTng packet index (docs/FORMAT.md).
 * Events are appended as raw bytes into a packet buffer whose first 84 bytes are the
 * packet header and context; a packet is filled in and written whole (then its index
 * entry) when the next event does not fit, on flush, and on close.  Packets carry no
 * padding: packet_size = content_size.
 *
 * A failed write (disk full, I/O error) leaves the file ending at its last complete packet
 * and fails the stream: it writes nothing more, and the events of the packet that did not
 * fit and every event appended from then on are counted in st.lost, so that nothing is
 * lost uncounted and no write is retried per event.
 *
 * With a writer (ctf/writer.h), a full packet's buffer is handed to the writer thread
 * (the stream goes on in a spare buffer) and written there, packet then index entry; its
 * failure is the stream's at the next append (the packets still queued are counted lost,
 * as are the events of the current packet).  The packet sink is told of a packet when it
 * is complete, before the writer wrote it. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf/packet.h"
#include "ctf/stream.h"
#include "ctf/writer.h"
#include "scry_abi.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "scry writes little-endian CTF from host-order event bytes: little-endian hosts only"
#endif

struct ctf_stream {
	int fd, idx_fd;
	uint8_t *buf;            /* packet_size bytes; header pre-filled */
	size_t cap, used;        /* used starts at PKT_EVENTS_OFF */
	uint32_t *offs;          /* offset of each event of the current packet */
	uint64_t pkt_events;     /* events in the current packet */
	uint64_t first_ts;       /* timestamp of the current packet's first event */
	uint64_t last_ts;        /* last timestamp written to the stream */
	uint64_t prev_end;       /* timestamp_end of the last written packet */
	uint64_t prev_discarded; /* events_discarded of the last written packet */
	uint64_t discarded;      /* cumulative, as last set */
	uint64_t seq;            /* packet_seq_num of the next packet */
	uint64_t file_off, idx_off;
	uint64_t start_ts;
	unsigned cpu;
	struct ctf_stream_stats st;
	struct scry_dirh *kdir, *idir;   /* the chunk's kernel/ and kernel/index/ (util/dirh.h) */
	char name[300];          /* the current file's name in kdir */
	/* LTTng's tracefile splitting: files NAME_<cpu>_<index> of at most tracefile_size
	 * bytes (a packet larger than that alone in its file), the oldest deleted beyond
	 * tracefile_count (0: kept) */
	uint64_t tracefile_size, tracefile_count, tracefile_index;
	/* a flight recorder (keep_packets): packets seq - nheld .. seq - 1 in held[seq % keep] */
	unsigned keep;
	uint8_t **held;
	uint32_t *held_len;
	uint64_t nheld;
	char channel[256];
	/* an overwrite channel's packets not yet written: seq - npend .. seq - 1 in
	 * pbuf[seq % pend] (ctf_stream_opts.overwrite_packets) */
	unsigned pend;
	uint8_t **pbuf;
	uint32_t *plen;
	uint64_t npend;
	const struct ctf_packet_sink *sink;   /* told of every packet too (a relay), or NULL */
	void *sink_ctx;
	/* the writer thread's part (NULL: packets written here).  Atomics: written by it. */
	struct ctf_writer *writer;
	uint64_t ticket;         /* the last job given to it */
	uint64_t queue_max;      /* bytes it may hold for this stream (see ctf_stream_room) */
	uint64_t queued;         /* atomic: bytes given to it, not yet written */
	uint64_t wbytes;         /* atomic: bytes it wrote */
	uint64_t wlost;          /* atomic: events of the packets it could not write */
	int werr;                /* atomic: its first write error */
	pthread_mutex_t spare_lock;
	uint8_t *spare[2];       /* packet buffers back from the writer */
	unsigned nspare;
	struct ctf_stream_stats view;   /* what ctf_stream_stats returns */
};

/* A packet given to the writer thread. */
struct pkt_job {
	struct ctf_writer_job base;
	struct ctf_stream *s;
	uint8_t *buf;            /* a packet buffer (cap bytes, to the spares) or a copy */
	size_t len;
	bool whole;              /* buf is a cap-byte packet buffer */
	uint64_t events;
};

/* write() all of buf, retrying short writes and EINTR.  0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The stream stops writing: the events of the current packet are lost. */
static void stream_fail(struct ctf_stream *s, int error)
{
	if (!s->st.error)
		s->st.error = error;
	s->st.events -= s->pkt_events;
	s->st.lost += s->pkt_events;
	s->used = PKT_EVENTS_OFF;
	s->pkt_events = 0;
}

/* Fill in the context of the packet in buf (used bytes: the current packet, or a copy of
 * it): its timestamps, sizes, sequence number, losses.  Returns its timestamp_end. */
static uint64_t fill_context(const struct ctf_stream *s, uint8_t *buf, size_t used, uint64_t end_ts)
{
	uint64_t begin, end, bits = (uint64_t)used * 8;

	begin = s->seq ? s->prev_end : s->start_ts;
	if (s->pkt_events && begin > s->first_ts)
		begin = s->first_ts;
	end = s->pkt_events ? s->last_ts : begin;
	if (end_ts > end)
		end = end_ts;

	put_le64(buf + OFF_TS_BEGIN, begin);
	put_le64(buf + OFF_TS_END, end);
	put_le64(buf + OFF_CONTENT_SIZE, bits);
	put_le64(buf + OFF_PACKET_SIZE, bits);
	put_le64(buf + OFF_SEQ_NUM, s->seq);
	put_le64(buf + OFF_DISCARDED, s->discarded);
	put_le32(buf + OFF_CPU_ID, s->cpu);
	return end;
}

void ctf_packet_info_of(const uint8_t *pkt, struct ctf_packet_info *pi)
{
	pi->packet_bits = get_le64(pkt + OFF_PACKET_SIZE);
	pi->content_bits = get_le64(pkt + OFF_CONTENT_SIZE);
	pi->ts_begin = get_le64(pkt + OFF_TS_BEGIN);
	pi->ts_end = get_le64(pkt + OFF_TS_END);
	pi->discarded = get_le64(pkt + OFF_DISCARDED);
	pi->seq = get_le64(pkt + OFF_SEQ_NUM);
	pi->stream_id = get_le32(pkt + OFF_STREAM_ID);
	pi->instance_id = get_le64(pkt + OFF_INSTANCE_ID);
	pi->events = 0;
}

/* The current packet (its context filled in) handed to the sink. */
static void tell_sink(struct ctf_stream *s)
{
	struct ctf_packet_info pi;

	if (!s->sink)
		return;
	ctf_packet_info_of(s->buf, &pi);
	pi.events = s->pkt_events;
	s->sink->packet(s->sink_ctx, s->buf, s->used, &pi);
}

/* The packet (ending at end) is out: the next one begins. */
static void next_packet(struct ctf_stream *s, uint64_t end)
{
	s->st.packets++;
	s->seq++;
	s->prev_end = end;
	s->prev_discarded = s->discarded;
	s->used = PKT_EVENTS_OFF;
	s->pkt_events = 0;
}

/* A stream whose only output is its sink: the packet handed over, the next one begun. */
static int sink_only_packet(struct ctf_stream *s, uint64_t end)
{
	tell_sink(s);
	s->st.bytes += s->used;
	next_packet(s, end);
	return 0;
}

/* A flight recorder's packet: kept in memory in the slot of the oldest (overwritten). */
static int hold_packet(struct ctf_stream *s, uint64_t end)
{
	unsigned slot = (unsigned)(s->seq % s->keep);

	if (!s->held[slot] && !(s->held[slot] = malloc(s->cap))) {
		stream_fail(s, -ENOMEM);
		return -ENOMEM;
	}
	memcpy(s->held[slot], s->buf, s->used);
	s->held_len[slot] = (uint32_t)s->used;
	if (s->nheld < s->keep)
		s->nheld++;
	next_packet(s, end);
	return 0;
}

/* Open the stream's file and its index (header written): KDIR/NAME_<cpu> and
 * KDIR/index/NAME_<cpu>.idx, or with tracefile splitting NAME_<cpu>_<index>, made new
 * through the directory handles.  0, or -1 with the reason in err (nothing left behind). */
static int open_files(struct ctf_stream *s, char *err, size_t errlen)
{
	char idx_name[320];
	uint8_t hdr[CTF_INDEX_HDR_LEN];
	int r;

	if (s->tracefile_size)
		snprintf(s->name, sizeof(s->name), "%s_%u_%llu", s->channel, s->cpu,
			 (unsigned long long)s->tracefile_index);
	else
		snprintf(s->name, sizeof(s->name), "%s_%u", s->channel, s->cpu);
	snprintf(idx_name, sizeof(idx_name), "%s.idx", s->name);
	if ((s->fd = scry_dirh_create(s->kdir, s->name, err, errlen)) < 0)
		return -1;
	if ((s->idx_fd = scry_dirh_create(s->idir, idx_name, err, errlen)) < 0) {
		close(s->fd);
		s->fd = -1;
		scry_dirh_unlink(s->kdir, s->name, false);   /* made above by us: nothing half-made */
		return -1;
	}
	ctf_index_header(hdr);
	r = write_all(s->idx_fd, hdr, sizeof(hdr));
	if (r < 0) {
		snprintf(err, errlen, "%s/%s: write: %s", scry_dirh_path(s->idir), idx_name, strerror(-r));
		close(s->fd);
		close(s->idx_fd);
		s->fd = s->idx_fd = -1;
		scry_dirh_unlink(s->idir, idx_name, false);
		scry_dirh_unlink(s->kdir, s->name, false);
		return -1;
	}
	s->idx_off = sizeof(hdr);
	s->file_off = 0;
	return 0;
}

/* The next tracefile (LTTng's channel_<cpu>_<index>): the current one closed, and the one
 * tracefile_count before the new one deleted with its index. */
static int next_tracefile(struct ctf_stream *s)
{
	char err[256], old[320];
	int r = 0;

	if (fsync(s->fd) < 0)
		r = -errno;
	if (close(s->fd) < 0 && !r)
		r = -errno;
	if (fsync(s->idx_fd) < 0 && !r)
		r = -errno;
	if (close(s->idx_fd) < 0 && !r)
		r = -errno;
	s->fd = s->idx_fd = -1;
	if (r)
		return r;
	s->tracefile_index++;
	if (open_files(s, err, sizeof(err)))
		return -EIO;
	if (s->tracefile_count && s->tracefile_index >= s->tracefile_count) {
		unsigned long long gone = s->tracefile_index - s->tracefile_count;

		snprintf(old, sizeof(old), "%s_%u_%llu", s->channel, s->cpu, gone);
		scry_dirh_unlink(s->kdir, old, false);
		snprintf(old, sizeof(old), "%s_%u_%llu.idx", s->channel, s->cpu, gone);
		scry_dirh_unlink(s->idir, old, false);
	}
	return 0;
}

static int file_write(struct ctf_stream *s, const uint8_t *buf, size_t len, bool *written);

/* An overwrite channel's packet (its context filled) written whole to the stream's file, on
 * the caller's thread (an overwrite channel has no writer thread), then its index entry.  A
 * failure fails the stream (stream_fail) once the file is back at its last complete packet. */
static int emit(struct ctf_stream *s, const uint8_t *buf, size_t used)
{
	bool written;
	int r = file_write(s, buf, used, &written);

	if (written)
		s->st.bytes += used;
	if (r < 0)
		stream_fail(s, r);
	return r;
}

/* An overwrite channel's packet: waits for the writer in the slot of the oldest unwritten
 * one, which is then lost (LTTng: the oldest unread sub-buffer overwritten). */
static int pend_packet(struct ctf_stream *s, uint64_t end)
{
	unsigned slot = (unsigned)(s->seq % s->pend);

	if (!s->pbuf[slot] && !(s->pbuf[slot] = malloc(s->cap))) {
		stream_fail(s, -ENOMEM);
		return -ENOMEM;
	}
	if (s->npend == s->pend)
		s->st.lost_packets++;
	else
		s->npend++;
	memcpy(s->pbuf[slot], s->buf, s->used);
	s->plen[slot] = (uint32_t)s->used;
	next_packet(s, end);
	return 0;
}

/* The writer of an overwrite channel: every packet waiting, oldest first. */
static int write_pending(struct ctf_stream *s)
{
	int r = 0;

	for (; s->npend && !r && !s->st.error; s->npend--) {
		uint64_t q = s->seq - s->npend;

		r = emit(s, s->pbuf[q % s->pend], s->plen[q % s->pend]);
	}
	return s->st.error ? s->st.error : r;
}

/* The packet buf (len bytes, its context filled in) written whole at the end of the file,
 * then its index entry.  *written: the packet is in the file.  0, or -errno with the file
 * ending at its last complete packet (the index may then be short: readers scan). */
static int file_write(struct ctf_stream *s, const uint8_t *buf, size_t len, bool *written)
{
	uint8_t ent[CTF_INDEX_LEN];
	int r;

	*written = false;
	ctf_writer_test_stall();
	if (s->tracefile_size && s->file_off && s->file_off + len > s->tracefile_size &&
	    (r = next_tracefile(s)) < 0)
		return r;
	r = write_all(s->fd, buf, len);
	if (r < 0) {
		/* Leave the file ending at the last complete packet. */
		if (ftruncate(s->fd, (off_t)s->file_off) == 0)
			lseek(s->fd, (off_t)s->file_off, SEEK_SET);
		return r;
	}
	*written = true;
	ctf_index_entry(ent, buf, s->file_off);
	s->file_off += len;
	r = write_all(s->idx_fd, ent, sizeof(ent));
	if (r < 0) {
		if (ftruncate(s->idx_fd, (off_t)s->idx_off) == 0)
			lseek(s->idx_fd, (off_t)s->idx_off, SEEK_SET);
		return r;
	}
	s->idx_off += sizeof(ent);
	return 0;
}

/* In the writer thread: a packet of s written (or, the stream's writes failed, counted lost). */
static void pkt_job_run(struct ctf_writer_job *base)
{
	struct pkt_job *j = (struct pkt_job *)base;
	struct ctf_stream *s = j->s;
	bool written = false;
	int r, none = 0;

	r = __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE);
	if (!r)
		r = file_write(s, j->buf, j->len, &written);
	if (written)
		__atomic_add_fetch(&s->wbytes, j->len, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&s->wlost, j->events, __ATOMIC_RELAXED);
	if (r < 0)
		__atomic_compare_exchange_n(&s->werr, &none, r, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&s->queued, j->len, __ATOMIC_RELEASE);
	if (j->whole) {
		pthread_mutex_lock(&s->spare_lock);
		if (s->nspare < sizeof(s->spare) / sizeof(s->spare[0])) {
			s->spare[s->nspare++] = j->buf;
			j->buf = NULL;
		}
		pthread_mutex_unlock(&s->spare_lock);
	}
	free(j->buf);
	free(j);
}

/* The current packet (its context filled in) given to the writer: its buffer handed over
 * and a spare one taken (a small packet is copied instead).  0 or -ENOMEM. */
static int submit_packet(struct ctf_stream *s)
{
	struct pkt_job *j = malloc(sizeof(*j));
	uint8_t *nb = NULL;

	if (!j)
		return -ENOMEM;
	*j = (struct pkt_job){ .base.run = pkt_job_run, .s = s, .len = s->used, .events = s->pkt_events };
	if (s->used <= 4096) {
		if (!(j->buf = malloc(s->used))) {
			free(j);
			return -ENOMEM;
		}
		memcpy(j->buf, s->buf, s->used);
	} else {
		pthread_mutex_lock(&s->spare_lock);
		if (s->nspare)
			nb = s->spare[--s->nspare];
		pthread_mutex_unlock(&s->spare_lock);
		if (!nb && !(nb = malloc(s->cap))) {
			free(j);
			return -ENOMEM;
		}
		memcpy(nb, s->buf, PKT_EVENTS_OFF);   /* the header's constant fields */
		j->buf = s->buf;
		j->whole = true;
		s->buf = nb;
	}
	__atomic_add_fetch(&s->queued, j->len, __ATOMIC_RELAXED);
	s->ticket = ctf_writer_submit(s->writer, &j->base);
	return 0;
}

/* The writer's error, if it had one, made the stream's (its current packet lost). */
static int take_writer_error(struct ctf_stream *s)
{
	int r = s->writer ? __atomic_load_n(&s->werr, __ATOMIC_ACQUIRE) : 0;

	if (r && !s->st.error)
		stream_fail(s, r);
	return r;
}

static bool ticket_done(void *arg)
{
	const struct ctf_stream *s = arg;

	return ctf_writer_done(s->writer) >= s->ticket;
}

/* Every packet given to the writer is written (or counted lost). */
static void wait_written(struct ctf_stream *s)
{
	if (s->writer && s->ticket)
		ctf_writer_wait(s->writer, ticket_done, s);
}

/* Fill in the packet context, write the packet whole, then its index entry (or give it to
 * the writer thread).  A failure fails the stream (stream_fail) once the file is back at
 * its last complete packet. */
static int write_packet(struct ctf_stream *s, uint64_t end_ts)
{
	uint64_t end;
	bool written;
	int r;

	/* Readers count the events lost in a packet as the increase over the previous
	 * packet; in a stream's first packet they can only say "may have discarded".  So a
	 * stream whose first packet would carry losses starts with an empty packet at 0. */
	if (s->seq == 0 && s->discarded) {
		size_t used = s->used;
		uint64_t events = s->pkt_events, discarded = s->discarded;

		if (events && s->start_ts > s->first_ts)
			s->start_ts = s->first_ts;
		s->used = PKT_EVENTS_OFF;
		s->pkt_events = 0;
		s->discarded = 0;
		r = write_packet(s, 0);
		s->used = used;
		s->pkt_events = events;
		s->discarded = discarded;
		if (r < 0) {
			stream_fail(s, r);   /* this packet's events are lost too */
			return r;
		}
	}
	end = fill_context(s, s->buf, s->used, end_ts);
	if (s->keep)
		return hold_packet(s, end);
	if (s->pend)
		return pend_packet(s, end);
	if (s->fd < 0)
		return sink_only_packet(s, end);
	if (s->writer) {
		tell_sink(s);
		if ((r = submit_packet(s)) < 0) {
			stream_fail(s, r);
			return r;
		}
		next_packet(s, end);
		return 0;
	}

	r = file_write(s, s->buf, s->used, &written);
	if (!written) {
		stream_fail(s, r);
		return r;
	}
	tell_sink(s);
	s->st.bytes += s->used;
	next_packet(s, end);
	if (r < 0) {
		/* The packet is written; readers that find the index short scan the stream. */
		stream_fail(s, r);
		return r;
	}
	return 0;
}

struct ctf_stream *ctf_stream_open(const struct ctf_stream_opts *o, char *err, size_t errlen)
{
	struct ctf_stream *s = NULL;

	if (!o || ((!o->kdir || !o->idir) && !o->keep_packets && !o->sink) || !o->channel || !*o->channel || strchr(o->channel, '/') ||
	    strlen(o->channel) >= sizeof(s->channel) || !o->uuid) {
		snprintf(err, errlen, "stream: missing directory, channel or uuid");
		return NULL;
	}
	if (o->packet_size < PKT_EVENTS_OFF + SCRY_EVENT_HEADER_SIZE || o->packet_size > PKT_MAX_SIZE) {
		snprintf(err, errlen, "stream: packet size %zu out of range (%u..%u bytes)",
			 o->packet_size, PKT_EVENTS_OFF + SCRY_EVENT_HEADER_SIZE, PKT_MAX_SIZE);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "stream: out of memory");
		return NULL;
	}
	s->fd = s->idx_fd = -1;
	s->cap = o->packet_size;
	s->used = PKT_EVENTS_OFF;
	s->start_ts = o->start_ts;
	s->cpu = o->cpu;
	s->buf = malloc(s->cap);
	s->offs = malloc((s->cap / SCRY_EVENT_HEADER_SIZE + 1) * sizeof(*s->offs));
	if (!s->buf || !s->offs) {
		snprintf(err, errlen, "stream: cannot allocate a %zu-byte packet", s->cap);
		goto fail;
	}
	memset(s->buf, 0, PKT_EVENTS_OFF);
	put_le32(s->buf + OFF_MAGIC, CTF_MAGIC);
	memcpy(s->buf + OFF_UUID, o->uuid, 16);
	put_le32(s->buf + OFF_STREAM_ID, o->stream_id);
	put_le64(s->buf + OFF_INSTANCE_ID, o->stream_instance_id);
	snprintf(s->channel, sizeof(s->channel), "%s", o->channel);
	if (o->keep_packets) {       /* a flight recorder: no files */
		s->keep = o->keep_packets;
		s->held = calloc(s->keep, sizeof(*s->held));
		s->held_len = calloc(s->keep, sizeof(*s->held_len));
		if (!s->held || !s->held_len) {
			snprintf(err, errlen, "stream: out of memory");
			goto fail;
		}
		return s;
	}

	s->sink = o->sink;
	s->sink_ctx = o->sink_ctx;
	if (o->overwrite_packets && o->kdir && o->idir && !o->sink) {
		s->pend = o->overwrite_packets;
		s->pbuf = calloc(s->pend, sizeof(*s->pbuf));
		s->plen = calloc(s->pend, sizeof(*s->plen));
		if (!s->pbuf || !s->plen) {
			snprintf(err, errlen, "stream: out of memory");
			goto fail;
		}
	}
	pthread_mutex_init(&s->spare_lock, NULL);
	if (!o->kdir || !o->idir)
		return s;            /* the sink is the only output */
	/* a writer thread, but not for split tracefiles: their files are made on this thread */
	if (o->writer && !o->tracefile_size && !s->pend) {
		s->writer = o->writer;
		s->queue_max = o->writer_queue;
	}
	s->kdir = scry_dirh_ref(o->kdir);
	s->idir = scry_dirh_ref(o->idir);
	s->tracefile_size = o->tracefile_size;
	s->tracefile_count = o->tracefile_count;
	if (open_files(s, err, errlen))
		goto fail;
	return s;
fail:
	if (s->fd >= 0)
		close(s->fd);
	if (s->idx_fd >= 0)
		close(s->idx_fd);
	scry_dirh_unref(s->kdir);
	scry_dirh_unref(s->idir);
	free(s->held);
	free(s->held_len);
	free(s->pbuf);
	free(s->plen);
	free(s->buf);
	free(s->offs);
	free(s);
	return NULL;
}

static uint64_t ev_ts(const uint8_t *p)
{
	uint64_t ts;

	memcpy(&ts, p + 2, 8);
	return ts;
}

int ctf_stream_append(struct ctf_stream *s, const void *ev, size_t len)
{
	uint8_t *p;
	uint64_t ts, floor;
	uint64_t k;

	if (s->writer && __builtin_expect(__atomic_load_n(&s->werr, __ATOMIC_RELAXED) != 0, 0))
		take_writer_error(s);
	if (s->st.error) {
		s->st.lost++;
		return s->st.error;
	}
	if (len < SCRY_EVENT_HEADER_SIZE) {
		s->st.lost++;
		return -EINVAL;
	}
	if (len > s->cap - PKT_EVENTS_OFF) {
		s->st.lost++;
		s->st.too_big++;
		return -E2BIG;
	}
	if (s->used + len > s->cap) {
		int r = write_packet(s, 0);

		if (r < 0) {
			s->st.lost++;   /* this event too */
			return r;
		}
	}
	ts = ev_ts(ev);
	/* Older than what is already on disk: it can only get the last written time. */
	floor = s->pkt_events ? (s->seq ? s->prev_end : 0) : s->last_ts;
	if (ts < floor) {
		ts = floor;
		s->st.clamped++;
	}
	/* Older than the current packet's last event: goes in its place in the packet. */
	k = s->pkt_events;
	if (ts < s->last_ts && k) {
		while (k > 0 && ev_ts(s->buf + s->offs[k - 1]) > ts)
			k--;
		if (k < s->pkt_events)
			s->st.reordered++;
	}
	if (k < s->pkt_events) {
		uint32_t at = s->offs[k];

		memmove(s->buf + at + len, s->buf + at, s->used - at);
		for (uint64_t j = s->pkt_events; j > k; j--)
			s->offs[j] = s->offs[j - 1] + (uint32_t)len;
		p = s->buf + at;
	} else {
		p = s->buf + s->used;
		s->offs[k] = (uint32_t)s->used;
		s->last_ts = ts;
	}
	memcpy(p, ev, len);
	memcpy(p + 2, &ts, 8);
	if (k == 0)
		s->first_ts = ts;
	s->pkt_events++;
	s->used += len;
	s->st.events++;
	return 0;
}

void ctf_stream_set_discarded(struct ctf_stream *s, uint64_t cumulative)
{
	if (cumulative > s->discarded)
		s->discarded = cumulative;
}

int ctf_stream_flush(struct ctf_stream *s)
{
	int r;

	take_writer_error(s);
	if (s->st.error)
		return s->st.error;
	r = s->pkt_events ? write_packet(s, 0) : 0;
	return r || !s->pend ? r : write_pending(s);
}

/* The packet that ends the stream at end_ts: its pending events, or an empty packet when
 * it never wrote one, its losses changed or the last packet ended before end_ts. */
static int write_last(struct ctf_stream *s, uint64_t end_ts)
{
	if (s->st.error || !(s->pkt_events || s->seq == 0 || s->discarded != s->prev_discarded || end_ts > s->prev_end))
		return s->st.error;
	return write_packet(s, end_ts);
}

int ctf_stream_seal(struct ctf_stream *s, uint64_t end_ts)
{
	int r;

	if (s->keep)
		return ctf_stream_flush(s);
	take_writer_error(s);
	r = write_last(s, end_ts);
	if (!r && s->pend)
		r = write_pending(s);
	wait_written(s);             /* on disk, as a stop promises */
	return r ? r : take_writer_error(s);
}

bool ctf_stream_room(const struct ctf_stream *s, size_t bytes)
{
	uint64_t q;

	if (!s->writer)
		return true;
	q = __atomic_load_n(&s->queued, __ATOMIC_ACQUIRE);
	return q == 0 || q + bytes + s->cap <= s->queue_max;
}

struct room_arg {
	const struct ctf_stream *s;
	size_t bytes;
};

static bool has_room(void *arg)
{
	const struct room_arg *a = arg;

	return ctf_stream_room(a->s, a->bytes);
}

void ctf_stream_wait_room(struct ctf_stream *s, size_t bytes)
{
	struct room_arg a = { s, bytes };

	if (s->writer)
		ctf_writer_wait(s->writer, has_room, &a);
}

int ctf_stream_error(struct ctf_stream *s)
{
	take_writer_error(s);
	return s->st.error;
}

void ctf_stream_idle_until(struct ctf_stream *s, uint64_t ts)
{
	if (s->pkt_events || !s->seq)
		return;
	if (ts > s->prev_end)
		s->prev_end = ts;
	if (ts > s->last_ts)
		s->last_ts = ts;
}

void ctf_stream_fail(struct ctf_stream *s, int error)
{
	stream_fail(s, error < 0 ? error : -EIO);
}

int ctf_stream_close(struct ctf_stream *s, uint64_t end_ts, struct ctf_stream_stats *final)
{
	int r = 0;

	if (!s)
		return 0;
	/* The last packet carries the final discarded count and reaches end_ts; a stream
	 * that never wrote a packet gets an empty one so its file is a valid CTF stream.
	 * A failed stream writes nothing more (its error is in its stats). */
	if (s->keep) {              /* a flight recorder: what it holds goes with it */
		if (final)
			*final = s->st;
		for (unsigned i = 0; i < s->keep; i++)
			free(s->held[i]);
		free(s->held);
		free(s->held_len);
		free(s->buf);
		free(s->offs);
		free(s);
		return 0;
	}
	take_writer_error(s);
	r = write_last(s, end_ts);
	if (!r && s->pend)
		r = write_pending(s);
	for (unsigned i = 0; i < s->pend; i++)
		free(s->pbuf[i]);
	free(s->pbuf);
	free(s->plen);
	wait_written(s);
	if (s->fd >= 0) {
		if (fsync(s->fd) < 0 && r == 0)
			r = -errno;
		if (close(s->fd) < 0 && r == 0)
			r = -errno;
		if (fsync(s->idx_fd) < 0 && r == 0)
			r = -errno;
		if (close(s->idx_fd) < 0 && r == 0)
			r = -errno;
	}
	if (s->sink && s->sink->close)
		s->sink->close(s->sink_ctx);
	if (final)
		*final = *ctf_stream_stats(s);
	scry_dirh_unref(s->kdir);
	scry_dirh_unref(s->idir);
	for (unsigned i = 0; i < s->nspare; i++)
		free(s->spare[i]);
	pthread_mutex_destroy(&s->spare_lock);
	free(s->buf);
	free(s->offs);
	free(s);
	return r;
}

const struct ctf_stream_stats *ctf_stream_stats(struct ctf_stream *s)
{
	uint64_t wl;

	s->view = s->st;
	if (!s->writer)
		return &s->view;
	wl = __atomic_load_n(&s->wlost, __ATOMIC_RELAXED);
	s->view.bytes += __atomic_load_n(&s->wbytes, __ATOMIC_RELAXED);
	s->view.events -= wl;
	s->view.lost += wl;
	if (!s->view.error)
		s->view.error = __atomic_load_n(&s->werr, __ATOMIC_RELAXED);
	return &s->view;
}

/* What a snapshot of a flight recorder's stream holds: its packets first..s->seq - 1 (those
 * held) and *cur (cur_len bytes; NULL: none), the current packet's events as a packet of
 * its own (or, for a stream that never had a packet, an empty one: a valid stream); the
 * newest within max_bytes (0: all).  *cur is the caller's to free. */
static int snapshot_select(struct ctf_stream *s, uint64_t max_bytes, uint64_t *first, uint8_t **cur, size_t *cur_len,
			   char *err, size_t errlen)
{
	uint64_t budget;

	*cur = NULL;
	*cur_len = 0;
	if (!s->keep) {
		snprintf(err, errlen, "stream %s_%u: not a flight recorder", s->channel, s->cpu);
		return -EINVAL;
	}
	if (s->pkt_events || s->seq == 0) {
		if (!(*cur = malloc(s->used))) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		memcpy(*cur, s->buf, s->used);
		*cur_len = s->used;
		fill_context(s, *cur, *cur_len, 0);
	}
	*first = s->seq - s->nheld;
	if (max_bytes) {
		budget = *cur_len;
		for (uint64_t q = s->seq; q > s->seq - s->nheld; q--) {
			if (budget + s->held_len[(q - 1) % s->keep] > max_bytes)
				break;
			budget += s->held_len[(q - 1) % s->keep];
			*first = q - 1;
		}
		if (budget == *cur_len)
			*first = s->seq;     /* not even the newest held packet fits */
	}
	return 0;
}

int ctf_stream_snapshot(struct ctf_stream *s, struct scry_dirh *kdir, struct scry_dirh *idir, uint64_t max_bytes,
			uint64_t *bytes, uint64_t *packets, char *err, size_t errlen)
{
	char path[300], idx_path[320];
	uint8_t hdr[CTF_INDEX_HDR_LEN], ent[CTF_INDEX_LEN], *cur = NULL;
	uint64_t first, off = 0;
	size_t cur_len = 0;
	int fd = -1, idx_fd = -1, r = 0;

	*bytes = *packets = 0;
	if ((r = snapshot_select(s, max_bytes, &first, &cur, &cur_len, err, errlen)))
		return r;
	snprintf(path, sizeof(path), "%s_%u", s->channel, s->cpu);
	snprintf(idx_path, sizeof(idx_path), "%s.idx", path);
	if ((fd = scry_dirh_create(kdir, path, err, errlen)) < 0 ||
	    (idx_fd = scry_dirh_create(idir, idx_path, err, errlen)) < 0) {
		r = fd < 0 ? fd : idx_fd;
		goto out;
	}
	ctf_index_header(hdr);
	if ((r = write_all(idx_fd, hdr, sizeof(hdr))))
		goto werr;
	for (uint64_t q = first; q <= s->seq; q++) {
		const uint8_t *pkt = q < s->seq ? s->held[q % s->keep] : cur;
		size_t len = q < s->seq ? s->held_len[q % s->keep] : cur_len;

		if (!pkt)
			continue;            /* no current packet */
		if ((r = write_all(fd, pkt, len)))
			goto werr;
		ctf_index_entry(ent, pkt, off);
		if ((r = write_all(idx_fd, ent, sizeof(ent))))
			goto werr;
		off += len;
		(*packets)++;
	}
	*bytes = off;
	if (fsync(fd) < 0 || fsync(idx_fd) < 0) {
		r = -errno;
		goto werr;
	}
	goto out;
werr:
	snprintf(err, errlen, "writing the snapshot %s/%s: %s", scry_dirh_path(kdir), path, strerror(-r));
out:
	if (fd >= 0)
		close(fd);
	if (idx_fd >= 0)
		close(idx_fd);
	free(cur);
	return r;
}

int ctf_stream_snapshot_to(struct ctf_stream *s, const struct ctf_packet_sink *sink, void *ctx, uint64_t max_bytes,
			   uint64_t *bytes, uint64_t *packets, char *err, size_t errlen)
{
	uint8_t *cur;
	uint64_t first;
	size_t cur_len;
	int r;

	*bytes = *packets = 0;
	if ((r = snapshot_select(s, max_bytes, &first, &cur, &cur_len, err, errlen)))
		return r;
	for (uint64_t q = first; q <= s->seq; q++) {
		const uint8_t *pkt = q < s->seq ? s->held[q % s->keep] : cur;
		size_t len = q < s->seq ? s->held_len[q % s->keep] : cur_len;
		struct ctf_packet_info pi;

		if (!pkt)
			continue;
		ctf_packet_info_of(pkt, &pi);
		sink->packet(ctx, pkt, len, &pi);
		*bytes += len;
		(*packets)++;
	}
	free(cur);
	return 0;
}
