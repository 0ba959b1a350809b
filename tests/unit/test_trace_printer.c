/* test_trace_printer.c — `scry trace` output (src/trace/printer.c, printer_json.c,
 * fdtrack.c): strace's lines for hand-built calls, several of them copied from strace 6.1
 * runs of a threaded program (only the pids differ); JSON lines parsed back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "catalog/argspec.h"
#include "trace/fdtrack.h"
#include "trace/imap.h"
#include "trace/printer.h"
#include "trace/printer_int.h"

#define NOPID 9999990               /* above pid_max: /proc has nothing for it */
#define T0 1700000000000000000LL    /* 2023-11-14 22:13:20 UTC */
#define BUFPTR 0x7ffd1000u

struct sc {
	const char *name;
	int nr;
	const char *spec;
	const char *argn[6];
	unsigned nargs;
	struct scry_argspec specs[6];
};

static struct sc scs[] = {
	{ .name = "read", .nr = 0, .spec = "fd, obuf(ret), uint", .argn = { "fd", "buf", "count" }, .nargs = 3 },
	{ .name = "write", .nr = 1, .spec = "fd, ibuf(count), uint", .argn = { "fd", "buf", "count" }, .nargs = 3 },
	{ .name = "close", .nr = 3, .spec = "fd", .argn = { "fd" }, .nargs = 1 },
	{ .name = "dup2", .nr = 33, .spec = "fd, fd", .argn = { "oldfd", "newfd" }, .nargs = 2 },
	{ .name = "getpid", .nr = 39, .spec = NULL, .argn = { NULL }, .nargs = 0 },
	{ .name = "execve", .nr = 59, .spec = "path, strv, strv", .argn = { "filename", "argv", "envp" }, .nargs = 3 },
	{ .name = "exit", .nr = 60, .spec = "int", .argn = { "error_code" }, .nargs = 1 },
	{ .name = "exit_group", .nr = 231, .spec = "int", .argn = { "error_code" }, .nargs = 1 },
	{ .name = "openat", .nr = 257, .spec = "dirfd, path, flags:open, mode", .argn = { "dfd", "filename", "flags", "mode" }, .nargs = 4 },
	{ .name = "select", .nr = 23, .spec = "int, iofdset(n), iofdset(n), iofdset(n), iostruct:timeval",
	  .argn = { "n", "inp", "outp", "exp", "tvp" }, .nargs = 5 },
	{ .name = "recvmsg", .nr = 47, .spec = "fd, iomsghdr, flags:msg", .argn = { "fd", "msg", "flags" }, .nargs = 3 },
	{ .name = "pipe2", .nr = 293, .spec = "oarray:int(2), int", .argn = { "fildes", "flags" }, .nargs = 2 },   /* flags as a number here */
};

static int setup(void **state)
{
	char err[128];

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++)
		if (scs[i].nargs && scry_argspec_parse(scs[i].spec, scs[i].argn, scs[i].nargs, scs[i].specs,
						       err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", scs[i].name, err);
			return -1;
		}
	return 0;
}

static const struct sc *sc_of(const char *name)
{
	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++)
		if (!strcmp(scs[i].name, name))
			return &scs[i];
	fail_msg("no syscall %s in the test table", name);
	return NULL;
}

/* An entry: arguments set with the helpers below. */
static struct trace_call entry(const char *name, int pid, int tid, int64_t ts)
{
	const struct sc *s = sc_of(name);
	struct trace_call c;

	memset(&c, 0, sizeof(c));
	c.name = s->name;
	c.nr = s->nr;
	c.nargs = s->nargs;
	c.specs = s->specs;
	c.pid = pid;
	c.tid = tid;
	c.ts_entry = ts;
	c.have_entry = true;
	return c;
}

/* An exit: only out[] and ret, as the live consumer hands them. */
static struct trace_call exit_of(const char *name, int pid, int tid, int64_t ts, int64_t ret)
{
	struct trace_call c = entry(name, pid, tid, 0);

	c.have_entry = false;
	c.ts_entry = 0;
	c.have_exit = true;
	c.ts_exit = ts;
	c.ret = ret;
	return c;
}

static void in_int(struct trace_call *c, unsigned i, int64_t v)
{
	c->in[i].have = true;
	c->in[i].v = (uint64_t)v;
}

static void in_ptr(struct trace_call *c, unsigned i, uint64_t v)
{
	c->in[i].have = true;
	c->in[i].v = v;
	c->in[i].have_ptr = true;
}

static void in_str(struct trace_call *c, unsigned i, const char *s)
{
	c->in[i].have = true;
	c->in[i].v = BUFPTR;
	c->in[i].have_ptr = true;
	c->in[i].p = (const uint8_t *)s;
	c->in[i].len = (uint32_t)strlen(s);
}

static void out_bytes(struct trace_call *c, unsigned i, const void *p, size_t n, uint32_t count)
{
	c->out[i].have = true;
	c->out[i].v = BUFPTR;
	c->out[i].have_ptr = true;
	c->out[i].p = p;
	c->out[i].len = (uint32_t)n;
	c->out[i].n = count;
}

/* ---- a printer writing into memory ---- */

struct run {
	struct trace_opts o;
	struct trace_printer *p;
	struct trace_summary *sum;
	char *buf;
	size_t len;
	FILE *f;
};

