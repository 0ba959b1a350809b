/* trace_options.c — the `scry trace` command line (see trace_options.h): strace's options,
 * one table (cli/optable.h) of their spellings and the functions that apply them, into
 * struct trace_opts (trace/options.h), the trackers and --filter into struct cli_track;
 * then the checks of the options together. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/optable.h"
#include "cli/trace_options.h"
#include "kernel/features.h"
#include "trace/summary.h"
#include "util/parse.h"

static void warn(struct trace_opts *o, const char *msg)
{
	size_t n = strlen(o->warn);

	snprintf(o->warn + n, sizeof(o->warn) - n, "%s%s", n ? "\n" : "", msg);
}
/* -e inject=, -e fault=: error injection returns an error instead of running the call,
 * which from BPF is bpf_override_return on a kprobe at the syscall's entry (a kernel built
 * with CONFIG_BPF_KPROBE_OVERRIDE).  Refused in one line, with what this kernel lacks. */
static void inject_refusal(const char *arg, char *err, size_t errlen)
{
	char why[200];
	size_t q = strcspn(arg, "=");

	if (!scry_feature_kprobes(why, sizeof(why)))
		snprintf(err, errlen, "-e %.*s= is not supported: error injection needs bpf_override_return, which needs "
			 "kprobes, and this kernel has none (%s)", (int)q, arg, why);
	else
		snprintf(err, errlen, "-e %.*s= is not supported yet: error injection needs bpf_override_return on a "
			 "kprobe (this kernel has kprobes; scry does not implement it)", (int)q, arg);
}

