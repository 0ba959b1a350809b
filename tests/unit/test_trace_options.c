/* test_trace_options.c — `scry trace` options (src/trace/options.c, src/cli/trace_options.c) and strace's syscall
 * classes (src/trace/classes.c), with the generated x86_64 syscall table as the names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "catalog/syscall_table.h"
#include "trace/classes.h"
#include "cli/trace_options.h"

/* strace's spellings of the syscalls the kernel names differently */
static const char *const aliases[][2] = {
	{ "stat", "newstat" }, { "fstat", "newfstat" }, { "lstat", "newlstat" },
	{ "uname", "newuname" }, { "sendfile", "sendfile64" }, { "umount2", "umount" },
};

static int lookup(void *ctx, const char *name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i][0]))
			name = aliases[i][1];
	for (size_t i = 0; i < scry_syscall_table_len; i++)
		if (!strcmp(scry_syscall_table[i].name, name))
			return scry_syscall_table[i].nr;
	return -1;
}

static const char **all_names;
static struct trace_names names;

static int setup(void **state)
{
	size_t n = 0;

	all_names = calloc(scry_syscall_table_len + 6, sizeof(*all_names));
	for (size_t i = 0; i < scry_syscall_table_len; i++)
		all_names[n++] = scry_syscall_table[i].name;
	for (size_t i = 0; i < 6; i++)
		all_names[n++] = aliases[i][0];
	names.lookup = lookup;
	names.names = all_names;
	names.nnames = n;
	return 0;
}

static int teardown(void **state)
{
	free(all_names);
	return 0;
}

static int nr(const char *name)
{
	int v = lookup(NULL, name);

	assert_true(v >= 0);
	return v;
}

/* Parse a NULL-terminated list of arguments (after "trace"); o->cmd points into argv,
 * which stays valid until the next call. */
static struct cli_track track;

static int parse(struct trace_opts *o, char *err, ...)
{
	static char *argv[32] = { "trace" };
	int argc = 1, rc;
	va_list ap;

	va_start(ap, err);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	err[0] = '\0';
	cli_track_free(&track);
	rc = trace_opts_parse(o, &track, argc, argv, &names, err, 256);
	return rc;
}

static void test_defaults(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "ls", "-l", "/etc", NULL), 0);
	assert_false(o.follow);                 /* strace: children only with -f */
	assert_non_null(o.cmd);
	assert_string_equal(o.cmd[0], "ls");
	assert_string_equal(o.cmd[1], "-l");    /* options stop at the command */
	assert_string_equal(o.cmd[2], "/etc");
	assert_null(o.cmd[3]);
	assert_true(trace_opts_selects_all(&o));
	assert_true(trace_opts_selected(&o, 0));
	assert_true(trace_opts_selected(&o, 5000));
	assert_int_equal(o.status, TRACE_ST_ALL);
	assert_int_equal(o.strsize, 32);
	assert_int_equal(o.count, TRACE_COUNT_NONE);
	assert_int_equal(o.sortby, TRACE_SORT_TIME);
	assert_int_equal(o.tstamp, 0);
	assert_false(o.json);
	assert_null(o.outfile);
	assert_string_equal(o.warn, "");
	trace_opts_free(&o);

	assert_int_equal(parse(&o, err, "--", "make", "-j2", NULL), 0);
	assert_string_equal(o.cmd[0], "make");
	assert_string_equal(o.cmd[1], "-j2");
	trace_opts_free(&o);
}

