/* test_format_io.c — strace-style printing of the captures that follow user pointers
 * (src/format/iov.c, select.c, dirent.c): iovec arrays with their bytes (writev, readv cut
 * by the return value, failed calls, -s cuts), message headers (sendmsg, recvmsg's
 * "128 => 16", failed calls), fd sets and select's return column, getdents64's entries,
 * and which in-out arguments print on entry.  Payloads are built in the layout the BPF
 * side writes (docs/FORMAT.md); expected strings are strace 6.1's for the same values. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "catalog/argspec.h"
#include "format/format.h"

#include "fmt_test_util.h"

static const struct scry_fmt_opts s5 = { .strsize = 5 };

/* A payload being built. */
struct blob {
	uint8_t b[4096];
	size_t n;
};

static void put(struct blob *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put64(struct blob *x, uint64_t v)
{
	put(x, &v, 8);
}

static void put32(struct blob *x, uint32_t v)
{
	put(x, &v, 4);
}

/* One iovec as IOV writes it: base, len, then dn bytes of data. */
static void iov(struct blob *x, uint64_t base, uint64_t len, const char *data, uint32_t dn)
{
	put64(x, base);
	put64(x, len);
	put32(x, dn);
	put(x, data, dn);
}

/* One iovec without data (the plain vector, no --snaplen). */
static void iov_bare(struct blob *x, uint64_t base, uint64_t len)
{
	put64(x, base);
	put64(x, len);
}


/* A capture: n elements in the blob; ptr known (read on exit: the entry had it) or not. */
static struct scry_argval cap(const struct blob *x, uint32_t n, uint64_t ptr, bool ptr_known)
{
	struct scry_argval a = val(ptr);

	a.have_ptr = ptr_known;
	a.p = x->b;
	a.len = (uint32_t)x->n;
	a.n = n;
	return a;
}

static const struct scry_argspec *parse(const char *spec, const char *const *names, unsigned n, unsigned i)
{
	static struct scry_argspec pool[16][SCRY_MAX_ARGS];
	static unsigned next;
	struct scry_argspec *out = pool[next++ % 16];
	char err[128];

	if (scry_argspec_parse(spec, names, n, out, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	return &out[i];
}

static const char *const rw_names[] = { "fd", "vec", "vlen" };

/* ---------------------------------------------------------------- iovec arrays */

static void test_writev(void **state)
{
	const struct scry_argspec *s = parse("fd, iiovec(vlen), int", rw_names, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { val(1), { 0 }, val(2) };
	struct blob x = { .n = 0 };

	iov(&x, 0x1000, 6, "hello\n", 6);
	iov(&x, 0x2000, 1, "x", 1);
	all[1] = cap(&x, 2, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 7, true, &opts),
	       "[{iov_base=\"hello\\n\", iov_len=6}, {iov_base=\"x\", iov_len=1}]");
	/* cut at --snaplen (33 of 36 bytes) and at -s 32; the next one whole */
	x.n = 0;
	iov(&x, 0x1000, 36, "abcdefghijklmnopqrstuvwxyz0123456", 33);
	iov(&x, 0x2000, 4, "tail", 4);
	all[1] = cap(&x, 2, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 40, true, &opts),
	       "[{iov_base=\"abcdefghijklmnopqrstuvwxyz012345\"..., iov_len=36}, {iov_base=\"tail\", iov_len=4}]");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 40, true, &s5),
	       "[{iov_base=\"abcde\"..., iov_len=36}, {iov_base=\"tail\", iov_len=4}]");
	/* fewer bytes than iov_len but within -s: cut all the same; none read: the address */
	x.n = 0;
	iov(&x, 0x1000, 10, "abc", 3);
	iov(&x, 0x3000, 5, "", 0);
	iov(&x, 0x4000, 0, "", 0);
	all[1] = cap(&x, 3, 0, false);
	all[2] = val(3);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 15, true, &opts),
	       "[{iov_base=\"abc\"..., iov_len=10}, {iov_base=0x3000, iov_len=5}, {iov_base=\"\", iov_len=0}]");
	/* more iovecs than captured; more than -s */
	all[2] = val(4);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 15, true, &opts),
	       "[{iov_base=\"abc\"..., iov_len=10}, {iov_base=0x3000, iov_len=5}, {iov_base=\"\", iov_len=0}, ...]");
	x.n = 0;
	for (int i = 0; i < 7; i++)
		iov(&x, 0x5000, 1, "q", 1);
	all[1] = cap(&x, 7, 0, false);
	all[2] = val(7);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 7, true, &s5),
	       "[{iov_base=\"q\", iov_len=1}, {iov_base=\"q\", iov_len=1}, {iov_base=\"q\", iov_len=1}, "
	       "{iov_base=\"q\", iov_len=1}, {iov_base=\"q\", iov_len=1}, ...]");
	/* none: [] ; unreadable vector: its address (NULL: not known for an entry capture) */
	x.n = 0;
	all[1] = cap(&x, 0, 0, false);
	all[2] = val(0);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 0, true, &opts), "[]");
	all[2] = val(2);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EFAULT, true, &opts), "NULL");
	/* without --snaplen: the vector alone */
	iov_bare(&x, 0x1000, 2);
	iov_bare(&x, 0x2000, 3);
	all[1] = cap(&x, 2, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 5, true, &opts),
	       "[{iov_base=0x1000, iov_len=2}, {iov_base=0x2000, iov_len=3}]");
}

