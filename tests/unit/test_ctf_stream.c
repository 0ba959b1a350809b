/* test_ctf_stream.c — the stream writer, read back byte by byte: packet header and
 * context, sizes, sequence numbers, cumulative discarded counts, timestamp clamping and
 * packet bounds, the LTTng index (big-endian), flush/close rules, exclusive creation; with a
 * writer thread, the same bytes, and a failed write that ends the file at its last packet. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/resource.h>

#include "ctf_test_util.h"
#include "ctf/writer.h"

#define EV_LEN   18                      /* header 10 + int64 ret, no context */
#define HDR      84

struct pkt {
	uint64_t off, ts_begin, ts_end, content, size, seq, discarded;
	uint32_t cpu, stream_id;
	uint64_t instance;
	unsigned nevents;
	uint64_t first_ret, last_ret;
};

static char tmpdir[64];
static struct scry_dirh *kd, *id;       /* tmpdir and tmpdir/index */

static int setup(void **state)
{
	char idx[96];

	strcpy(tmpdir, "/tmp/scry-ctf-stream-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(idx, sizeof(idx), "%s/index", tmpdir);
	kd = t_dirh(tmpdir);
	id = t_dirh(idx);
	return kd && id ? 0 : -1;
}

static int teardown(void **state)
{
	scry_dirh_unref(kd);
	scry_dirh_unref(id);
	rm_rf(tmpdir);
	return 0;
}

static struct ctf_stream *open_stream(unsigned cpu, size_t packet_size, uint64_t start_ts)
{
	struct ctf_stream_opts o = {
		.kdir = kd, .idir = id, .channel = "channel0", .cpu = cpu, .uuid = t_uuid,
		.stream_id = 0, .stream_instance_id = cpu, .packet_size = packet_size,
		.start_ts = start_ts,
	};
	char err[256] = "";
	struct ctf_stream *s = ctf_stream_open(&o, err, sizeof(err));

	if (!s)
		fail_msg("ctf_stream_open: %s", err);
	return s;
}

static void append_ret(struct ctf_stream *s, uint64_t ts, int64_t ret)
{
	struct ebuf e;

	eb_start(&e, T_OPENAT_EXIT, ts, 0, 0, "");
	eb_u64(&e, (uint64_t)ret);
	assert_int_equal(e.n, EV_LEN);
	assert_int_equal(ctf_stream_append(s, e.b, e.n), 0);
}

/* Parse the stream file of cpu (EV_LEN-byte events); checks every invariant of each
 * packet and event; returns the packet count (up to max) in p[]. */
static size_t read_packets(unsigned cpu, struct pkt *p, size_t max, uint64_t *ts_out, size_t *nts)
{
	char path[128];
	size_t len = 0, off = 0, n = 0;
	uint8_t *buf;

	*nts = 0;
	snprintf(path, sizeof(path), "%s/channel0_%u", tmpdir, cpu);
	buf = slurp(path, &len);
	assert_non_null(buf);
	while (off < len) {
		const uint8_t *b = buf + off;

		assert_true(n < max);
		assert_true(len - off >= HDR);
		assert_int_equal(rd_le(b, 4), 0xC1FC1FC1);
		assert_memory_equal(b + 4, t_uuid, 16);
		p[n].off = off;
		p[n].stream_id = (uint32_t)rd_le(b + 20, 4);
		p[n].instance = rd_le(b + 24, 8);
		p[n].ts_begin = rd_le(b + 32, 8);
		p[n].ts_end = rd_le(b + 40, 8);
		p[n].content = rd_le(b + 48, 8);
		p[n].size = rd_le(b + 56, 8);
		p[n].seq = rd_le(b + 64, 8);
		p[n].discarded = rd_le(b + 72, 8);
		p[n].cpu = (uint32_t)rd_le(b + 80, 4);
		assert_int_equal(p[n].content, p[n].size);
		assert_true(p[n].size % 8 == 0 && p[n].size / 8 >= HDR);
		assert_true(off + p[n].size / 8 <= len);
		assert_true((p[n].size / 8 - HDR) % EV_LEN == 0);
		assert_true(p[n].ts_begin <= p[n].ts_end);
		p[n].nevents = (unsigned)((p[n].size / 8 - HDR) / EV_LEN);
		for (unsigned i = 0; i < p[n].nevents; i++) {
			const uint8_t *e = b + HDR + i * EV_LEN;
			uint64_t ts = rd_le(e + 2, 8);

			assert_int_equal(rd_le(e, 2), T_OPENAT_EXIT);
			assert_true(ts >= p[n].ts_begin && ts <= p[n].ts_end);
			ts_out[(*nts)++] = ts;
			if (i == 0)
				p[n].first_ret = rd_le(e + 10, 8);
			p[n].last_ret = rd_le(e + 10, 8);
		}
		if (n > 0) {
			assert_int_equal(p[n].ts_begin, p[n - 1].ts_end);
			assert_true(p[n].discarded >= p[n - 1].discarded);
		}
		assert_int_equal(p[n].seq, n);
		off += p[n].size / 8;
		n++;
	}
	assert_int_equal(off, len);
	free(buf);
	return n;
}

/* The index file matches the packets exactly. */
static void check_index(unsigned cpu, const struct pkt *p, size_t n)
{
	char path[128];
	size_t len = 0;
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/index/channel0_%u.idx", tmpdir, cpu);
	buf = slurp(path, &len);
	assert_non_null(buf);
	assert_int_equal(len, 16 + 72 * n);
	assert_int_equal(rd_be(buf, 4), 0xC1F1DCC1);
	assert_int_equal(rd_be(buf + 4, 4), 1);
	assert_int_equal(rd_be(buf + 8, 4), 1);
	assert_int_equal(rd_be(buf + 12, 4), 72);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = buf + 16 + 72 * i;

		assert_int_equal(rd_be(e, 8), p[i].off);
		assert_int_equal(rd_be(e + 8, 8), p[i].size);
		assert_int_equal(rd_be(e + 16, 8), p[i].content);
		assert_int_equal(rd_be(e + 24, 8), p[i].ts_begin);
		assert_int_equal(rd_be(e + 32, 8), p[i].ts_end);
		assert_int_equal(rd_be(e + 40, 8), p[i].discarded);
		assert_int_equal(rd_be(e + 48, 8), p[i].stream_id);
		assert_int_equal(rd_be(e + 56, 8), p[i].instance);
		assert_int_equal(rd_be(e + 64, 8), p[i].seq);
	}
	free(buf);
}