static void test_trace_sets(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "-e", "trace=open,close", "ls", NULL), 0);
	assert_true(o.trace_given);
	assert_true(trace_opts_selected(&o, nr("open")));
	assert_true(trace_opts_selected(&o, nr("close")));
	assert_false(trace_opts_selected(&o, nr("read")));
	assert_false(trace_opts_selected(&o, 5000));
	assert_false(trace_opts_selects_all(&o));
	trace_opts_free(&o);

	/* bare -e NAME means trace=; strace's spellings map to the kernel's names */
	assert_int_equal(parse(&o, err, "-e", "stat,fstat,uname", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("newstat")));
	assert_true(trace_opts_selected(&o, nr("newfstat")));
	assert_true(trace_opts_selected(&o, nr("newuname")));
	assert_false(trace_opts_selected(&o, nr("newlstat")));
	trace_opts_free(&o);

	/* '!' inverts the whole set; the last -e trace= wins, as in strace */
	assert_int_equal(parse(&o, err, "-e", "trace=!open,close", "ls", NULL), 0);
	assert_false(trace_opts_selected(&o, nr("open")));
	assert_false(trace_opts_selected(&o, nr("close")));
	assert_true(trace_opts_selected(&o, nr("read")));
	assert_true(trace_opts_selected(&o, 5000));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=openat", "-e", "trace=close", "ls", NULL), 0);
	assert_false(trace_opts_selected(&o, nr("openat")));
	assert_true(trace_opts_selected(&o, nr("close")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "--trace=none", "ls", NULL), 0);
	for (int i = 0; i < TRACE_NR_MAX; i++)
		assert_false(trace_opts_selected(&o, i));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "t=none", "-e", "trace=all", "ls", NULL), 0);
	assert_true(trace_opts_selects_all(&o));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=!all", "ls", NULL), 0);
	assert_false(trace_opts_selected(&o, 0));
	trace_opts_free(&o);

	/* classes, with and without the '%', and mixed with names */
	assert_int_equal(parse(&o, err, "-e", "trace=%file,read", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("openat")));
	assert_true(trace_opts_selected(&o, nr("newstat")));
	assert_true(trace_opts_selected(&o, nr("execve")));
	assert_true(trace_opts_selected(&o, nr("read")));
	assert_false(trace_opts_selected(&o, nr("write")));
	assert_false(trace_opts_selected(&o, nr("close")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=network", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("connect")));
	assert_false(trace_opts_selected(&o, nr("openat")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=%%stat", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("newstat")));
	assert_true(trace_opts_selected(&o, nr("newlstat")));
	assert_true(trace_opts_selected(&o, nr("newfstat")));
	assert_true(trace_opts_selected(&o, nr("newfstatat")));
	assert_true(trace_opts_selected(&o, nr("statx")));
	assert_false(trace_opts_selected(&o, nr("statfs")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=!%desc", "ls", NULL), 0);
	assert_false(trace_opts_selected(&o, nr("read")));
	assert_true(trace_opts_selected(&o, nr("kill")));
	trace_opts_free(&o);

	/* /regex and ?name */
	assert_int_equal(parse(&o, err, "-e", "trace=/^open", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("open")));
	assert_true(trace_opts_selected(&o, nr("openat")));
	assert_true(trace_opts_selected(&o, nr("openat2")));
	assert_false(trace_opts_selected(&o, nr("close")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=?nosuchcall,close,?/^zzz", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("close")));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=close@64", "ls", NULL), 0);
	assert_true(trace_opts_selected(&o, nr("close")));
	trace_opts_free(&o);
}

static void test_trace_errors(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "-e", "trace=opn", "ls", NULL), -1);
	assert_string_equal(err, "unknown syscall 'opn'; did you mean open, iopl, bpf?");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=openatt,close", "ls", NULL), -1);
	assert_string_equal(err, "unknown syscall 'openatt'; did you mean openat, openat2?");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=xyzzyplugh", "ls", NULL), -1);
	assert_string_equal(err, "unknown syscall 'xyzzyplugh' (scry list syscalls shows them)");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=%fil", "ls", NULL), -1);
	assert_string_equal(err, "unknown syscall class '%fil' (classes: %file %process %network %net %signal "
				 "%ipc %desc %memory %creds %clock %pure %stat %lstat %fstat %%stat %statfs "
				 "%fstatfs %%statfs)");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=", "ls", NULL), -1);
	assert_string_equal(err, "empty syscall set in trace=");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=open,,close", "ls", NULL), -1);
	assert_string_equal(err, "empty syscall name");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=open@32", "ls", NULL), -1);
	assert_string_equal(err, "'open@32': scry traces the 64-bit personality only");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=/^zzz", "ls", NULL), -1);
	assert_string_equal(err, "no syscall matches '/^zzz'");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "trace=/(", "ls", NULL), -1);
	assert_non_null(strstr(err, "invalid regular expression '/('"));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "raw=all", "ls", NULL), -1);
	assert_string_equal(err, "-e raw= is not supported by scry trace (supported: trace=, status=, signal=, quiet=, "
				 "read=, write=)");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "bogus=1", "ls", NULL), -1);
	assert_string_equal(err, "invalid -e qualifier 'bogus' (expected trace=, status=, signal=, quiet=, read=, write=)");
	trace_opts_free(&o);
}

