/* record.c — `scry record`: options -> session; runs the consumer loop until Ctrl-C,
 * SIGTERM, --duration, or the end of the traced command / processes; prints the summary. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "catalog/elfsyms.h"
#include "cli/channels.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/optable.h"
#include "cli/report.h"
#include "cli/track.h"
#include "feed/capture.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "relay/proto.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/privs.h"
#include "util/spawn.h"

#define DEFAULT_CTX ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME))

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry record [OPTIONS] [-- CMD ARGS...]\n"
		"Record kernel events into a CTF trace in LTTng's kernel layout.\n"
		"\n"
		"  -o, --output DIR       trace directory (default ./scry-YYYYmmdd-HHMMSS); never overwritten\n"
		"  -U, --set-url URL      stream the trace to an lttng-relayd: net://HOST[:CTRL[:DATA]][/PATH]\n"
		"                         (ports 5342, 5343); with -o, a local copy too (docs/RELAY.md)\n"
		"  -C, --ctrl-url URL     -D, --data-url URL: the relay as tcp://HOST:PORT each (LTTng's -C/-D)\n"
		"      --live[=USEC]      a live session at the relay (live timer, default 1000000 us)\n"
		"      --name NAME        the session's name at the relay (default scry): HOST/NAME-DATE\n"
		"      --hostname NAME    the host's name at the relay (default this machine's)\n"
		"  -e, --event SPEC       event(s), repeatable, comma-separated: 'sched:sched_switch', 'sched:*',\n"
		"                         'syscall:openat', 'syscall:open*', 'syscall:*', 'block:block_rq_issue'.\n"
		"                         Dynamic probes (docs/PROBES.md): 'uprobe:PATH:FUNC' (FUNC+OFF,\n"
		"                         0xADDR, globs), 'uretprobe:PATH:FUNC', 'usdt:PATH:PROVIDER:NAME',\n"
		"                         PATH a file or a name in $PATH; arguments typed from DWARF\n"
		"                         Default: all syscalls + sched_switch + sched_process_fork/exec/exit\n"
		"                         + the statedump ('lttng_statedump_*' but _vm_map), and with CMD or -p\n"
		"                         sched_wakeup/_new; -e replaces it.\n"
		"                         'lttng_statedump_*': LTTng's statedump of the machine at start\n"
		"                         'profile:cpu-clock:HZ': a cpu-clock sample (HZ a second per CPU)\n"
		"                         as an event, profile_cpu_clock; its stacks: -c callstack-kernel,\n"
		"                         callstack-user (docs/FORMAT.md)\n"
		"                         'net:connections': a net_connection event per TCP connection of\n"
		"                         the targets when it closes: 4-tuple, owner, bytes, duration\n"
		"      --userspace-probe SPEC  LTTng's spelling: elf:PATH:SYMBOL, sdt:PATH:PROVIDER:NAME\n"
		"  -c, --context LIST     contexts (default pid,tid,procname); `scry list contexts` shows them\n"
		"      --channel NAME     the -e, -c and --buffer-size after it apply to channel NAME (a\n"
		"                         stream class of its own: NAME_<cpu> files, its contexts and\n"
		"                         buffers); before any --channel, -e adds to channel0 and -c,\n"
		"                         --buffer-size set every channel's default\n"
		"  -p, --pid PID[,PID]    trace these processes and their future children\n"
		"  -a, --all              trace the whole system\n"
		"      --duration TIME    stop after TIME (seconds, or 500ms, 2m)\n"
		"      --buffer-size SIZE per-CPU ring buffer (default 8M, less beyond 8 CPUs, 4x with a\n"
		"                         call stack context; K/M/G; a power of two, 2G at most (the\n"
		"                         kernel's limit); below 64K it loses most events: a warning\n"
		"                         says so)\n"
		"      --packet-size SIZE CTF packet size (default 1M)\n"
		"      --snaplen N        capture up to N bytes (at most 4096) of the data buffers of\n"
		"                         read/write/send/recv... (default 0: their pointer only)\n"
		"      --capture LIST     also record what is left out by default (comma-separated):\n"
		"                         'env': execve's environment strings (default: as LTTng, the\n"
		"                         envp pointer, and its count in _envp_count)\n"
		"      --group GROUP      the trace's directories (0750) and files (0640) given GROUP, who\n"
		"                         may read them besides you (default: your own group)\n"
		"      --fetch LIST       uprobes: members by path recorded too, as fields\n"
		"                         ('req->hdr.len,s.count': through a pointer parameter or\n"
		"                         variable in a register, within a struct in the frame)\n"
		CLI_TRACK_USAGE
		"      --metrics FILE     also keep the metrics FILE declares in the kernel (docs/METRICS.md)\n"
		"                         and write them to DIR/metrics.prom at the end\n"
		"      --spans FILE       also send the spans FILE declares (tracing: spans:) over OTLP as\n"
		"                         scry serve does (OTEL_EXPORTER_OTLP_ENDPOINT...), while recording\n"
		"  -q, --quiet            no live status line\n"
		"  -v, --verbose          libbpf and verifier messages\n"
		"\n"
		"Without -p or -a, CMD is started, and it and its descendants are traced; scry exits\n"
		"with CMD's status.  With CMD or -p, the scheduler's events (sched_switch, sched_waking,\n"
		"sched_wakeup, sched_wakeup_new, sched_migrate_task) are recorded for every task, so\n"
		"that CPU analyses (lttng-cputop) see each task switched in and out; scry never records\n"
		"itself otherwise.\n");
}

/* Below this a ring holds less than two of the largest events (SCRY_SCRATCH_SIZE) and
 * four staged batches (SCRY_STAGE_SIZE): --buffer-size warns. */
