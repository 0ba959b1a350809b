/* printer_test_util.h — what the scry trace printer tests share: a table of hand-built
 * syscalls (names, numbers, argument specs), calls built from them (entries, exits, their
 * arguments), and a printer writing into memory with expect() on what it printed.  Include
 * after <cmocka.h>. */
#ifndef SCRY_PRINTER_TEST_UTIL_H
#define SCRY_PRINTER_TEST_UTIL_H

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
	struct scry_syscall_arg args[6];   /* names from argn; sizes from argsz (0: 8 bytes) */
	uint8_t argsz[6];                  /* the kernel's C sizes, where a test needs them */
};

static struct sc scs[] = {
	{ .name = "read", .nr = 0, .spec = "fd, obuf(ret), uint", .argn = { "fd", "buf", "count" }, .nargs = 3,
	  .argsz = { 4, 8, 8 } },
	{ .name = "write", .nr = 1, .spec = "fd, ibuf(count), uint", .argn = { "fd", "buf", "count" }, .nargs = 3 },
	{ .name = "close", .nr = 3, .spec = "fd", .argn = { "fd" }, .nargs = 1, .argsz = { 4 } },
	{ .name = "dup2", .nr = 33, .spec = "fd, fd", .argn = { "oldfd", "newfd" }, .nargs = 2 },
	{ .name = "getpid", .nr = 39, .spec = NULL, .argn = { NULL }, .nargs = 0 },
	{ .name = "execve", .nr = 59, .spec = "path, strv, strv", .argn = { "filename", "argv", "envp" }, .nargs = 3 },
	{ .name = "exit", .nr = 60, .spec = "int", .argn = { "error_code" }, .nargs = 1 },
	{ .name = "exit_group", .nr = 231, .spec = "int", .argn = { "error_code" }, .nargs = 1, .argsz = { 4 } },
	{ .name = "openat", .nr = 257, .spec = "dirfd, path, flags:open, mode", .argn = { "dfd", "filename", "flags", "mode" }, .nargs = 4,
	  .argsz = { 4, 8, 4, 2 } },
	{ .name = "select", .nr = 23, .spec = "int, iofdset(n), iofdset(n), iofdset(n), iostruct:timeval",
	  .argn = { "n", "inp", "outp", "exp", "tvp" }, .nargs = 5 },
	{ .name = "recvmsg", .nr = 47, .spec = "fd, iomsghdr, flags:msg", .argn = { "fd", "msg", "flags" }, .nargs = 3 },
	{ .name = "pipe2", .nr = 293, .spec = "oarray:int(2), int", .argn = { "fildes", "flags" }, .nargs = 2 },   /* flags as a number here */
};

static inline int setup(void **state)
{
	char err[128];

	setenv("TZ", "UTC", 1);
	tzset();
	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++)
		for (unsigned k = 0; k < scs[i].nargs; k++)
			scs[i].args[k] = (struct scry_syscall_arg){ .name = scs[i].argn[k],
				.size = scs[i].argsz[k] ? scs[i].argsz[k] : 8, .is_signed = true };
	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++)
		if (scs[i].nargs && scry_argspec_parse(scs[i].spec, scs[i].argn, scs[i].nargs, scs[i].specs,
						       err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", scs[i].name, err);
			return -1;
		}
	return 0;
}

static inline const struct sc *sc_of(const char *name)
{
	for (size_t i = 0; i < sizeof(scs) / sizeof(scs[0]); i++)
		if (!strcmp(scs[i].name, name))
			return &scs[i];
	fail_msg("no syscall %s in the test table", name);
	return NULL;
}

/* An entry: arguments set with the helpers below. */
static inline struct trace_call entry(const char *name, int pid, int tid, int64_t ts)
{
	const struct sc *s = sc_of(name);
	struct trace_call c;

	memset(&c, 0, sizeof(c));
	c.name = s->name;
	c.nr = s->nr;
	c.nargs = s->nargs;
	c.specs = s->specs;
	c.args = s->args;
	c.pid = pid;
	c.tid = tid;
	c.ts_entry = ts;
	c.have_entry = true;
	return c;
}

/* An exit: only out[] and ret, as the live consumer hands them. */
static inline struct trace_call exit_of(const char *name, int pid, int tid, int64_t ts, int64_t ret)
{
	struct trace_call c = entry(name, pid, tid, 0);

	c.have_entry = false;
	c.ts_entry = 0;
	c.have_exit = true;
	c.ts_exit = ts;
	c.ret = ret;
	return c;
}

static inline void in_int(struct trace_call *c, unsigned i, int64_t v)
{
	c->in[i].have = true;
	c->in[i].v = (uint64_t)v;
}

static inline void in_ptr(struct trace_call *c, unsigned i, uint64_t v)
{
	c->in[i].have = true;
	c->in[i].v = v;
	c->in[i].have_ptr = true;
}

static inline void in_str(struct trace_call *c, unsigned i, const char *s)
{
	c->in[i].have = true;
	c->in[i].v = BUFPTR;
	c->in[i].have_ptr = true;
	c->in[i].p = (const uint8_t *)s;
	c->in[i].len = (uint32_t)strlen(s);
}

static inline void out_bytes(struct trace_call *c, unsigned i, const void *p, size_t n, uint32_t count)
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

static inline void start(struct run *r, void (*tweak)(struct trace_opts *))
{
	memset(r, 0, sizeof(*r));
	trace_opts_init(&r->o);
	r->o.follow = true;           /* the printer tests model strace -f */
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
static inline char *finish(struct run *r)
{
	assert_int_equal(trace_printer_finish(r->p), 0);
	trace_printer_free(r->p);
	fclose(r->f);
	trace_summary_free(r->sum);
	return r->buf;
}

static inline void expect(struct run *r, const char *want)
{
	char *got = finish(r);

	assert_string_equal(got, want);
	free(got);
}

/* read(fd, buf, count) entering */
/* A signal as live.c hands it over: signo, errno, code, then the union's first four
 * 8-byte words (u: NULL for zeros). */
static inline void sig_of(uint8_t si[48], int signo, int code, int err, const uint64_t *u)
{
	int32_t w[3] = { signo, err, code };

	memset(si, 0, 48);
	memcpy(si, w, sizeof(w));
	if (u)
		memcpy(si + 16, u, 32);
}

static inline void signal_at(struct run *r, int pid, int tid, int64_t ts, int signo, int code, int err,
			     const uint64_t *u)
{
	uint8_t si[48];

	sig_of(si, signo, code, err, u);
	trace_printer_signal(r->p, pid, tid, ts, si);
}

static inline void read_in(struct run *r, int pid, int tid, int64_t ts, int fd, int count)
{
	struct trace_call c = entry("read", pid, tid, ts);

	in_int(&c, 0, fd);
	in_ptr(&c, 1, BUFPTR);
	in_int(&c, 2, count);
	trace_printer_entry(r->p, &c);
}

static inline void read_out(struct run *r, int pid, int tid, int64_t ts, const char *data, int64_t ret)
{
	struct trace_call c = exit_of("read", pid, tid, ts, ret);

	if (ret >= 0)
		out_bytes(&c, 1, data, (size_t)ret, 0);
	trace_printer_exit(r->p, &c);
}

static inline void simple(struct run *r, const char *name, int pid, int tid, int64_t ts, int64_t arg, int64_t ret)
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

static inline void openat_call(struct run *r, int pid, int tid, int64_t ts, int dirfd, const char *path,
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


#endif