static void test_status_and_signals(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "-e", "status=failed", "ls", NULL), 0);
	assert_int_equal(o.status, TRACE_ST_FAILED);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "--status=successful,unfinished", "ls", NULL), 0);
	assert_int_equal(o.status, TRACE_ST_SUCCESSFUL | TRACE_ST_UNFINISHED);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "status=!failed", "ls", NULL), 0);
	assert_int_equal(o.status, TRACE_ST_ALL & ~TRACE_ST_FAILED);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-Z", "ls", NULL), 0);
	assert_int_equal(o.status, TRACE_ST_FAILED);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-z", "ls", NULL), 0);
	assert_int_equal(o.status, TRACE_ST_SUCCESSFUL);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-z", "-Z", "ls", NULL), -1);
	assert_string_equal(err, "-z (successful calls only) and -Z (failed calls only) exclude each other");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "status=bad", "ls", NULL), -1);
	assert_string_equal(err, "invalid status 'bad' (expected successful, failed, unfinished, unavailable, "
				 "detached, all, none)");
	trace_opts_free(&o);

	assert_int_equal(parse(&o, err, "-e", "signal=!SIGIO,chld", "ls", NULL), 0);
	assert_int_equal(o.sigset, ~((1ULL << (29 - 1)) | (1ULL << (17 - 1))));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "signals=SIGTERM,9", "ls", NULL), 0);
	assert_int_equal(o.sigset, (1ULL << (15 - 1)) | (1ULL << (9 - 1)));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "signal=SIGNOPE", "ls", NULL), -1);
	assert_string_equal(err, "invalid signal 'SIGNOPE' (expected signal names or numbers 1-64, all, none)");
	trace_opts_free(&o);
}

/* strace's other options (issue 27): values as parsed. */
static void test_strace_options(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "-xx", "-X", "verbose", "-n", "-Y", "-A", "-o", "f", "-ff", "-P", "/a",
			       "-P", "b", "-E", "A=1", "-E", "B", "-u", "nobody", "-D", "-DD", "-I", "never", "-b",
			       "execve", "--seccomp-bpf", "ls", NULL), 0);
	assert_int_equal(o.xflag, 2);
	assert_int_equal(o.xlat, TRACE_XLAT_VERBOSE);
	assert_true(o.show_nr && o.decode_comm && o.append && o.per_pid_files && o.follow);
	assert_true(o.detach_execve && o.seccomp);
	assert_int_equal(o.npaths, 2);
	assert_string_equal(o.paths[1], "b");
	assert_int_equal(o.nenv, 2);
	assert_string_equal(o.env[0], "A=1");
	assert_string_equal(o.user, "nobody");
	assert_int_equal(o.detach_pgrp, 3);
	assert_int_equal(o.interruptible, 3);
	trace_opts_free(&o);
	/* -ff without -o is -f; --strings-in-hex=non-ascii is -x */
	assert_int_equal(parse(&o, err, "-ff", "--strings-in-hex=non-ascii", "ls", NULL), 0);
	assert_true(o.follow && !o.per_pid_files);
	assert_int_equal(o.xflag, 1);
	trace_opts_free(&o);
	/* -q, -qq, -qqq and -e quiet= */
	assert_int_equal(parse(&o, err, "-qq", "ls", NULL), 0);
	assert_int_equal(o.quiet, TRACE_Q_ATTACH | TRACE_Q_PERSONALITY | TRACE_Q_EXIT);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "quiet=!exit", "ls", NULL), 0);
	assert_int_equal(o.quiet, TRACE_Q_ALL & ~TRACE_Q_EXIT);
	trace_opts_free(&o);
	/* -e read=/write= sets */
	assert_int_equal(parse(&o, err, "-e", "read=3,1000", "-e", "write=!0", "ls", NULL), 0);
	assert_true(o.dumps);
	assert_true(trace_opts_dumped(&o, 3, false) && trace_opts_dumped(&o, 1000, false));
	assert_false(trace_opts_dumped(&o, 4, false) || trace_opts_dumped(&o, 3000, false));
	assert_false(trace_opts_dumped(&o, 0, true));
	assert_true(trace_opts_dumped(&o, 1, true) && trace_opts_dumped(&o, 1023, true));
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-e", "read=none", "ls", NULL), 0);
	assert_false(o.dumps);
	trace_opts_free(&o);
	/* inject=/fault=: refused in one line, naming what error injection needs */
	assert_int_equal(parse(&o, err, "-e", "fault=openat", "ls", NULL), -1);
	assert_non_null(strstr(err, "-e fault= is not supported"));
	assert_non_null(strstr(err, "bpf_override_return"));
	assert_null(strchr(err, '\n'));
	trace_opts_free(&o);
}

