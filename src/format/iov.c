/* iov.c — iovec arrays and message headers as strace prints them:
 *   writev(1, [{iov_base="hello\n", iov_len=6}, {iov_base="x", iov_len=1}], 2)
 *   sendmsg(3, {msg_name={sa_family=AF_INET, ...}, msg_namelen=16,
 *               msg_iov=[{iov_base="abc", iov_len=3}], msg_iovlen=1, msg_controllen=0,
 *               msg_flags=0}, MSG_NOSIGNAL)
 * Captured with their data (structs iovec_data, msghdr_data: --snaplen), the iovecs show
 * their bytes cut at -s; without, their addresses.  The bytes a call read (readv, recvmsg)
 * fill the iovecs in order, as many as it returned.  Which layout a capture has follows
 * from its size (16 bytes per iovec without data, 20 and the data with). */
#include <string.h>
#include "catalog/structs.h"
#include "format/format.h"
#include "format/fmt_internal.h"

#define MSGHDR_SIZE 56

struct iov_state {
	int64_t data_left;      /* bytes read by the call not yet placed; -1: iovecs whole */
	bool addrs;             /* iov_base as addresses (the call failed) */
};

/* The element type of n captured iovecs in len bytes. */
static const struct scry_struct_desc *iovec_type(uint32_t n, size_t len)
{
	return scry_struct_find(len == (size_t)n * 16 ? "iovec" : "iovec_data");
}

static void put_iovec(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
		      struct iov_state *st, const struct scry_fmt_opts *o)
{
	uint64_t base = fmt_get(p, 8), len = fmt_get(p + 8, 8), want = len;
	struct scry_tail_val data = { 0 };

	if (st->data_left >= 0) {          /* what the call placed in this one */
		if (want > (uint64_t)st->data_left)
			want = (uint64_t)st->data_left;
		st->data_left -= (int64_t)want;
	}
	OB_LIT(ob, "{iov_base=");
	if (!d->ntails || st->addrs || !scry_struct_span(d, p, avail, &data) || (!data.n && want))
		fmt_ptr(ob, base);         /* no data captured, or unreadable */
	else
		scry_fmt_str(ob, data.p, data.n, o ? o->strsize : 32, data.n < want);
	OB_LIT(ob, ", iov_len=");
	ob_u64(ob, len);
	ob_putc(ob, '}');
}

/* n iovecs captured at p (len bytes) of an array of count (when known) at ptr. */
static void put_iovecs(struct outbuf *ob, const uint8_t *p, size_t len, uint32_t n, uint64_t ptr, bool ptr_known,
		       const uint64_t *count, struct iov_state *st, const struct scry_fmt_opts *o)
{
	const struct scry_struct_desc *d = iovec_type(n, len);
	bool verbose = o && o->verbose;
	unsigned strsize = o ? o->strsize : 32;
	size_t pos = 0, e;
	uint32_t i;

	if (ptr_known && !ptr) {
		OB_LIT(ob, "NULL");
		return;
	}
	if (count && !*count) {
		OB_LIT(ob, "[]");
		return;
	}
	if (!n || !p || !d) {
		fmt_ptr(ob, ptr);
		return;
	}
	ob_putc(ob, '[');
	for (i = 0; i < n; i++, pos += e) {
		if (!verbose && i >= strsize) {
			ob_puts(ob, i ? ", ...]" : "...]");
			return;
		}
		if (!(e = scry_struct_span(d, p + pos, len - pos, NULL)))
			break;
		if (i)
			OB_LIT(ob, ", ");
		put_iovec(ob, d, p + pos, len - pos, st, o);
	}
	if (i < n || (count && *count > n))
		ob_puts(ob, i ? ", ..." : "...");
	ob_putc(ob, ']');
}

void fmt_iovec_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		   const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	struct iov_state st = { -1, false };
	uint64_t count;
	bool known = fmt_resolve_len(spec, all, ret, have_ret, &count);

	if (spec->dir == SCRY_DIR_OUT && have_ret) {
		st.addrs = ret < 0;
		st.data_left = ret < 0 ? 0 : ret;
	}
	put_iovecs(ob, val->p, val->len, val->n, val->v, val->have_ptr, known ? &count : NULL, &st, o);
}