static void start(struct run *r, void (*tweak)(struct trace_opts *))
{
	memset(r, 0, sizeof(*r));
	trace_opts_init(&r->o);
	if (tweak)
		tweak(&r->o);
	r->f = open_memstream(&r->buf, &r->len);
	assert_non_null(r->f);
	if (r->o.count)
		r->sum = trace_summary_new();
	r->p = trace_printer_new(&r->o, r->f, r->sum);
	assert_non_null(r->p);
}

/* Finish, and the whole output (freed by the caller). */
static char *finish(struct run *r)
{
	assert_int_equal(trace_printer_finish(r->p), 0);
	trace_printer_free(r->p);
	fclose(r->f);
	trace_summary_free(r->sum);
	return r->buf;
}

static void expect(struct run *r, const char *want)
{
	char *got = finish(r);

	assert_string_equal(got, want);
	free(got);
}

/* read(fd, buf, count) entering */
static void read_in(struct run *r, int pid, int tid, int64_t ts, int fd, int count)
{
	struct trace_call c = entry("read", pid, tid, ts);

	in_int(&c, 0, fd);
	in_ptr(&c, 1, BUFPTR);
	in_int(&c, 2, count);
	trace_printer_entry(r->p, &c);
}

static void read_out(struct run *r, int pid, int tid, int64_t ts, const char *data, int64_t ret)
{
	struct trace_call c = exit_of("read", pid, tid, ts, ret);

	if (ret >= 0)
		out_bytes(&c, 1, data, (size_t)ret, 0);
	trace_printer_exit(r->p, &c);
}

static void simple(struct run *r, const char *name, int pid, int tid, int64_t ts, int64_t arg, int64_t ret)
{
	struct trace_call c = entry(name, pid, tid, ts);

	if (c.nargs)
		in_int(&c, 0, arg);
	trace_printer_entry(r->p, &c);
	if (strcmp(name, "exit") && strcmp(name, "exit_group")) {
		c = exit_of(name, pid, tid, ts + 1000, ret);
		trace_printer_exit(r->p, &c);
	}
}

static void openat_call(struct run *r, int pid, int tid, int64_t ts, int dirfd, const char *path,
			uint64_t flags, uint64_t mode, int64_t ret)
{
	struct trace_call c = entry("openat", pid, tid, ts);

	in_int(&c, 0, dirfd);
	in_str(&c, 1, path);
	in_int(&c, 2, (int64_t)flags);
	in_int(&c, 3, (int64_t)mode);
	trace_printer_entry(r->p, &c);
	c = exit_of("openat", pid, tid, ts + 12000, ret);
	trace_printer_exit(r->p, &c);
}

/* ---- strace's lines ---- */

static void test_one_task(void **state)
{
	struct run r;
	struct trace_call c;

	start(&r, NULL);
	openat_call(&r, 100, 100, T0, -100, "/etc/hostname", 01 | 0100 | 01000, 0644, 3);
	read_in(&r, 100, 100, T0 + 20000, 3, 4);
	read_out(&r, 100, 100, T0 + 21000, "vm\n", 3);
	c = entry("write", 100, 100, T0 + 30000);
	in_int(&c, 0, 1);
	in_str(&c, 1, "hello \"world\"\n");
	in_int(&c, 2, 14);
	trace_printer_entry(r.p, &c);
	c = exit_of("write", 100, 100, T0 + 31000, 14);
	trace_printer_exit(r.p, &c);
	simple(&r, "close", 100, 100, T0 + 40000, 3, 0);
	simple(&r, "close", 100, 100, T0 + 50000, 3, -9);
	simple(&r, "getpid", 100, 100, T0 + 60000, 0, 100);
	simple(&r, "exit_group", 100, 100, T0 + 70000, 0, 0);
	trace_printer_exited(r.p, 100, T0 + 80000, 0);
	expect(&r,
	       "openat(AT_FDCWD, \"/etc/hostname\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3\n"
	       "read(3, \"vm\\n\", 4)                      = 3\n"
	       "write(1, \"hello \\\"world\\\"\\n\", 14)       = 14\n"
	       "close(3)                                = 0\n"
	       "close(3)                                = -1 EBADF (Bad file descriptor)\n"
	       "getpid()                                = 100\n"
	       "exit_group(0)                           = ?\n"
	       "+++ exited with 0 +++\n");
}

/* strace -f of a two-thread program (8908 the leader, 8909 a thread) */
static void test_threads_interleaved(void **state)
{
	struct run r;

	start(&r, NULL);
	trace_printer_task(r.p, 8908, 8908, 8909);
	read_in(&r, 8908, 8908, T0, 0, 0);
	simple(&r, "close", 8908, 8909, T0 + 100, 3, 0);
	read_out(&r, 8908, 8908, T0 + 2000, "", 0);
	simple(&r, "exit", 8908, 8909, T0 + 3000, 0, 0);
	simple(&r, "exit_group", 8908, 8908, T0 + 4000, 5, 0);
	trace_printer_exited(r.p, 8908, T0 + 5000, 5 << 8);
	expect(&r,
	       "[pid  8908] read(0,  <unfinished ...>\n"
	       "[pid  8909] close(3)                    = 0\n"
	       "[pid  8908] <... read resumed>\"\", 0)    = 0\n"
	       "[pid  8909] exit(0)                     = ?\n"
	       "[pid  8909] +++ exited with 0 +++\n"
	       "exit_group(5)                           = ?\n"
	       "+++ exited with 5 +++\n");
}

