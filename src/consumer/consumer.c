/* consumer.c — per-CPU ring buffers -> CTF streams (see consumer.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "consumer/consumer.h"
#include "scry_abi.h"
#include "consumer/drainer.h"
#include "consumer/ring.h"
#include "catalog/record.h"
#include "catalog/symbolize.h"
#include "ctf/stream.h"
#include "ctf/writer.h"
#include "util/clock.h"
#include "util/overrides.h"

struct cpu_stream {
	struct scry_consumer *c;
	struct ctf_stream *stream;
	struct scry_ring ring;
	unsigned cpu;
};

struct scry_consumer {
	struct scry_probes *probes;
	struct cpu_stream *cpus;
	unsigned ncpus;
	struct scry_cpu_stats *kstats;   /* scratch for the per-CPU counters */
	uint64_t *misses;                /* per CPU: events the kernel skipped (recursion misses,
					  * read at flushes and at the end), and on CPU 0 the
					  * entries still waiting for their exit at the end */
	uint64_t errors;                 /* malformed ring records (cannot happen) */
	int write_error;                 /* the first stream write error: every stream stopped */
	size_t ring_size;
	uint64_t *flushed_ns;            /* per CPU: when its stage was last flushed by us */
	uint64_t last_poll_ns;           /* pacing: when the last poll ran ... */
	long last_moved;                 /* ... what it moved ... */
	double rate;                     /* ... and the fill rate seen, bytes per ns (EMA) */
	scry_event_sink sink;            /* record sink (live output), or NULL */
	void *sink_ctx;
	uint64_t sink_events;
	bool ctf;                        /* CTF streams (a trace directory) */
	scry_event_pred pred;            /* user-space filter of the events in pred_ids */
	void *pred_ctx;
	const uint64_t *pred_ids;
	uint64_t filtered;
	uint64_t stage_max_age_ns;
	struct scry_consumer_opts opts;  /* to open the streams of the next chunk (rotation) */
	struct ctf_stream_stats done;    /* the totals of the streams of closed chunks */
	bool stacks;                     /* call stack contexts: records compacted for the streams */
	struct scry_record_layout layout;
	uint8_t *compact;                /* SCRY_SCRATCH_SIZE */
	struct scry_syms *syms;          /* user call stacks: their mappings, written to maps */
	FILE *maps;
	struct ctf_writer *writer;       /* writes the stream files (NULL: this thread does) */
	uint64_t writer_queue;           /* bytes it may hold per stream */
	struct scry_drainer *drainer;    /* live output: the rings drained by a thread of their
					  * own into FIFOs (NULL: by the polls) */
};

/* The user call stack of a record: the mappings of its addresses captured (the process's
 * pid context tells which /proc/PID/maps). */
static void capture_maps(struct scry_consumer *c, const uint8_t *ev, size_t size)
{
	struct scry_record r;
	const uint64_t *a;
	int64_t pid;
	uint32_t n;

	if (scry_record_read(&c->layout, ev, size, &r) ||
	    !(scry_record_ctx(&c->layout, &r, SCRY_CTX_PID, &pid) || scry_record_ctx(&c->layout, &r, SCRY_CTX_TID, &pid)) ||
	    !(a = scry_record_callstack(&c->layout, &r, SCRY_CTX_CALLSTACK_USER, &n)))
		return;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t addr;

		memcpy(&addr, a + i, 8);
		if (addr != UINT64_MAX && scry_syms_capture(c->syms, (int)pid, addr ? addr - (i > 0) : 0, c->maps) < 0)
			break;   /* gone, or not in a file: the next addresses would fail the same */
	}
}

/* Does the user-space filter drop this event?  One bit test for the others. */
static bool rejected(struct scry_consumer *c, unsigned cpu, const uint8_t *ev, size_t size)
{
	uint16_t id;

	if (!c->pred_ids || size < 2)
		return false;
	memcpy(&id, ev, 2);
	if (!(c->pred_ids[id >> 6] >> (id & 63) & 1) || c->pred(c->pred_ctx, cpu, ev, size))
		return false;
	c->filtered++;
	return true;
}

/* A stream could not write (disk full...): every stream stops where it is, so that the trace
 * ends at one point, and what comes next is counted lost (the streams count it), never
 * retried per event. */
