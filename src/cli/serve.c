/* serve.c — `scry serve --config FILE [--listen ADDR:PORT]`: the metrics of a config
 * (docs/METRICS.md) kept in the kernel and served to Prometheus over HTTP (feed/http.h).
 * Runs until SIGINT/SIGTERM or --duration; a command (-- CMD) is followed while it runs and
 * its metrics stay served after it ends. */
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
		"Keep the metrics FILE declares (counters and histograms of syscalls, docs/METRICS.md)\n"
		"in the kernel and serve them to Prometheus at http://ADDR:PORT/metrics; send the spans\n"
		"it declares (tracing: spans:) to an OpenTelemetry collector over OTLP/HTTP, configured\n"
		"by OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME and the other OTEL_* variables.\n"
		"\n"
		"  -C, --config FILE      the config (YAML; examples/metrics.yaml, examples/spans.yaml)\n"
		"  -l, --listen ADDR:PORT where to listen (default " DEFAULT_LISTEN "; [::1]:PORT for IPv6)\n"
		"      --bpf-stats        have the kernel count the runs and run time of BPF programs\n"
		"                         while serving (BPF_ENABLE_STATS; a small cost to every BPF\n"
		"                         program of the system), exported per scry program\n"
		CLI_METRICS_TARGET_USAGE
		"  -v, --verbose          libbpf and verifier messages\n"
		"\n"
		"With -- CMD, CMD and its descendants are measured; their metrics stay served after it\n"
		"ends, until SIGINT/SIGTERM or --duration.\n");
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

int cmd_serve(int argc, char **argv)
{
	enum { OPT_BPF_STATS = 300 };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "listen", required_argument, NULL, 'l' },
		{ "bpf-stats", no_argument, NULL, OPT_BPF_STATS },
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
	if (!config) {
		snprintf(err, sizeof(err), "--config FILE is needed (see examples/metrics.yaml)");
		goto fail;
	}
	if (cli_metrics_prepare(&m, config, NULL, NULL, err, sizeof(err)))
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
	fprintf(stderr, "scry: serving %zu metrics of %s at http://%s/metrics%s%s\n", m.f.cfg->nmetrics, config, listen,
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
	ret = 0;
	if (m.child.pid > 0)
		waitpid(m.child.pid, &wstatus, WNOHANG);   /* reaped if it ended */
	goto out;
fail:
	fprintf(stderr, "scry serve: %s\n", err);
	ret = 1;
out:
	scry_http_stop(http);
	if (stats_fd >= 0)
		close(stats_fd);
	cli_metrics_free(&m);
	return ret;
}
