/* profile.c — `scry profile`: where CPU time goes.  A cpu-clock perf event per CPU at -F
 * Hz runs scry's profiler program (src/bpf/profile.bpf.c), which counts each sample of the
 * targets (-a, -p and their children, or the command) by thread and kernel and user stacks
 * in the kernel; a process's first sample has user space read its mappings while it lives.
 * With --call-graph dwarf a user sample's registers and stack copy come through the ring
 * instead, are unwound as they come (src/catalog/unwind.c) and counted here (tally.c).
 * At the end the stacks are symbolized (src/profile/collect.c) and written by -o's
 * extension: .folded, .svg, .pb.gz (pprof), a bare name OUT.svg, OUT.folded, OUT.pb.gz and
 * (cpu-clock samples) OUT/, a CTF trace of the samples written by the record engine
 * (profile_ctf.c; --ctf DIR alone); --report prints perf report's table.  One summary line
 * says how many samples were taken and lost, and (cpu-clock) how many of the samples the
 * CPUs' events owed perf delivered: those it throttled are lost too.
 * -i reads a saved pprof profile instead of sampling (src/profile/pprof_read.c). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "catalog/symbolize.h"
#include "cli/commands.h"
#include "cli/profile_ctf.h"
#include "cli/track.h"
#include "kernel/profiler.h"
#include "profile/collect.h"
#include "profile/profile.h"
#include "profile/tally.h"
#include "catalog/unwind.h"
#include "util/cgroup.h"
#include "util/clock.h"
#include "util/dirh.h"
#include "util/log.h"
#include "util/loop.h"
#include "util/parse.h"
#include "util/privs.h"
#include "util/spawn.h"

#define DEFAULT_FREQ 99          /* perf's and bpftrace's: off the kernel's timer ticks */
#define DEFAULT_USTACK 8192      /* --call-graph dwarf's window, perf's default */
#define REPORT_LINES 40

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry profile [OPTIONS] -o OUT [-p PID,...|-a|-- CMD ARGS...]\n"
		"       scry profile -i IN.pb.gz [--report] [-o OUT]\n"
		"Sample where CPU time goes: kernel and user stacks, counted in the kernel, symbolized.\n"
		"\n"
		"  -o, --output OUT       by its extension: OUT.folded (FlameGraph's folded stacks),\n"
		"                         OUT.svg (an interactive flame graph), OUT.pb.gz (pprof's\n"
		"                         profile.proto, gzipped); a name without one: all three\n"
		"                         and, sampling cpu-clock, the directory OUT as --ctf OUT.\n"
		"                         Repeatable\n"
		"      --ctf DIR          the samples as a CTF trace too, LTTng's kernel layout (as scry\n"
		"                         record -e profile:cpu-clock:HZ -c callstack-kernel,callstack-user\n"
		"                         writes them): DIR must not exist, or be empty\n"
		"  -F, --freq HZ          samples per second per CPU (default %d)\n"
		"  -e, --event EVENT      cpu-clock (default), or cycles where the machine has a PMU\n"
		"  -p, --pid PID[,PID]    these processes and the children they fork from now on\n"
		"  -a, --all              every process (the idle tasks left out)\n"
		"      --duration TIME    stop after TIME (seconds, or 500ms, 2m)\n"
		"      --report           print the top functions, total and self, as perf report\n"
		"  -i, --input IN         no sampling: read a profile saved as pprof (-o X.pb.gz, or\n"
		"                         another tool's) for --report and -o\n"
		"      --stack-storage-size N  stacks kept in the kernel (default 16384); a stack that\n"
		"                         finds its slot taken is lost, and counted as such\n"
		"      --call-graph fp|dwarf[,SIZE]  user stacks by frame pointers (fp, the default),\n"
		"                         or (dwarf) from a copy of SIZE bytes of each sample's user\n"
		"                         stack (default %d, at most %d) unwound in user space with\n"
		"                         the files' CFI: complete on binaries without frame pointers\n"
		"      --inline           the functions inlined where a frame is (its file's DWARF, or its\n"
		"                         separate debug file's), each a frame of its own\n"
		"      --lines            each user frame's source file and line (DWARF): in its name in\n"
		"                         OUT.folded and OUT.svg, pprof's Line and Function in OUT.pb.gz\n"
		"      --off-cpu          no sampling: where threads wait, each stack weighted by the time\n"
		"                         blocked there (from the scheduler's switches: asleep or waiting,\n"
		"                         not preempted); folded counts and SVG widths in microseconds,\n"
		"                         pprof's value off-cpu nanoseconds.  Frame-pointer stacks\n"
		"      --min-block TIME   --off-cpu: blocks shorter than TIME not counted (default 1us;\n"
		"                         seconds, or 500us, 20ms)\n"
		"      --track-cgroup DIR only tasks in this cgroup v2 directory or below it (repeatable)\n"
		"      --track-container ID[,ID...]  only tasks of these containers (id prefixes, as\n"
		"                         docker's, or an nspawn machine's name): their cgroups at the\n"
		"                         start.  With -a, -p or a command: samples must pass both\n"
		"      --buffer-size SIZE the ring the samples' stacks cross (K/M; a power of two;\n"
		"                         default by SIZE and the CPUs); a sample that finds it full\n"
		"                         keeps its kernel stack, its user stack counted as lost\n"
		"  -q, --quiet            no line when sampling starts\n"
		"  -v, --verbose          libbpf and verifier messages\n"
		"\n"
		"Without -p or -a, CMD is started and it and its children are sampled until it ends;\n"
		"scry exits with CMD's status.  With --call-graph fp a binary built without frame\n"
		"pointers shows its leaf function and few callers.\n", DEFAULT_FREQ, DEFAULT_USTACK,
		SCRY_USTACK_MAX);
}