static void test_readv(void **state)
{
	const struct scry_argspec *s = parse("fd, oiovec(vlen), int", rw_names, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { val(3), { 0 }, val(2) };
	struct blob x = { .n = 0 };

	/* readv(3, [{iov_base="hell", iov_len=4}, {iov_base="o\nx", iov_len=10}], 2) = 7 */
	iov(&x, 0x7ffd0001, 4, "hell", 4);
	iov(&x, 0x7ffd0002, 10, "o\nx", 3);
	all[1] = cap(&x, 2, 0x7ffd1000, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 7, true, &opts),
	       "[{iov_base=\"hell\", iov_len=4}, {iov_base=\"o\\nx\", iov_len=10}]");
	/* the bytes read filled the first one only */
	x.n = 0;
	iov(&x, 0x7ffd0001, 4, "hell", 4);
	iov(&x, 0x7ffd0002, 10, "", 0);
	all[1] = cap(&x, 2, 0x7ffd1000, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 4, true, &opts),
	       "[{iov_base=\"hell\", iov_len=4}, {iov_base=\"\", iov_len=10}]");
	/* failed: the vector with the buffers' addresses */
	x.n = 0;
	iov(&x, 0x7ffd0001, 4, "", 0);
	iov(&x, 0x7ffd0002, 10, "", 0);
	all[1] = cap(&x, 2, 0x7ffd1000, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EBADF, true, &opts),
	       "[{iov_base=0x7ffd0001, iov_len=4}, {iov_base=0x7ffd0002, iov_len=10}]");
	/* a NULL vector; an unreadable one */
	x.n = 0;
	all[1] = cap(&x, 0, 0, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EFAULT, true, &opts), "NULL");
	all[1] = cap(&x, 0, 0x8, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EFAULT, true, &opts), "0x8");
	/* preadv(5, [...], 1, 0): the high offset word is left out, as strace folds it */
	{
		static const char *const pn[] = { "fd", "vec", "vlen", "pos_l", "pos_h" };
		const struct scry_argspec *pv = parse("fd, oiovec(vlen), int, int, enum:pos_h", pn, 5, 0);
		struct scry_argval pa[SCRY_MAX_ARGS] = { val(5), val(0x7ffd1000), val(1), val(0), val(0) };

		EXPECT(scry_fmt_arg(&ob, &pv[3], &pa[3], pa, 7, true, &opts), "0");
		EXPECT(scry_fmt_arg(&ob, &pv[4], &pa[4], pa, 7, true, &opts), "");
	}
	/* printed when the call returns */
	assert_false(scry_fmt_at_entry(s));
	assert_true(scry_fmt_at_entry(parse("fd, iiovec(vlen), int", rw_names, 3, 1)));
}

/* ---------------------------------------------------------------- message headers */

/* The 56 bytes of a struct msghdr. */
static void msghdr(struct blob *x, uint64_t name, int32_t namelen, uint64_t iovp, uint64_t iovlen, uint64_t ctl,
		   uint64_t ctllen, uint32_t flags)
{
	put64(x, name);
	put32(x, (uint32_t)namelen);
	put32(x, 0);
	put64(x, iovp);
	put64(x, iovlen);
	put64(x, ctl);
	put64(x, ctllen);
	put32(x, flags);
	put32(x, 0);
}