static void test_output_options(void **state)
{
	struct trace_opts o;
	char err[256];

	assert_int_equal(parse(&o, err, "-f", "-T", "-tt", "-y", "-v", "-s", "128", "-o", "/tmp/out",
			       "--snaplen", "4K", "-p", "12,34", "-p", "56", NULL), 0);
	assert_true(o.follow);
	assert_true(o.durations);
	assert_int_equal(o.tstamp, 2);
	assert_true(o.decode_fds);
	assert_true(o.verbose);
	assert_int_equal(o.strsize, 128);
	assert_string_equal(o.outfile, "/tmp/out");
	assert_int_equal(o.snaplen, 4096);
	assert_int_equal(o.npids, 3);
	assert_int_equal(o.pids[0], 12);
	assert_int_equal(o.pids[2], 56);
	assert_null(o.cmd);
	trace_opts_free(&o);

	assert_int_equal(parse(&o, err, "-ttt", "-r", "--no-follow", "--json", "-a", NULL), 0);
	assert_int_equal(o.tstamp, 3);
	assert_true(o.relative);
	assert_false(o.follow);
	assert_true(o.json);
	assert_true(o.all);
	assert_string_equal(o.warn, "-t, -r and -T have no effect with --json (each line has ts and duration_ns)");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-t", "-t", "-t", "-t", "ls", NULL), 0);
	assert_int_equal(o.tstamp, 3);
	trace_opts_free(&o);
	/* clustered short options, also after a parse that stopped inside a cluster */
	assert_int_equal(parse(&o, err, "-Tjy", "ls", NULL), -1);
	assert_string_equal(err, "invalid option '-j' (see scry trace --help)");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-fTtty", "-s64", "ls", NULL), 0);
	assert_true(o.durations);
	assert_int_equal(o.tstamp, 2);
	assert_true(o.decode_fds);
	assert_int_equal(o.strsize, 64);
	trace_opts_free(&o);

	assert_int_equal(parse(&o, err, "-c", "-S", "calls", "-w", "ls", NULL), 0);
	assert_int_equal(o.count, TRACE_COUNT_ONLY);
	assert_int_equal(o.sortby, TRACE_SORT_CALLS);
	assert_true(o.wallclock);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-C", "--summary-sort-by=name", "ls", NULL), 0);
	assert_int_equal(o.count, TRACE_COUNT_ALSO);
	assert_int_equal(o.sortby, TRACE_SORT_NAME);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-c", "-T", "-t", "ls", NULL), 0);
	assert_string_equal(o.warn, "-T has no effect with -c\n-t has no effect with -c");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-S", "errors", "ls", NULL), 0);
	assert_string_equal(o.warn, "-S has no effect without -c or -C");
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-h", NULL), 0);
	assert_true(o.help);
	trace_opts_free(&o);
}