static int parse_sortby(const char *s, enum trace_sort *out)
{
	static const struct {
		const char *name;
		enum trace_sort sort;
	} map[] = {
		{ "time", TRACE_SORT_TIME }, { "time_percent", TRACE_SORT_TIME },
		{ "time-percent", TRACE_SORT_TIME }, { "time_total", TRACE_SORT_TIME },
		{ "time-total", TRACE_SORT_TIME }, { "total_time", TRACE_SORT_TIME },
		{ "total-time", TRACE_SORT_TIME }, { "avg_time", TRACE_SORT_AVG },
		{ "avg-time", TRACE_SORT_AVG }, { "time_avg", TRACE_SORT_AVG },
		{ "time-avg", TRACE_SORT_AVG }, { "calls", TRACE_SORT_CALLS },
		{ "count", TRACE_SORT_CALLS }, { "errors", TRACE_SORT_ERRORS },
		{ "error", TRACE_SORT_ERRORS }, { "name", TRACE_SORT_NAME },
		{ "syscall", TRACE_SORT_NAME }, { "syscall_name", TRACE_SORT_NAME },
		{ "syscall-name", TRACE_SORT_NAME }, { "nothing", TRACE_SORT_NOTHING },
		{ "none", TRACE_SORT_NOTHING },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, s)) {
			*out = map[i].sort;
			return 0;
		}
	return -1;
}
void trace_opts_usage(FILE *f)
{
	fprintf(f,
		"usage: scry trace [OPTIONS] [--] CMD ARGS...\n"
		"       scry trace [OPTIONS] -p PID[,PID...] | -a\n"
		"Print system calls live, one line per call, as strace does.\n"
		"\n"
		"  -f, --follow           follow the children (forks) too\n"
		"      --no-follow        only the command or the processes given, with their threads\n"
		"                         (the default)\n"
		"  -p, --pid PID[,PID]    trace running processes (repeatable)\n"
		"  -a, --all              trace the whole system\n"
		"  -e trace=SET           syscalls: names, %%file %%network %%process %%signal %%memory %%ipc\n"
		"                         %%desc %%creds %%clock %%pure %%stat %%lstat %%fstat %%%%stat %%statfs\n"
		"                         %%fstatfs %%%%statfs, /REGEX, ?NAME, all, none; '!' inverts\n"
		"  -e status=SET          successful, failed, unfinished, detached (unavailable accepted)\n"
		"  -e signal=SET          signals shown (names or numbers; '!' inverts)\n"
		"  -e uprobe:PATH:FUNC    also a function's calls (uretprobe: its returns; FUNC+OFF,\n"
		"                         0xADDR, globs; usdt:PATH:PROVIDER:NAME), with their arguments\n"
		"                         (docs/PROBES.md); -e trace=none shows only those\n"
		"      --flow [uprobe:]PATH:GLOB  the calls and returns of the functions matching GLOB as\n"
		"                         an indented tree per thread: microseconds since the thread's\n"
		"                         first call, -> FUNC(args), <- FUNC = ret <duration> (--json:\n"
		"                         call and return objects with depth and duration_ns)\n"
		"  -z, -Z                 successful calls only, failed calls only\n"
		"  -T                     time spent in each call <s.us>\n"
		"  -t, -tt, -ttt          time of day, with microseconds, as seconds since the epoch\n"
		"  -r                     time since the previous line\n"
		"  -s, --string-limit N   longest string shown (default 32)\n"
		"  -y, --decode-fds       file descriptors with their paths\n"
		"  -yy                    and sockets by protocol and endpoints, read in the kernel at\n"
		"                         the call (TCP:[127.0.0.1:80->127.0.0.1:41234], UNIX-STREAM:[...])\n"
		"  -k, --stack-trace      each call's user stack after its line, as strace -k\n"
		"  -x, -xx                strings with a non-ASCII byte in hex (-xx: every string)\n"
		"                         (--strings-in-hex[=all|non-ascii|none])\n"
		"  -X, --const-print-style raw|abbrev|verbose  named constants as numbers, names\n"
		"                         (the default), or both: 0x80000 /* O_RDONLY|O_CLOEXEC */\n"
		"  -n, --syscall-number   each line with its call's number: [ 257] openat(...)\n"
		"  -i, --instruction-pointer  each line with the task's user instruction pointer at\n"
		"                         the call: [00007f0d3e46cad7] (the first frame of the user\n"
		"                         stack, recorded for it: ~1 KB more per event)\n"
		"  -Y, --decode-pids=comm pids with their command names: [pid 42<sh>], kill(42<sh>, 0)\n"
		"  -P, --trace-path PATH  only the calls that touch PATH: by a path argument, or a\n"
		"                         descriptor that refers to it (repeatable)\n"
		"  -e read=SET, -e write=SET  the data read from (written to) these descriptors as\n"
		"                         strace's hex dump after the line (at most 4096 bytes a call)\n"
		"  -q, -qq, -qqq          no 'attached' messages; and no +++ exit lines; nothing\n"
		"      --quiet=SET        (-e quiet=SET) attach, exit, path-resolution, personality,\n"
		"                         thread-execve, all, none\n"
		"  -b, --detach-on execve leave a process at its execve (but the command's own)\n"
		"  -E, --env VAR=VAL      the command's environment: set VAR (-E VAR: unset it)\n"
		"  -u, --user USER        run the command as USER (uid, gid, groups)\n"
		"  -A, --output-append-mode  -o FILE appended to\n"
		"      --output-separately  -ff: with -o FILE, each process's lines in FILE.PID\n"
		"  -D, --daemonize        accepted: under BPF scry is never the command's tracing\n"
		"                         parent, whatever -D/-DD/-DDD ask\n"
		"  -I, --interruptible N  accepted (1-4, anywhere, waiting, never, never_tstp):\n"
		"                         scry never stops the command, so blocks no signal of it\n"
		"      --seccomp-bpf      accepted: the syscall filter (-e trace=) is in the kernel\n"
		"                         already, untraced calls cost no stop\n"
		"  (-e inject=, -e fault= are refused: error injection needs bpf_override_return,\n"
		"  i.e. kprobes)\n"
		"  -v, --no-abbrev        structures and arrays in full, and execve's environment\n"
		"                         (only then read and recorded, --record too)\n"
		"  -o, --output FILE      write the trace to FILE (lines get a pid prefix; -ff: a file\n"
		"                         per process, FILE.PID)\n"
		"  -c, --summary-only     count time, calls and errors per syscall; print a table\n"
		"  -C, --summary          -c and the trace\n"
		"  -S, --summary-sort-by  time (default), avg_time, calls, errors, name, nothing\n"
		"  -U, --summary-columns COLS  the table's columns: time-percent, total-time,\n"
		"                         min-time, max-time, avg-time, calls, errors, name\n"
		"  -w                     accepted: scry's times are always latencies (entry to exit)\n"
		"      --json             one JSON object per line\n"
		"      --snaplen N        bytes captured per data buffer (K/M suffixes)\n"
		"      --fetch LIST       uprobes: members by path shown too ('req->hdr.len,s.count')\n"
		"      --record DIR       also write the events as a CTF trace in DIR (as scry record;\n"
		"                         contexts pid and tid)\n"
		CLI_TRACK_USAGE
		"                         (--filter decides on a call's entry: its fields are the\n"
		"                         arguments; the return value is known only with scry record)\n"
		"\n"
		"scry exits with the traced command's status.\n");
}

