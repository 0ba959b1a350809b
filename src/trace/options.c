/* options.c — `scry trace` options (see options.h).  Set syntax as strace's: -e trace=
 * replaces the previous selection; a leading '!' inverts the whole set; "all" and "none";
 * "?NAME" ignores an unknown name; "/REGEX" selects the names matching an extended regular
 * expression; "%class" (and strace's deprecated bare "file", "network", ...). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "format/format.h"
#include "trace/classes.h"
#include "trace/options.h"
#include "util/parse.h"

#define SEL_WORDS (TRACE_NR_MAX / 64)

struct sel {
	uint64_t bits[SEL_WORDS];
	bool rest;
};

static void sel_fill(struct sel *s, bool on)
{
	memset(s->bits, on ? 0xff : 0, sizeof(s->bits));
	s->rest = on;
}

static void sel_set(struct sel *s, int nr)
{
	if (nr >= 0 && nr < TRACE_NR_MAX)
		s->bits[nr / 64] |= 1ULL << (nr % 64);
}

static void warn(struct trace_opts *o, const char *msg)
{
	size_t n = strlen(o->warn);

	snprintf(o->warn + n, sizeof(o->warn) - n, "%s%s", n ? "\n" : "", msg);
}

void trace_opts_init(struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->follow = true;
	memset(o->sel, 0xff, sizeof(o->sel));
	o->sel_rest = true;
	o->status = TRACE_ST_ALL;
	o->sigset = ~0ULL;
	o->strsize = 32;
	o->sortby = TRACE_SORT_TIME;
}

void trace_opts_free(struct trace_opts *o)
{
	cli_track_free(&o->track);
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
}

bool trace_opts_selected(const struct trace_opts *o, int nr)
{
	if (nr < 0 || nr >= TRACE_NR_MAX)
		return o->sel_rest;
	return o->sel[nr / 64] >> (nr % 64) & 1;
}

bool trace_opts_selects_all(const struct trace_opts *o)
{
	for (size_t i = 0; i < SEL_WORDS; i++)
		if (o->sel[i] != ~0ULL)
			return false;
	return o->sel_rest;
}

/* "unknown syscall 'opn'; did you mean open, openat?" */
static void unknown_name(const char *name, const struct trace_names *names, char *err, size_t errlen)
{
	const char *best[4];
	size_t k = names->names ? scry_closest(name, names->names, names->nnames, best, 4) : 0;
	size_t n = (size_t)snprintf(err, errlen, "unknown syscall '%s'", name);

	for (size_t i = 0; i < k && n < errlen; i++) {
		/* the list may hold one syscall twice (kernel name and alias) */
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(best[i], best[j]);
		if (!dup)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s", i ? "," : "; did you mean", best[i]);
	}
	if (n < errlen)
		snprintf(err + n, errlen - n, "%s", k ? "?" : " (scry list syscalls shows them)");
}

static int add_regex(struct sel *s, const char *re, bool quiet, const struct trace_names *names,
		     char *err, size_t errlen)
{
	regex_t rx;
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), found = 0;

	if (rc) {
		char msg[128];

		regerror(rc, &rx, msg, sizeof(msg));
		snprintf(err, errlen, "invalid regular expression '/%s': %s", re, msg);
		return -1;
	}
	for (size_t i = 0; i < names->nnames; i++) {
		int nr;

		if (regexec(&rx, names->names[i], 0, NULL, 0))
			continue;
		if ((nr = names->lookup(names->ctx, names->names[i])) >= 0) {
			sel_set(s, nr);
			found = 1;
		}
	}
	regfree(&rx);
	if (!found && !quiet) {
		snprintf(err, errlen, "no syscall matches '/%s'", re);
		return -1;
	}
	return 0;
}

static int add_token(struct sel *s, char *tok, const struct trace_names *names, char *err, size_t errlen)
{
	bool quiet = false;
	char *at;
	unsigned mask;
	int nr;

	if (*tok == '?') {
		quiet = true;
		tok++;
	}
	if (!*tok) {
		snprintf(err, errlen, "empty syscall name");
		return -1;
	}
	if (*tok == '/')
		return add_regex(s, tok + 1, quiet, names, err, errlen);
	if ((at = strrchr(tok, '@'))) {
		if (strcmp(at, "@64")) {
			snprintf(err, errlen, "'%s': scry traces the 64-bit personality only", tok);
			return -1;
		}
		*at = '\0';
	}
	if (!strcmp(tok, "all")) {
		sel_fill(s, true);
		return 0;
	}
	if (!strcmp(tok, "none"))
		return 0;
	if ((mask = trace_class_by_name(tok))) {
		size_t it = 0;
		const char *kname;

		while ((kname = trace_class_next(mask, &it)))
			sel_set(s, names->lookup(names->ctx, kname));
		return 0;
	}
	if (*tok == '%') {
		snprintf(err, errlen, "unknown syscall class '%s' (classes: %s)", tok, trace_class_list());
		return -1;
	}
	if ((nr = names->lookup(names->ctx, tok)) >= 0) {
		sel_set(s, nr);
		return 0;
	}
	if (quiet)
		return 0;
	unknown_name(tok, names, err, errlen);
	return -1;
}

