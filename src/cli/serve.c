/* serve.c — `scry serve --config FILE [--listen ADDR:PORT]`: the metrics of a config
 * (docs/METRICS.md) kept in the kernel and served to Prometheus over HTTP (feed/http.h).
 * Runs until SIGINT/SIGTERM or --duration; a command (-- CMD) is followed while it runs and
 * its metrics stay served after it ends; scry serve then exits with its status. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "cli/commands.h"
#include "cli/metrics_cli.h"
#include "feed/http.h"
#include "util/log.h"
#include "util/spawn.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry serve --config FILE [--listen ADDR:PORT] [OPTIONS] [-- CMD ARGS...]\n"
		"       scry serve --counter NAME[:SOURCE,...] --histogram NAME[:SOURCE,...] [OPTIONS] ...\n"
		"Keep the metrics FILE declares (counters and histograms of syscalls, docs/METRICS.md)\n"
		"in the kernel and serve them to Prometheus at http://ADDR:PORT/metrics; send the spans\n"
		"it declares (tracing: spans:) to an OpenTelemetry collector over OTLP/HTTP, configured\n"
		"by OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME and the other OTEL_* variables.\n"
		"\n"
		"  -C, --config FILE      the config (YAML; examples/metrics.yaml, examples/spans.yaml)\n"
		"  -l, --listen ADDR:PORT where to listen (default " DEFAULT_LISTEN "; [::1]:PORT for IPv6)\n"
		"      --counter NAME[:SOURCE,...]\n"
		"                         instead of a config: a counter of syscalls by these label\n"
		"                         sources (syscall, errno, comm, pid, tid, uid, cgroup, addr),\n"
		"                         each label named after its source; repeatable\n"
		"      --histogram NAME[:SOURCE,...]\n"
		"                         the same for a histogram of their latency in seconds (exp2\n"
		"                         buckets from 2^10 to 2^34 ns)\n"
		"      --bpf-stats        have the kernel count the runs and run time of BPF programs\n"
		"                         while serving (BPF_ENABLE_STATS; a small cost to every BPF\n"
		"                         program of the system), exported per scry program\n"
		CLI_METRICS_TARGET_USAGE
		"  -v, --verbose          libbpf and verifier messages\n"
		"\n"
		"With -- CMD, CMD and its descendants are measured; their metrics stay served after it\n"
		"ends, until SIGINT/SIGTERM or --duration; scry serve then exits with CMD's status\n"
		"(128 + N: killed by signal N; still running: 128 + the signal that stopped scry).\n");
}

static bool bpf_stats_on(int stats_fd)
{
	char c = '0';
	FILE *f;

	if (stats_fd >= 0)
		return true;
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '0';
		fclose(f);
	}
	return c == '1';
}

/* --counter/--histogram NAME[:SOURCE,...]: one metric of the config text *yaml (a list of
 * flow mappings under counters: or histograms:, appended to), parsed by the config's own
 * parser (its errors name "command line" and the key).  Only names and sources' characters
 * are checked here: they cannot break out of the YAML. */
static int quick_metric(char **list, const char *arg, bool hist, char *err, size_t errlen)
{
	const char *colon = strchr(arg, ':');
	size_t nlen = colon ? (size_t)(colon - arg) : strlen(arg);
	char *out = NULL, *labels = NULL;
	size_t len = 0, llen = 0;
	FILE *f, *lf;

	for (const char *c = arg; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
		      *c == ':' || *c == ',')) {
			snprintf(err, errlen, "invalid --%s '%s' (expected NAME[:SOURCE,...], e.g. calls_total:syscall,comm)",
				 hist ? "histogram" : "counter", arg);
			return -1;
		}
	if (!(lf = open_memstream(&labels, &llen)))
		goto oom;
	for (const char *c = colon ? colon + 1 : ""; *c;) {
		size_t n = strcspn(c, ",");

		if (n)
			fprintf(lf, "%s{name: %.*s, source: %.*s}", ftell(lf) ? ", " : "", (int)n, c, (int)n, c);
		c += n + (c[n] == ',');
	}
	fclose(lf);
	if (!(f = open_memstream(&out, &len))) {
		free(labels);
		goto oom;
	}
	fprintf(f, "%s%s{name: \"%.*s\", labels: [%s]%s}", *list ? *list : "", *list ? ", " : "", (int)nlen, arg,
		labels ? labels : "", hist ? ", bucket_min: 10, bucket_max: 34, bucket_multiplier: 0.000000001" : "");
	fclose(f);
	free(labels);
	free(*list);
	*list = out;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