#define CLI_USEFUL_RING (2 * SCRY_SCRATCH_SIZE)

struct record_args {
	struct scry_session_opts so;
	struct cli_channels chans;
	pid_t *pids;
	size_t npids;
	double duration;
	bool quiet;
	bool until_stopped;    /* -a with --track-pid: run until stopped, not until they exit */
	char **cmd;
	struct cli_track track;
	const char *metrics;   /* --metrics FILE */
	const char *spans;     /* --spans FILE */
	struct scry_capture rm;
	const char *url, *ctrl_url, *data_url;   /* -U, -C, -D */
	struct relay_url relay;
	char relay_name[300];
};

/* Channel, event and context options: -EINVAL as they give it, any other failure memory's. */
static int chan_ret(int r)
{
	return r == -EINVAL ? r : r ? -ENOMEM : 0;
}

static int opt_output(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->so.output = arg;
	return 0;
}

static int opt_url(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct record_args *a = args;

	*(key == 'U' ? &a->url : key == 'C' ? &a->ctrl_url : &a->data_url) = arg;
	return 0;
}

static int opt_live(void *args, int key, const char *arg, char *err, size_t errlen)
{
	char *end;
	unsigned long us = arg ? strtoul(arg, &end, 10) : 1000000;

	if (arg && (!*arg || *end || !us || us > 3600000000UL)) {
		snprintf(err, errlen, "--live=USEC: the live timer in microseconds (1 to 3600000000), not '%s'", arg);
		return -EINVAL;
	}
	((struct record_args *)args)->so.live_timer_us = (uint32_t)us;
	return 0;
}

static int opt_name(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->so.relay_session = arg;
	return 0;
}

static int opt_hostname(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->so.hostname = arg;
	return 0;
}

static int opt_event(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return chan_ret(cli_channels_events(&((struct record_args *)args)->chans, arg, err, errlen));
}

/* LTTng's spelling: elf:PATH:SYMBOL, sdt:PATH:PROVIDER:NAME */
static int opt_userspace_probe(void *args, int key, const char *arg, char *err, size_t errlen)
{
	char spec[4200];

	if (!strncmp(arg, "elf:", 4))
		snprintf(spec, sizeof(spec), "uprobe:%s", arg + 4);
	else if (!strncmp(arg, "sdt:", 4))
		snprintf(spec, sizeof(spec), "usdt:%s", arg + 4);
	else {
		snprintf(err, errlen, "--userspace-probe '%s': expected elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME", arg);
		return -EINVAL;
	}
	return chan_ret(cli_channels_events(&((struct record_args *)args)->chans, spec, err, errlen));
}