static void test_bad_options(void **state)
{
	static const struct {
		const char *args[6];
		const char *err;
	} cases[] = {
		{ { "-c", "--json", "ls" }, "--json and -c exclude each other (the summary is a table)" },
		{ { "-C", "--json", "ls" }, "--json and -C exclude each other (the summary is a table)" },
		{ { "-a", "-p", "1" }, "-a and -p exclude each other: -a already traces every process" },
		{ { "-a", "--", "ls" }, "a command cannot be combined with -a" },
		{ { "-T" }, "nothing to trace: give a command, -p PID or -a" },
		{ { "-s", "x1", "ls" }, "invalid -s 'x1' (expected a number of bytes)" },
		{ { "-s", "-1", "ls" }, "invalid -s '-1' (expected a number of bytes)" },
		{ { "-p", "12,x" }, "invalid pid list '12,x' (expected PID[,PID...])" },
		{ { "-S", "bogus", "ls" }, "invalid sortby 'bogus' (expected time, avg_time, calls, errors, name, nothing)" },
		{ { "--snaplen", "0", "ls" }, "invalid --snaplen '0' (expected bytes, e.g. 256, 4K, 1M)" },
		{ { "-o", "", "ls" }, "-o needs a file name" },
		{ { "-X", "ls" }, "invalid -X 'ls' (expected raw, abbrev, verbose)" },
		{ { "-e", "read=3,x", "ls" }, "invalid descriptor 'x' in -e read= (expected 0-1023, all, none)" },
		{ { "-e", "quiet=bogus", "ls" }, "invalid quiet 'bogus' (expected attach, exit, path-resolution, "
						 "personality, thread-execve, superseded, all, none)" },
		{ { "-I", "5", "ls" }, "invalid -I '5' (expected 1-4, anywhere, waiting, never, never_tstp)" },
		{ { "-b", "clone", "ls" }, "invalid -b 'clone' (only execve is supported, as strace)" },
		{ { "-E", "A=1", "-p", "1" }, "-E applies to a command scry starts (none given)" },
		{ { "-ff", "-o", "f", "--json", "ls" }, "-ff and --json exclude each other (one JSON stream)" },
		{ { "--decode-pids=pidns", "ls" }, "invalid --decode-pids 'pidns' (expected comm, none; pidns is not "
						   "supported)" },
		{ { "--bogus", "ls" }, "invalid option '--bogus' (see scry trace --help)" },
		{ { "-s" }, "option '-s' needs an argument" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = { "trace" };
		int argc = 1;
		struct trace_opts o;
		char err[256] = "";

		while (argc <= 6 && cases[i].args[argc - 1])
			argv[argc] = (char *)cases[i].args[argc - 1], argc++;
		assert_int_equal(trace_opts_parse(&o, &track, argc, argv, &names, err, sizeof(err)), -1);
		assert_string_equal(err, cases[i].err);
		trace_opts_free(&o);
		cli_track_free(&track);
	}

	/* -p with a command is allowed (strace allows it) */
	{
		struct trace_opts o;
		char err[256];

		assert_int_equal(parse(&o, err, "-p", "12", "--", "ls", NULL), 0);
		assert_int_equal(o.npids, 1);
		assert_string_equal(o.cmd[0], "ls");
		trace_opts_free(&o);
	}
}

/* The spellings the option table (src/cli/optable.c) must keep as getopt's switch had them:
 * counted clusters, -D a flag but --daemonize[=N] a word, prefixes, getopt's own errors
 * named (messages as scry before the table printed them), --help ending the parse. */
static void test_table_spellings(void **state)
{
	static const struct {
		const char *args[4];
		const char *err;
	} bad[] = {
		{ { "--follow=1", "ls" }, "invalid option '-f' (see scry trace --help)" },
		{ { "--help=1" }, "invalid option '-h' (see scry trace --help)" },
		{ { "--json=1", "ls" }, "invalid option '--json=1' (see scry trace --help)" },
		{ { "--outp", "x", "ls" }, "invalid option '--outp' (see scry trace --help)" },
		{ { "-yyQ" }, "invalid option '-Q' (see scry trace --help)" },
		{ { "-Qh" }, "invalid option '-Q' (see scry trace --help)" },
		{ { "-ts" }, "option '-ts' needs an argument" },
		{ { "--pid" }, "option '--pid' needs an argument" },
		{ { "--track-pid" }, "option '--track-pid' needs an argument" },
		{ { "--status=bogus", "ls" }, "invalid status 'bogus' (expected successful, failed, unfinished, "
					      "unavailable, detached, all, none)" },
		{ { "--daemonize" }, "-D applies to a command scry starts (none given)" },
		{ { "-E", "=x", "ls" }, "-E needs VAR=VAL or VAR" },
		{ { "-P", "", "ls" }, "-P needs a path" },
	};
	struct trace_opts o;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[6] = { "trace" };
		int argc = 1;

		while (argc <= 4 && bad[i].args[argc - 1])
			argv[argc] = (char *)bad[i].args[argc - 1], argc++;
		err[0] = '\0';
		assert_int_equal(trace_opts_parse(&o, &track, argc, argv, &names, err, sizeof(err)), -1);
		assert_string_equal(err, bad[i].err);
		trace_opts_free(&o);
		cli_track_free(&track);
	}

	assert_int_equal(parse(&o, err, "-DDD", "-yy", "-xxx", "-tttt", "-qqq", "ls", NULL), 0);
	assert_int_equal(o.detach_pgrp, 3);     /* -D a flag: "DD" is not its argument */
	assert_int_equal(o.decode_fds, 2);
	assert_int_equal(o.xflag, 2);           /* capped at -xx */
	assert_int_equal(o.tstamp, 3);          /* capped at -ttt */
	assert_int_equal(o.quiet, TRACE_Q_ALL);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "--daemonize=2", "--foll", "--strings-in-hex", "ls", NULL), 0);
	assert_int_equal(o.detach_pgrp, 1);
	assert_true(o.follow);                  /* an unambiguous prefix */
	assert_int_equal(o.xflag, 2);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-ff", "-o", "f", "ls", NULL), 0);
	assert_true(o.per_pid_files);
	trace_opts_free(&o);
	assert_int_equal(parse(&o, err, "-ff", "ls", NULL), 0);
	assert_false(o.per_pid_files);          /* -ff without -o is -f */
	assert_true(o.follow);
	trace_opts_free(&o);

	/* --help ends the parse: what follows it is not read, not even a bad option */
	assert_int_equal(parse(&o, err, "-hxQ", NULL), 0);
	assert_true(o.help);
	assert_int_equal(o.xflag, 0);
	trace_opts_free(&o);
	/* and the cluster it left ("xQ") is not resumed by the next parse */
	assert_int_equal(parse(&o, err, "-T", "ls", NULL), 0);
	assert_int_equal(o.xflag, 0);
	assert_true(o.durations);
	assert_false(o.help);
	trace_opts_free(&o);
}