static void in_bytes(struct trace_call *c, unsigned i, const void *p, size_t n, uint32_t count)
{
	c->in[i].have = true;
	c->in[i].p = p;
	c->in[i].len = (uint32_t)n;
	c->in[i].n = count;
}

/* In-out captures: select's sets and timeout print on entry with the values passed, the
 * exit's in the return column; recvmsg's header at exit, with msg_namelen as passed. */
static void test_inout_args(void **state)
{
	static const uint64_t set_in = 0x8, set_out = 0x8, zero = 0;
	static const int64_t tv_in[2] = { 1, 0 }, tv_left[2] = { 0, 949612 };
	struct trace_call c;
	struct run r;

	/* strace -f of a select in one thread while another writes to the pipe */
	start(&r, NULL);
	trace_printer_task(r.p, 23611, 23611, 23612);
	c = entry("select", 23611, 23611, T0);
	in_int(&c, 0, 4);
	in_bytes(&c, 1, &set_in, 8, 1);
	in_bytes(&c, 2, NULL, 0, 0);
	in_bytes(&c, 3, NULL, 0, 0);
	in_bytes(&c, 4, tv_in, 16, 1);
	trace_printer_entry(r.p, &c);
	simple(&r, "close", 23611, 23612, T0 + 100, 5, 0);
	c = exit_of("select", 23611, 23611, T0 + 2000, 1);
	out_bytes(&c, 1, &set_out, 8, 1);
	out_bytes(&c, 2, NULL, 0, 0);
	out_bytes(&c, 3, NULL, 0, 0);
	out_bytes(&c, 4, tv_left, 16, 1);
	trace_printer_exit(r.p, &c);
	/* ... and one that failed: what was passed */
	c = entry("select", 23611, 23611, T0 + 3000);
	in_int(&c, 0, 4);
	in_bytes(&c, 1, &set_in, 8, 1);
	in_bytes(&c, 2, &zero, 8, 1);
	in_bytes(&c, 3, NULL, 0, 0);
	in_bytes(&c, 4, tv_in, 16, 1);
	trace_printer_entry(r.p, &c);
	c = exit_of("select", 23611, 23611, T0 + 4000, -4);
	out_bytes(&c, 1, NULL, 0, 0);
	out_bytes(&c, 2, NULL, 0, 0);
	out_bytes(&c, 3, NULL, 0, 0);
	out_bytes(&c, 4, NULL, 0, 0);
	trace_printer_exit(r.p, &c);
	expect(&r,
	       "[pid 23611] select(4, [3], NULL, NULL, {tv_sec=1, tv_usec=0} <unfinished ...>\n"
	       "[pid 23612] close(5)                    = 0\n"
	       "[pid 23611] <... select resumed>)       = 1 (in [3], left {tv_sec=0, tv_usec=949612})\n"
	       "[pid 23611] select(4, [3], [], NULL, {tv_sec=1, tv_usec=0}) = -1 EINTR (Interrupted system call)\n");

	/* recvmsg: printed at exit; on entry only the header was read */
	{
		static uint8_t hin[56], hout[56 + 4 + 4 + 4 + 20 + 3];
		uint64_t namelen_in = 128, namelen_out = 0, iov = 0x7ffd2000, iovlen = 1, base = 0x7ffd3000,
			 len = 16;
		uint32_t one = 1, three = 3;

		memcpy(hin + 8, &namelen_in, 4);
		memcpy(hin + 16, &iov, 8);
		memcpy(hin + 24, &iovlen, 8);
		memcpy(hout + 8, &namelen_out, 4);
		memcpy(hout + 16, &iov, 8);
		memcpy(hout + 24, &iovlen, 8);
		memcpy(hout + 60, &one, 4);                 /* no name (4 zero bytes), 1 iovec */
		memcpy(hout + 64, &base, 8);
		memcpy(hout + 72, &len, 8);
		memcpy(hout + 80, &three, 4);
		memcpy(hout + 84, "abc", 3);
		start(&r, NULL);
		c = entry("recvmsg", 300, 300, T0);
		in_int(&c, 0, 5);
		in_bytes(&c, 1, hin, sizeof(hin), 1);
		in_int(&c, 2, 0);
		trace_printer_entry(r.p, &c);
		c = exit_of("recvmsg", 300, 300, T0 + 1000, 3);
		out_bytes(&c, 1, hout, sizeof(hout), 1);
		trace_printer_exit(r.p, &c);
		c = entry("recvmsg", 300, 300, T0 + 2000);
		in_int(&c, 0, 5);
		in_bytes(&c, 1, hin, sizeof(hin), 1);
		in_int(&c, 2, 0x40);
		trace_printer_entry(r.p, &c);
		c = exit_of("recvmsg", 300, 300, T0 + 3000, -11);
		out_bytes(&c, 1, NULL, 0, 0);
		trace_printer_exit(r.p, &c);
		expect(&r,
		       "recvmsg(5, {msg_name=NULL, msg_namelen=128 => 0, msg_iov=[{iov_base=\"abc\", iov_len=16}], "
		       "msg_iovlen=1, msg_controllen=0, msg_flags=0}, 0) = 3\n"
		       "recvmsg(5, {msg_namelen=128}, MSG_DONTWAIT) = -1 EAGAIN (Resource temporarily unavailable)\n");
	}
}