static void inet_name(struct blob *x, uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	put32(x, sizeof(a));
	put(x, &a, sizeof(a));
}

#define INET(port) "{sa_family=AF_INET, sin_port=htons(" #port "), sin_addr=inet_addr(\"127.0.0.1\")}"

static void test_sendmsg(void **state)
{
	static const char *const names[] = { "fd", "msg", "flags" };
	const struct scry_argspec *s = parse("fd, imsghdr, flags:msg", names, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { val(3), { 0 }, val(MSG_NOSIGNAL) };
	struct blob x = { .n = 0 };

	msghdr(&x, 0x7ffd1000, 16, 0x7ffd2000, 1, 0, 0, 0);
	inet_name(&x, 80);
	put32(&x, 1);
	iov(&x, 0x5000, 3, "abc", 3);
	all[1] = cap(&x, 1, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 3, true, &opts),
	       "{msg_name=" INET(80) ", msg_namelen=16, msg_iov=[{iov_base=\"abc\", iov_len=3}], msg_iovlen=1, "
	       "msg_controllen=0, msg_flags=0}");
	/* the same when the call failed: sendmsg shows what it was given */
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EPIPE, true, &opts),
	       "{msg_name=" INET(80) ", msg_namelen=16, msg_iov=[{iov_base=\"abc\", iov_len=3}], msg_iovlen=1, "
	       "msg_controllen=0, msg_flags=0}");
	/* no address (a connected socket); two iovecs, the first cut at -s 5 */
	x.n = 0;
	msghdr(&x, 0, 0, 0x7ffd2000, 2, 0, 0, 0);
	put32(&x, 0);
	put32(&x, 2);
	iov(&x, 0x5000, 8, "abcdefgh", 8);
	iov(&x, 0x6000, 2, "yz", 2);
	all[1] = cap(&x, 1, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 10, true, &s5),
	       "{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"abcde\"..., iov_len=8}, "
	       "{iov_base=\"yz\", iov_len=2}], msg_iovlen=2, msg_controllen=0, msg_flags=0}");
	/* an address too short to hold a family; iovecs without data (no --snaplen); a NULL
	 * iovec array; control data (shown as its address) */
	x.n = 0;
	msghdr(&x, 0x7ffd1000, 1, 0x7ffd2000, 1, 0x7ffd3000, 24, 0);
	put32(&x, 1);
	put(&x, "\x02", 1);
	put32(&x, 1);
	iov_bare(&x, 0x5000, 3);
	all[1] = cap(&x, 1, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 3, true, &opts),
	       "{msg_name=0x7ffd1000, msg_namelen=1, msg_iov=[{iov_base=0x5000, iov_len=3}], msg_iovlen=1, "
	       "msg_control=0x7ffd3000, msg_controllen=24, msg_flags=0}");
	x.n = 0;
	msghdr(&x, 0, 0, 0, 0, 0, 0, 0);
	put32(&x, 0);
	put32(&x, 0);
	all[1] = cap(&x, 1, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 0, true, &opts),
	       "{msg_name=NULL, msg_namelen=0, msg_iov=NULL, msg_iovlen=0, msg_controllen=0, msg_flags=0}");
	/* unreadable (or NULL) header */
	x.n = 0;
	all[1] = cap(&x, 0, 0, false);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EFAULT, true, &opts), "NULL");
}