/* An event older than the current packet's last goes to its place, with its own time. */
static void test_reorder_in_packet(void **state)
{
	struct ctf_stream *s = open_stream(2, HDR + 8 * EV_LEN, 0);
	const uint64_t in[6] = { 100, 300, 200, 400, 150, 400 };
	struct pkt p[4];
	uint64_t ts[16];
	size_t n, nts;

	for (int i = 0; i < 6; i++)
		append_ret(s, in[i], i);
	assert_int_equal(ctf_stream_stats(s)->reordered, 2);
	assert_int_equal(ctf_stream_stats(s)->clamped, 0);
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);
	n = read_packets(2, p, 4, ts, &nts);
	assert_int_equal(n, 1);
	assert_int_equal(nts, 6);
	const uint64_t want[6] = { 100, 150, 200, 300, 400, 400 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(ts[i], want[i]);
	assert_int_equal(p[0].first_ret, 0);
	assert_int_equal(p[0].ts_begin, 0);
	assert_int_equal(p[0].ts_end, 400);
}

static void test_packets_index_discarded_clamp(void **state)
{
	struct ctf_stream *s = open_stream(1, HDR + 5 * EV_LEN, 500);
	const struct ctf_stream_stats *st;
	struct pkt p[16];
	uint64_t ts[64];
	size_t n, nts;

	for (int i = 0; i < 23; i++) {
		append_ret(s, i == 7 ? 5 : 1000 + 10 * (uint64_t)i, i);
		if (i == 12)
			ctf_stream_set_discarded(s, 3);
		if (i == 13)
			ctf_stream_set_discarded(s, 2);      /* never decreases */
		if (i == 20)
			ctf_stream_set_discarded(s, 10);
	}
	st = ctf_stream_stats(s);
	assert_int_equal(st->events, 23);
	assert_int_equal(st->packets, 4);
	assert_int_equal(st->clamped, 1);
	assert_int_equal(st->reordered, 1);
	assert_int_equal(st->bytes, 4 * (HDR + 5 * EV_LEN));
	assert_int_equal(ctf_stream_close(s, 99999, NULL), 0);

	n = read_packets(1, p, 16, ts, &nts);
	assert_int_equal(n, 5);
	assert_int_equal(nts, 23);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].stream_id, 0);
		assert_int_equal(p[i].instance, 1);
		assert_int_equal(p[i].cpu, 1);
		assert_int_equal(p[i].nevents, i < 4 ? 5 : 3);
		/* event 7 moved to the front of its packet (see below) */
		assert_int_equal(p[i].first_ret, i == 1 ? 7 : 5 * i);
	}
	assert_int_equal(p[0].ts_begin, 500);
	assert_int_equal(p[0].ts_end, 1040);
	assert_int_equal(p[1].ts_begin, 1040);
	assert_int_equal(p[1].ts_end, 1090);
	assert_int_equal(p[4].ts_end, 99999);          /* close's end_ts is later */
	assert_int_equal(p[0].discarded, 0);
	assert_int_equal(p[1].discarded, 0);
	assert_int_equal(p[2].discarded, 3);
	assert_int_equal(p[3].discarded, 3);
	assert_int_equal(p[4].discarded, 10);
	/* event 7 (timestamp 5) is older than the packet already written (which ends at
	 * 1040): raised to 1040, and placed before events 5 and 6 of its own packet */
	assert_int_equal(ts[5], 1040);
	assert_int_equal(ts[6], 1050);
	for (size_t i = 1; i < nts; i++)
		assert_true(ts[i] >= ts[i - 1]);
	check_index(1, p, n);
}