/* strace -f: a thread blocked in read while the leader calls exit_group */
static void test_thread_killed_in_call(void **state)
{
	struct run r;

	start(&r, NULL);
	trace_printer_task(r.p, 0, 9034, 9035);    /* a thread: its leader is alive too */
	read_in(&r, 9034, 9035, T0, 3, 1);
	simple(&r, "exit_group", 9034, 9034, T0 + 1000, 7, 0);
	trace_printer_exited(r.p, 9034, T0 + 2000, 7 << 8);
	expect(&r,
	       "[pid  9035] read(3,  <unfinished ...>\n"
	       "[pid  9034] exit_group(7)               = ?\n"
	       "[pid  9035] <... read resumed> <unfinished ...>) = ?\n"
	       "[pid  9035] +++ exited with 7 +++\n"
	       "+++ exited with 7 +++\n");

	/* one task killed in a call: its line continues */
	start(&r, NULL);
	read_in(&r, 5000, 5000, T0, 0, 16);
	trace_printer_exited(r.p, 5000, T0 + 1000, 9);
	expect(&r,
	       "read(0,  <unfinished ...>)              = ?\n"
	       "+++ killed by SIGKILL +++\n");

	start(&r, NULL);
	trace_printer_exited(r.p, 5000, T0, 11 | 0x80);
	expect(&r, "+++ killed by SIGSEGV (core dumped) +++\n");
}

static void outfile(struct trace_opts *o)
{
	o->outfile = "trace.out";
}

/* strace -f -o FILE: "%-5d " before every line */
static void test_outfile_prefix(void **state)
{
	struct run r;

	start(&r, outfile);
	simple(&r, "exit", 8927, 8928, T0, 0, 0);
	read_in(&r, 8927, 8927, T0 + 10, 0, 0);
	read_out(&r, 8927, 8927, T0 + 20, "", 0);
	simple(&r, "exit_group", 8927, 8927, T0 + 30, 5, 0);
	trace_printer_exited(r.p, 8927, T0 + 40, 5 << 8);
	expect(&r,
	       "8928  exit(0)                           = ?\n"
	       "8928  +++ exited with 0 +++\n"
	       "8927  read(0, \"\", 0)                    = 0\n"
	       "8927  exit_group(5)                     = ?\n"
	       "8927  +++ exited with 5 +++\n");
}

static void tt_T(struct trace_opts *o)
{
	o->tstamp = 2;
	o->durations = true;
}

static void t1(struct trace_opts *o)
{
	o->tstamp = 1;
}

static void ttt_r(struct trace_opts *o)
{
	o->tstamp = 3;
	o->relative = true;
}

static void r_only(struct trace_opts *o)
{
	o->relative = true;
}

static void test_times(void **state)
{
	struct run r;

	start(&r, tt_T);
	read_in(&r, 100, 100, T0 + 898464000, 0, 0);
	read_out(&r, 100, 100, T0 + 898476999, "", 0);
	trace_printer_task(r.p, 100, 100, 101);
	read_in(&r, 100, 100, T0 + 900000000, 0, 0);
	read_in(&r, 100, 101, T0 + 900000500, 0, 0);
	read_out(&r, 100, 100, T0 + 1920227000, "", 0);
	simple(&r, "exit_group", 100, 101, T0 + 2000000000, 0, 0);
	expect(&r,
	       "22:13:20.898464 read(0, \"\", 0)          = 0 <0.000012>\n"
	       "[pid   100] 22:13:20.900000 read(0,  <unfinished ...>\n"
	       "[pid   101] 22:13:20.900000 read(0,  <unfinished ...>\n"
	       "[pid   100] 22:13:21.920227 <... read resumed>\"\", 0) = 0 <1.020227>\n"
	       "[pid   101] 22:13:22.000000 exit_group(0) = ?\n");

	start(&r, t1);
	simple(&r, "getpid", 100, 100, T0 + 999999999, 0, 100);
	expect(&r, "22:13:20 getpid()                       = 100\n");

	start(&r, ttt_r);
	simple(&r, "getpid", 100, 100, T0 + 100000, 0, 100);
	simple(&r, "getpid", 100, 100, T0 + 600000, 0, 100);
	simple(&r, "getpid", 100, 100, T0 + 2600500000, 0, 100);
	expect(&r,
	       "1700000000.000100 (+     0.000000) getpid() = 100\n"
	       "1700000000.000600 (+     0.000500) getpid() = 100\n"
	       "1700000002.600500 (+     2.599900) getpid() = 100\n");

	start(&r, r_only);
	simple(&r, "getpid", 100, 100, T0 + 100000, 0, 100);
	simple(&r, "getpid", 100, 100, T0 + 967000, 0, 100);
	expect(&r,
	       "     0.000000 getpid()                  = 100\n"
	       "     0.000867 getpid()                  = 100\n");
}

static void failed_only(struct trace_opts *o)
{
	o->status = TRACE_ST_FAILED;
}

static void successful_only(struct trace_opts *o)
{
	o->status = TRACE_ST_SUCCESSFUL;
}

static void unfinished_only(struct trace_opts *o)
{
	o->status = TRACE_ST_UNFINISHED;
}