static void output_failed(struct scry_consumer *c, int error)
{
	c->write_error = error;
	for (unsigned i = 0; i < c->ncpus; i++)
		if (c->cpus[i].stream)
			ctf_stream_fail(c->cpus[i].stream, error);
}

static void append(struct cpu_stream *cs, const uint8_t *ev, size_t size)
{
	int ret;

	if (rejected(cs->c, cs->cpu, ev, size))
		return;
	if (cs->c->sink) {
		cs->c->sink(cs->c->sink_ctx, cs->cpu, ev, size);
		cs->c->sink_events++;
	}
	if (!cs->c->ctf)
		return;
	if (!cs->stream) {     /* between two chunks (a stopped session's was archived) */
		cs->c->done.lost++;
		return;
	}
	if (cs->c->stacks) {
		if (cs->c->syms)
			capture_maps(cs->c, ev, size);
		size = scry_record_compact(&cs->c->layout, ev, size, cs->c->compact);
		if (!size)
			return;
		ev = cs->c->compact;
	}
	ret = ctf_stream_append(cs->stream, ev, size);
	if (ret && ret != -E2BIG && ret != -EINVAL && !cs->c->write_error)
		output_failed(cs->c, ret);
}

/* One ring record: a single event, or a staged batch of [u16 length][event] entries. */
static int on_record(void *ctx, const void *data, size_t size)
{
	struct cpu_stream *cs = ctx;
	const uint8_t *p = data, *end = p + size;
	uint16_t w;

	if (size < 2)
		return 0;
	memcpy(&w, p, 2);
	if (w != SCRY_STAGE_MARK) {
		append(cs, p, size);
		return 0;
	}
	for (p += 2; p + 2 <= end;) {
		memcpy(&w, p, 2);
		if (!w || p + 2 + w > end) {   /* cannot happen with scry's BPF side */
			cs->c->errors++;
			break;
		}
		append(cs, p + 2, w);
		p += 2 + w;
	}
	return 0;
}

static void sum_kstats(struct scry_consumer *c, struct scry_consumer_stats *out, bool update_streams)
{
	if (scry_probes_stats(c->probes, c->kstats))
		return;
	for (unsigned i = 0; i < c->ncpus; i++) {
		uint64_t lost = c->kstats[i].discarded + c->kstats[i].nested + c->misses[i];
		if (update_streams && c->cpus[i].stream)
			ctf_stream_set_discarded(c->cpus[i].stream, lost);
		if (out) {
			out->discarded += lost;
			out->truncated += c->kstats[i].truncated;
			out->unfollowed += c->kstats[i].unfollowed;
		}
	}
}

/* A stream of the trace, with its packet sink when the consumer has sinks (a relay). */
static struct ctf_stream *stream_open(struct scry_consumer *c, struct ctf_stream_opts *so, char *err, size_t errlen)
{
	const struct ctf_sink_factory *f = c->opts.sinks;
	struct ctf_stream *st;

	if (f && !(so->sink_ctx = f->open(f->fctx, so->channel, so->cpu, so->stream_id, err, errlen)))
		return NULL;
	so->writer = c->writer;
	so->writer_queue = c->writer_queue;
	so->sink = f ? f->ops : NULL;
	if (!(st = ctf_stream_open(so, err, errlen)) && f && f->ops->close)
		f->ops->close(so->sink_ctx);
	return st;
}

/* The events the kernel skipped on each CPU (its programs' recursion misses): kept per
 * CPU, never lowered, so that each stream's events_discarded only grows. */
static void read_misses(struct scry_consumer *c)
{
	uint64_t *now = calloc(c->ncpus, sizeof(*now));

	if (now && !scry_probes_misses(c->probes, now))
		for (unsigned i = 0; i < c->ncpus; i++)
			if (now[i] > c->misses[i])
				c->misses[i] = now[i];
	free(now);
}

static void consumer_free(struct scry_consumer *c)
{
	scry_drainer_free(c->drainer);   /* before the rings it reads */
	if (c->cpus)
		for (unsigned i = 0; i < c->ncpus; i++)
			scry_ring_close(&c->cpus[i].ring);
	free(c->cpus);
	free(c->kstats);
	free(c->misses);
	free(c->flushed_ns);
	free(c->compact);
	ctf_writer_free(c->writer);      /* its streams are closed: nothing queued */
	scry_syms_free(c->syms);
	if (c->maps)
		fclose(c->maps);
	free(c);
}