static void test_recvmsg(void **state)
{
	static const char *const names[] = { "fd", "msg", "flags" };
	const struct scry_argspec *s = parse("fd, iomsghdr, flags:msg", names, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { val(5), { 0 }, val(0) };
	struct scry_argval in;
	struct blob e = { .n = 0 }, x = { .n = 0 };

	/* on entry the header alone (msg_namelen 128), on exit the kernel's */
	msghdr(&e, 0x7ffd1000, 128, 0x7ffd2000, 2, 0x7ffd3000, 64, 0);
	in = cap(&e, 1, 0, false);
	msghdr(&x, 0x7ffd1000, 16, 0x7ffd2000, 2, 0x7ffd3000, 32, MSG_TRUNC);
	inet_name(&x, 9999);
	put32(&x, 2);
	iov(&x, 0x7ffd4000, 16, "abcdefghijklmnop", 16);
	iov(&x, 0x7ffd5000, 100, "qrstuvwxyz0123456789tail", 24);
	all[1] = cap(&x, 1, 0x7ffd0100, true);
	all[1].entry = &in;
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 40, true, &opts),
	       "{msg_name=" INET(9999) ", msg_namelen=128 => 16, msg_iov=[{iov_base=\"abcdefghijklmnop\", "
	       "iov_len=16}, {iov_base=\"qrstuvwxyz0123456789tail\", iov_len=100}], msg_iovlen=2, "
	       "msg_control=0x7ffd3000, msg_controllen=32, msg_flags=MSG_TRUNC}");
	/* 20 bytes received: the second iovec got 4 of them */
	x.n = 0;
	msghdr(&x, 0x7ffd1000, 16, 0x7ffd2000, 2, 0x7ffd3000, 0, 0);
	inet_name(&x, 9999);
	put32(&x, 2);
	iov(&x, 0x7ffd4000, 16, "abcdefghijklmnop", 16);
	iov(&x, 0x7ffd5000, 100, "qrst", 4);
	all[1] = cap(&x, 1, 0x7ffd0100, true);
	all[1].entry = &in;
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 20, true, &opts),
	       "{msg_name=" INET(9999) ", msg_namelen=128 => 16, msg_iov=[{iov_base=\"abcdefghijklmnop\", "
	       "iov_len=16}, {iov_base=\"qrst\", iov_len=100}], msg_iovlen=2, msg_controllen=0, msg_flags=0}");
	/* failed: the length passed; without an entry capture, the pointer */
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EAGAIN, true, &opts), "{msg_namelen=128}");
	all[1].entry = NULL;
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EAGAIN, true, &opts), "0x7ffd0100");
	/* same length both ways: shown once */
	x.n = 0;
	msghdr(&x, 0, 0, 0x7ffd2000, 1, 0, 0, 0);
	put32(&x, 0);
	put32(&x, 1);
	iov(&x, 0x7ffd4000, 16, "abc", 3);
	e.n = 0;
	msghdr(&e, 0, 0, 0x7ffd2000, 1, 0, 0, 0);
	all[1] = cap(&x, 1, 0x7ffd0100, true);
	all[1].entry = &in;
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 3, true, &opts),
	       "{msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base=\"abc\", iov_len=16}], msg_iovlen=1, "
	       "msg_controllen=0, msg_flags=0}");
	/* an unfinished call: the entry's header, its pointers as they are */
	e.n = 0;
	msghdr(&e, 0x7ffd1000, 128, 0x7ffd2000, 2, 0x7ffd3000, 64, 0);
	EXPECT(scry_fmt_arg(&ob, s, &in, all, 0, false, &opts),
	       "{msg_name=0x7ffd1000, msg_namelen=128, msg_iov=0x7ffd2000, msg_iovlen=2, msg_control=0x7ffd3000, "
	       "msg_controllen=64, msg_flags=0}");
	assert_false(scry_fmt_at_entry(s));
}

/* ---------------------------------------------------------------- fd sets */

static const char *pipe_path(void *ctx, int pid, int fd)
{
	return fd == 3 ? "pipe:[42]" : NULL;
}