int cmd_serve(int argc, char **argv)
{
	enum { OPT_BPF_STATS = 300, OPT_COUNTER, OPT_HISTOGRAM };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "listen", required_argument, NULL, 'l' },
		{ "bpf-stats", no_argument, NULL, OPT_BPF_STATS },
		{ "counter", required_argument, NULL, OPT_COUNTER },
		{ "histogram", required_argument, NULL, OPT_HISTOGRAM },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, CLI_METRICS_OPT_DURATION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		CLI_TRACK_LONGOPTS,
		{ 0 },
	};
	struct cli_metrics m;
	struct scry_http *http = NULL;
	const char *config = NULL, *listen = DEFAULT_LISTEN;
	char *quick[2] = { NULL, NULL }, *quick_text = NULL;   /* --counter, --histogram */
	bool want_stats = false;
	char err[1024] = "";
	int opt, ret = 1, stats_fd = -1, wstatus;

	cli_metrics_init(&m);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+C:l:p:avh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'C':
			config = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case OPT_BPF_STATS:
			want_stats = true;
			break;
		case OPT_COUNTER: case OPT_HISTOGRAM:
			if (quick_metric(&quick[opt == OPT_HISTOGRAM], optarg, opt == OPT_HISTOGRAM, err, sizeof(err)))
				goto fail;
			break;
		case 'v':
			scry_log_set(NULL, NULL, true);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'p': case 'a': case CLI_METRICS_OPT_DURATION:
		CLI_TRACK_CASES:
			if (cli_metrics_option(&m, opt, optarg, err, sizeof(err)))
				goto fail;
			break;
		default:
			snprintf(err, sizeof(err), "invalid option (see scry serve --help)");
			goto fail;
		}
	}
	if (optind < argc)
		m.cmd = &argv[optind];
	if (config && (quick[0] || quick[1])) {
		snprintf(err, sizeof(err), "--config and --counter/--histogram exclude each other");
		goto fail;
	}
	if (!config && !quick[0] && !quick[1]) {
		snprintf(err, sizeof(err), "--config FILE (see examples/metrics.yaml) or --counter/--histogram is needed");
		goto fail;
	}
	if (!config && asprintf(&quick_text, "metrics: {counters: [%s], histograms: [%s]}\n", quick[0] ? quick[0] : "",
				quick[1] ? quick[1] : "") < 0) {
		quick_text = NULL;
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (cli_metrics_prepare(&m, config, quick_text, "command line", err, sizeof(err)))
		goto fail;
	if (want_stats && (stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0) {
		snprintf(err, sizeof(err), "cannot enable BPF statistics (BPF_ENABLE_STATS): %s", strerror(errno));
		goto fail;
	}
	/* listening first (503 until loaded): a port in use fails before anything is loaded */
	if (scry_http_start(&http, listen, &m.f, true, bpf_stats_on(stats_fd), err, sizeof(err)))
		goto fail;
	if (cli_metrics_start(&m, on_signal, err, sizeof(err)))
		goto fail;
	scry_http_ready(http, true);
	fprintf(stderr, "scry: serving %zu metrics of %s at http://%s/metrics%s%s\n", m.f.cfg->nmetrics,
		config ? config : "the command line", listen,
		m.f.exp ? "; spans to " : "", m.f.exp ? scry_otlp_endpoint(m.f.exp) : "");
	{
		struct scry_run_opts ro = {
			.duration_ns = m.duration > 0 ? (uint64_t)(m.duration * 1e9) : 0,
			.max_poll_delay_ns = scry_feed_has_spans(&m.f) ? 50 * 1000 * 1000ULL : 0,
			.after_poll = scry_feed_has_spans(&m.f) ? scry_feed_pump : NULL,
			.ctx = &m.f,
			.stop = &stop_signal,
		};
		struct scry_run_end end;

		if (scry_session_run(m.f.s, &ro, &end, err, sizeof(err)))
			fprintf(stderr, "scry: %s\n", err);
		if (stop_signal)
			fprintf(stderr, "scry: stopped by %s\n", strsignal(stop_signal));
		else if (end.deadline)
			fprintf(stderr, "scry: stopped after --duration\n");
	}
	scry_http_stop(http);
	http = NULL;
	cli_metrics_stop(&m);
	/* the command's status, as strace and perf trace pass it on (it ended before the stop:
	 * serve keeps serving after it); one still running: 128 + the stopping signal */
	ret = 0;
	if (m.child.pid > 0) {
		if (waitpid(m.child.pid, &wstatus, WNOHANG) == m.child.pid)
			ret = scry_exit_status(wstatus);
		else if (stop_signal)
			ret = 128 + stop_signal;
	}
	goto out;
fail:
	fprintf(stderr, "scry serve: %s\n", err);
	ret = 1;
out:
	scry_http_stop(http);
	if (stats_fd >= 0)
		close(stats_fd);
	cli_metrics_free(&m);
	free(quick[0]);
	free(quick[1]);
	free(quick_text);
	return ret;
}