int scry_consumer_open(struct scry_consumer **out, const struct scry_consumer_opts *o, char *err, size_t errlen)
{
	struct scry_consumer *c = calloc(1, sizeof(*c));
	int ret = -ENOMEM;

	if (!c)
		goto oom;
	c->probes = o->probes;
	c->opts = *o;
	c->ring_size = o->ring_size;
	c->sink = o->sink;
	c->sink_ctx = o->sink_ctx;
	c->ctf = o->tdir != NULL || o->keep_packets || o->sinks;
	if (o->pred && o->pred_ids) {
		c->pred = o->pred;
		c->pred_ctx = o->pred_ctx;
		c->pred_ids = o->pred_ids;
	}
	c->stage_max_age_ns = o->stage_max_age_ns ? o->stage_max_age_ns : 20 * 1000 * 1000ULL;
	c->stacks = o->ctx_mask & ((1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER));
	if (c->stacks) {
		scry_record_layout_init(&c->layout, o->ctx_mask);
		if (!(c->compact = malloc(SCRY_SCRATCH_SIZE)))
			goto oom;
	}
	if ((o->ctx_mask & (1ULL << SCRY_CTX_CALLSTACK_USER)) && o->maps_dir && c->ctf) {
		int fd;

		if (!(c->syms = scry_syms_new()))
			goto oom;
		if ((fd = scry_dirh_append(o->maps_dir, SCRY_MAPS_FILE, err, errlen)) < 0) {
			ret = fd;
			goto fail;
		}
		if (!(c->maps = fdopen(fd, "a"))) {
			close(fd);
			goto oom;
		}
	}
	if (o->tdir && !o->keep_packets && !scry_overrides()->test_sync_writes) {
		uint64_t floor = 2 * ((uint64_t)o->ring_size + o->packet_size);

		if (!(c->writer = ctf_writer_new(err, errlen))) {
			ret = -ENOMEM;
			goto fail;
		}
		c->writer_queue = o->writer_queue ? o->writer_queue : SCRY_WRITER_QUEUE;
		if (c->writer_queue < floor)
			c->writer_queue = floor;
	}
	c->ncpus = scry_probes_ncpus(o->probes);
	c->cpus = calloc(c->ncpus, sizeof(*c->cpus));
	c->kstats = calloc(c->ncpus, sizeof(*c->kstats));
	c->misses = calloc(c->ncpus, sizeof(*c->misses));
	c->flushed_ns = calloc(c->ncpus, sizeof(*c->flushed_ns));
	if (!c->cpus || !c->kstats || !c->misses || !c->flushed_ns)
		goto oom;
	for (unsigned i = 0; i < c->ncpus; i++) {
		struct ctf_stream_opts so = {
			.kdir = o->tdir ? ctf_trace_dir_kernel(o->tdir) : NULL,
			.idir = o->tdir ? ctf_trace_dir_index(o->tdir) : NULL, .channel = o->channel, .cpu = i, .uuid = o->uuid,
			.stream_id = o->stream_id, .stream_instance_id = i,
			.packet_size = o->packet_size, .start_ts = o->start_ts, .keep_packets = o->keep_packets,
			.overwrite_packets = o->overwrite_packets,
			.tracefile_size = o->tracefile_size, .tracefile_count = o->tracefile_count,
		};
		c->cpus[i].c = c;
		c->cpus[i].cpu = i;
		if (c->ctf && !(c->cpus[i].stream = stream_open(c, &so, err, errlen))) {
			ret = -EIO;
			goto fail;
		}
		ret = scry_ring_open(&c->cpus[i].ring, scry_probes_ring_fd(o->probes, i), o->ring_size);
		if (ret) {
			snprintf(err, errlen, "cannot map the ring buffer of CPU %u: %s", i, strerror(-ret));
			goto fail;
		}
	}
	/* live output: printing must not hold the rings up.  Not with user call stacks: the
	 * live printer reads the process's maps when it is handed an event (trace -k), which
	 * must then be while the process lives, as the polls' own drains are */
	if (c->sink && !(o->ctx_mask & (1ULL << SCRY_CTX_CALLSTACK_USER))) {
		struct scry_ring **rings = calloc(c->ncpus, sizeof(*rings));

		if (!rings)
			goto oom;
		for (unsigned i = 0; i < c->ncpus; i++)
			rings[i] = &c->cpus[i].ring;
		ret = scry_drainer_start(&c->drainer, rings, c->ncpus, 2 * o->ring_size, err, errlen);
		free(rings);
		if (ret)
			goto fail;
	}
	*out = c;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	if (c) {
		if (c->cpus)
			for (unsigned i = 0; i < c->ncpus; i++)
				if (c->cpus[i].stream)
					ctf_stream_close(c->cpus[i].stream, 0, NULL);
		consumer_free(c);
	}
	return ret;
}