static void test_fdsets(void **state)
{
	static const char *const names[] = { "n", "inp", "outp", "exp", "tvp" };
	const char *spec = "int, iofdset(n), iofdset(n), iofdset(n), iostruct:timeval";
	const struct scry_argspec *in = parse(spec, names, 5, 1), *out = in + 1, *ex = in + 2;
	const struct scry_fmt_opts yopts = { .strsize = 32, .fd_path = pipe_path };
	struct scry_argval all[SCRY_MAX_ARGS] = { val(4) };
	struct blob a = { .n = 0 }, b = { .n = 0 }, c = { .n = 0 }, big = { .n = 0 };

	put64(&a, 0x9);
	put64(&b, 0);
	all[1] = cap(&a, 1, 0, false);
	all[2] = cap(&b, 1, 0, false);
	all[3] = cap(&c, 0, 0, false);
	/* select(4, [0 3], [], NULL, ...) */
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &opts), "[0 3]");
	EXPECT(scry_fmt_arg(&ob, out, &all[2], all, 0, false, &opts), "[]");
	EXPECT(scry_fmt_arg(&ob, ex, &all[3], all, 0, false, &opts), "NULL");
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &yopts), "[0 3<pipe:[42]>]");
	/* bits at nfds and above are not shown */
	all[0] = val(3);
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &opts), "[0]");
	/* nothing to read (nfds <= 0): the pointer */
	all[0] = val(0);
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &opts), "NULL");
	all[0] = val((uint64_t)-1);
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &opts), "NULL");
	/* select(101, [70 100], ...) */
	put64(&big, 0);
	put64(&big, (1ULL << 6) | (1ULL << 36));
	all[0] = val(101);
	all[1] = cap(&big, 2, 0, false);
	EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 0, false, &opts), "[70 100]");
	/* at exit the argument shows what was passed (the entry value) */
	{
		struct scry_argval entry = cap(&a, 1, 0, false);

		all[0] = val(4);
		all[1] = cap(&b, 1, 0, false);
		all[1].entry = &entry;
		EXPECT(scry_fmt_arg(&ob, in, &all[1], all, 1, true, &opts), "[0 3]");
		EXPECT(scry_fmt_arg(&ob, in, &all[1], all, -EINTR, true, &opts), "[0 3]");
	}
	assert_true(scry_fmt_at_entry(in));
	assert_true(scry_fmt_at_entry(in + 3));   /* the timeout, too */
}

static void test_select_ret(void **state)
{
	struct scry_argval all[SCRY_MAX_ARGS] = { val(5) };
	struct blob r = { .n = 0 }, w = { .n = 0 }, z = { .n = 0 }, tv = { .n = 0 }, ts = { .n = 0 };

#define RC(name, ret, str) EXPECT(scry_fmt_ret_call(&ob, name, (ret), NULL, all, 6, &opts), str)
	put64(&r, 0x9);
	put64(&w, 0x10);
	put64(&z, 0);
	put64(&tv, 0);
	put64(&tv, 999996);
	all[1] = cap(&r, 1, 0, false);
	all[2] = cap(&z, 0, 0, false);      /* NULL */
	all[3] = cap(&z, 0, 0, false);
	all[4] = cap(&tv, 1, 0, false);
	RC("select", 2, "= 2 (in [0 3], left {tv_sec=0, tv_usec=999996})");
	all[2] = cap(&w, 1, 0, false);
	RC("select", 3, "= 3 (in [0 3], out [4], left {tv_sec=0, tv_usec=999996})");
	all[4] = cap(&z, 0, 0, false);      /* no timeout */
	RC("select", 1, "= 1 (in [0])");
	all[1] = cap(&z, 1, 0, false);
	all[3] = cap(&r, 1, 0, false);
	RC("select", 2, "= 2 (out [4], except [0])");
	/* strace's quirk: the in and except sets were the same fd_set, so the kernel's
	 * empty except result overwrote the readable 3: a set read after the first output
	 * while ready descriptors are still missing gets a ']' of its own */
	all[3] = cap(&z, 1, 0, false);
	RC("select", 2, "= 2 (out [4]])");
	RC("select", 0, "= 0 (Timeout)");
	RC("select", -EBADF, "= -1 EBADF (Bad file descriptor)");
	put64(&ts, 0);
	put64(&ts, 999996284);
	all[1] = cap(&r, 1, 0, false);
	all[2] = cap(&z, 0, 0, false);
	all[3] = cap(&z, 0, 0, false);
	all[4] = cap(&ts, 1, 0, false);
	all[0] = val(4);
	RC("pselect6", 2, "= 2 (in [0 3], left {tv_sec=0, tv_nsec=999996284})");
#undef RC
}

/* ---------------------------------------------------------------- directory entries */

static void dent(struct blob *x, uint64_t ino, uint64_t off, uint16_t reclen, uint8_t type, const char *name)
{
	put64(x, ino);
	put64(x, off);
	put(x, &reclen, 2);
	put(x, &type, 1);
	put(x, name, strlen(name) + 1);
}

/* The records counted, and how many of them follow. */
static void dents_head(struct blob *x, uint32_t total, uint32_t copied)
{
	x->n = 0;
	put32(x, total);
	put32(x, copied);
}