/* -e status=: whole calls when they return, in the order they return */
static void status_run(struct run *r)
{
	struct trace_call c;

	trace_printer_task(r->p, 100, 100, 101);
	read_in(r, 100, 100, T0, 3, 16);
	c = entry("openat", 100, 101, T0 + 10);
	in_int(&c, 0, -100);
	in_str(&c, 1, "/nonexistent");
	in_int(&c, 2, 01 | 0100);
	in_int(&c, 3, 0600);
	trace_printer_entry(r->p, &c);
	c = exit_of("openat", 100, 101, T0 + 20, -2);
	trace_printer_exit(r->p, &c);
	read_out(r, 100, 100, T0 + 30, "abc", 3);
	read_in(r, 100, 101, T0 + 40, 4, 8);
	simple(r, "exit_group", 100, 100, T0 + 50, 1, 0);
	trace_printer_exited(r->p, 100, T0 + 60, 1 << 8);
}

static void test_status_filter(void **state)
{
	struct run r;

	start(&r, failed_only);
	status_run(&r);
	expect(&r,
	       "[pid   101] openat(AT_FDCWD, \"/nonexistent\", O_WRONLY|O_CREAT, 0600) = -1 ENOENT (No such file or directory)\n"
	       "[pid   101] +++ exited with 1 +++\n"
	       "+++ exited with 1 +++\n");

	start(&r, successful_only);
	status_run(&r);
	expect(&r,
	       "[pid   100] read(3, \"abc\", 16)          = 3\n"
	       "[pid   101] +++ exited with 1 +++\n"
	       "+++ exited with 1 +++\n");

	start(&r, unfinished_only);
	status_run(&r);
	expect(&r,
	       "[pid   100] exit_group(1)               = ?\n"
	       "[pid   101] read(4,  <unfinished ...>)  = ?\n"
	       "[pid   101] +++ exited with 1 +++\n"
	       "+++ exited with 1 +++\n");
}

static void test_signals(void **state)
{
	struct run r;
	struct trace_call c;

	start(&r, NULL);
	trace_printer_signal(r.p, 100, 100, T0, 17, 1, 0);
	trace_printer_signal(r.p, 100, 100, T0, 11, 1, 0);
	trace_printer_signal(r.p, 100, 100, T0, 10, 0, 0);
	trace_printer_signal(r.p, 100, 100, T0, 15, -6, 1);
	trace_printer_signal(r.p, 100, 100, T0, 10, 123, 0);
	/* a signal while a call is open: the call is resumed later */
	read_in(&r, 100, 100, T0 + 10, 0, 16);
	trace_printer_signal(r.p, 100, 100, T0 + 20, 2, 0x80, 0);
	c = exit_of("read", 100, 100, T0 + 30, -4);
	trace_printer_exit(r.p, &c);
	expect(&r,
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---\n"
	       "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR} ---\n"
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER} ---\n"
	       "--- SIGTERM {si_signo=SIGTERM, si_code=SI_TKILL, si_errno=EPERM} ---\n"
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=0x7b} ---\n"
	       "read(0,  <unfinished ...>\n"
	       "--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---\n"
	       "<... read resumed>0x7ffd1000, 16)       = -1 EINTR (Interrupted system call)\n");
}

static void no_sigchld(struct trace_opts *o)
{
	o->sigset &= ~(1ULL << (17 - 1));
}

static void only_close(struct trace_opts *o)
{
	memset(o->sel, 0, sizeof(o->sel));
	o->sel_rest = false;
	o->sel[0] = 1ULL << 3;
}

static void test_selection(void **state)
{
	struct run r;

	start(&r, no_sigchld);
	trace_printer_signal(r.p, 100, 100, T0, 17, 1, 0);
	trace_printer_signal(r.p, 100, 100, T0, 15, 0, 0);
	expect(&r, "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER} ---\n");

	start(&r, only_close);
	read_in(&r, 100, 100, T0, 0, 4);
	simple(&r, "close", 100, 100, T0 + 10, 5, 0);
	read_out(&r, 100, 100, T0 + 20, "", 0);
	simple(&r, "exit_group", 100, 100, T0 + 30, 0, 0);
	trace_printer_exited(r.p, 100, T0 + 40, 0);
	expect(&r,
	       "close(5)                                = 0\n"
	       "+++ exited with 0 +++\n");
}

static void count_only(struct trace_opts *o)
{
	o->count = TRACE_COUNT_ONLY;
}

static void count_also(struct trace_opts *o)
{
	o->count = TRACE_COUNT_ALSO;
}

static void test_counting(void **state)
{
	struct run r;
	char *tab = NULL;
	size_t len = 0;
	FILE *f;

	start(&r, count_only);
	read_in(&r, 100, 100, T0, 0, 4);
	read_out(&r, 100, 100, T0 + 5000, "ab", 2);
	simple(&r, "close", 100, 100, T0 + 10000, 3, -9);
	trace_printer_signal(r.p, 100, 100, T0, 17, 1, 0);
	simple(&r, "exit_group", 100, 100, T0 + 30000, 0, 0);
	trace_printer_exited(r.p, 100, T0 + 40000, 0);
	assert_int_equal(trace_printer_finish(r.p), 0);
	f = open_memstream(&tab, &len);
	assert_int_equal(trace_summary_print(r.sum, f, TRACE_SORT_TIME), 0);
	fclose(f);
	assert_string_equal(tab,
			    "% time     seconds  usecs/call     calls    errors syscall\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    " 83.33    0.000005           5         1           read\n"
			    " 16.67    0.000001           1         1         1 close\n"
			    "------ ----------- ----------- --------- --------- ----------------\n"
			    "100.00    0.000006           3         2         1 total\n");
	free(tab);
	trace_printer_free(r.p);
	fclose(r.f);
	assert_int_equal(r.len, 0);    /* -c: no trace lines */
	free(r.buf);
	trace_summary_free(r.sum);

	start(&r, count_also);
	simple(&r, "getpid", 100, 100, T0, 0, 100);
	expect(&r, "getpid()                                = 100\n");
}