enum out_kind { OUT_FOLDED, OUT_SVG, OUT_PPROF };

struct output {
	char *path;
	enum out_kind kind;
};

struct prof_args {
	struct output outs[12];
	size_t nouts;
	const char *ctf;             /* --ctf DIR */
	const char *ctf_bare;        /* -o NAME: NAME/, when cpu-clock is sampled */
	unsigned freq;
	int event;
	pid_t *pids;
	size_t npids;
	bool all, report, quiet;
	unsigned max_stacks;
	unsigned ustack_size;        /* --call-graph dwarf; 0: fp */
	const char *input;           /* -i: a saved profile, no sampling */
	uint64_t ring_size;
	bool offcpu;
	uint64_t min_block_ns;
	struct scry_prof_symopts sym;
	bool freq_given, event_given;
	double duration;
	char **cmd;
	struct cli_track track;      /* --track-cgroup, --track-container (its cgroups) */
};

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static int add_out(struct prof_args *a, const char *path, enum out_kind k, const char *suffix)
{
	char *p;

	if (asprintf(&p, "%s%s", path, suffix) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < a->nouts; i++)
		if (!strcmp(a->outs[i].path, p)) {   /* -o prof -o prof.pb.gz: written once */
			free(p);
			return 0;
		}
	if (a->nouts == sizeof(a->outs) / sizeof(a->outs[0])) {
		free(p);
		return -E2BIG;
	}
	a->outs[a->nouts].path = p;
	a->outs[a->nouts++].kind = k;
	return 0;
}

static int parse_output(struct prof_args *a, const char *o, char *err, size_t errlen)
{
	const char *base = strrchr(o, '/') ? strrchr(o, '/') + 1 : o;
	int r;

	if (!*base) {
		snprintf(err, errlen, "-o '%s': expected a file name", o);
		return -EINVAL;
	}
	if (ends_with(base, ".folded"))
		r = add_out(a, o, OUT_FOLDED, "");
	else if (ends_with(base, ".svg"))
		r = add_out(a, o, OUT_SVG, "");
	else if (ends_with(base, ".pb.gz"))
		r = add_out(a, o, OUT_PPROF, "");
	else if (!strchr(base, '.')) {
		if (a->ctf_bare) {
			snprintf(err, errlen, "-o '%s': one trace directory, and -o '%s' names it already", o,
				 a->ctf_bare);
			return -EINVAL;
		}
		a->ctf_bare = o;
		r = add_out(a, o, OUT_SVG, ".svg") ?: add_out(a, o, OUT_FOLDED, ".folded") ?:
		    add_out(a, o, OUT_PPROF, ".pb.gz");
	} else {
		snprintf(err, errlen, "-o '%s': unknown output type (expected .folded, .svg, .pb.gz, or a name "
			 "without extension for NAME.svg, NAME.folded, NAME.pb.gz and the trace NAME/)", o);
		return -EINVAL;
	}
	if (r)
		snprintf(err, errlen, r == -E2BIG ? "too many -o outputs" : "out of memory");
	return r;
}