static void test_first_packet_begin_not_after_first_event(void **state)
{
	struct ctf_stream *s = open_stream(0, 4096, 5000);
	struct pkt p[4];
	uint64_t ts[8];
	size_t nts;

	append_ret(s, 1000, 1);
	append_ret(s, 1200, 2);
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);     /* end_ts earlier: ignored */
	assert_int_equal(read_packets(0, p, 4, ts, &nts), 1);
	assert_int_equal(p[0].ts_begin, 1000);
	assert_int_equal(p[0].ts_end, 1200);
	check_index(0, p, 1);
}

/* Losses before the first packet: an empty packet with 0 comes first, so readers see
 * the increase (an exact count) instead of "may have discarded". */
static void test_empty_stream_gets_a_packet(void **state)
{
	struct ctf_stream *s = open_stream(3, 4096, 500);
	struct pkt p[4];
	uint64_t ts[4];
	size_t nts;

	ctf_stream_set_discarded(s, 7);
	assert_int_equal(ctf_stream_flush(s), 0);          /* nothing to flush */
	assert_int_equal(ctf_stream_stats(s)->packets, 0);
	assert_int_equal(ctf_stream_close(s, 800, NULL), 0);
	assert_int_equal(read_packets(3, p, 4, ts, &nts), 2);
	assert_int_equal(nts, 0);
	assert_int_equal(p[0].size, HDR * 8);
	assert_int_equal(p[0].ts_begin, 500);
	assert_int_equal(p[0].ts_end, 500);
	assert_int_equal(p[0].discarded, 0);
	assert_int_equal(p[1].size, HDR * 8);
	assert_int_equal(p[1].ts_begin, 500);
	assert_int_equal(p[1].ts_end, 800);
	assert_int_equal(p[1].discarded, 7);
	assert_int_equal(p[1].instance, 3);
	check_index(3, p, 2);

	/* Never a loss: a single empty packet. */
	s = open_stream(9, 4096, 500);
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);
	assert_int_equal(read_packets(9, p, 4, ts, &nts), 1);
	assert_int_equal(p[0].discarded, 0);
	assert_int_equal(p[0].ts_end, 500);
	check_index(9, p, 1);

	/* Losses before the first event, and a start later than that event. */
	s = open_stream(10, 4096, 5000);
	ctf_stream_set_discarded(s, 2);
	append_ret(s, 1000, 1);
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);
	assert_int_equal(read_packets(10, p, 4, ts, &nts), 2);
	assert_int_equal(p[0].nevents, 0);
	assert_int_equal(p[0].ts_begin, 1000);
	assert_int_equal(p[0].ts_end, 1000);
	assert_int_equal(p[1].nevents, 1);
	assert_int_equal(p[1].ts_begin, 1000);
	assert_int_equal(p[1].discarded, 2);
	check_index(10, p, 2);
}