static void test_dirents(void **state)
{
	static const char *const names[] = { "fd", "dirent", "count" };
	const struct scry_argspec *s = parse("fd, odirents(ret), uint", names, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { val(3), { 0 }, val(32768) };
	struct blob x;

	/* the entries of strace's getdents64 of a directory holding alpha, beta, sub/ */
	dents_head(&x, 5, 5);
	dent(&x, 10978800, 2232908316014189079ULL, 24, 8, "beta");
	dent(&x, 10978798, 4932282213650219811ULL, 24, 4, ".");
	dent(&x, 10978799, 6110503228574032292ULL, 32, 8, "alpha");
	dent(&x, 10978801, 6357504699377170974ULL, 24, 4, "sub");
	dent(&x, 10978795, 9223372036854775807ULL, 24, 4, "..");
	all[1] = cap(&x, 1, 0x7ffcf9c7a760, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 128, true, &opts), "0x7ffcf9c7a760 /* 5 entries */");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 128, true, &vopts),
	       "[{d_ino=10978800, d_off=2232908316014189079, d_reclen=24, d_type=DT_REG, d_name=\"beta\"}, "
	       "{d_ino=10978798, d_off=4932282213650219811, d_reclen=24, d_type=DT_DIR, d_name=\".\"}, "
	       "{d_ino=10978799, d_off=6110503228574032292, d_reclen=32, d_type=DT_REG, d_name=\"alpha\"}, "
	       "{d_ino=10978801, d_off=6357504699377170974, d_reclen=24, d_type=DT_DIR, d_name=\"sub\"}, "
	       "{d_ino=10978795, d_off=9223372036854775807, d_reclen=24, d_type=DT_DIR, d_name=\"..\"}]");
	/* more records than copied (beyond the first 8192 bytes): counted all the same */
	dents_head(&x, 974, 1);
	dent(&x, 7, 1, 24, 3, "a\tb");
	all[1] = cap(&x, 1, 0x7ffcf9c7a760, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 32752, true, &opts), "0x7ffcf9c7a760 /* 974 entries */");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 32752, true, &vopts),
	       "[{d_ino=7, d_off=1, d_reclen=24, d_type=0x3 /* DT_??? */, d_name=\"a\\tb\"}, ...]");
	/* end of directory */
	dents_head(&x, 0, 0);
	all[1] = cap(&x, 1, 0x7ffcf9c7a760, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 0, true, &opts), "0x7ffcf9c7a760 /* 0 entries */");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 0, true, &vopts), "[]");
	/* bytes returned but nothing readable */
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 48, true, &opts), "0x7ffcf9c7a760 /* 0+ entries */");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 48, true, &vopts), "0x7ffcf9c7a760");
	/* failed: no capture */
	x.n = 0;
	all[1] = cap(&x, 0, 0x7ffcf9c7a760, true);
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, -EBADF, true, &vopts), "0x7ffcf9c7a760");
	EXPECT(scry_fmt_arg(&ob, s, &all[1], all, 0, true, &vopts), "0x7ffcf9c7a760");
}

/* ---------------------------------------------------------------- which arguments print on entry */

static void test_at_entry(void **state)
{
	static const char *const pp[] = { "ufds", "nfds", "tsp", "sigmask", "sigsetsize" };
	static const char *const ac[] = { "fd", "upeer_sockaddr", "upeer_addrlen" };
	const struct scry_argspec *ppoll = parse("ioarray:pollfd(nfds), uint, iostruct:timespec, istruct:sigset, uint",
						 pp, 5, 0);
	const struct scry_argspec *acc = parse("fd, osockaddr(*upeer_addrlen), iostruct:int", ac, 3, 0);

	for (int i = 0; i < 5; i++)
		assert_true(scry_fmt_at_entry(&ppoll[i]));
	assert_true(scry_fmt_at_entry(&acc[0]));
	assert_false(scry_fmt_at_entry(&acc[1]));
	assert_false(scry_fmt_at_entry(&acc[2]));   /* [128 => 16]: at exit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writev),
		cmocka_unit_test(test_readv),
		cmocka_unit_test(test_sendmsg),
		cmocka_unit_test(test_recvmsg),
		cmocka_unit_test(test_fdsets),
		cmocka_unit_test(test_select_ret),
		cmocka_unit_test(test_dirents),
		cmocka_unit_test(test_at_entry),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