static void test_classes(void **state)
{
	assert_true(trace_syscall_classes("openat") & TRACE_FILE);
	assert_true(trace_syscall_classes("openat") & TRACE_DESC);
	assert_true(trace_syscall_classes("connect") & TRACE_NETWORK);
	assert_false(trace_syscall_classes("connect") & TRACE_DESC);
	assert_true(trace_syscall_classes("mmap") & TRACE_MEMORY);
	assert_true(trace_syscall_classes("mmap") & TRACE_DESC);
	assert_true(trace_syscall_classes("kill") & TRACE_SIGNAL);
	assert_true(trace_syscall_classes("kill") & TRACE_PROCESS);
	assert_true(trace_syscall_classes("clone") & TRACE_PROCESS);
	assert_true(trace_syscall_classes("clone3") & TRACE_PROCESS);
	assert_true(trace_syscall_classes("execve") & TRACE_FILE);
	assert_true(trace_syscall_classes("shmat") & TRACE_IPC);
	assert_true(trace_syscall_classes("newstat") & TRACE_STAT);
	assert_true(trace_syscall_classes("newlstat") & TRACE_LSTAT);
	assert_true(trace_syscall_classes("newfstatat") & TRACE_FSTAT);
	assert_true(trace_syscall_classes("statfs") & TRACE_STATFS);
	assert_true(trace_syscall_classes("getuid") & TRACE_CREDS);
	assert_true(trace_syscall_classes("getuid") & TRACE_PURE);
	assert_true(trace_syscall_classes("clock_gettime") & TRACE_CLOCK);
	assert_true(trace_syscall_classes("sendfile64") & TRACE_NETWORK);
	assert_int_equal(trace_syscall_classes("sched_yield"), 0);
	assert_int_equal(trace_syscall_classes("stat"), 0);         /* kernel names only */
	assert_int_equal(trace_class_by_name("%net"), TRACE_NETWORK);
	assert_int_equal(trace_class_by_name("network"), TRACE_NETWORK);
	assert_int_equal(trace_class_by_name("net"), 0);             /* no bare "net" in strace */
	assert_int_equal(trace_class_by_name("%%statfs"), TRACE_STATFS_LIKE);
	assert_int_equal(trace_class_by_name("%nope"), 0);

	/* every class member is a syscall of the generated table */
	{
		size_t it = 0, n = 0;
		const char *name;

		while ((name = trace_class_next(~0u, &it))) {
			assert_true(lookup(NULL, name) >= 0);
			n++;
		}
		assert_true(n > 250);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_trace_sets),
		cmocka_unit_test(test_trace_errors),
		cmocka_unit_test(test_status_and_signals),
		cmocka_unit_test(test_output_options),
		cmocka_unit_test(test_strace_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_table_spellings),
		cmocka_unit_test(test_classes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