static void test_flush_and_close_rules(void **state)
{
	struct ctf_stream *s = open_stream(4, 4096, 100);
	struct pkt p[8];
	uint64_t ts[8];
	size_t nts;

	append_ret(s, 200, 1);
	append_ret(s, 300, 2);
	assert_int_equal(ctf_stream_flush(s), 0);
	assert_int_equal(ctf_stream_stats(s)->packets, 1);
	assert_int_equal(ctf_stream_stats(s)->bytes, HDR + 2 * EV_LEN);
	assert_int_equal(ctf_stream_flush(s), 0);          /* empty: no packet */
	assert_int_equal(ctf_stream_stats(s)->packets, 1);
	append_ret(s, 400, 3);
	assert_int_equal(ctf_stream_flush(s), 0);
	ctf_stream_set_discarded(s, 4);
	/* Nothing pending but a new discarded count: close carries it in an empty packet. */
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);
	assert_int_equal(read_packets(4, p, 8, ts, &nts), 3);
	assert_int_equal(p[0].ts_begin, 100);
	assert_int_equal(p[0].ts_end, 300);
	assert_int_equal(p[1].ts_begin, 300);
	assert_int_equal(p[1].ts_end, 400);
	assert_int_equal(p[2].nevents, 0);
	assert_int_equal(p[2].ts_begin, 400);
	assert_int_equal(p[2].ts_end, 400);
	assert_int_equal(p[2].discarded, 4);
	check_index(4, p, 3);

	/* Nothing new at close: no extra packet. */
	s = open_stream(5, 4096, 100);
	append_ret(s, 200, 1);
	assert_int_equal(ctf_stream_flush(s), 0);
	assert_int_equal(ctf_stream_close(s, 150, NULL), 0);
	assert_int_equal(read_packets(5, p, 8, ts, &nts), 1);
	check_index(5, p, 1);
}

