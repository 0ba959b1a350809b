/* printer_text.c — the text of strace's lines (see printer_int.h): the output buffer's
 * column and flushes, a line's start (the open line ended, the pid prefix, -t and -r
 * stamps), one call's arguments (the part printed at entry, the rest at exit, clone3's
 * parent_tid) and its return (" = RET<path> <duration>", " = ?"), -y/-yy descriptor
 * names, and a probe event's values.  Which line is open and when a call is printed is
 * printer.c's. */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "trace/classes.h"
#include "trace/printer_int.h"
#include "trace/sockdesc.h"
#include "util/dirh.h"

/* -y: the descriptor's path; -yy: a socket by protocol and addresses (sockdesc.c), a
 * device with its numbers. */
const char *trace_printer_fd_path(void *ctx, int pid, int fd)
{
	struct trace_printer *p = ctx;
	const char *path = fdtrack_path(&p->fds, pid, fd);

	struct stat st;

	if (!path || p->o.decode_fds < 2)
		return path;
	if (!strncmp(path, "socket:[", 8)) {
		const char *k = fdtrack_kernel_seen(&p->fds, pid, fd);
		bool fresh;

		if (k)             /* as the kernel had it at the call (SCRY_SOP_SOCK) */
			return k;
		const char *proto = fdtrack_proto(&p->fds, pid, fd, &fresh);

		const char *seen;

		if (!fresh) {      /* its state now, or as last seen when it is gone by now */
			seen = fdtrack_seen(&p->fds, pid, fd,
					    sockdesc_name(p->fds.proc_root, pid, path, p->sockname, sizeof(p->sockname)) ?
					    p->sockname : NULL);
			if (seen)
				return seen;
		}
		if (proto) {       /* fresh, or never seen: as strace names one neither bound nor connected */
			snprintf(p->sockname, sizeof(p->sockname), "%s:%s", proto, path + 7);
			return p->sockname;
		}
	}
	/* a device: /dev/null<char 1:3> */
	if (!strncmp(path, "/dev/", 5) && !stat(path, &st) && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		snprintf(p->sockname, sizeof(p->sockname), "%s<%s %u:%u>", path, S_ISCHR(st.st_mode) ? "char" : "block",
			 major(st.st_rdev), minor(st.st_rdev));
		return p->sockname;
	}
	return path;
}

/* ---- output primitives ---- */

void trace_printer_col_sync(struct trace_printer *p)
{
	if (p->ob.n >= p->mark)
		p->col += p->ob.n - p->mark;
	else
		p->col = (size_t)1 << 30;   /* the buffer filled up mid-line: a very long line */
	p->mark = p->ob.n;
}

void trace_printer_flush(struct trace_printer *p)
{
	trace_printer_col_sync(p);
	ob_flush(&p->ob);
	p->mark = 0;
	if (!p->ob.error && fflush(p->ob.f))
		p->ob.error = 1;
}

void trace_printer_line_end(struct trace_printer *p)
{
	ob_putc(&p->ob, '\n');
	p->col = 0;
	p->mark = p->ob.n;
	if (p->tty)
		trace_printer_flush(p);
}

static void pad_to_ret(struct trace_printer *p)
{
	static const char spaces[TRACE_RET_COLUMN] = { [0 ... TRACE_RET_COLUMN - 1] = ' ' };

	trace_printer_col_sync(p);
	if (p->col < TRACE_RET_COLUMN)
		ob_write(&p->ob, spaces, TRACE_RET_COLUMN - p->col);
	trace_printer_col_sync(p);
}

void trace_printer_put_num(struct trace_printer *p, const char *fmt, long long a, long long b)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), fmt, a, b);

	ob_write(&p->ob, tmp, (size_t)n);
}

/* The line of the open task ends here, with why (" <unfinished ...>"). */
void trace_printer_close_open(struct trace_printer *p, const char *why)
{
	if (!p->open_tid)
		return;
	ob_puts(&p->ob, why);
	trace_printer_line_end(p);
	p->open_tid = 0;
}

/* -Y: the command name of a task, as its events named it, else as /proc names it now;
 * NULL when neither knows it. */
const char *trace_printer_pid_comm(void *ctx, int pid)
{
	struct trace_printer *p = ctx;
	struct task *t = imap_get(&p->tasks, pid);
	char path[64];
	FILE *f;

	if (t && t->comm[0])
		return t->comm;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	p->comm[0] = '\0';
	if ((f = fopen(path, "re"))) {
		if (fgets(p->comm, sizeof(p->comm), f))
			p->comm[strcspn(p->comm, "\n")] = '\0';
		fclose(f);
	}
	return p->comm[0] ? p->comm : NULL;
}