static void test_detached_and_lost(void **state)
{
	struct run r;

	/* tracing stops while a call is open */
	start(&r, NULL);
	read_in(&r, 100, 100, T0, 0, 4);
	expect(&r, "read(0,  <detached ...>\n");

	/* an exit without its entry; an entry whose exit was lost */
	start(&r, NULL);
	read_out(&r, 100, 100, T0, "xy", 2);
	read_in(&r, 100, 100, T0 + 10, 5, 4);
	simple(&r, "close", 100, 100, T0 + 20, 5, 0);
	expect(&r,
	       "<... read resumed>\"xy\", ?)              = 2\n"
	       "read(5,  <unfinished ...>\n"
	       "close(5)                                = 0\n");
}

/* execve in a thread other than the leader: it returns under the leader's tid, the line
 * goes on when nothing came between; the old leader's pending read is gone, and with one
 * task left, so is the prefix */
static void test_exec_in_thread(void **state)
{
	struct run r;
	struct trace_call c;
	static const char argv0[] = "true";
	char *got;

	start(&r, NULL);
	trace_printer_task(r.p, 100, 100, 101);
	read_in(&r, 100, 100, T0, 0, 4);
	c = entry("execve", 100, 101, T0 + 10);
	in_str(&c, 0, "/bin/true");
	c.in[1].have = true;
	c.in[1].v = BUFPTR;
	c.in[1].have_ptr = true;
	c.in[1].p = (const uint8_t *)argv0;
	c.in[1].len = sizeof(argv0);
	c.in[1].n = 1;
	in_ptr(&c, 2, BUFPTR);
	trace_printer_entry(r.p, &c);
	c = exit_of("execve", 100, 100, T0 + 20, 0);
	trace_printer_exit(r.p, &c);
	simple(&r, "getpid", 100, 100, T0 + 30, 0, 100);
	got = finish(&r);
	assert_string_equal(got,
			    "[pid   100] read(0,  <unfinished ...>\n"
			    "[pid   101] execve(\"/bin/true\", [\"true\"], 0x7ffd1000) = 0\n"
			    "getpid()                                = 100\n");
	free(got);
}

/* ---- -y ---- */

static void decode_fds(struct trace_opts *o)
{
	o->decode_fds = true;
}

static void test_decode_fds(void **state)
{
	struct run r;
	struct trace_call c;
	static const int32_t fds[2] = { 6, 7 };

	start(&r, decode_fds);
	openat_call(&r, NOPID, NOPID, T0, -100, "/nonexistent-scry/f", 01 | 0100 | 02000000, 0600, 3);
	c = entry("write", NOPID, NOPID, T0 + 1);
	in_int(&c, 0, 3);
	in_str(&c, 1, "hi");
	in_int(&c, 2, 2);
	trace_printer_entry(r.p, &c);
	c = exit_of("write", NOPID, NOPID, T0 + 2, 2);
	trace_printer_exit(r.p, &c);
	c = entry("dup2", NOPID, NOPID, T0 + 3);
	in_int(&c, 0, 3);
	in_int(&c, 1, 10);
	trace_printer_entry(r.p, &c);
	c = exit_of("dup2", NOPID, NOPID, T0 + 4, 10);
	trace_printer_exit(r.p, &c);
	openat_call(&r, NOPID, NOPID, T0 + 5, -100, "/nonexistent-scry", 0200000 | 0100, 0700, 4);
	openat_call(&r, NOPID, NOPID, T0 + 6, 4, "sub/x", 0100, 0644, 5);
	simple(&r, "close", NOPID, NOPID, T0 + 7, 4, 0);
	c = entry("pipe2", NOPID, NOPID, T0 + 8);
	in_ptr(&c, 0, BUFPTR);
	in_int(&c, 1, 0);
	trace_printer_entry(r.p, &c);
	c = exit_of("pipe2", NOPID, NOPID, T0 + 9, 0);
	out_bytes(&c, 0, fds, sizeof(fds), 2);
	trace_printer_exit(r.p, &c);
	/* execve closes the close-on-exec fd 3, not 10 */
	c = entry("execve", NOPID, NOPID, T0 + 10);
	in_str(&c, 0, "/bin/true");
	in_ptr(&c, 1, 0);
	in_ptr(&c, 2, 0);
	trace_printer_entry(r.p, &c);
	c = exit_of("execve", NOPID, NOPID, T0 + 11, -2);
	trace_printer_exit(r.p, &c);
	simple(&r, "close", NOPID, NOPID, T0 + 12, 3, 0);
	c = exit_of("execve", NOPID, NOPID, T0 + 13, 0);     /* a successful one */
	trace_printer_exit(r.p, &c);
	simple(&r, "close", NOPID, NOPID, T0 + 14, 3, -9);
	simple(&r, "close", NOPID, NOPID, T0 + 15, 10, 0);
	expect(&r,
	       "openat(AT_FDCWD, \"/nonexistent-scry/f\", O_WRONLY|O_CREAT|O_CLOEXEC, 0600) = 3</nonexistent-scry/f>\n"
	       "write(3</nonexistent-scry/f>, \"hi\", 2)  = 2\n"
	       "dup2(3</nonexistent-scry/f>, 10)        = 10</nonexistent-scry/f>\n"
	       "openat(AT_FDCWD, \"/nonexistent-scry\", O_RDONLY|O_CREAT|O_DIRECTORY, 0700) = 4</nonexistent-scry>\n"
	       "openat(4</nonexistent-scry>, \"sub/x\", O_RDONLY|O_CREAT, 0644) = 5</nonexistent-scry/sub/x>\n"
	       "close(4</nonexistent-scry>)             = 0\n"
	       "pipe2([6, 7], 0)                        = 0\n"
	       "execve(\"/bin/true\", NULL, NULL)         = -1 ENOENT (No such file or directory)\n"
	       "close(3</nonexistent-scry/f>)           = 0\n"
	       "<... execve resumed>)                   = 0\n"
	       "close(3)                                = -1 EBADF (Bad file descriptor)\n"
	       "close(10</nonexistent-scry/f>)          = 0\n");
}