static void test_refusals(void **state)
{
	struct ctf_stream_opts o = {
		.kdir = kd, .idir = id, .channel = "channel0", .cpu = 6, .uuid = t_uuid,
		.stream_instance_id = 6, .packet_size = 50, .start_ts = 0,
	};
	char err[256] = "", path[128];
	uint8_t big[200] = { 0 };
	struct ctf_stream *s;
	FILE *f;

	assert_null(ctf_stream_open(&o, err, sizeof(err)));   /* packet too small */
	assert_non_null(strstr(err, "packet size"));
	o.packet_size = 120;
	o.channel = "a/b";
	assert_null(ctf_stream_open(&o, err, sizeof(err)));
	o.channel = "channel0";
	s = ctf_stream_open(&o, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(ctf_stream_append(s, big, 9), -EINVAL);
	assert_int_equal(ctf_stream_append(s, big, 120 - HDR + 1), -E2BIG);
	assert_int_equal(ctf_stream_append(s, big, 120 - HDR), 0);   /* exactly fills */
	assert_int_equal(ctf_stream_append(s, big, 120 - HDR), 0);
	assert_int_equal(ctf_stream_stats(s)->packets, 1);
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);

	/* The files exist now: a second open is refused, nothing is overwritten. */
	err[0] = 0;
	assert_null(ctf_stream_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "channel0_6"));
	assert_non_null(strstr(err, "File exists"));

	/* Data file free but index present: refused, and the data file is not left behind. */
	snprintf(path, sizeof(path), "%s/index/channel0_7.idx", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	o.cpu = 7;
	assert_null(ctf_stream_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "channel0_7.idx"));
	snprintf(path, sizeof(path), "%s/channel0_7", tmpdir);
	assert_int_equal(access(path, F_OK), -1);

	/* No directory. */
	o.kdir = NULL;
	assert_null(ctf_stream_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "missing directory"));

	/* A symlink where the stream file goes is not followed: refused, its target untouched. */
	snprintf(path, sizeof(path), "%s/channel0_9", tmpdir);
	assert_int_equal(symlink("/nonexistent-scry-target", path), 0);
	o.kdir = kd;
	o.cpu = 9;
	assert_null(ctf_stream_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "channel0_9"));
	assert_int_equal(access("/nonexistent-scry-target", F_OK), -1);
}

/* Many packets with events of varying sizes: every byte comes back in order. */
static void test_bytes_preserved(void **state)
{
	struct ctf_stream *s = open_stream(8, 1000, 0);
	uint8_t *all = malloc(1 << 20), *buf;
	size_t total = 0, len = 0, off = 0, got = 0;
	char path[128];
	struct ebuf e;

	assert_non_null(all);
	for (int i = 0; i < 2000; i++) {
		size_t extra = (size_t)(i * 37) % 300;

		eb_start(&e, T_SMALL, 10 + (uint64_t)i, 0, 0, "");
		for (size_t k = 0; k < extra; k++)
			eb_u8(&e, (uint8_t)(i + k));
		memcpy(all + total, e.b, e.n);
		total += e.n;
		assert_int_equal(ctf_stream_append(s, e.b, e.n), 0);
	}
	assert_int_equal(ctf_stream_close(s, 0, NULL), 0);
	snprintf(path, sizeof(path), "%s/channel0_8", tmpdir);
	buf = slurp(path, &len);
	assert_non_null(buf);
	while (off < len) {
		size_t psize = rd_le(buf + off + 56, 8) / 8;

		assert_true(psize <= 1000);
		assert_memory_equal(buf + off + HDR, all + got, psize - HDR);
		got += psize - HDR;
		off += psize;
	}
	assert_int_equal(got, total);
	free(buf);
	free(all);
}

/* One run of a mixed workload (packets of 8 KiB filled, discards, a reordered event, timer
 * flushes) into cpu 10's stream, written by w or (w NULL) here; the stream and index bytes. */
static void mixed_run(struct ctf_writer *w, uint8_t **data, size_t *dlen, uint8_t **idx, size_t *ilen,
		      struct ctf_stream_stats *fin)
{
	struct ctf_stream_opts o = {
		.kdir = kd, .idir = id, .channel = "channel0", .cpu = 10, .uuid = t_uuid,
		.stream_instance_id = 10, .packet_size = 8192, .start_ts = 5,
		.writer = w, .writer_queue = 1 << 20,
	};
	char err[256] = "", path[128];
	struct ctf_stream *s = ctf_stream_open(&o, err, sizeof(err));

