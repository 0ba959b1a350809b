/* select.c — select/pselect6's descriptor sets as strace prints them: among the
 * arguments the descriptors of each set, [0 3] (-y: with their paths), captured as the
 * longs that hold nfds bits; after the return value the ready ones and the time left,
 * "= 2 (in [0 3], out [4], left {tv_sec=0, tv_usec=999996})". */
#include "format/format.h"
#include "format/fmt_internal.h"

/* The descriptor count as the kernel takes it (an int), 0 when negative. */
static int64_t nfds_of(uint64_t v)
{
	int32_t n = (int32_t)v;

	return n < 0 ? 0 : n;
}

static bool fd_isset(const uint8_t *p, uint32_t longs, int64_t fd)
{
	if ((uint64_t)fd >= (uint64_t)longs * 64)
		return false;
	return p[fd / 8] >> (fd % 8) & 1;
}

void fmt_fdset_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		   const struct scry_argval *all, const struct scry_fmt_opts *o)
{
	uint64_t nfds = 0;
	bool first = true;

	if (!fmt_resolve_len(spec, all, 0, false, &nfds) || !nfds_of(nfds) || !val->p || !val->n) {
		fmt_ptr(ob, val->v);           /* strace: nothing to read, or unreadable */
		return;
	}
	ob_putc(ob, '[');
	for (int64_t fd = 0; fd < nfds_of(nfds); fd++) {
		if (!fd_isset(val->p, val->n, fd))
			continue;
		if (!first)
			ob_putc(ob, ' ');
		first = false;
		fmt_fd(ob, fd, o);
	}
	ob_putc(ob, ']');
}

/* strace's decode_select at exit, including its quirk: once something was written, every
 * further set read while ready descriptors remain to be found gets a ']' too. */
void fmt_select_ready(struct outbuf *ob, int64_t ret, const struct scry_argval *all, unsigned nargs,
		      bool timespec, const struct scry_fmt_opts *o)
{
	static const char *const names[3] = { "in", "out", "except" };
	int64_t nfds = nargs > 0 && all[0].have ? nfds_of(all[0].v) : 0, ready = ret;
	const char *sep = "";
	bool any = false;

	OB_LIT(ob, " (");
	for (unsigned i = 0; i < 3 && i + 1 < nargs && ready > 0; i++) {
		const struct scry_argval *s = &all[i + 1];
		bool first = true;

		if (!s->have || !s->p || !s->n)
			continue;
		for (int64_t fd = 0; fd < nfds; fd++) {
			if (!fd_isset(s->p, s->n, fd))
				continue;
			if (first) {
				ob_puts(ob, sep);
				ob_puts(ob, names[i]);
				OB_LIT(ob, " [");
				first = false;
				sep = ", ";
				any = true;
			} else {
				ob_putc(ob, ' ');
			}
			ob_i64(ob, fd);
			if (--ready == 0)
				break;
		}
		if (any)
			ob_putc(ob, ']');
	}
	if (nargs > 4 && all[4].have && all[4].p && all[4].n) {
		ob_puts(ob, sep);
		OB_LIT(ob, "left ");
		scry_fmt_struct(ob, timespec ? "timespec" : "timeval", all[4].p, all[4].len, o);
	}
	ob_putc(ob, ')');
}