/* fdtrack on its own, with a fake /proc */
static void test_fdtrack(void **state)
{
	char root[] = "/tmp/scry-fdtrack-XXXXXX", path[256];
	struct fdtrack t;
	struct trace_call c;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/777", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/777/fd", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/777/fd/5", root);
	assert_int_equal(symlink("socket:[4242]", path), 0);
	snprintf(path, sizeof(path), "%s/777/cwd", root);
	assert_int_equal(symlink("/nonexistent-cwd", path), 0);

	fdtrack_init(&t);
	t.proc_root = root;
	/* no call seen: /proc's link */
	assert_string_equal(fdtrack_path(&t, 777, 5), "socket:[4242]");
	assert_null(fdtrack_path(&t, 777, 6));
	/* openat relative to the cwd */
	c = entry("openat", 777, 777, T0);
	c.have_exit = true;
	c.ret = 6;
	in_int(&c, 0, -100);
	in_str(&c, 1, "rel/file");
	in_int(&c, 2, 0);
	fdtrack_apply(&t, &c, c.in);
	assert_string_equal(fdtrack_path(&t, 777, 6), "/nonexistent-cwd/rel/file");
	/* a child inherits the table; the parent's later changes are its own */
	fdtrack_fork(&t, 777, 778);
	assert_string_equal(fdtrack_path(&t, 778, 6), "/nonexistent-cwd/rel/file");
	c = entry("close", 777, 777, T0);
	c.have_exit = true;
	in_int(&c, 0, 6);
	fdtrack_apply(&t, &c, c.in);
	assert_null(fdtrack_path(&t, 777, 6));
	assert_string_equal(fdtrack_path(&t, 778, 6), "/nonexistent-cwd/rel/file");
	fdtrack_drop(&t, 778);
	assert_null(fdtrack_path(&t, 778, 6));
	/* a huge fd is not kept; negative fds have no path */
	fdtrack_set(&t, 777, 1 << 20, "/x", false);
	assert_null(fdtrack_path(&t, 777, 1 << 20));
	assert_null(fdtrack_path(&t, 777, -1));
	fdtrack_free(&t);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* ---- JSON ---- */

static void json(struct trace_opts *o)
{
	o->json = true;
}

/* A small JSON checker: one value per line, objects, arrays, strings with escapes,
 * numbers, true/false/null; no trailing bytes. */
static const char *jvalue(const char *s);

static const char *jws(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static const char *jstring(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		unsigned char c = (unsigned char)*s;

		if (!c || c < 0x20)
			return NULL;
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 5;
				continue;
			}
			if (!*s || !strchr("\"\\/bfnrt", *s))
				return NULL;
		}
		s++;
	}
	return s + 1;
}

static const char *jnumber(const char *s)
{
	const char *b;

	if (*s == '-')
		s++;
	b = s;
	while (*s >= '0' && *s <= '9')
		s++;
	if (s == b || (b[0] == '0' && s - b > 1))
		return NULL;
	if (*s == '.') {
		b = ++s;
		while (*s >= '0' && *s <= '9')
			s++;
		if (s == b)
			return NULL;
	}
	return s;
}

static const char *jvalue(const char *s)
{
	s = jws(s);
	if (*s == '"')
		return jstring(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = jws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				if (!(s = jstring(jws(s))))
					return NULL;
				s = jws(s);
				if (*s++ != ':')
					return NULL;
			}
			if (!(s = jvalue(s)))
				return NULL;
			s = jws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (!strncmp(s, "null", 4))
		return s + 4;
	return jnumber(s);
}

static void assert_json_lines(const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n'), *end;

		assert_non_null(nl);
		end = jvalue(text);
		assert_true(end == nl);
		text = nl + 1;
	}
}