/* --call-graph fp | dwarf[,SIZE] (perf's spelling) */
static int parse_call_graph(struct prof_args *a, const char *v, char *err, size_t errlen)
{
	uint64_t n = DEFAULT_USTACK;

	if (!strcmp(v, "fp")) {
		a->ustack_size = 0;
		return 0;
	}
	if (strncmp(v, "dwarf", 5) || (v[5] && (v[5] != ',' || scry_parse_size(v + 6, &n))) ||
	    n < 8 || n > SCRY_USTACK_MAX || n % 8) {
		snprintf(err, errlen, "invalid call graph '%s' (expected fp, dwarf or dwarf,SIZE with SIZE a multiple "
			 "of 8 up to %d)", v, SCRY_USTACK_MAX);
		return -EINVAL;
	}
#if !defined(__x86_64__)
	snprintf(err, errlen, "--call-graph dwarf: x86-64 only for now (its registers are copied by name)");
	return -ENOTSUP;
#endif
	a->ustack_size = (unsigned)n;
	return 0;
}

static int parse_args(int argc, char **argv, struct prof_args *a, char *err, size_t errlen)
{
	enum { OPT_DURATION = 256, OPT_REPORT, OPT_STACKS, OPT_CALL_GRAPH, OPT_BUFFER, OPT_OFFCPU, OPT_MIN_BLOCK, OPT_INLINE,
	       OPT_LINES, OPT_CTF };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "event", required_argument, NULL, 'e' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "report", no_argument, NULL, OPT_REPORT },
		{ "stack-storage-size", required_argument, NULL, OPT_STACKS },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "input", required_argument, NULL, 'i' },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER },
		{ "off-cpu", no_argument, NULL, OPT_OFFCPU },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "ctf", required_argument, NULL, OPT_CTF },
		{ "min-block", required_argument, NULL, OPT_MIN_BLOCK },
		{ "track-cgroup", required_argument, NULL, CLI_OPT_TRACK_CGROUP },
		{ "track-container", required_argument, NULL, CLI_OPT_TRACK_CONTAINER },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	a->freq = DEFAULT_FREQ;
	a->min_block_ns = 1000;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:F:e:p:i:aqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (parse_output(a, optarg, err, errlen))
				return -EINVAL;
			break;
		case 'F': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || v < 1 || v > 100000) {
				snprintf(err, errlen, "invalid frequency '%s' (expected 1 to 100000 Hz)", optarg);
				return -EINVAL;
			}
			a->freq = (unsigned)v;
			a->freq_given = true;
			break;
		}
		case 'e':
			if ((a->event = scry_prof_event_parse(optarg)) < 0) {
				snprintf(err, errlen, "unknown event '%s' (expected cpu-clock or cycles)", optarg);
				return -EINVAL;
			}
			a->event_given = true;
			break;
		case 'p':
			if (scry_parse_pids(optarg, &a->pids, &a->npids)) {
				snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", optarg);
				return -EINVAL;
			}
			break;
		case 'a':
			a->all = true;
			break;
		case OPT_DURATION:
			if (scry_parse_duration(optarg, &a->duration)) {
				snprintf(err, errlen, "invalid duration '%s' (expected seconds, e.g. 5, 0.5, 500ms, 2m)", optarg);
				return -EINVAL;
			}
			break;
		case OPT_REPORT:
			a->report = true;
			break;
		case OPT_STACKS: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !*optarg || v < 1 || v > (1UL << 22)) {
				snprintf(err, errlen, "invalid stack storage size '%s' (expected 1 to %lu)", optarg, 1UL << 22);
				return -EINVAL;
			}
			a->max_stacks = (unsigned)v;
			break;
		}
		case OPT_CALL_GRAPH:
			if (parse_call_graph(a, optarg, err, errlen))
				return -EINVAL;
			break;
		case OPT_BUFFER: {
			long pg = sysconf(_SC_PAGESIZE);

			if (scry_parse_size(optarg, &a->ring_size) || a->ring_size < (uint64_t)pg ||
			    a->ring_size > (1ULL << 30) || (a->ring_size & (a->ring_size - 1))) {
				snprintf(err, errlen, "invalid buffer size '%s' (expected a power of two from %ldK to 1G)",
					 optarg, pg / 1024);
				return -EINVAL;
			}
			break;
		}
		case OPT_OFFCPU:
			a->offcpu = true;
			break;
		case OPT_INLINE:
			a->sym.inline_frames = true;
			break;
		case OPT_LINES:
			a->sym.lines = true;
			break;
		case OPT_CTF:
			if (a->ctf || !*optarg) {
				snprintf(err, errlen, a->ctf ? "--ctf: one trace directory" : "--ctf: expected a directory");
				return -EINVAL;
			}
			a->ctf = optarg;
			break;
		case OPT_MIN_BLOCK: {
			double d;

			if (scry_parse_duration(optarg, &d) || d > 3600) {
				snprintf(err, errlen, "invalid minimum block '%s' (expected a time, e.g. 1us, 500us, 20ms, 1)",
					 optarg);
				return -EINVAL;
			}
			a->min_block_ns = (uint64_t)(d * 1e9 + 0.5);
			break;
		}
		case CLI_OPT_TRACK_CGROUP: case CLI_OPT_TRACK_CONTAINER:
			if (cli_track_option(&a->track, opt, optarg, err, errlen))
				return -EINVAL;
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'v':
			scry_log_set(NULL, NULL, true);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			snprintf(err, errlen, "invalid option (see scry profile --help)");
			return -EINVAL;
		}
	}
	if (optind < argc)
		a->cmd = &argv[optind];
	if (a->ctf && a->ctf_bare) {
		snprintf(err, errlen, "--ctf '%s': one trace directory, and -o '%s' names it already", a->ctf,
			 a->ctf_bare);
		return -EINVAL;
	}
	if (a->ctf && (a->input || a->offcpu || a->event != SCRY_PROF_EV_CPU_CLOCK)) {
		snprintf(err, errlen, "--ctf records cpu-clock samples: not with -i, --off-cpu or -e cycles");
		return -EINVAL;
	}
	if (!a->ctf && a->ctf_bare && !a->input && !a->offcpu && a->event == SCRY_PROF_EV_CPU_CLOCK)
		a->ctf = a->ctf_bare;
	if (a->input) {
		if (a->cmd || a->all || a->npids || a->track.ncgroups) {
			snprintf(err, errlen, "-i reads a saved profile: no -p, -a or command with it (nor --track-cgroup/--track-container)");
			return -EINVAL;
		}
		if (a->sym.inline_frames || a->sym.lines) {
			snprintf(err, errlen, "-i reads frames already named: no --inline or --lines with it");
			return -EINVAL;
		}
		if (!a->nouts && !a->report) {
			snprintf(err, errlen, "no output: give --report or -o OUT with -i");
			return -EINVAL;
		}
		return 0;
	}
	if (a->all && a->npids) {
		snprintf(err, errlen, "-a and -p are exclusive: -a already samples every process");
		return -EINVAL;
	}
	if (a->cmd && (a->all || a->npids)) {
		snprintf(err, errlen, "a command cannot be combined with -a or -p");
		return -EINVAL;
	}
	if (!a->cmd && !a->all && !a->npids) {
		snprintf(err, errlen, "nothing to profile: give -- CMD, -p PID or -a");
		return -EINVAL;
	}
	if (!a->nouts && !a->report && !a->ctf) {
		snprintf(err, errlen, "no output: give -o OUT (.folded, .svg, .pb.gz, or a bare name), --ctf DIR or "
			 "--report");
		return -EINVAL;
	}
	if (a->offcpu && (a->ustack_size || a->freq_given || a->event_given)) {
		snprintf(err, errlen, "--off-cpu samples nothing: no -F, -e or --call-graph dwarf with it");
		return -EINVAL;
	}
	return cli_resolve_pids(a->pids, a->npids, false, err, errlen) ? -ESRCH : 0;
}