static void put_comm(struct trace_printer *p, struct task *t, int tid)
{
	const char *comm = trace_printer_pid_comm(p, tid);

	if (comm) {
		ob_putc(&p->ob, '<');
		ob_puts(&p->ob, comm);
		ob_putc(&p->ob, '>');
	}
}

/* -ff: the lines of tid go to FILE.TID (opened when it first writes; where it cannot be
 * opened, to FILE). */
static void switch_file(struct trace_printer *p, struct task *t, int tid)
{
	FILE *want = p->out;

	if (t && !t->out) {
		char name[PATH_MAX], err[256];
		int fd;

		t->out = p->out;
		if ((size_t)snprintf(name, sizeof(name), "%s.%d", p->o.outfile, tid) < sizeof(name) &&
		    (fd = scry_open_output(AT_FDCWD, name, NULL, false, err, sizeof(err))) >= 0 &&
		    !(t->out = fdopen(fd, "w"))) {
			close(fd);
			t->out = p->out;
		}
	}
	if (t)
		want = t->out;
	if (p->ob.f != want) {
		trace_printer_flush(p);
		p->ob.f = want;
	}
}

/* v in decimal at the end of buf[32] (a line's pid without snprintf, which was a twentieth
 * of the printing); returns its length. */
static size_t dec(char buf[32], long long v)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char *e = buf + 32, *q = e;

	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--q = '-';
	return (size_t)(e - q);
}

/* strace's printleader: end the open line, then the pid prefix and the timestamps. */
void trace_printer_line_start(struct trace_printer *p, int tid, int64_t ts)
{
	struct task *t = imap_get(&p->tasks, tid);

	trace_printer_close_open(p, " <unfinished ...>");
	if (p->per_file)
		switch_file(p, t, tid);
	if (p->ob.n > OUTBUF_SIZE / 2)
		trace_printer_flush(p);
	p->col = 0;
	p->mark = p->ob.n;
	if (p->numeric_pfx || (!p->per_file && p->tasks.n > 1)) {
		char num[32];
		size_t w = dec(num, tid);

		if (!p->numeric_pfx) {   /* "[pid %5d" */
			static const char pfx[10] = "[pid     ";

			ob_write(&p->ob, pfx, w < 5 ? 10 - w : 5);
		}
		ob_write(&p->ob, num + sizeof(num) - w, w);
		if (p->o.decode_comm)   /* -Y: 42163<sh> */
			put_comm(p, t, tid);
		ob_puts(&p->ob, p->numeric_pfx ? " " : "] ");
		if (p->numeric_pfx) {   /* strace's "%-5d " with the name after the number */
			static const char spaces[6] = "      ";

			trace_printer_col_sync(p);
			if (p->col < 6)
				ob_write(&p->ob, spaces, 6 - p->col);
			trace_printer_col_sync(p);
		}
	}
	if (p->o.tstamp) {
		int64_t sec = ts / 1000000000, usec = ts % 1000000000 / 1000;

		if (p->o.tstamp == 3) {
			trace_printer_put_num(p, "%lld.%06lld ", sec, usec);
		} else {
			tod_lookup(&p->tod, sec);
			ob_puts(&p->ob, p->tod.hms);
			if (p->o.tstamp == 2)
				trace_printer_put_num(p, ".%06lld", usec, 0);
			ob_putc(&p->ob, ' ');
		}
	}
	if (p->o.relative) {
		int64_t d = p->have_last && ts > p->last_ts ? ts - p->last_ts : 0;

		trace_printer_put_num(p, p->o.tstamp ? "(+%6lld.%06lld) " : "%6lld.%06lld ", d / 1000000000,
			d % 1000000000 / 1000);
	}
	p->last_ts = ts;
	p->have_last = true;
	if (p->o.show_nr)   /* -n: the task's call, "[ 257] " */
		trace_printer_put_num(p, "[%4lld] ", t ? t->scno : 0, 0);
	if (p->o.show_ip && (p->exit_line || !t || !t->ip)) {   /* -i: "[00007f...] " */
		OB_LIT(&p->ob, "[????????????????] ");
	} else if (p->o.show_ip) {
		char ip[24];
		int n = snprintf(ip, sizeof(ip), "[%016llx] ", (unsigned long long)t->ip);

		ob_write(&p->ob, ip, (size_t)n);
	}
}