	if (!s)
		fail_msg("ctf_stream_open: %s", err);
	for (int i = 0; i < 5000; i++) {
		append_ret(s, 1000 + 10 * (uint64_t)i - (i % 97 == 3 ? 15 : 0), i);
		if (i == 40)
			ctf_stream_set_discarded(s, 7);
		if (i % 1111 == 0)
			assert_int_equal(ctf_stream_flush(s), 0);
	}
	assert_true(ctf_stream_room(s, 0));
	ctf_stream_set_discarded(s, 9);
	assert_int_equal(ctf_stream_close(s, 99999, fin), 0);
	snprintf(path, sizeof(path), "%s/channel0_10", tmpdir);
	assert_non_null(*data = slurp(path, dlen));
	unlink(path);
	snprintf(path, sizeof(path), "%s/index/channel0_10.idx", tmpdir);
	assert_non_null(*idx = slurp(path, ilen));
	unlink(path);
}

/* The writer thread writes exactly the bytes the stream writes by itself. */
static void test_writer_same_bytes(void **state)
{
	char err[256];
	struct ctf_writer *w = ctf_writer_new(err, sizeof(err));
	struct ctf_stream_stats f1, f2;
	uint8_t *d1, *d2, *i1, *i2;
	size_t dl1, dl2, il1, il2;

	assert_non_null(w);
	mixed_run(NULL, &d1, &dl1, &i1, &il1, &f1);
	mixed_run(w, &d2, &dl2, &i2, &il2, &f2);
	ctf_writer_free(w);
	assert_true(dl1 > 10 * 8192);
	assert_int_equal(dl1, dl2);
	assert_memory_equal(d1, d2, dl1);
	assert_int_equal(il1, il2);
	assert_memory_equal(i1, i2, il1);
	assert_int_equal(f1.events, 5000);
	assert_int_equal(f2.events, 5000);
	assert_int_equal(f2.bytes, dl2);
	assert_int_equal(f2.packets, f1.packets);
	assert_int_equal(f2.lost, 0);
	assert_int_equal(f2.error, 0);
	free(d1);
	free(d2);
	free(i1);
	free(i2);
}

/* A write that fails in the writer thread (the file size limit: EFBIG, as a full disk
 * would): the file ends at its last complete packet, the index lists exactly those, and
 * every event appended is either in the file or counted lost. */
static void test_writer_failure(void **state)
{
	struct rlimit old, lim = { 10 * 8192 + 4000, RLIM_INFINITY };
	char err[256];
	struct ctf_writer *w = ctf_writer_new(err, sizeof(err));
	struct ctf_stream_opts o = {
		.kdir = kd, .idir = id, .channel = "channel0", .cpu = 3, .uuid = t_uuid,
		.stream_instance_id = 3, .packet_size = 8192, .writer = w, .writer_queue = 1 << 20,
	};
	struct ctf_stream *s;
	struct ctf_stream_stats fin;
	struct pkt p[64];
	uint64_t ts[8192];
	size_t n, nts;
	int appended = 0, r = 0;

	assert_non_null(w);
	assert_non_null(s = ctf_stream_open(&o, err, sizeof(err)));
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 8000 && r == 0; i++) {
		struct ebuf e;

		eb_start(&e, T_OPENAT_EXIT, 100 + (uint64_t)i, 0, 0, "");
		eb_u64(&e, (uint64_t)i);
		r = ctf_stream_append(s, e.b, e.n);
		appended++;
		if (i % 500 == 0)
			usleep(2000);        /* the writer's error reaches the appends */
	}
	ctf_stream_close(s, 0, &fin);
	setrlimit(RLIMIT_FSIZE, &old);
	ctf_writer_free(w);
	assert_int_equal(fin.error, -EFBIG);
	n = read_packets(3, p, 64, ts, &nts);
	assert_int_equal(n, 10);                  /* whole packets only */
	check_index(3, p, n);
	assert_int_equal(fin.events, nts);
	assert_int_equal(fin.events + fin.lost, (uint64_t)appended);
	assert_int_equal(fin.bytes, 10 * 8192 - 10 * ((8192 - HDR) % EV_LEN));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_packets_index_discarded_clamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reorder_in_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_packet_begin_not_after_first_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_stream_gets_a_packet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_and_close_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytes_preserved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_same_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_failure, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