int trace_opts_set_trace(struct trace_opts *o, const char *set, const struct trace_names *names,
			 char *err, size_t errlen)
{
	struct sel s;
	bool invert = false;
	char *copy, *save = NULL, *tok;
	const char *p = set;
	int rc = 0;

	while (*p == '!') {
		invert = !invert;
		p++;
	}
	sel_fill(&s, false);
	if (!*p) {
		snprintf(err, errlen, "empty syscall set in trace=%s", set);
		return -1;
	}
	if (!(copy = strdup(p))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* strtok_r would skip empty tokens: split by hand so "open,,close" is an error */
	for (tok = copy; tok && !rc; tok = save) {
		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		rc = add_token(&s, tok, names, err, errlen);
	}
	free(copy);
	if (rc)
		return -1;
	if (invert) {
		for (size_t i = 0; i < SEL_WORDS; i++)
			s.bits[i] = ~s.bits[i];
		s.rest = !s.rest;
	}
	memcpy(o->sel, s.bits, sizeof(o->sel));
	o->sel_rest = s.rest;
	o->trace_given = true;
	return 0;
}

/* Generic "[!]all|none|tok,tok" set over a small bit mask; tok_bit returns 0 if unknown. */
static int parse_mask(const char *set, uint64_t all, uint64_t (*tok_bit)(const char *),
		      uint64_t *out, const char *what, const char *expected, char *err, size_t errlen)
{
	bool invert = false;
	uint64_t m = 0;
	const char *p = set;
	char *copy, *tok, *next;

	while (*p == '!') {
		invert = !invert;
		p++;
	}
	if (!(copy = strdup(p))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = copy; tok; tok = next) {
		uint64_t b;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!strcmp(tok, "all"))
			b = all;
		else if (!strcmp(tok, "none"))
			b = 0;
		else if (!(b = tok_bit(tok))) {
			snprintf(err, errlen, "invalid %s '%s' (expected %s)", what, tok, expected);
			free(copy);
			return -1;
		}
		m |= b;
	}
	free(copy);
	*out = invert ? ~m & all : m;
	return 0;
}

static uint64_t status_bit(const char *t)
{
	static const char *const names[] = { "successful", "failed", "unfinished", "unavailable", "detached" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(t, names[i]))
			return 1ULL << i;
	return 0;
}