/* Drain every ring once; a ring whose stream's writer has no room for a ring's worth is
 * left to fill (its overflow counted by the kernel, as always), or with wait, waited for. */
static long poll_rings(struct scry_consumer *c, bool wait)
{
	uint64_t now = scry_monotonic_ns();
	long total = 0;

	for (unsigned i = 0; i < c->ncpus; i++)
		if (now - c->flushed_ns[i] >= c->stage_max_age_ns) {
			if (scry_probes_staged(c->probes, i) > 2)
				scry_probes_flush_stage(c->probes, i);
			c->flushed_ns[i] = now;
		}

	for (unsigned i = 0; i < c->ncpus; i++) {
		struct ctf_stream *st = c->cpus[i].stream;
		long n;

		if (st && !ctf_stream_room(st, c->ring_size)) {
			if (!wait)
				continue;
			ctf_stream_wait_room(st, c->ring_size);
		}
		n = c->drainer ? scry_drainer_take(c->drainer, i, on_record, &c->cpus[i])
			       : scry_ring_drain(&c->cpus[i].ring, on_record, &c->cpus[i]);
		if (n < 0)
			return n;
		total += n;
	}
	for (unsigned i = 0; i < c->ncpus && c->writer && !c->write_error; i++) {
		int r = c->cpus[i].stream ? ctf_stream_error(c->cpus[i].stream) : 0;

		if (r)
			output_failed(c, r);   /* the writer's: every stream stops */
	}
	sum_kstats(c, NULL, true);
	if (c->last_poll_ns && now > c->last_poll_ns) {
		double r = (double)total / (double)(now - c->last_poll_ns);
		c->rate = c->rate * 0.5 + r * 0.5;
	}
	c->last_poll_ns = now;
	c->last_moved = total;
	return total;
}

long scry_consumer_poll(struct scry_consumer *c)
{
	return poll_rings(c, false);
}

uint64_t scry_consumer_poll_delay_ns(const struct scry_consumer *c)
{
	const uint64_t min = 200 * 1000ULL, max = 20 * 1000 * 1000ULL;
	double d;

	if ((size_t)c->last_moved >= c->ring_size / 8)
		return 0;                /* a ring was well filled: drain again at once */
	if (c->rate <= 0)
		return max;
	d = (double)(c->ring_size / 16) / c->rate;  /* time to fill a sixteenth of a ring */
	return d < min ? min : d > max ? max : (uint64_t)d;
}

int scry_consumer_flush(struct scry_consumer *c)
{
	read_misses(c);
	sum_kstats(c, NULL, true);
	for (unsigned i = 0; i < c->ncpus && c->ctf && !c->write_error; i++) {
		int r = c->cpus[i].stream ? ctf_stream_flush(c->cpus[i].stream) : 0;
		if (r)
			output_failed(c, r);
	}
	return c->write_error;
}

static long flush_and_poll(struct scry_consumer *c);

int scry_consumer_switch(struct scry_consumer *c)
{
	if (flush_and_poll(c) < 0)
		return c->write_error;
	return scry_consumer_flush(c);
}

void scry_consumer_usage(const struct scry_consumer *c, uint64_t *used, uint64_t *size)
{
	*used = 0;
	*size = c->ring_size;
	for (unsigned i = 0; i < c->ncpus; i++) {
		uint64_t u = c->cpus[i].ring.data ? scry_ring_pending(&c->cpus[i].ring) : 0;

		if (u > *used)
			*used = u;
	}
}

void scry_consumer_stats(struct scry_consumer *c, struct scry_consumer_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->events = c->ctf ? c->done.events : c->sink_events;
	out->bytes = c->done.bytes;
	out->clamped = c->done.clamped;
	out->lost = c->done.lost;
	out->too_big = c->done.too_big;
	for (unsigned i = 0; i < c->ncpus && c->ctf; i++) {
		const struct ctf_stream_stats *ss;

		if (!c->cpus[i].stream)
			continue;          /* between two chunks: in done */
		ss = ctf_stream_stats(c->cpus[i].stream);
		out->events += ss->events;
		out->bytes += ss->bytes;
		out->clamped += ss->clamped;
		out->lost += ss->lost;
		out->too_big += ss->too_big;
		out->lost_packets += ss->lost_packets;
	}
	out->lost_packets += c->done.lost_packets;
	out->write_error = c->write_error;
	out->errors = c->errors;
	out->filtered = c->filtered;
	sum_kstats(c, out, false);
}