void trace_printer_fmt_arg(struct trace_printer *p, struct outbuf *ob, const struct trace_call *c, unsigned i,
			   const struct scry_argval *all, bool have_ret)
{
	static const struct scry_argspec raw = { .kind = SCRY_A_HEX };

	if (!all[i].have) {
		ob_putc(ob, '?');
		return;
	}
	p->fo.pid = c->pid;
	scry_fmt_arg(ob, c->specs ? &c->specs[i] : &raw, &all[i], all, c->ret, have_ret, &p->fo);
}

/* Arguments from..to-1, comma-separated.  An argument the formatter prints as nothing is
 * left out with its comma (strace shows openat's mode only with O_CREAT, for instance).
 * True when something was printed. */
/* from the argument `from` to `to`, separated by ", " (also before the first printed when
 * lead); an argument that prints nothing is left out with its separator. */
bool trace_printer_put_args_lead(struct trace_printer *p, const struct trace_call *c, unsigned from, unsigned to,
				 const struct scry_argval *all, bool have_ret, bool lead)
{
	bool any = lead;

	for (unsigned i = from; i < to; i++) {
		size_t before = p->ob.n, at;

		if (any)
			OB_LIT(&p->ob, ", ");
		at = p->ob.n;
		trace_printer_fmt_arg(p, &p->ob, c, i, all, have_ret);
		if (p->ob.n == at && at >= before)
			p->ob.n = before;
		else
			any = true;
	}
	return any;
}

bool trace_printer_put_args(struct trace_printer *p, const struct trace_call *c, unsigned from, unsigned to,
			    const struct scry_argval *all, bool have_ret)
{
	return trace_printer_put_args_lead(p, c, from, to, all, have_ret, false);
}

/* Does the part printed at exit begin with the separator?  strace's clone decoder writes
 * ", child_tidptr=..." when the call returns; the other decoders end the entry part with
 * ", " (read(0,  <unfinished ...>). */
bool trace_printer_sep_at_exit(const struct trace_call *c, unsigned k)
{
	if (k == 1 && c->nargs > 1 && c->name && TRACE_NAME_IS(c->name, "clone3"))
		return true;
	return k > 0 && k < c->nargs && c->specs && c->specs[k].kind == SCRY_A_ENUM && c->specs[k].set &&
	       !strncmp(c->specs[k].set, "clone_", 6);
}

/* clone3 with CLONE_PARENT_SETTID: strace shows what the kernel stored at parent_tid, the
 * new task's id — the value the call returns. */
void trace_printer_put_clone3_out(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all)
{
	uint64_t flags = 0;

	if (!c->name || !TRACE_NAME_IS(c->name, "clone3") || c->ret <= 0 || !all[0].p || all[0].len < 8)
		return;
	memcpy(&flags, all[0].p, 8);
	if (flags & 0x00100000) {   /* CLONE_PARENT_SETTID */
		OB_LIT(&p->ob, " => {parent_tid=[");
		ob_i64(&p->ob, c->ret);
		OB_LIT(&p->ob, "]}");
	}
}

/* "NAME(arg, arg, " — what strace prints when the call enters. */
void trace_printer_put_entry_part(struct trace_printer *p, const struct pend *pd)
{
	ob_puts(&p->ob, pd->c.name);
	ob_putc(&p->ob, '(');
	if (trace_printer_put_args(p, &pd->c, 0, pd->k, pd->c.in, false) && pd->k < pd->c.nargs &&
	    !trace_printer_sep_at_exit(&pd->c, pd->k))
		OB_LIT(&p->ob, ", ");
}

static bool returns_fd(const struct trace_call *c, const struct scry_argval *all)
{
	if (TRACE_NAME_IS(c->name, "fcntl"))
		return c->nargs > 1 && all[1].have && (all[1].v == 0 || all[1].v == 1030);  /* F_DUPFD* */
	return trace_syscall_classes(c->name) & TRACE_RET_FD;
}

/* ") = RET<path> <0.000012>\n"; the fd effects of the call are applied first, so that
 * -y shows what a returned fd refers to. */
