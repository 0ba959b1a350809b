/* trace_options.c — the `scry trace` command line (see trace_options.h): strace's options
 * into struct trace_opts (trace/options.h), the trackers and --filter into struct cli_track. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int trace_opts_parse(struct trace_opts *o, struct cli_track *track, int argc, char **argv,
		     const struct trace_names *names, char *err, size_t errlen)
{
	enum { OPT_NOFOLLOW = 256, OPT_TRACE, OPT_STATUS, OPT_SIGNAL, OPT_JSON, OPT_SNAPLEN, OPT_RECORD, OPT_FLOW, OPT_FETCH,
	       OPT_SECCOMP, OPT_DECODE_PIDS, OPT_HEX, OPT_QUIET, OPT_FF };
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "no-follow", no_argument, NULL, OPT_NOFOLLOW },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "trace", required_argument, NULL, OPT_TRACE },
		{ "status", required_argument, NULL, OPT_STATUS },
		{ "signal", required_argument, NULL, OPT_SIGNAL },
		{ "successful-only", no_argument, NULL, 'z' },
		{ "failed-only", no_argument, NULL, 'Z' },
		{ "syscall-times", no_argument, NULL, 'T' },
		{ "relative-timestamps", no_argument, NULL, 'r' },
		{ "string-limit", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "summary-only", no_argument, NULL, 'c' },
		{ "summary", no_argument, NULL, 'C' },
		{ "summary-sort-by", required_argument, NULL, 'S' },
		{ "summary-wall-clock", no_argument, NULL, 'w' },
		{ "decode-fds", no_argument, NULL, 'y' },
		{ "no-abbrev", no_argument, NULL, 'v' },
		{ "stack-trace", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
		{ "fetch", required_argument, NULL, OPT_FETCH },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "flow", required_argument, NULL, OPT_FLOW },
		{ "help", no_argument, NULL, 'h' },
		{ "strings-in-hex", optional_argument, NULL, OPT_HEX },
		{ "const-print-style", required_argument, NULL, 'X' },
		{ "trace-path", required_argument, NULL, 'P' },
		{ "quiet", optional_argument, NULL, OPT_QUIET },
		{ "silent", optional_argument, NULL, OPT_QUIET },
		{ "instruction-pointer", no_argument, NULL, 'i' },
		{ "syscall-number", no_argument, NULL, 'n' },
		{ "output-append-mode", no_argument, NULL, 'A' },
		{ "output-separately", no_argument, NULL, OPT_FF },
		{ "env", required_argument, NULL, 'E' },
		{ "user", required_argument, NULL, 'u' },
		{ "daemonize", optional_argument, NULL, 'D' },
		{ "interruptible", required_argument, NULL, 'I' },
		{ "detach-on", required_argument, NULL, 'b' },
		{ "summary-columns", required_argument, NULL, 'U' },
		{ "decode-pids", required_argument, NULL, OPT_DECODE_PIDS },
		{ "seccomp-bpf", no_argument, NULL, OPT_SECCOMP },
		CLI_TRACK_LONGOPTS,
		{ 0 },
	};
	int opt, nf = 0, nq = 0;
	bool z = false, Z = false, sort_given = false;
	char buf[64];

	memset(track, 0, sizeof(*track));
	trace_opts_init(o);
	optind = 0;      /* 0: glibc re-initializes its state (clustered options of a previous parse) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:fp:ae:zZTtrs:o:cCS:wyvkhxX:P:qinAE:u:DI:b:U:Y", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			o->follow = true;
			nf++;
			break;
		case OPT_NOFOLLOW:
			o->follow = false;
			break;
		case 'p':
			if (scry_parse_pids(optarg, &o->pids, &o->npids)) {
				snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", optarg);
				return -1;
			}
			break;
		case 'a':
			o->all = true;
			break;
		case 'e':
			if (trace_opts_qualifier(o, optarg, names, err, errlen))
				return -1;
			break;
		case OPT_TRACE:
			if (trace_opts_set_trace(o, optarg, names, err, errlen))
				return -1;
			break;
		case OPT_STATUS:
		case OPT_SIGNAL:
			snprintf(buf, sizeof(buf), "%s=", opt == OPT_STATUS ? "status" : "signal");
			{
				size_t n = strlen(buf) + strlen(optarg) + 1;
				char *q = malloc(n);
				int rc;

				if (!q) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				snprintf(q, n, "%s%s", buf, optarg);
				rc = trace_opts_qualifier(o, q, names, err, errlen);
				free(q);
				if (rc)
					return -1;
			}
			break;
		case 'z':
			z = true;
			o->status = TRACE_ST_SUCCESSFUL;
			break;
		case 'Z':
			Z = true;
			o->status = TRACE_ST_FAILED;
			break;
		case 'T':
			o->durations = true;
			break;
		case 't':
			if (o->tstamp < 3)
				o->tstamp++;
			break;
		case 'r':
			o->relative = true;
			break;
		case 's': {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || v > INT_MAX || optarg[0] == '-') {
				snprintf(err, errlen, "invalid -s '%s' (expected a number of bytes)", optarg);
				return -1;
			}
			o->strsize = (unsigned)v;
			break;
		}
		case 'o':
			if (!*optarg) {
				snprintf(err, errlen, "-o needs a file name");
				return -1;
			}
			o->outfile = optarg;
			break;
		case 'c':
			o->count = TRACE_COUNT_ONLY;
			break;
		case 'k':
			o->stack = true;
			break;
		case 'C':
			o->count = TRACE_COUNT_ALSO;
			break;
		case 'S':
			if (parse_sortby(optarg, &o->sortby)) {
				snprintf(err, errlen, "invalid sortby '%s' (expected time, avg_time, calls, errors, name, nothing)",
					 optarg);
				return -1;
			}
			sort_given = true;
			break;
		case 'w':
			o->wallclock = true;
			break;
		case 'y':
			o->decode_fds++;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SNAPLEN:
			if (scry_parse_size(optarg, &o->snaplen) || o->snaplen > (1ULL << 30)) {
				snprintf(err, errlen, "invalid --snaplen '%s' (expected bytes, e.g. 256, 4K, 1M)", optarg);
				return -1;
			}
			break;
		case OPT_RECORD:
			o->record_dir = optarg;
			break;
		case OPT_FETCH:
			if (!*optarg) {
				snprintf(err, errlen, "--fetch: expected VARIABLE->MEMBER[.MEMBER...] (comma-separated)");
				return -1;
			}
			o->fetch = optarg;
			break;
		case OPT_FLOW:
			if (o->flow) {
				snprintf(err, errlen, "--flow is given once (a glob takes several functions)");
				return -1;
			}
			o->flow = !strncmp(optarg, "uprobe:", 7) ? optarg + 7 : optarg;
			if (!strchr(o->flow, ':')) {
				snprintf(err, errlen, "--flow '%s': expected [uprobe:]PATH:GLOB", optarg);
				return -1;
			}
			break;
		case 'h':
			o->help = true;
			return 0;
		case 'x':
			if (o->xflag < 2)
				o->xflag++;
			break;
		case OPT_HEX:
			if (!optarg || !strcmp(optarg, "all"))
				o->xflag = 2;
			else if (!strcmp(optarg, "non-ascii"))
				o->xflag = 1;
			else if (!strcmp(optarg, "none"))
				o->xflag = 0;
			else {
				snprintf(err, errlen, "invalid --strings-in-hex '%s' (expected all, non-ascii, none)", optarg);
				return -1;
			}
			break;
		case 'X':
			if (!strcmp(optarg, "raw"))
				o->xlat = TRACE_XLAT_RAW;
			else if (!strcmp(optarg, "abbrev"))
				o->xlat = TRACE_XLAT_ABBREV;
			else if (!strcmp(optarg, "verbose"))
				o->xlat = TRACE_XLAT_VERBOSE;
			else {
				snprintf(err, errlen, "invalid -X '%s' (expected raw, abbrev, verbose)", optarg);
				return -1;
			}
			break;
		case 'P':
		case 'E': {
			const char ***v = opt == 'P' ? &o->paths : (const char ***)&o->env;
			size_t *n = opt == 'P' ? &o->npaths : &o->nenv;
			const char **nv;

			if (!*optarg || (opt == 'E' && *optarg == '=')) {
				snprintf(err, errlen, "-%c needs %s", opt, opt == 'P' ? "a path" : "VAR=VAL or VAR");
				return -1;
			}
			if (!(nv = realloc(*v, (*n + 1) * sizeof(*nv)))) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*v = nv;
			nv[(*n)++] = optarg;
			break;
		}
		case 'q':    /* -q: attach; -qq: and exit; -qqq: all */
			nq++;
			o->quiet = nq == 1 ? TRACE_Q_ATTACH | TRACE_Q_PERSONALITY :
				   nq == 2 ? TRACE_Q_ATTACH | TRACE_Q_PERSONALITY | TRACE_Q_EXIT : TRACE_Q_ALL;
			break;
		case OPT_QUIET:
			snprintf(buf, sizeof(buf), "quiet=%.56s", optarg ? optarg : "attach,personality");
			if (trace_opts_qualifier(o, buf, names, err, errlen))
				return -1;
			break;
		case 'i':
			o->show_ip = true;
			break;
		case 'n':
			o->show_nr = true;
			break;
		case 'A':
			o->append = true;
			break;
		case OPT_FF:
			nf = 2;
			o->follow = true;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'D':
			o->detach_pgrp++;
			break;
		case 'I': {
			static const char *const iv[] = { "anywhere", "waiting", "never", "never_tstp" };
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*optarg && !*end && v >= 1 && v <= 4)
				o->interruptible = (int)v;
			for (int k = 0; k < 4; k++)
				if (!strcmp(optarg, iv[k]))
					o->interruptible = k + 1;
			if (!o->interruptible) {
				snprintf(err, errlen, "invalid -I '%s' (expected 1-4, anywhere, waiting, never, never_tstp)",
					 optarg);
				return -1;
			}
			break;
		}
		case 'b':
			if (strcmp(optarg, "execve") && strcmp(optarg, "execveat") && strcmp(optarg, "%exec")) {
				snprintf(err, errlen, "invalid -b '%s' (only execve is supported, as strace)", optarg);
				return -1;
			}
			o->detach_execve = true;
			break;
		case 'U':
			o->columns = optarg;
			break;
		case 'Y':
			o->decode_comm = true;
			break;
		case OPT_DECODE_PIDS:
			snprintf(buf, sizeof(buf), "decode-pids=%.48s", optarg);
			if (trace_opts_qualifier(o, buf, names, err, errlen))
				return -1;
			break;
		case OPT_SECCOMP:
			o->seccomp = true;
			break;
		CLI_TRACK_CASES:
			if (cli_track_option(track, opt, optarg, err, errlen))
				return -1;
			break;
		case ':':
			snprintf(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
			return -1;
		default:
			if (optopt && optopt < 256)
				snprintf(err, errlen, "invalid option '-%c' (see scry trace --help)", optopt);
			else
				snprintf(err, errlen, "invalid option '%s' (see scry trace --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = &argv[optind];

	/* --flow alone shows the call tree only */
	if (o->flow && !o->trace_given && trace_opts_set_trace(o, "none", names, err, errlen))
		return -1;
	if (z && Z) {
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
	o->per_pid_files = nf > 1 && o->outfile;   /* -ff without -o is -f, as strace */
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
	if (!o->count && sort_given)
		warn(o, "-S has no effect without -c or -C");
	if (!o->count && o->wallclock)
		warn(o, "-w has no effect without -c or -C");
	return 0;
}