/* What every CPU has staged, then the rings, drained (a few rounds: recording may go on):
 * the last poll's count, or -errno. */
static long flush_and_poll(struct scry_consumer *c)
{
	long n;
	int tries = 0;

	for (unsigned i = 0; i < c->ncpus; i++) {
		if (scry_probes_staged(c->probes, i) > 2)
			scry_probes_flush_stage(c->probes, i);
		c->flushed_ns[i] = scry_monotonic_ns();
	}
	do
		n = poll_rings(c, true);
	while (n > 0 && ++tries < 8);
	return n;
}

int scry_consumer_drain(struct scry_consumer *c, uint64_t end_ts)
{
	long n = flush_and_poll(c);

	if (n < 0)
		return (int)n;
	read_misses(c);
	sum_kstats(c, NULL, true);      /* the last packets carry the losses so far */
	for (unsigned i = 0; i < c->ncpus && c->ctf && !c->write_error; i++) {
		int r = c->cpus[i].stream ? ctf_stream_seal(c->cpus[i].stream, end_ts) : 0;

		if (r)
			output_failed(c, r);
	}
	return c->write_error;
}

int scry_consumer_rotate_close(struct scry_consumer *c, uint64_t end_ts, char *err, size_t errlen)
{
	long n;
	int tries = 0, ret = 0;

	if (!c->ctf || c->opts.keep_packets || !c->opts.tdir) {
		snprintf(err, errlen, "rotation: no trace files to rotate");
		return -EINVAL;
	}
	for (unsigned i = 0; i < c->ncpus; i++) {
		if (scry_probes_staged(c->probes, i) > 2)
			scry_probes_flush_stage(c->probes, i);
		c->flushed_ns[i] = scry_monotonic_ns();
	}
	do
		n = poll_rings(c, true);
	while (n > 0 && ++tries < 8);
	read_misses(c);
	sum_kstats(c, NULL, true);      /* the chunk's last packets carry the losses so far */
	for (unsigned i = 0; i < c->ncpus; i++) {
		struct ctf_stream_stats fin = { 0 };
		int r = ctf_stream_close(c->cpus[i].stream, end_ts, &fin);

		c->cpus[i].stream = NULL;
		if (r && !ret) {
			ret = r;
			snprintf(err, errlen, "closing the chunk's streams: %s", strerror(-r));
		}
		c->done.events += fin.events;
		c->done.bytes += fin.bytes;
		c->done.lost += fin.lost;
		c->done.too_big += fin.too_big;
		c->done.clamped += fin.clamped;
		c->done.lost_packets += fin.lost_packets;
	}
	return ret;
}

int scry_consumer_rotate_open(struct scry_consumer *c, uint64_t start_ts, char *err, size_t errlen)
{
	for (unsigned i = 0; i < c->ncpus; i++) {
		struct ctf_stream_opts so = {
			.kdir = ctf_trace_dir_kernel(c->opts.tdir), .idir = ctf_trace_dir_index(c->opts.tdir),
			.channel = c->opts.channel, .cpu = i, .uuid = c->opts.uuid,
			.stream_id = c->opts.stream_id, .stream_instance_id = i,
			.packet_size = c->opts.packet_size, .start_ts = start_ts,
			.overwrite_packets = c->opts.overwrite_packets,
			.tracefile_size = c->opts.tracefile_size, .tracefile_count = c->opts.tracefile_count,
		};

		if (!(c->cpus[i].stream = stream_open(c, &so, err, errlen))) {
			for (unsigned k = 0; k < i; k++) {
				ctf_stream_close(c->cpus[k].stream, start_ts, NULL);
				c->cpus[k].stream = NULL;
			}
			c->ctf = false;       /* no streams: what comes is not written (write_error) */
			if (!c->write_error)
				c->write_error = -EIO;
			return -EIO;
		}
	}
	sum_kstats(c, NULL, true);
	return 0;
}