enum { OPT_NOFOLLOW = 256, OPT_TRACE, OPT_STATUS, OPT_SIGNAL, OPT_JSON, OPT_SNAPLEN, OPT_RECORD, OPT_FLOW, OPT_FETCH,
       OPT_SECCOMP, OPT_DECODE_PIDS, OPT_HEX, OPT_QUIET, OPT_FF, OPT_DAEMONIZE };

/* One parse's state: what the options fill, and the counts the checks after it need. */
struct parse {
	struct trace_opts *o;
	struct cli_track *track;
	const struct trace_names *names;
	int nf, nq;
	bool z, Z, sort_given;
};

/* The options that only set a flag or count a repeat (-tt, -yy, -xx, -qq, -DD). */
static int set_flag(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct parse *p = args;
	struct trace_opts *o = p->o;

	switch (key) {
	case 'f': o->follow = true; p->nf++; break;
	case OPT_NOFOLLOW: o->follow = false; break;
	case 'a': o->all = true; break;
	case 'z': p->z = true; o->status = TRACE_ST_SUCCESSFUL; break;
	case 'Z': p->Z = true; o->status = TRACE_ST_FAILED; break;
	case 'T': o->durations = true; break;
	case 't': if (o->tstamp < 3) o->tstamp++; break;
	case 'r': o->relative = true; break;
	case 'c': o->count = TRACE_COUNT_ONLY; break;
	case 'k': o->stack = true; break;
	case 'C': o->count = TRACE_COUNT_ALSO; break;
	case 'w': o->wallclock = true; break;
	case 'y': o->decode_fds++; break;
	case 'v': o->verbose = true; break;
	case OPT_JSON: o->json = true; break;
	case 'h': o->help = true; return 1;
	case 'x': if (o->xflag < 2) o->xflag++; break;
	case 'q':    /* -q: attach; -qq: and exit; -qqq: all */
		p->nq++;
		o->quiet = p->nq == 1 ? TRACE_Q_ATTACH | TRACE_Q_PERSONALITY :
			   p->nq == 2 ? TRACE_Q_ATTACH | TRACE_Q_PERSONALITY | TRACE_Q_EXIT : TRACE_Q_ALL;
		break;
	case 'i': o->show_ip = true; break;
	case 'n': o->show_nr = true; break;
	case 'A': o->append = true; break;
	case OPT_FF: p->nf = 2; o->follow = true; break;
	case 'D': case OPT_DAEMONIZE: o->detach_pgrp++; break;
	case 'Y': o->decode_comm = true; break;
	case OPT_SECCOMP: o->seccomp = true; break;
	}
	return 0;
}

/* The options that are strace's -e qualifiers: -e EXPR, and --trace, --status, --signal,
 * --quiet (--silent), --decode-pids as -e trace=, status=, signal=, quiet=, decode-pids=. */