void trace_printer_put_ret(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all)
{
	ob_putc(&p->ob, ')');
	ob_putc(&p->ob, ' ');
	pad_to_ret(p);
	if (c->nr >= 0 && c->nr < SCRY_MAX_SYSCALLS) {   /* the name's class kept per syscall */
		if (!p->ret_k[c->nr])
			p->ret_k[c->nr] = (uint16_t)(scry_fmt_ret_class(c->name) | RET_K_SET);
		scry_fmt_ret_call_k(&p->ob, p->ret_k[c->nr] & ~RET_K_SET, c->ret, c->specs, all, c->nargs, &p->fo);
	} else {
		scry_fmt_ret_call(&p->ob, c->name, c->ret, c->specs, all, c->nargs, &p->fo);
	}
	if (p->o.decode_fds && c->ret >= 0 && returns_fd(c, all)) {
		const char *path = trace_printer_fd_path(p, c->pid, (int)c->ret);

		if (path)
			scry_fmt_fd_path(&p->ob, path);
	}
	if (p->o.durations && c->have_entry) {
		int64_t d = c->ts_exit > c->ts_entry ? c->ts_exit - c->ts_entry : 0;

		trace_printer_put_num(p, " <%lld.%06lld>", d / 1000000000, d % 1000000000 / 1000);
	}
	trace_printer_line_end(p);
}

/* ") = ?" of a call that will not return. */
void trace_printer_put_noret(struct trace_printer *p)
{
	ob_putc(&p->ob, ')');
	ob_putc(&p->ob, ' ');
	pad_to_ret(p);
	OB_LIT(&p->ob, "= ?");
	trace_printer_line_end(p);
}
/* ---- probes (uprobe, uretprobe, USDT) ---- */

void trace_probe_label(const struct scry_event *ev, char *buf, size_t len)
{
	const char *uri = ev->emf_uri ? ev->emf_uri : ev->name, *c1 = strchr(uri, ':');
	const char *path = c1 ? c1 + 1 : uri, *rest = strchr(path, ':'), *base;

	if (!c1 || !rest) {
		snprintf(buf, len, "%s", uri);
		return;
	}
	base = memrchr(path, '/', (size_t)(rest - path));
	base = base ? base + 1 : path;
	snprintf(buf, len, "%.*s%.*s%s", (int)(c1 - uri + 1), uri, (int)(rest - base), base, rest);
}

void trace_probe_value(struct trace_printer *p, const struct scry_field *f, const struct scry_fieldval *v)
{
	if (f->type == SCRY_F_STRING) {
		scry_fmt_str(&p->ob, v->p, v->len, p->o.strsize, false);
		return;
	}
	if (f->type != SCRY_F_INT) {
		OB_LIT(&p->ob, "?");
		return;
	}
	for (unsigned k = 0; k < f->nenums; k++) {   /* a C enum: its name */
		uint64_t m = f->size < 8 ? (1ULL << (f->size * 8)) - 1 : ~0ULL;

		if (((uint64_t)f->enums[k].value & m) == (v->v & m)) {
			ob_puts(&p->ob, f->enums[k].name);
			return;
		}
	}
	if (f->base == 16) {
		char tmp[24];
		int n = snprintf(tmp, sizeof(tmp), "%#llx", (unsigned long long)v->v);
		ob_write(&p->ob, tmp, (size_t)n);
	} else if (f->is_signed) {
		int64_t x = (int64_t)v->v;

		if (f->size < 8 && (v->v >> (f->size * 8 - 1)) & 1)
			x = (int64_t)(v->v | ~0ULL << (f->size * 8));
		ob_i64(&p->ob, x);
	} else {
		ob_u64(&p->ob, v->v);
	}
}

void trace_probe_args(struct trace_printer *p, const struct scry_event *ev, const struct scry_fieldval *vals)
{
	ob_putc(&p->ob, '(');
	for (unsigned i = 0; i < ev->nfields; i++) {
		if (i)
			OB_LIT(&p->ob, ", ");
		ob_puts(&p->ob, ev->fields[i].name);
		ob_putc(&p->ob, '=');
		trace_probe_value(p, &ev->fields[i], &vals[i]);
	}
	ob_putc(&p->ob, ')');
}

void trace_probe_ret(struct trace_printer *p, const struct scry_event *ev, const struct scry_fieldval *vals)
{
	if (ev->nfields == 1) {
		trace_probe_value(p, &ev->fields[0], &vals[0]);
		return;
	}
	ob_putc(&p->ob, '{');           /* a struct returned by value: its members */
	for (unsigned i = 0; i < ev->nfields; i++) {
		const char *n = ev->fields[i].name;

		if (i)
			OB_LIT(&p->ob, ", ");
		ob_puts(&p->ob, strncmp(n, "ret_", 4) ? n : n + 4);
		ob_putc(&p->ob, '=');
		trace_probe_value(p, &ev->fields[i], &vals[i]);
	}
	ob_putc(&p->ob, '}');
}