/* The sampling loop's state. */
struct run {
	struct scry_loop *loop;
	struct scry_profiler *k;
	struct scry_syms *syms;
	struct scry_unwinder *unw;   /* dwarf */
	struct scry_tally tally;
	uint64_t tally_failed;       /* samples unwound but not counted: out of memory */
	uint64_t ustack_bytes;       /* stack bytes copied, over the samples */
	uint64_t unwind_ns;          /* time spent unwinding them */
	uint64_t runs, run_ns;       /* the sampling program's, when the kernel counts them */
	struct scry_profiler_handlers h;
	pid_t child;
	int wstatus;
	bool child_done;
	size_t pids_left;
	uint64_t notes;
	struct prof_ctf *ctf;        /* --ctf: its session, pumped by the loop */
	bool delivery;               /* cpu-clock: what perf delivered, known */
	uint64_t expected, fired, missed, throttles;
};

static void on_note(void *ctx, pid_t tgid)
{
	struct run *r = ctx;

	r->notes++;
	if (r->unw)
		scry_unwinder_forget(r->unw, tgid);   /* started or exec'ed: other files */
	scry_syms_capture(r->syms, tgid, 0, NULL);   /* every executable mapping, while it lives */
}

static void on_ustack(void *ctx, const struct scry_prof_ustack *u, size_t size)
{
	struct run *r = ctx;
	struct scry_ustack s = { .pid = u->pid, .tgid = u->tgid, .regs = u->regs, .data = u->data, .size = u->size };
	uint64_t ips[SCRY_UNWIND_MAX_DEPTH], t0 = scry_monotonic_ns();
	unsigned n = scry_unwind(r->unw, &s, ips, SCRY_UNWIND_MAX_DEPTH);

	r->unwind_ns += scry_monotonic_ns() - t0;
	r->ustack_bytes += u->size;
	if (scry_tally_add(&r->tally, u->pid, u->tgid, u->comm, u->kstack, ips, n))
		r->tally_failed++;
}