static void test_json(void **state)
{
	struct run r;
	struct trace_call c;
	char *got;

	start(&r, json);
	trace_printer_task(r.p, 100, 100, 101);
	read_in(&r, 100, 101, T0 + 5, 3, 8);
	openat_call(&r, 100, 100, T0 + 1000, -100, "/tmp/a\"b\\c\n\001\377é", 0100, 0644, -2);
	read_out(&r, 100, 101, T0 + 20000, "x\ty", 3);
	trace_printer_signal(r.p, 100, 100, T0 + 30000, 17, 1, 0);
	c = entry("close", 100, 101, T0 + 40000);
	in_int(&c, 0, 3);
	trace_printer_entry(r.p, &c);
	simple(&r, "exit_group", 100, 100, T0 + 50000, 3, 0);
	trace_printer_exited(r.p, 100, T0 + 60000, 3 << 8);
	got = finish(&r);
	assert_string_equal(got,
		"{\"event\":\"syscall\",\"ts\":1700000000.000001000,\"pid\":100,\"tid\":100,\"syscall\":\"openat\","
		"\"args\":[\"AT_FDCWD\",\"\\\"/tmp/a\\\\\\\"b\\\\\\\\c\\\\n\\\\1\\\\377\\\\303\\\\251\\\"\",\"O_RDONLY|O_CREAT\",\"0644\"],"
		"\"ret\":-2,\"error\":\"ENOENT\",\"duration_ns\":12000}\n"
		"{\"event\":\"syscall\",\"ts\":1700000000.000000005,\"pid\":100,\"tid\":101,\"syscall\":\"read\","
		"\"args\":[\"3\",\"\\\"x\\\\ty\\\"\",\"8\"],\"ret\":3,\"error\":null,\"duration_ns\":19995}\n"
		"{\"event\":\"signal\",\"ts\":1700000000.000030000,\"pid\":100,\"tid\":100,\"signal\":\"SIGCHLD\","
		"\"signo\":17,\"si_code\":\"CLD_EXITED\",\"code\":1,\"si_errno\":null}\n"
		"{\"event\":\"syscall\",\"ts\":1700000000.000050000,\"pid\":100,\"tid\":100,\"syscall\":\"exit_group\","
		"\"args\":[\"3\"],\"ret\":null,\"error\":null,\"unfinished\":true}\n"
		"{\"event\":\"syscall\",\"ts\":1700000000.000040000,\"pid\":100,\"tid\":101,\"syscall\":\"close\","
		"\"args\":[\"3\"],\"ret\":null,\"error\":null,\"unfinished\":true}\n"
		"{\"event\":\"exit\",\"ts\":1700000000.000060000,\"pid\":100,\"tid\":101,\"exit_code\":3}\n"
		"{\"event\":\"exit\",\"ts\":1700000000.000060000,\"pid\":100,\"tid\":100,\"exit_code\":3}\n");
	assert_json_lines(got);
	free(got);
}

static void test_json_escaping(void **state)
{
	struct outbuf ob;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char in[] = "a\"\\\n\t\r\b\f\001\037 \x7f" "\xc3\xa9" "\xe2\x82\xac" "\xf0\x9f\x98\x80"
				 "\xff" "\xc0\xaf" "\xed\xa0\x80" "\xe2\x82";

	assert_non_null(f);
	assert_int_equal(ob_init(&ob, f), 0);
	trace_json_str(&ob, in, sizeof(in) - 1);
	ob_free(&ob);
	fclose(f);
	assert_string_equal(buf, "\"a\\\"\\\\\\n\\t\\r\\b\\f\\u0001\\u001f \x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				 "\\u00ff\\u00c0\\u00af\\u00ed\\u00a0\\u0080\\u00e2\\u0082\"");
	assert_non_null(jvalue(buf));
	free(buf);
}

/* the task and fd maps: many keys, deletions in a scrambled order (backward shift) */
static void test_imap(void **state)
{
	struct imap m = { 0 };
	enum { N = 5000 };
	static char vals[N + 1];

	for (int k = 1; k <= N; k++)
		assert_int_equal(imap_put(&m, k * 7, &vals[k]), 0);
	assert_int_equal(m.n, N);
	assert_int_equal(imap_put(&m, 7, &vals[2]), 0);     /* replace */
	assert_int_equal(m.n, N);
	assert_ptr_equal(imap_get(&m, 7), &vals[2]);
	for (int i = 0; i < N; i++) {
		int k = i * 1237 % N + 1;      /* 1237 prime to N: a permutation of 1..N */

		if (k % 2)
			assert_non_null(imap_del(&m, k * 7));
	}
	for (int k = 1; k <= N; k++) {
		void *v = imap_get(&m, k * 7);

		if (k % 2)
			assert_null(v);
		else
			assert_ptr_equal(v, &vals[k]);
	}
	assert_int_equal(m.n, N / 2);
	assert_null(imap_get(&m, 3));
	assert_null(imap_del(&m, 3));
	assert_int_equal(imap_put(&m, 0, vals), -1);        /* keys are > 0 */
	imap_free(&m);
	assert_null(imap_get(&m, 14));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_task),
		cmocka_unit_test(test_threads_interleaved),
		cmocka_unit_test(test_thread_killed_in_call),
		cmocka_unit_test(test_inout_args),
		cmocka_unit_test(test_outfile_prefix),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_status_filter),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_detached_and_lost),
		cmocka_unit_test(test_exec_in_thread),
		cmocka_unit_test(test_decode_fds),
		cmocka_unit_test(test_fdtrack),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_imap),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
