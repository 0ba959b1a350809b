/* test_trace_printer.c — `scry trace` output (src/trace/printer.c): strace's lines for
 * hand-built calls, several of them copied from strace 6.1 runs of a threaded program (only
 * the pids differ): tasks and threads interleaved, in/out arguments, -o, times, -z/-Z,
 * signals, selection, counting, lost and detached calls, exec in a thread */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "printer_test_util.h"

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

static void outfile_nofollow(struct trace_opts *o)
{
	o->outfile = "trace.out";
	o->follow = false;
	o->cmd = (char *[]){ "true", NULL };
}

/* strace -o FILE without -f: no prefix; a new task (-f) is announced only on stderr output */
static void test_outfile_no_follow(void **state)
{
	struct run r;

	start(&r, outfile_nofollow);
	read_in(&r, 8927, 8927, T0 + 10, 0, 0);
	read_out(&r, 8927, 8927, T0 + 20, "", 0);
	expect(&r, "read(0, \"\", 0)                          = 0\n");

	start(&r, NULL);
	r.p->announce = true;         /* as when the lines go to stderr */
	read_in(&r, 100, 100, T0, 0, 4);
	trace_printer_task(r.p, 100, 101, 101);
	read_out(&r, 100, 100, T0 + 20, "ab", 2);
	simple(&r, "getpid", 100, 100, T0 + 30, 0, 100);
	expect(&r,
	       "read(0, scry: Process 101 attached\n"
	       "\"ab\", 4) = 2\n"          /* strace's column runs on across its message */
	       "[pid   100] getpid()                    = 100\n");
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
	/* the union's words: SIGCHLD's pid 7, uid 1000, status 3, utime 5, stime 6; a fault's
	 * address; a queued value 42 from pid 9 */
	static const uint64_t chld[4] = { 7 | 1000ULL << 32, 3, 5, 6 }, fault[4] = { 0x10 },
			      queued[4] = { 9, 42 }, kill_[4] = { 9 | 0ULL << 32 };
	struct run r;
	struct trace_call c;

	start(&r, NULL);
	signal_at(&r, 100, 100, T0, 17, 1, 0, chld);
	signal_at(&r, 100, 100, T0, 17, 2, 0, (const uint64_t[4]){ 7, 15 });
	signal_at(&r, 100, 100, T0, 11, 1, 0, fault);
	signal_at(&r, 100, 100, T0, 11, 0x80, 0, NULL);
	signal_at(&r, 100, 100, T0, 10, 0, 0, kill_);
	signal_at(&r, 100, 100, T0, 10, -1, 0, queued);
	signal_at(&r, 100, 100, T0, 15, -6, 1, kill_);
	signal_at(&r, 100, 100, T0, 10, 123, 0, NULL);
	signal_at(&r, 100, 100, T0, 9, 0, 0, kill_);      /* SIGKILL: strace never shows it */
	/* a signal while a call is open: the call is resumed later */
	read_in(&r, 100, 100, T0 + 10, 0, 16);
	signal_at(&r, 100, 100, T0 + 20, 2, 0x80, 0, NULL);
	c = exit_of("read", 100, 100, T0 + 30, -4);
	trace_printer_exit(r.p, &c);
	expect(&r,
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=1000, si_status=3, si_utime=5, si_stime=6} ---\n"
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=7, si_uid=0, si_status=SIGTERM, si_utime=0, si_stime=0} ---\n"
	       "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=0x10} ---\n"
	       "--- SIGSEGV {si_signo=SIGSEGV, si_code=SI_KERNEL, si_addr=NULL} ---\n"
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=9, si_uid=0} ---\n"
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=9, si_uid=0, si_int=42, si_ptr=0x2a} ---\n"
	       "--- SIGTERM {si_signo=SIGTERM, si_code=SI_TKILL, si_errno=EPERM, si_pid=9, si_uid=0} ---\n"
	       "--- SIGUSR1 {si_signo=SIGUSR1, si_code=0x7b} ---\n"
	       "read(0,  <unfinished ...>\n"
	       "--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---\n"
	       "<... read resumed>0x7ffd1000, 16)       = -1 EINTR (Interrupted system call)\n");
}

/* An ignored signal (never delivered) shows after the call it arrived in returns, as
 * strace shows it; to a task not seen yet (scry, the command before its exec) never. */
static void test_signal_ignored(void **state)
{
	static const uint64_t chld[4] = { 7, 0 };
	struct run r;
	struct trace_call c;
	uint8_t si[48];

	start(&r, NULL);
	sig_of(si, 17, 1, 0, chld);
	trace_printer_signal_ignored(r.p, 555, 555, T0, si);       /* unknown task */
	read_in(&r, 100, 100, T0 + 10, 0, 16);
	trace_printer_signal_ignored(r.p, 100, 100, T0 + 20, si);  /* during read */
	c = exit_of("read", 100, 100, T0 + 30, 0);
	trace_printer_exit(r.p, &c);
	trace_printer_signal_ignored(r.p, 100, 100, T0 + 40, si);  /* between calls: now */
	expect(&r,
	       "read(0, \"\", 16)                         = 0\n"
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n"
	       "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---\n");
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
	signal_at(&r, 100, 100, T0, 17, 1, 0, NULL);
	signal_at(&r, 100, 100, T0, 15, 0, 0, NULL);
	expect(&r, "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=0, si_uid=0} ---\n");

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
	signal_at(&r, 100, 100, T0, 17, 1, 0, NULL);
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
		cmocka_unit_test(test_outfile_no_follow),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_signal_ignored),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_counting),
		cmocka_unit_test(test_detached_and_lost),
		cmocka_unit_test(test_exec_in_thread),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