static void ring_ready(void *ctx, int fd)
{
	struct run *r = ctx;

	scry_profiler_poll(r->k, &r->h);
}

static uint64_t deadline(void *ctx, uint64_t now)
{
	scry_loop_quit(((struct run *)ctx)->loop);
	return SCRY_LOOP_NEVER;
}

static void child_ended(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	if (waitpid(pid, &r->wstatus, 0) == pid)
		r->child_done = true;
	scry_loop_quit(r->loop);
}

static void target_ended(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	if (r->pids_left && !--r->pids_left)
		scry_loop_quit(r->loop);
}

static int sample(struct run *r, const struct prof_args *a, char *err, size_t errlen)
{
	int ret = scry_loop_new(&r->loop);

	if (ret) {
		snprintf(err, errlen, "event loop: %s", strerror(-ret));
		return ret;
	}
	if ((r->ctf && (ret = prof_ctf_pump(r->ctf, r->loop, err, errlen)) < 0) ||
	    (ret = scry_loop_fd(r->loop, scry_profiler_ring_fd(r->k), ring_ready, r)) < 0 ||
	    (a->duration > 0 && (ret = scry_loop_timer(r->loop, (uint64_t)(a->duration * 1e9), deadline, r)) < 0) ||
	    (r->child > 0 && (ret = scry_loop_pid(r->loop, r->child, child_ended, r)) < 0))
		goto out;
	for (size_t i = 0; i < a->npids; i++) {
		ret = scry_loop_pid(r->loop, a->pids[i], target_ended, r);
		if (ret == 0)
			r->pids_left++;
		else if (ret != -ESRCH)
			goto out;
	}
	ret = 0;
	if (!a->npids || r->pids_left)
		ret = scry_loop_run(r->loop, &stop_signal);
out:
	if (ret)
		snprintf(err, errlen, "event loop: %s", strerror(-ret));
	if (r->ctf)
		prof_ctf_unpump(r->ctf);
	scry_loop_free(r->loop);
	r->loop = NULL;
	return ret;
}