int scry_consumer_snapshot(struct scry_consumer *c, struct ctf_trace_dir *td, uint64_t max_bytes, uint64_t *bytes,
			   char *err, size_t errlen)
{
	long n;

	*bytes = 0;
	if ((n = flush_and_poll(c)) < 0) {
		snprintf(err, errlen, "reading the rings: %s", strerror((int)-n));
		return (int)n;
	}
	for (unsigned i = 0; i < c->ncpus; i++) {
		uint64_t b, p;
		int r = ctf_stream_snapshot(c->cpus[i].stream, ctf_trace_dir_kernel(td), ctf_trace_dir_index(td), max_bytes,
					    &b, &p, err, errlen);

		if (r)
			return r;
		*bytes += b;
	}
	return 0;
}

int scry_consumer_snapshot_to(struct scry_consumer *c, const struct ctf_sink_factory *f, uint64_t max_bytes,
			      uint64_t *bytes, char *err, size_t errlen)
{
	long n;

	*bytes = 0;
	if ((n = flush_and_poll(c)) < 0) {
		snprintf(err, errlen, "reading the rings: %s", strerror((int)-n));
		return (int)n;
	}
	for (unsigned i = 0; i < c->ncpus; i++) {
		uint64_t b, p;
		void *ctx = f->open(f->fctx, c->opts.channel, i, c->opts.stream_id, err, errlen);
		int r;

		if (!ctx)
			return -EIO;
		r = ctf_stream_snapshot_to(c->cpus[i].stream, f->ops, ctx, max_bytes, &b, &p, err, errlen);
		if (f->ops->close)
			f->ops->close(ctx);
		if (r)
			return r;
		*bytes += b;
	}
	return 0;
}

int scry_consumer_close(struct scry_consumer *c, uint64_t end_ts, struct scry_consumer_stats *out)
{
	int ret = 0;
	long n;

	/* the programs are detached: hand over what every CPU still has staged (the drain
	 * thread stopped: this thread takes the rest) */
	scry_drainer_stop(c->drainer);
	for (unsigned i = 0; i < c->ncpus; i++) {
		int r = scry_probes_staged(c->probes, i) > 2 ? scry_probes_flush_stage(c->probes, i) : 0;
		if (r && !ret)
			ret = r;
		c->flushed_ns[i] = scry_monotonic_ns();
	}
	do
		n = poll_rings(c, true);
	while (n > 0);
	if (n < 0)
		ret = (int)n;
	/* what the kernel skipped, and the entries still waiting for their exit (their calls
	 * blocked at the end: lost, on no CPU in particular) in the last packets */
	read_misses(c);
	c->misses[0] += scry_probes_deferred_waiting(c->probes);
	sum_kstats(c, NULL, true);
	scry_consumer_stats(c, out);
	/* the last packets: their events, bytes and losses (and those of chunks rotated before) */
	out->events = c->ctf ? c->done.events : c->sink_events;
	out->bytes = c->done.bytes;
	out->lost = c->done.lost;
	out->too_big = c->done.too_big;
	for (unsigned i = 0; i < c->ncpus && c->ctf; i++) {
		struct ctf_stream_stats fin = { 0 };
		int r = ctf_stream_close(c->cpus[i].stream, end_ts, &fin);

		if (!c->write_error)
			c->write_error = fin.error ? fin.error : r;
		out->events += fin.events;
		out->bytes += fin.bytes;
		out->lost += fin.lost;
		out->too_big += fin.too_big;
	}
	out->write_error = c->write_error;
	if (c->errors && !ret)
		ret = -EPROTO;
	consumer_free(c);
	return ret;
}

int scry_consumer_live_tick(struct scry_consumer *c, uint64_t now)
{
	if (flush_and_poll(c) < 0)      /* what was recorded before now, staged or in the rings */
		return c->write_error;
	for (unsigned i = 0; i < c->ncpus && c->ctf && !c->write_error; i++) {
		struct ctf_stream *st = c->cpus[i].stream;
		int r;

		if (!st)
			continue;
		/* a stream that never had a packet gets an empty one (a viewer waits for every
		 * stream's first index); the others their partly filled packet */
		r = ctf_stream_stats(st)->packets ? ctf_stream_flush(st) : ctf_stream_seal(st, 0);
		if (r)
			output_failed(c, r);
		else
			ctf_stream_idle_until(st, now);   /* the beacon's promise: nothing older comes */
	}
	return c->write_error;
}