/* msg_name: the address, as long as both the caller's and the kernel's lengths say */
static void put_name(struct outbuf *ob, uint64_t ptr, const struct scry_tail_val *name, int64_t namelen)
{
	size_t n = name ? name->n : 0;

	if (!ptr) {
		OB_LIT(ob, "NULL");
		return;
	}
	if (namelen >= 0 && (uint64_t)namelen < n)
		n = (size_t)namelen;
	if (n < 2) {
		fmt_ptr(ob, ptr);
		return;
	}
	scry_fmt_sockaddr(ob, name->p, n);
}

/* One msghdr of type d at p; in_namelen: msg_namelen as passed (recvmsg), or -1;
 * data: bytes the call received (recvmsg), or -1. */
static void put_msghdr(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, size_t len,
		       int64_t in_namelen, int64_t data, const struct scry_fmt_opts *o)
{
	struct scry_tail_val t[2] = { { 0 } };
	bool tails = d->ntails == 2 && scry_struct_span(d, p, len, t);
	int64_t namelen = fmt_gets(p + 8, 4);
	uint64_t iovlen = fmt_get(p + 24, 8), controllen = fmt_get(p + 40, 8);
	struct iov_state st = { data, false };

	OB_LIT(ob, "{msg_name=");
	if (tails)
		put_name(ob, fmt_get(p, 8), &t[0], in_namelen >= 0 && namelen > in_namelen ? in_namelen : namelen);
	else
		fmt_ptr(ob, fmt_get(p, 8));
	OB_LIT(ob, ", msg_namelen=");
	if (in_namelen >= 0 && in_namelen != namelen) {
		ob_i64(ob, in_namelen);
		OB_LIT(ob, " => ");
	}
	ob_i64(ob, namelen);
	OB_LIT(ob, ", msg_iov=");
	if (tails)
		put_iovecs(ob, t[1].p, t[1].len, t[1].n, fmt_get(p + 16, 8), true, &iovlen, &st, o);
	else
		fmt_ptr(ob, fmt_get(p + 16, 8));
	OB_LIT(ob, ", msg_iovlen=");
	ob_u64(ob, iovlen);
	if (controllen) {                  /* control messages are not decoded */
		OB_LIT(ob, ", msg_control=");
		fmt_ptr(ob, fmt_get(p + 32, 8));
	}
	OB_LIT(ob, ", msg_controllen=");
	ob_u64(ob, controllen);
	OB_LIT(ob, ", msg_flags=");
	fmt_named(ob, "msg", fmt_get(p + 48, 4));
	ob_putc(ob, '}');
}

/* The type of a captured msghdr: the struct alone (on entry of recvmsg), or with its
 * address and iovecs, their data or not. */
static const struct scry_struct_desc *msghdr_type(const uint8_t *p, size_t len)
{
	const struct scry_struct_desc *d = scry_struct_find("msghdr_iov");

	if (len == MSGHDR_SIZE)
		return scry_struct_find("msghdr");
	if (d && scry_struct_span(d, p, len, NULL) == len)
		return d;
	return scry_struct_find("msghdr_data");
}

static bool one_msghdr(const struct scry_argval *v)
{
	return v && v->have && v->p && v->n == 1 && v->len >= MSGHDR_SIZE;
}

void fmt_msghdr_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		    int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	bool inout = spec->dir == SCRY_DIR_INOUT;
	const struct scry_argval *in = inout && one_msghdr(val->entry) ? val->entry : NULL;
	int64_t in_namelen = in ? fmt_gets(in->p + 8, 4) : -1;

	if (inout && have_ret && ret < 0) {     /* recvmsg failed: what was passed */
		if (!in) {
			fmt_ptr(ob, val->v);
			return;
		}
		OB_LIT(ob, "{msg_namelen=");
		ob_i64(ob, in_namelen);
		ob_putc(ob, '}');
		return;
	}
	if (!one_msghdr(val)) {
		fmt_ptr(ob, val->v);
		return;
	}
	put_msghdr(ob, msghdr_type(val->p, val->len), val->p, val->len, in_namelen,
		   inout && have_ret ? ret : -1, o);
}