static int write_outputs(const struct prof_args *a, const struct scry_prof *p, const char *title, char *err,
			 size_t errlen)
{
	for (size_t i = 0; i < a->nouts; i++) {
		const struct output *o = &a->outs[i];
		FILE *f;
		int r;

		if (o->kind == OUT_PPROF) {
			if ((r = scry_prof_write_pprof(p, o->path, err, errlen)))
				return r;
			continue;
		}
		/* no symlink or file of another user written (util/dirh.h) */
		if ((r = scry_open_output(AT_FDCWD, o->path, NULL, false, err, errlen)) < 0)
			return r;
		if (!(f = fdopen(r, "w"))) {
			close(r);
			snprintf(err, errlen, "cannot write %s: out of memory", o->path);
			return -ENOMEM;
		}
		r = o->kind == OUT_SVG ? scry_prof_write_svg(p, f, title) : scry_prof_write_folded(p, f);
		if (fclose(f) && !r)
			r = -errno;
		if (r) {
			snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The one summary line: samples, their rate, every loss by cause; with dwarf, the stacks
 * copied and how their unwinding ended. */
static void summary(const struct prof_args *a, const struct run *r, const struct scry_prof *p, const uint64_t *st,
		    unsigned ncpus)
{
	uint64_t ulost = st[SCRY_PROF_USTACK_LOST] + st[SCRY_PROF_RING_FULL];
	uint64_t full = st[SCRY_PROF_COUNTS_FULL] + r->tally_failed;
	uint64_t lost = st[SCRY_PROF_KSTACK_LOST] + ulost + full;
	double secs = (double)p->duration_ns / 1e9;

	if (a->offcpu) {
		fprintf(stderr, "scry: off-cpu profile: %llu blocks of %.0f us or more (%.2f s), %.1f ms blocked in all, "
			"%llu lost (%llu kernel stacks, %llu user stacks, %llu blocks: counts map full, %llu blocks not "
			"measured: no room)", (unsigned long long)st[SCRY_PROF_BLOCKS], (double)a->min_block_ns / 1e3,
			secs, (double)p->total / 1e3,
			(unsigned long long)(lost + st[SCRY_PROF_BLOCKS_LOST]), (unsigned long long)st[SCRY_PROF_KSTACK_LOST],
			(unsigned long long)ulost, (unsigned long long)full, (unsigned long long)st[SCRY_PROF_BLOCKS_LOST]);
		if (st[SCRY_PROF_NOTES_LOST])
			fprintf(stderr, ", %llu processes' mappings read late", (unsigned long long)st[SCRY_PROF_NOTES_LOST]);
		for (size_t i = 0; i < a->nouts; i++)
			fprintf(stderr, "%s%s", i ? ", " : "; written to ", a->outs[i].path);
		fputc('\n', stderr);
		return;
	}

	fprintf(stderr, "scry: profile: %llu samples (%s, %u Hz, %u CPUs, %.2f s), %llu lost (%llu kernel stacks, "
		"%llu user stacks, %llu samples: counts map full)",
		(unsigned long long)st[SCRY_PROF_SAMPLES], p->event, p->freq, ncpus, secs, (unsigned long long)lost,
		(unsigned long long)st[SCRY_PROF_KSTACK_LOST], (unsigned long long)ulost, (unsigned long long)full);
	if (st[SCRY_PROF_RING_FULL])
		fprintf(stderr, ", %llu user stacks not copied: ring full (--buffer-size)",
			(unsigned long long)st[SCRY_PROF_RING_FULL]);
	if (r->tally_failed)
		fprintf(stderr, ", %llu samples not counted: out of memory", (unsigned long long)r->tally_failed);
	if (st[SCRY_PROF_NOTES_LOST])
		fprintf(stderr, ", %llu processes' mappings read late", (unsigned long long)st[SCRY_PROF_NOTES_LOST]);
	if (r->delivery) {
		fprintf(stderr, "; perf: %llu of %llu timer samples delivered (all tasks')",
			(unsigned long long)r->fired, (unsigned long long)r->expected);
		if (r->missed && r->throttles)
			fprintf(stderr, ", %llu lost: perf throttled the events %llu times (kernel.perf_event_max_sample_rate, "
				"kernel.perf_cpu_time_max_percent)", (unsigned long long)r->missed,
				(unsigned long long)r->throttles);
		else if (r->missed)
			fprintf(stderr, ", %llu lost: the timer fired late, periods skipped (a loaded machine)",
				(unsigned long long)r->missed);
		else if (r->throttles)
			fprintf(stderr, ", perf throttled the events %llu times", (unsigned long long)r->throttles);
	}
	if (r->runs)
		fprintf(stderr, "; BPF: %llu runs, %llu ns each (bpf_stats)", (unsigned long long)r->runs,
			(unsigned long long)(r->run_ns / r->runs));
	if (r->unw) {
		const struct scry_unwind_stats *u = scry_unwinder_stats(r->unw);

		fprintf(stderr, "; dwarf: %llu user stacks of %u bytes (%llu read on average), %llu unwound to their "
			"outermost frame (%.1f us each)", (unsigned long long)u->stacks, a->ustack_size,
			(unsigned long long)(u->stacks ? r->ustack_bytes / u->stacks : 0), (unsigned long long)u->ended,
			u->stacks ? (double)r->unwind_ns / 1e3 / (double)u->stacks : 0.0);
		if (u->window)
			fprintf(stderr, ", %llu stopped at the end of their copy (a larger dwarf,SIZE reaches further)",
				(unsigned long long)u->window);
		if (u->nofile)
			fprintf(stderr, ", %llu at an address in no file the process maps", (unsigned long long)u->nofile);
		if (u->other)
			fprintf(stderr, ", %llu stopped where libdw found no caller (no CFI for an address, ...)",
				(unsigned long long)u->other);
	}
	for (size_t i = 0; i < a->nouts; i++)
		fprintf(stderr, "%s%s", i ? ", " : "; written to ", a->outs[i].path);
	fputc('\n', stderr);
}

/* -i: a saved profile to the outputs and the report, nothing sampled. */
static int saved(const struct prof_args *a, struct scry_prof *p, char *err, size_t errlen)
{
	char title[512];

	if (scry_prof_read_pprof(p, a->input, err, errlen))
		goto fail;
	snprintf(title, sizeof(title), "scry profile: %s (%llu samples, %s at %u Hz)", a->input,
		 (unsigned long long)p->total, p->event, p->freq);
	if (write_outputs(a, p, title, err, errlen))
		goto fail;
	if (a->report && scry_prof_write_report(p, stdout, REPORT_LINES)) {
		fprintf(stderr, "scry: cannot write the report: %s\n", strerror(errno));
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "scry: %s\n", err);
	return 1;
}

int cmd_profile(int argc, char **argv)
{
	struct prof_args a = { .event = SCRY_PROF_EV_CPU_CLOCK };
	struct scry_profiler_opts ko = { 0 };
	int *cgroup_fds = NULL;
	struct scry_child child = { .pid = -1, .status_fd = -1 };
	struct run r = { .child = -1 };
	struct prof_ctf ctf = { 0 };
	struct scry_prof prof;
	uint64_t st[SCRY_PROF_NSTATS], t0, t1;
	struct timespec rt;
	char err[1024] = "", title[512];
	int ret = 1;

	scry_prof_init(&prof);
	if (parse_args(argc, argv, &a, err, sizeof(err)))
		goto fail;
	if (a.input) {
		ret = saved(&a, &prof, err, sizeof(err));
		goto out;
	}
	if (scry_check_privileges("scry profile", err, sizeof(err)))
		goto fail;
	if (a.cmd && scry_spawn_check(a.cmd[0], err, sizeof(err)))
		goto fail;
	ko.event = (enum scry_prof_event)a.event;
	ko.freq = a.freq;
	ko.all = a.all;
	ko.max_stacks = a.max_stacks;
	ko.ustack_size = a.ustack_size;
	ko.ring_size = (size_t)a.ring_size;
	ko.offcpu = a.offcpu;
	ko.min_block_ns = a.min_block_ns;
	if (a.track.ncgroups && !(cgroup_fds = calloc(a.track.ncgroups, sizeof(*cgroup_fds)))) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < a.track.ncgroups; i++) {
		if ((cgroup_fds[i] = scry_cgroup_open(a.track.cgroups[i], err, sizeof(err))) < 0)
			goto fail;
		ko.ncgroups = i + 1;
	}
	ko.cgroup_fds = cgroup_fds;
	scry_tally_init(&r.tally);
	r.h = (struct scry_profiler_handlers){ .note = on_note, .ustack = on_ustack, .ctx = &r };
	if (scry_profiler_open(&ko, &r.k, err, sizeof(err)))
		goto fail;
	if (!(r.syms = scry_syms_new()) || (a.ustack_size && !(r.unw = scry_unwinder_new(r.syms)))) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (a.ctf) {
		if (prof_ctf_open(&ctf, a.ctf, a.freq, a.all, a.track.cgroups, a.track.ncgroups, err, sizeof(err)))
			goto fail;
		r.ctf = &ctf;
	}
	for (size_t i = 0; i < a.npids; i++)
		if (scry_profiler_target(r.k, a.pids[i], err, sizeof(err)) ||
		    (r.ctf && prof_ctf_track(r.ctf, a.pids[i], err, sizeof(err))))
			goto fail;
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (a.cmd) {
		if (scry_spawn_held(a.cmd, &child, err, sizeof(err)) ||
		    scry_profiler_target(r.k, child.pid, err, sizeof(err)) ||
		    (r.ctf && prof_ctf_track(r.ctf, child.pid, err, sizeof(err))))
			goto fail;
		r.child = child.pid;
	}
	if (scry_profiler_start(r.k, err, sizeof(err)) || (r.ctf && prof_ctf_start(r.ctf, err, sizeof(err))))
		goto fail;
	clock_gettime(CLOCK_REALTIME, &rt);
	t0 = scry_monotonic_ns();
	if (a.cmd && scry_spawn_release(&child, err, sizeof(err))) {
		waitpid(child.pid, NULL, 0);
		child.pid = -1;
		goto fail;
	}
	if (!a.cmd && !a.quiet && a.offcpu)
		fprintf(stderr, "scry: profiling off-CPU time (Ctrl-C stops)\n");
	else if (!a.cmd && !a.quiet)
		fprintf(stderr, "scry: profiling at %u Hz (Ctrl-C stops)\n", a.freq);
	if (sample(&r, &a, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	scry_profiler_stop(r.k);
	t1 = scry_monotonic_ns();
	r.delivery = !a.offcpu && !scry_profiler_delivery(r.k, &r.expected, &r.fired, &r.missed, &r.throttles);
	if (r.ctf && prof_ctf_stop(r.ctf, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	if (scry_profiler_run_stats(r.k, &r.runs, &r.run_ns))
		r.runs = 0;
	scry_profiler_poll(r.k, &r.h);   /* the last records: their processes may live still */

	prof.event = a.offcpu ? "off-cpu" : scry_prof_event_name(ko.event);
	prof.offcpu = a.offcpu;
	prof.freq = a.offcpu ? 0 : a.freq;
	prof.start_ns = (uint64_t)rt.tv_sec * 1000000000ULL + (uint64_t)rt.tv_nsec;
	prof.duration_ns = t1 - t0;
	if (scry_profiler_stats(r.k, st) || scry_prof_collect(r.k, r.syms, r.unw ? &r.tally : NULL, &a.sym, &prof, err,
								    sizeof(err)))
		goto fail_late;
	if (a.offcpu)
		snprintf(title, sizeof(title), "scry profile --off-cpu: %s (%.1f ms blocked)",
			 a.cmd ? a.cmd[0] : a.all ? "all processes" : "processes", (double)prof.total / 1e3);
	else if (a.cmd)
		snprintf(title, sizeof(title), "scry profile: %s (%llu samples, %s at %u Hz)", a.cmd[0],
			 (unsigned long long)prof.total, prof.event, prof.freq);
	else
		snprintf(title, sizeof(title), "scry profile: %s (%llu samples, %s at %u Hz)",
			 a.all ? "all processes" : "processes", (unsigned long long)prof.total, prof.event, prof.freq);
	if (write_outputs(&a, &prof, title, err, sizeof(err)))
		goto fail_late;
	summary(&a, &r, &prof, st, scry_profiler_ncpus(r.k));
	if (r.ctf)
		prof_ctf_report(r.ctf);
	if (a.report && scry_prof_write_report(&prof, stdout, REPORT_LINES))
		fprintf(stderr, "scry: cannot write the report: %s\n", strerror(errno));
	ret = 0;
	if (a.cmd) {
		if (!r.child_done && waitpid(child.pid, &r.wstatus, WNOHANG) == child.pid)
			r.child_done = true;
		ret = r.child_done ? scry_exit_status(r.wstatus) : (stop_signal ? 128 + stop_signal : 0);
	}
	if (r.ctf && ctf.sum.write_error)
		ret = 1;   /* the trace is incomplete, whatever the command's status */
	goto out;
fail_late:
	fprintf(stderr, "scry: %s\n", err);
	ret = 1;
	goto out;
fail:
	fprintf(stderr, "scry: %s\n", err);
	ret = 1;
	if (child.pid > 0 && child.held)
		scry_spawn_abort(&child);
out:
	if (r.ctf) {
		if (ctf.started && !ctf.stopped)
			prof_ctf_stop(&ctf, err, sizeof(err));
		prof_ctf_free(&ctf);
	}
	scry_profiler_free(r.k);
	scry_unwinder_free(r.unw);
	scry_tally_free(&r.tally);
	scry_syms_free(r.syms);
	scry_prof_free(&prof);
	for (size_t i = 0; i < a.nouts; i++)
		free(a.outs[i].path);
	free(a.pids);
	for (size_t i = 0; i < ko.ncgroups; i++)
		close(cgroup_fds[i]);
	free(cgroup_fds);
	cli_track_free(&a.track);
	return ret;
}