/* "SIGIO", "io", "sigio", "29" */
static uint64_t signal_bit(const char *t)
{
	char name[32] = "SIG";
	char *end;
	size_t n = strncasecmp(t, "SIG", 3) ? 3 : 0;
	long v = strtol(t, &end, 10);
	int sig;

	if (*t && !*end)
		return v >= 1 && v <= 64 ? 1ULL << (v - 1) : 0;
	for (; *t && n < sizeof(name) - 1; t++)
		name[n++] = (char)toupper((unsigned char)*t);
	if (*t)
		return 0;
	name[n] = '\0';
	sig = scry_signal_by_name(name);
	return sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
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

/* -e QUALIFIER=SET, or -e SET (trace=) */
static int parse_e(struct trace_opts *o, const char *arg, const struct trace_names *names,
		   char *err, size_t errlen)
{
	static const char *const unsupported[] = {
		"abbrev", "a", "verbose", "v", "raw", "x", "read", "reads", "r", "write", "writes", "w",
		"fault", "inject", "kvm", "quiet", "silent", "silence", "q", "decode-fds", "decode-pids",
	};
	const char *eq = strchr(arg, '=');
	size_t qlen = eq ? (size_t)(eq - arg) : 0;

	if (!eq)
		return trace_opts_set_trace(o, arg, names, err, errlen);
	if ((qlen == 5 && !strncmp(arg, "trace", 5)) || (qlen == 1 && arg[0] == 't'))
		return trace_opts_set_trace(o, eq + 1, names, err, errlen);
	if (qlen == 6 && !strncmp(arg, "status", 6)) {
		uint64_t m;

		if (parse_mask(eq + 1, TRACE_ST_ALL, status_bit, &m, "status",
			       "successful, failed, unfinished, unavailable, detached, all, none", err, errlen))
			return -1;
		o->status = (unsigned)m;
		return 0;
	}
	if ((qlen == 6 && !strncmp(arg, "signal", 6)) || (qlen == 7 && !strncmp(arg, "signals", 7)) ||
	    (qlen == 1 && arg[0] == 's'))
		return parse_mask(eq + 1, ~0ULL, signal_bit, &o->sigset, "signal",
				  "signal names or numbers 1-64, all, none", err, errlen);
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (strlen(unsupported[i]) == qlen && !strncmp(arg, unsupported[i], qlen)) {
			snprintf(err, errlen, "-e %.*s= is not supported by scry trace (supported: trace=, status=, signal=)",
				 (int)qlen, arg);
			return -1;
		}
	snprintf(err, errlen, "invalid -e qualifier '%.*s' (expected trace=, status= or signal=)", (int)qlen, arg);
	return -1;
}

void trace_opts_usage(FILE *f)
{
	fprintf(f,
		"usage: scry trace [OPTIONS] [--] CMD ARGS...\n"
		"       scry trace [OPTIONS] -p PID[,PID...] | -a\n"
		"Print system calls live, one line per call, as strace does.\n"
		"\n"
		"  -f, --follow           follow forks and threads (default)\n"
		"      --no-follow        trace only the command or the processes given\n"
		"  -p, --pid PID[,PID]    trace running processes (repeatable)\n"
		"  -a, --all              trace the whole system\n"
		"  -e trace=SET           syscalls: names, %%file %%network %%process %%signal %%memory %%ipc\n"
		"                         %%desc %%creds %%clock %%pure %%stat %%lstat %%fstat %%%%stat %%statfs\n"
		"                         %%fstatfs %%%%statfs, /REGEX, ?NAME, all, none; '!' inverts\n"
		"  -e status=SET          successful, failed, unfinished, detached (unavailable accepted)\n"
		"  -e signal=SET          signals shown (names or numbers; '!' inverts)\n"
		"  -z, -Z                 successful calls only, failed calls only\n"
		"  -T                     time spent in each call <s.us>\n"
		"  -t, -tt, -ttt          time of day, with microseconds, as seconds since the epoch\n"
		"  -r                     time since the previous line\n"
		"  -s, --string-limit N   longest string shown (default 32)\n"
		"  -y, --decode-fds       file descriptors with their paths\n"
		"  -v, --no-abbrev        structures and arrays in full\n"
		"  -o, --output FILE      write the trace to FILE (lines get a pid prefix)\n"
		"  -c, --summary-only     count time, calls and errors per syscall; print a table\n"
		"  -C, --summary          -c and the trace\n"
		"  -S, --summary-sort-by  time (default), avg_time, calls, errors, name, nothing\n"
		"  -w                     accepted: scry's times are always latencies (entry to exit)\n"
		"      --json             one JSON object per line\n"
		"      --snaplen N        bytes captured per data buffer (K/M suffixes)\n"
		CLI_TRACK_USAGE
		"                         (--filter decides on a call's entry: its fields are the\n"
		"                         arguments; the return value is known only with scry record)\n"
		"\n"
		"scry exits with the traced command's status.\n");
}

int trace_opts_parse(struct trace_opts *o, int argc, char **argv, const struct trace_names *names,
		     char *err, size_t errlen)
{
	enum { OPT_NOFOLLOW = 256, OPT_TRACE, OPT_STATUS, OPT_SIGNAL, OPT_JSON, OPT_SNAPLEN };
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
		{ "json", no_argument, NULL, OPT_JSON },
		{ "snaplen", required_argument, NULL, OPT_SNAPLEN },
		{ "help", no_argument, NULL, 'h' },
		CLI_TRACK_LONGOPTS,
		{ 0 },
	};
	int opt, nf = 0;
	bool z = false, Z = false, sort_given = false;
	char buf[64];

	trace_opts_init(o);
	optind = 0;      /* 0: glibc re-initializes its state (clustered options of a previous parse) */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:fp:ae:zZTtrs:o:cCS:wyvh", longopts, NULL)) != -1) {
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
			if (parse_e(o, optarg, names, err, errlen))
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
				rc = parse_e(o, q, names, err, errlen);
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
			o->decode_fds = true;
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
		case 'h':
			o->help = true;
			return 0;
		CLI_TRACK_CASES:
			if (cli_track_option(&o->track, opt, optarg, err, errlen))
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

	if (z && Z) {
		snprintf(err, errlen, "-z (successful calls only) and -Z (failed calls only) exclude each other");
		return -1;
	}
	if (o->json && o->count) {
		snprintf(err, errlen, "--json and -%c exclude each other (the summary is a table)",
			 o->count == TRACE_COUNT_ONLY ? 'c' : 'C');
		return -1;
	}
	if (nf > 1 && o->outfile) {
		snprintf(err, errlen, "-ff (one output file per process) is not supported; use -f -o FILE");
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
	if (o->track.filter && o->count) {
		snprintf(err, errlen, "--filter and -%c exclude each other (-c counts in the kernel without events)",
			 o->count == TRACE_COUNT_ONLY ? 'c' : 'C');
		return -1;
	}
	if (o->cmd && o->track.npids) {
		snprintf(err, errlen, "a command cannot be combined with --track-pid (its processes are tracked)");
		return -1;
	}
	if (!o->cmd && !o->npids && !o->all && !o->track.npids) {
		snprintf(err, errlen, "nothing to trace: give a command, -p PID or -a");
		return -1;
	}

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