static int set_qualifier(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct parse *p = args;
	char buf[64], *q;
	size_t n;
	int rc;

	switch (key) {    /* each an error as -1 (1 would end the parse as --help does) */
	case 'e':
		return trace_opts_qualifier(p->o, arg, p->names, err, errlen) ? -1 : 0;
	case OPT_TRACE:
		return trace_opts_set_trace(p->o, arg, p->names, err, errlen) ? -1 : 0;
	case OPT_QUIET:
		snprintf(buf, sizeof(buf), "quiet=%.56s", arg ? arg : "attach,personality");
		return trace_opts_qualifier(p->o, buf, p->names, err, errlen) ? -1 : 0;
	case OPT_DECODE_PIDS:
		snprintf(buf, sizeof(buf), "decode-pids=%.48s", arg);
		return trace_opts_qualifier(p->o, buf, p->names, err, errlen) ? -1 : 0;
	}
	snprintf(buf, sizeof(buf), "%s=", key == OPT_STATUS ? "status" : "signal");
	n = strlen(buf) + strlen(arg) + 1;
	if (!(q = malloc(n))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(q, n, "%s%s", buf, arg);
	rc = trace_opts_qualifier(p->o, q, p->names, err, errlen);
	free(q);
	return rc ? -1 : 0;
}

/* -P PATH, -E VAR=VAL: repeatable, each kept. */
static int set_list(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct trace_opts *o = ((struct parse *)args)->o;
	const char ***v = key == 'P' ? &o->paths : (const char ***)&o->env;
	size_t *n = key == 'P' ? &o->npaths : &o->nenv;
	const char **nv;

	if (!*arg || (key == 'E' && *arg == '=')) {
		snprintf(err, errlen, "-%c needs %s", key, key == 'P' ? "a path" : "VAR=VAL or VAR");
		return -1;
	}
	if (!(nv = realloc(*v, (*n + 1) * sizeof(*nv)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*v = nv;
	nv[(*n)++] = arg;
	return 0;
}

/* -I N or its name. */
static int set_interruptible(void *args, int key, const char *arg, char *err, size_t errlen)
{
	static const char *const iv[] = { "anywhere", "waiting", "never", "never_tstp" };
	struct trace_opts *o = ((struct parse *)args)->o;
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg && !*end && v >= 1 && v <= 4)
		o->interruptible = (int)v;
	for (int k = 0; k < 4; k++)
		if (!strcmp(arg, iv[k]))
			o->interruptible = k + 1;
	if (!o->interruptible) {
		snprintf(err, errlen, "invalid -I '%s' (expected 1-4, anywhere, waiting, never, never_tstp)", arg);
		return -1;
	}
	return 0;
}

/* The options with a value of their own to check. */
static int set_value(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct parse *p = args;
	struct trace_opts *o = p->o;

	switch (key) {
	case 'p':
		if (scry_parse_pids(arg, &o->pids, &o->npids)) {
			snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", arg);
			return -1;
		}
		break;
	case 's': {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(arg, &end, 10);
		if (!*arg || *end || errno || v > INT_MAX || arg[0] == '-') {
			snprintf(err, errlen, "invalid -s '%s' (expected a number of bytes)", arg);
			return -1;
		}
		o->strsize = (unsigned)v;
		break;
	}
	case 'o':
		if (!*arg) {
			snprintf(err, errlen, "-o needs a file name");
			return -1;
		}
		o->outfile = arg;
		break;
	case 'S':
		if (parse_sortby(arg, &o->sortby)) {
			snprintf(err, errlen, "invalid sortby '%s' (expected time, avg_time, calls, errors, name, nothing)",
				 arg);
			return -1;
		}
		p->sort_given = true;
		break;
	case OPT_SNAPLEN:
		if (scry_parse_size(arg, &o->snaplen) || o->snaplen > (1ULL << 30)) {
			snprintf(err, errlen, "invalid --snaplen '%s' (expected bytes, e.g. 256, 4K, 1M)", arg);
			return -1;
		}
		break;
	case OPT_RECORD:
		o->record_dir = arg;
		break;
	case OPT_FETCH:
		if (!*arg) {
			snprintf(err, errlen, "--fetch: expected VARIABLE->MEMBER[.MEMBER...] (comma-separated)");
			return -1;
		}
		o->fetch = arg;
		break;
	case OPT_FLOW:
		if (o->flow) {
			snprintf(err, errlen, "--flow is given once (a glob takes several functions)");
			return -1;
		}
		o->flow = !strncmp(arg, "uprobe:", 7) ? arg + 7 : arg;
		if (!strchr(o->flow, ':')) {
			snprintf(err, errlen, "--flow '%s': expected [uprobe:]PATH:GLOB", arg);
			return -1;
		}
		break;
	case OPT_HEX:
		if (!arg || !strcmp(arg, "all"))
			o->xflag = 2;
		else if (!strcmp(arg, "non-ascii"))
			o->xflag = 1;
		else if (!strcmp(arg, "none"))
			o->xflag = 0;
		else {
			snprintf(err, errlen, "invalid --strings-in-hex '%s' (expected all, non-ascii, none)", arg);
			return -1;
		}
		break;
	case 'X':
		if (!strcmp(arg, "raw"))
			o->xlat = TRACE_XLAT_RAW;
		else if (!strcmp(arg, "abbrev"))
			o->xlat = TRACE_XLAT_ABBREV;
		else if (!strcmp(arg, "verbose"))
			o->xlat = TRACE_XLAT_VERBOSE;
		else {
			snprintf(err, errlen, "invalid -X '%s' (expected raw, abbrev, verbose)", arg);
			return -1;
		}
		break;
	case 'u':
		o->user = arg;
		break;
	case 'b':
		if (strcmp(arg, "execve") && strcmp(arg, "execveat") && strcmp(arg, "%exec")) {
			snprintf(err, errlen, "invalid -b '%s' (only execve is supported, as strace)", arg);
			return -1;
		}
		o->detach_execve = true;
		break;
	case 'U':
		o->columns = arg;
		break;
	}
	return 0;
}

static int set_track(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return cli_track_option(((struct parse *)args)->track, key, arg, err, errlen) ? -1 : 0;
}

/* strace's options, in getopt_long's order of old (the order decides nothing but is kept);
 * short only: name NULL.  -D is a flag as a letter (-DDD counts), --daemonize[=N] takes an
 * optional word, so the two are two entries. */
static const struct cli_opt trace_optable[] = {
	{ "follow", 'f', no_argument, set_flag },
	{ "no-follow", OPT_NOFOLLOW, no_argument, set_flag },
	{ "pid", 'p', required_argument, set_value },
	{ "all", 'a', no_argument, set_flag },
	{ "trace", OPT_TRACE, required_argument, set_qualifier },
	{ "status", OPT_STATUS, required_argument, set_qualifier },
	{ "signal", OPT_SIGNAL, required_argument, set_qualifier },
	{ "successful-only", 'z', no_argument, set_flag },
	{ "failed-only", 'Z', no_argument, set_flag },
	{ "syscall-times", 'T', no_argument, set_flag },
	{ "relative-timestamps", 'r', no_argument, set_flag },
	{ "string-limit", 's', required_argument, set_value },
	{ "output", 'o', required_argument, set_value },
	{ "summary-only", 'c', no_argument, set_flag },
	{ "summary", 'C', no_argument, set_flag },
	{ "summary-sort-by", 'S', required_argument, set_value },
	{ "summary-wall-clock", 'w', no_argument, set_flag },
	{ "decode-fds", 'y', no_argument, set_flag },
	{ "no-abbrev", 'v', no_argument, set_flag },
	{ "stack-trace", 'k', no_argument, set_flag },
	{ "json", OPT_JSON, no_argument, set_flag },
	{ "snaplen", OPT_SNAPLEN, required_argument, set_value },
	{ "fetch", OPT_FETCH, required_argument, set_value },
	{ "record", OPT_RECORD, required_argument, set_value },
	{ "flow", OPT_FLOW, required_argument, set_value },
	{ "help", 'h', no_argument, set_flag },
	{ "strings-in-hex", OPT_HEX, optional_argument, set_value },
	{ "const-print-style", 'X', required_argument, set_value },
	{ "trace-path", 'P', required_argument, set_list },
	{ "quiet", OPT_QUIET, optional_argument, set_qualifier },
	{ "silent", OPT_QUIET, optional_argument, set_qualifier },
	{ "instruction-pointer", 'i', no_argument, set_flag },
	{ "syscall-number", 'n', no_argument, set_flag },
	{ "output-append-mode", 'A', no_argument, set_flag },
	{ "output-separately", OPT_FF, no_argument, set_flag },
	{ "env", 'E', required_argument, set_list },
	{ "user", 'u', required_argument, set_value },
	{ "daemonize", OPT_DAEMONIZE, optional_argument, set_flag },
	{ "interruptible", 'I', required_argument, set_interruptible },
	{ "detach-on", 'b', required_argument, set_value },
	{ "summary-columns", 'U', required_argument, set_value },
	{ "decode-pids", OPT_DECODE_PIDS, required_argument, set_qualifier },
	{ "seccomp-bpf", OPT_SECCOMP, no_argument, set_flag },
	CLI_TRACK_OPTS(set_track),
	{ NULL, 'e', required_argument, set_qualifier },
	{ NULL, 't', no_argument, set_flag },
	{ NULL, 'x', no_argument, set_flag },
	{ NULL, 'q', no_argument, set_flag },
	{ NULL, 'D', no_argument, set_flag },
	{ NULL, 'Y', no_argument, set_flag },
};

int trace_opts_parse(struct trace_opts *o, struct cli_track *track, int argc, char **argv,
		     const struct trace_names *names, char *err, size_t errlen)
{
	struct parse p = { .o = o, .track = track, .names = names };

	memset(track, 0, sizeof(*track));
	trace_opts_init(o);
	if (cli_opts_parse_named(trace_optable, sizeof(trace_optable) / sizeof(trace_optable[0]), argc, argv, &p,
				 "scry trace --help", err, errlen))
		return -1;
	if (o->help)
		return 0;
	if (optind < argc)
		o->cmd = &argv[optind];

	/* --flow alone shows the call tree only */
	if (o->flow && !o->trace_given && trace_opts_set_trace(o, "none", names, err, errlen))
		return -1;
	if (p.z && p.Z) {
		snprintf(err, errlen, "-z (successful calls only) and -Z (failed calls only) exclude each other");
		return -1;
	}
	if (o->record_dir && o->count == TRACE_COUNT_ONLY) {
		snprintf(err, errlen, "--record and -c exclude each other (-c counts in the kernel without events)");
		return -1;
	}
	if (o->json && o->count) {
		snprintf(err, errlen, "--json and -%c exclude each other (the summary is a table)",
			 o->count == TRACE_COUNT_ONLY ? 'c' : 'C');
		return -1;
	}
	o->per_pid_files = p.nf > 1 && o->outfile;   /* -ff without -o is -f, as strace */
	if (o->inject) {
		inject_refusal(o->inject, err, errlen);
		return -1;
	}
	if (o->columns) {
		int n = trace_summary_columns(o->columns, o->cols, sizeof(o->cols) / sizeof(o->cols[0]), err, errlen);

		if (n < 0)
			return -1;
		o->ncols = (unsigned)n;
		if (!o->count)
			warn(o, "-U has no effect without -c or -C");
	}
	if (o->append && !o->outfile)
		warn(o, "-A has no effect without -o");
	if (o->per_pid_files && o->json) {
		snprintf(err, errlen, "-ff and --json exclude each other (one JSON stream)");
		return -1;
	}
	if (o->per_pid_files && o->count) {
		snprintf(err, errlen, "-ff and -%c exclude each other (one summary)", o->count == TRACE_COUNT_ONLY ? 'c' : 'C');
		return -1;
	}
	if ((o->env || o->user || o->detach_pgrp) && !o->cmd) {
		snprintf(err, errlen, "-%c applies to a command scry starts (none given)",
			 o->env ? 'E' : o->user ? 'u' : 'D');
		return -1;
	}
	if (o->all && o->npids) {
		snprintf(err, errlen, "-a and -p exclude each other: -a already traces every process");
		return -1;
	}
	if (o->all && o->cmd) {
		snprintf(err, errlen, "a command cannot be combined with -a");
		return -1;
	}
	if (track->filter && o->count) {
		snprintf(err, errlen, "--filter and -%c exclude each other (-c counts in the kernel without events)",
			 o->count == TRACE_COUNT_ONLY ? 'c' : 'C');
		return -1;
	}
	if (o->cmd && track->npids) {
		snprintf(err, errlen, "a command cannot be combined with --track-pid (its processes are tracked)");
		return -1;
	}
	if (!o->cmd && !o->npids && !o->all && !track->npids) {
		snprintf(err, errlen, "nothing to trace: give a command, -p PID or -a");
		return -1;
	}
	o->filtered = track->filter != NULL;

	if (o->count == TRACE_COUNT_ONLY) {
		if (o->durations)
			warn(o, "-T has no effect with -c");
		if (o->tstamp)
			warn(o, "-t has no effect with -c");
		if (o->relative)
			warn(o, "-r has no effect with -c");
		if (o->decode_fds)
			warn(o, "-y has no effect with -c");
	}
	if (o->json && (o->tstamp || o->relative || o->durations))
		warn(o, "-t, -r and -T have no effect with --json (each line has ts and duration_ns)");
	if (!o->count && p.sort_given)
		warn(o, "-S has no effect without -c or -C");
	if (!o->count && o->wallclock)
		warn(o, "-w has no effect without -c or -C");
	return 0;
}