static int opt_context(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return chan_ret(cli_channels_contexts(&((struct record_args *)args)->chans, arg, err, errlen));
}

static int opt_channel(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return cli_channels_open(&((struct record_args *)args)->chans, arg, err, errlen) ? -ENOMEM : 0;
}

static int opt_pid(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct record_args *a = args;

	if (scry_parse_pids(arg, &a->pids, &a->npids)) {
		snprintf(err, errlen, "invalid pid list '%s' (expected PID[,PID...])", arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_all(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->so.target_all = true;
	return 0;
}

static int opt_duration(void *args, int key, const char *arg, char *err, size_t errlen)
{
	if (scry_parse_duration(arg, &((struct record_args *)args)->duration)) {
		snprintf(err, errlen, "invalid duration '%s' (expected seconds, e.g. 5, 0.5, 500ms, 2m)", arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_buffer_size(void *args, int key, const char *arg, char *err, size_t errlen)
{
	uint64_t size;

	if (scry_parse_size(arg, &size)) {
		snprintf(err, errlen, "invalid buffer size '%s' (expected e.g. 64K, 8M, up to 2G)", arg);
		return -EINVAL;
	}
	size = scry_pow2_at_least(size, (uint64_t)sysconf(_SC_PAGESIZE));
	if (size > SCRY_RING_MAX) {
		snprintf(err, errlen, "--buffer-size %s: a CPU's ring buffer is at most 2G (the "
			 "kernel's limit: a power of two, sizes rounded up to one, below 4G)", arg);
		return -EINVAL;
	}
	cli_channels_ring_size(&((struct record_args *)args)->chans, size);
	if (size < CLI_USEFUL_RING)
		fprintf(stderr, "scry: warning: --buffer-size %zu bytes per CPU is below %dK (two "
			"of the largest events): large events never fit and most events will be "
			"lost\n", (size_t)size, CLI_USEFUL_RING / 1024);
	return 0;
}

static int opt_packet_size(void *args, int key, const char *arg, char *err, size_t errlen)
{
	uint64_t size;

	if (scry_parse_size(arg, &size) || size < 4096 || size > (256ULL << 20)) {
		snprintf(err, errlen, "invalid packet size '%s' (expected 4K to 256M)", arg);
		return -EINVAL;
	}
	((struct record_args *)args)->so.packet_size = size;
	return 0;
}

static int opt_metrics(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->metrics = arg;
	return 0;
}

static int opt_spans(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->spans = arg;
	return 0;
}

static int opt_fetch(void *args, int key, const char *arg, char *err, size_t errlen)
{
	if (!*arg) {
		snprintf(err, errlen, "--fetch: expected VARIABLE->MEMBER[.MEMBER...] (comma-separated)");
		return -EINVAL;
	}
	((struct record_args *)args)->so.capture.fetch = arg;
	return 0;
}

static int opt_snaplen(void *args, int key, const char *arg, char *err, size_t errlen)
{
	uint64_t size;

	if (scry_parse_size(arg, &size) || size > SCRY_SEQ_MAX) {
		snprintf(err, errlen, "invalid snaplen '%s' (expected 0 to %d bytes)", arg, SCRY_SEQ_MAX);
		return -EINVAL;
	}
	((struct record_args *)args)->so.capture.snaplen = (unsigned)size;
	return 0;
}

static int opt_capture(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return scry_capture_opts_parse(arg, &((struct record_args *)args)->so.capture.what, err, errlen) ? -EINVAL : 0;
}

static int opt_group(void *args, int key, const char *arg, char *err, size_t errlen)
{
	struct record_args *a = args;

	if (scry_parse_group(arg, &a->so.group)) {
		snprintf(err, errlen, "--group: no group '%s'", arg);
		return -EINVAL;
	}
	a->so.set_group = true;
	return 0;
}

static int opt_quiet(void *args, int key, const char *arg, char *err, size_t errlen)
{
	((struct record_args *)args)->quiet = true;
	return 0;
}

static int opt_verbose(void *args, int key, const char *arg, char *err, size_t errlen)
{
	scry_log_set(NULL, NULL, true);   /* libbpf, the verifier, where filters run */
	return 0;
}

static int opt_help(void *args, int key, const char *arg, char *err, size_t errlen)
{
	usage(stdout);
	exit(0);
}

static int opt_track(void *args, int key, const char *arg, char *err, size_t errlen)
{
	return cli_track_option(&((struct record_args *)args)->track, key, arg, err, errlen) ? -EINVAL : 0;
}

enum { OPT_DURATION = 256, OPT_BUFFER, OPT_PACKET, OPT_SNAPLEN, OPT_CHANNEL, OPT_USERSPACE_PROBE, OPT_METRICS,
       OPT_FETCH, OPT_SPANS, OPT_CAPTURE, OPT_GROUP, OPT_LIVE, OPT_NAME, OPT_HOSTNAME };

/* scry record's options (usage() says what each does) */
static const struct cli_opt record_opts[] = {
	{ "output", 'o', required_argument, opt_output },
	{ "set-url", 'U', required_argument, opt_url },
	{ "ctrl-url", 'C', required_argument, opt_url },
	{ "data-url", 'D', required_argument, opt_url },
	{ "live", OPT_LIVE, optional_argument, opt_live },
	{ "name", OPT_NAME, required_argument, opt_name },
	{ "hostname", OPT_HOSTNAME, required_argument, opt_hostname },
	{ "event", 'e', required_argument, opt_event },
	{ "context", 'c', required_argument, opt_context },
	{ "channel", OPT_CHANNEL, required_argument, opt_channel },
	{ "userspace-probe", OPT_USERSPACE_PROBE, required_argument, opt_userspace_probe },
	{ "metrics", OPT_METRICS, required_argument, opt_metrics },
	{ "spans", OPT_SPANS, required_argument, opt_spans },
	{ "pid", 'p', required_argument, opt_pid },
	{ "all", 'a', no_argument, opt_all },
	{ "duration", OPT_DURATION, required_argument, opt_duration },
	{ "buffer-size", OPT_BUFFER, required_argument, opt_buffer_size },
	{ "packet-size", OPT_PACKET, required_argument, opt_packet_size },
	{ "snaplen", OPT_SNAPLEN, required_argument, opt_snaplen },
	{ "capture", OPT_CAPTURE, required_argument, opt_capture },
	{ "group", OPT_GROUP, required_argument, opt_group },
	{ "fetch", OPT_FETCH, required_argument, opt_fetch },
	{ "quiet", 'q', no_argument, opt_quiet },
	{ "verbose", 'v', no_argument, opt_verbose },
	{ "help", 'h', no_argument, opt_help },
	CLI_TRACK_OPTS(opt_track),
};

static int parse_args(int argc, char **argv, struct record_args *a, char *err, size_t errlen)
{
	int ret;

	if (cli_channels_init(&a->chans, DEFAULT_CTX))
		goto oom;
	ret = cli_opts_parse(record_opts, sizeof(record_opts) / sizeof(record_opts[0]), argc, argv, a,
			     "invalid option (see scry record --help)", err, errlen);
	if (ret == -ENOMEM)
		goto oom;
	if (ret)
		return ret;
	if (optind < argc)
		a->cmd = &argv[optind];
	if (a->url && (a->ctrl_url || a->data_url)) {
		snprintf(err, errlen, "--set-url and -C/-D are exclusive (one relay)");
		return -EINVAL;
	}
	if (a->url || a->ctrl_url || a->data_url) {
		if (a->url ? relay_url_parse(&a->relay, a->url, err, errlen)
			   : relay_url_parse_cd(&a->relay, a->ctrl_url, a->data_url, err, errlen))
			return -EINVAL;
		a->so.relay = &a->relay;
		relay_url_format(&a->relay, a->relay_name, sizeof(a->relay_name));
	} else if (a->so.live_timer_us || a->so.relay_session || a->so.hostname) {
		snprintf(err, errlen, "--live, --name and --hostname are for a trace streamed to a relay (--set-url)");
		return -EINVAL;
	}
	if (a->so.target_all && a->npids) {
		snprintf(err, errlen, "-a and -p are exclusive: -a already traces every process");
		return -EINVAL;
	}
	if (a->cmd && (a->so.target_all || a->npids)) {
		snprintf(err, errlen, "a command cannot be combined with -a or -p");
		return -EINVAL;
	}
	if (a->cmd && a->track.npids) {
		snprintf(err, errlen, "a command cannot be combined with --track-pid (its processes are tracked)");
		return -EINVAL;
	}
	a->until_stopped = a->so.target_all && a->track.npids;   /* -a --track-pid: until stopped */
	if (cli_track_apply(&a->track, &a->so, &a->pids, &a->npids))
		goto oom;
	if (!a->cmd && !a->so.target_all && !a->npids) {
		snprintf(err, errlen, "nothing to trace: give -- CMD, -p PID or -a");
		return -EINVAL;
	}
	a->so.sched_everyone = !a->so.target_all;   /* CMD, -p: every task's switches and wake-ups */
	if (cli_resolve_pids(a->pids, a->npids, false, err, errlen))
		return -ESRCH;
	{
		int r = cli_channels_finish(&a->chans, &a->so, err, errlen);

		if (r == -EINVAL)
			return r;
		if (r)
			goto oom;
	}
	if ((a->metrics || a->spans) && scry_capture_prepare(&a->rm, a->metrics, a->spans, &a->so, err, errlen))
		return -EINVAL;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* The live status line, once a second. */
struct status {
	struct scry_session *s;
	uint64_t last_events, last_t;
	struct scry_capture *rm;   /* --spans: pumped after each poll */
};

static void after_poll(void *ctx, uint64_t now)
{
	scry_capture_pump(((struct status *)ctx)->rm, now);
}

static void status_line(void *ctx, uint64_t now)
{
	struct status *st = ctx;
	struct scry_session_summary p;
	char mb[32];

	scry_session_progress(st->s, &p);
	cli_human_bytes(p.bytes, mb, sizeof(mb));
	fprintf(stderr, "\r\033[K[scry] %.0f events/s, %s written, %llu lost",
		(p.events - st->last_events) / ((now - st->last_t) / 1e9), mb,
		(unsigned long long)(p.discarded + p.lost));
	if (p.write_error)
		fprintf(stderr, "; %s after %llu events", cli_write_error_name(p.write_error),
			(unsigned long long)p.events);
	st->last_events = p.events;
	st->last_t = now;
}

/* Record until the command ends, the processes (-p) end, --duration, or a signal. */
static int run(struct scry_session *s, struct record_args *a, struct scry_child *child,
	       struct scry_run_end *end, char *err, size_t errlen)
{
	bool show = !a->quiet && isatty(STDERR_FILENO);
	struct status st = { .s = s, .last_t = scry_monotonic_ns(), .rm = &a->rm };
	struct scry_run_opts ro = {
		.duration_ns = a->duration > 0 ? (uint64_t)(a->duration * 1e9) : 0,
		.child = child ? child->pid : 0,
		.pids = child || a->until_stopped ? NULL : a->pids,
		.npids = child || a->until_stopped ? 0 : a->npids,
		.every_second = show ? status_line : NULL,
		.max_poll_delay_ns = a->spans ? 50 * 1000 * 1000ULL : 0,
		.after_poll = a->spans ? after_poll : NULL,
		.ctx = &st,
		.stop = &stop_signal,
	};
	int ret = scry_session_run(s, &ro, end, err, errlen);

	if (show)
		fprintf(stderr, "\r\033[K");
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .so.fixed_events = true };
	struct scry_session *s = NULL;
	struct scry_session_summary sum;
	struct scry_child child = { .pid = -1, .status_fd = -1 };
	struct scry_run_end end;
	char err[1024] = "";
	int wstatus = 0, ret = 1;
	bool child_done = false, relay_lost = false;

	if (parse_args(argc, argv, &a, err, sizeof(err)))
		goto fail;
	if (scry_check_privileges("scry record", err, sizeof(err)))
		goto fail;
	scry_raise_nofile();
	scry_features_prefetch();   /* the kernel's BTF parsed while we prepare */
	scry_probes_prefetch(false);     /* and the BPF object opened */
	if (a.cmd && scry_spawn_check(a.cmd[0], err, sizeof(err)))
		goto fail;
	scry_elf_search_pids(a.pids, a.npids);   /* uprobe:NAME: the file -p's processes map */
	if (a.spans && scry_capture_spans_start(&a.rm, NULL, err, sizeof(err)))
		goto fail;
	for (int r = 1; r == 1;) {   /* again when the process spans need a channel of their own */
		scry_session_destroy(s);
		s = NULL;
		if (scry_session_create(&s, &a.so, err, sizeof(err)))
			goto fail;
		if (a.spans && (r = scry_capture_bind(&a.rm, s, &a.so, err, sizeof(err))) < 0)
			goto fail;
		if (!a.spans)
			r = 0;
	}
	if (scry_session_load(s, err, sizeof(err)))
		goto fail;
	if (scry_capture_open(&a.rm, s, err, sizeof(err)))
		goto fail;
	if (cli_launch(s, a.pids, a.npids, a.cmd, &child, on_signal, a.rm.m.live ? scry_feed_on_child : NULL,
		       a.rm.m.live, err, sizeof(err)))
		goto fail;
	/* without a command, when recording begins is the user's to know (LTTng: "Tracing
	 * started"): the switch is on, every event of the session recorded from now */
	if (!a.cmd && a.so.relay)
		fprintf(stderr, "scry: recording to %s (the relay's %s)%s%s (Ctrl-C stops)\n", a.relay_name,
			scry_session_relay_path(s), a.so.output ? " and " : "", a.so.output ? scry_session_dir(s) : "");
	else if (!a.cmd)
		fprintf(stderr, "scry: recording to %s (Ctrl-C stops)\n", scry_session_dir(s));

	if (run(s, &a, a.cmd ? &child : NULL, &end, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	child_done = end.child_done;
	wstatus = end.wstatus;

	if (scry_session_stop(s, &sum, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	cli_report_recording(&sum, a.so.output || !a.so.relay ? scry_session_dir(s) : a.relay_name);
	relay_lost = a.so.relay && cli_report_relay(&sum, a.relay_name, scry_session_relay_error(s));
	if ((a.metrics || a.spans) && scry_capture_write(&a.rm, s, scry_session_dir(s), err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	ret = 0;
	if (a.cmd) {
		if (!child_done) {
			/* stopped by a signal or --duration: the command keeps running untraced */
			if (waitpid(child.pid, &wstatus, WNOHANG) == child.pid)
				child_done = true;
		}
		ret = child_done ? scry_exit_status(wstatus) : (stop_signal ? 128 + stop_signal : 0);
	}
	if (sum.write_error || relay_lost)
		ret = 1;   /* the trace is incomplete, whatever the command's status */
	goto out;
fail:
	scry_explain_nofile(err, sizeof(err));
	fprintf(stderr, "scry: %s\n", err);
	ret = 1;
	if (child.pid > 0 && child.held)
		scry_spawn_abort(&child);
out:
	scry_session_destroy(s);   /* before the metrics' catalog, which it uses */
	if (a.metrics || a.spans)
		scry_capture_free(&a.rm);
	cli_channels_free(&a.chans);
	free(a.pids);
	cli_track_free(&a.track);
	return ret;
}
