/* serve.c — `scry serve --config FILE [--listen ADDR:PORT]`: the metrics of a config
 * (docs/METRICS.md) kept in the kernel and served to Prometheus over HTTP (libmicrohttpd):
 * GET /metrics reads the maps at each scrape and answers in the text exposition format
 * 0.0.4, or OpenMetrics when the Accept header asks for it, with scry's own counters.
 * Runs until SIGINT/SIGTERM or --duration; a command (-- CMD) is followed while it runs and
 * its metrics stay served after it ends. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "cli/commands.h"
#include "cli/metrics_cli.h"
#include "kernel/probes.h"
#include "metrics/expose.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/spawn.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"
#define MAX_PROGS 64

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

struct server {
	struct cli_metrics *m;
	pthread_mutex_t lock;            /* one scrape at a time (the self counters below) */
	uint64_t scrapes;
	double last_scrape_s;
	bool bpf_stats;
	bool ready;                      /* the session is loaded: its maps can be read */
};

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

/* The page of one scrape in *buf (malloc'd). */
static int render(struct server *sv, bool om, char **buf, size_t *len)
{
	struct cli_metrics *m = sv->m;
	uint64_t t0 = scry_monotonic_ns();
	struct scry_metrics_snap snap;
	struct scry_metric_stats ks;
	struct scry_prog_stats ps[MAX_PROGS];
	struct scry_expose_prog ep[MAX_PROGS];
	size_t nps;
	FILE *f;
	int ret;

	if ((ret = scry_feed_read(&m->f, &snap)))
		return ret;
	if (scry_session_metric_stats(m->f.s, &ks))
		memset(&ks, 0, sizeof(ks));
	nps = scry_session_prog_stats(m->f.s, ps, MAX_PROGS);
	for (size_t i = 0; i < nps; i++)
		ep[i] = (struct scry_expose_prog){ ps[i].name, ps[i].run_cnt, ps[i].run_time_ns, ps[i].recursion_misses };
	uint64_t overflow[SCRY_METRICS_MAX];
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		overflow[i] = ks.overflow[i];
	struct scry_otlp_stats os = { 0 };
	if (m->f.exp)
		scry_otlp_stats(m->f.exp, &os);
	struct scry_expose_self self = {
		.spans = m->f.exp != NULL, .spans_sent = os.sent, .spans_retries = os.retries,
		.spans_dropped = os.dropped_queue_full + os.dropped_failed + os.dropped_at_exit,
		.events = ks.events, .no_entry = ks.no_entry, .overflow = overflow, .marks_lost = ks.marks_lost,
		.progs = ep, .nprogs = nps,
		.bpf_stats = sv->bpf_stats, .last_scrape_seconds = sv->last_scrape_s, .scrapes = ++sv->scrapes,
	};
	if (!(f = open_memstream(buf, len))) {
		scry_metrics_snap_free(&snap);
		return -ENOMEM;
	}
	ret = scry_metrics_expose(f, &snap, &self, om);
	if (fclose(f) && !ret)
		ret = -EIO;
	scry_metrics_snap_free(&snap);
	sv->last_scrape_s = (scry_monotonic_ns() - t0) / 1e9;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
	return ret;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **state)
{
	static const char index_page[] = "scry: metrics at /metrics\n";
	static const char not_found[] = "not found (metrics are at /metrics)\n";
	static const char bad_method[] = "only GET\n";
	static const char failed[] = "reading the metrics failed\n";
	static const char starting[] = "starting\n";
	struct server *sv = cls;
	char *body = NULL;
	size_t len = 0;
	bool om;
	int ret;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", (char *)bad_method, sizeof(bad_method) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/plain", (char *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", (char *)not_found, sizeof(not_found) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (!__atomic_load_n(&sv->ready, __ATOMIC_ACQUIRE))
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", (char *)starting, sizeof(starting) - 1,
			     MHD_RESPMEM_PERSISTENT);
	om = scry_accepts_openmetrics(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	pthread_mutex_lock(&sv->lock);
	ret = render(sv, om, &body, &len);
	pthread_mutex_unlock(&sv->lock);
	if (ret)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", (char *)failed, sizeof(failed) - 1,
			     MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, om ? SCRY_OPENMETRICS_CONTENT_TYPE : SCRY_PROM_CONTENT_TYPE, body, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* "127.0.0.1:9435", "[::1]:9435", ":9435" (every IPv4 address). */
static int parse_listen(const char *s, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	char *end;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon - s >= (long)sizeof(host))
		goto bad;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || port > 65535)
		goto bad;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	if (host[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		size_t n = strlen(host);

		if (n < 2 || host[n - 1] != ']')
			goto bad;
		host[n - 1] = 0;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			goto bad;
		return 0;
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_port = htons((uint16_t)port);
	if (!host[0])
		a->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "invalid --listen '%s' (expected ADDR:PORT, e.g. 127.0.0.1:9435 or [::1]:9435)", s);
	return -1;
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
	struct server sv = { .m = &m };
	struct MHD_Daemon *d = NULL;
	struct sockaddr_storage ss;
	const char *config = NULL, *listen = DEFAULT_LISTEN;
	bool want_stats = false;
	char err[1024] = "";
	int opt, ret = 1, stats_fd = -1, wstatus;

	cli_metrics_init(&m);
	pthread_mutex_init(&sv.lock, NULL);
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
	if (parse_listen(listen, &ss, err, sizeof(err)))
		goto fail;
	if (cli_metrics_prepare(&m, config, NULL, NULL, err, sizeof(err)))
		goto fail;
	if (want_stats && (stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME)) < 0) {
		snprintf(err, sizeof(err), "cannot enable BPF statistics (BPF_ENABLE_STATS): %s", strerror(errno));
		goto fail;
	}
	sv.bpf_stats = bpf_stats_on(stats_fd);
	/* listening first (503 until loaded): a port in use fails before anything is loaded */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL,
			     NULL, on_request, &sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
			     MHD_OPTION_END);
	if (!d) {
		snprintf(err, sizeof(err), "cannot listen on %s (address in use, or not this machine's?)", listen);
		goto fail;
	}
	if (cli_metrics_start(&m, on_signal, err, sizeof(err)))
		goto fail;
	__atomic_store_n(&sv.ready, true, __ATOMIC_RELEASE);
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
	MHD_stop_daemon(d);
	d = NULL;
	cli_metrics_stop(&m);
	ret = 0;
	if (m.child.pid > 0)
		waitpid(m.child.pid, &wstatus, WNOHANG);   /* reaped if it ended */
	goto out;
fail:
	fprintf(stderr, "scry serve: %s\n", err);
	ret = 1;
out:
	if (d)
		MHD_stop_daemon(d);
	if (stats_fd >= 0)
		close(stats_fd);
	cli_metrics_free(&m);
	pthread_mutex_destroy(&sv.lock);
	return ret;
}
