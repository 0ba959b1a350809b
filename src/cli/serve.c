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
#include "util/lazylib.h"
#include "util/log.h"
#include "util/spawn.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"
#define MAX_PROGS 64

/* libmicrohttpd's functions used here, typed by <microhttpd.h>; the library is loaded when
 * serve starts (util/lazylib.h): the other verbs do not map it. */
#define MHD_FNS(X, t) X(t, MHD_start_daemon) X(t, MHD_stop_daemon) X(t, MHD_lookup_connection_value) \
	X(t, MHD_create_response_from_buffer) X(t, MHD_add_response_header) X(t, MHD_queue_response)        \
	X(t, MHD_destroy_response)
SCRY_LAZYLIB_DEFINE(mhd, mhd_lib, "libmicrohttpd.so.12", "scry serve's HTTP endpoint", MHD_FNS);

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

	if ((ret = cli_metrics_read(m, &snap)))
		return ret;
	if (scry_session_metric_stats(m->s, &ks))
		memset(&ks, 0, sizeof(ks));
	nps = scry_session_prog_stats(m->s, ps, MAX_PROGS);
	for (size_t i = 0; i < nps; i++)
		ep[i] = (struct scry_expose_prog){ ps[i].name, ps[i].run_cnt, ps[i].run_time_ns, ps[i].recursion_misses };
	uint64_t overflow[SCRY_METRICS_MAX];
	for (int i = 0; i < SCRY_METRICS_MAX; i++)
		overflow[i] = ks.overflow[i];
	struct scry_otlp_stats os = { 0 };
	if (m->exp)
		scry_otlp_stats(m->exp, &os);
	struct scry_expose_self self = {
		.spans = m->exp != NULL, .spans_sent = os.sent, .spans_retries = os.retries,
		.spans_dropped = os.dropped_queue_full + os.dropped_failed + os.dropped_at_exit,
		.events = ks.events, .no_entry = ks.no_entry, .overflow = overflow, .progs = ep, .nprogs = nps,
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
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.MHD_queue_response(c, status, r);
	mhd.MHD_destroy_response(r);
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
	om = scry_accepts_openmetrics(mhd.MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	pthread_mutex_lock(&sv->lock);
	ret = render(sv, om, &body, &len);
	pthread_mutex_unlock(&sv->lock);
	if (ret)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", (char *)failed, sizeof(failed) - 1,
			     MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, om ? SCRY_OPENMETRICS_CONTENT_TYPE : SCRY_PROM_CONTENT_TYPE, body, len,
		     MHD_RESPMEM_MUST_FREE);
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
	struct server sv = { .m = &m };
	struct MHD_Daemon *d = NULL;
	struct sockaddr_storage ss;
	const char *config = NULL, *listen = DEFAULT_LISTEN;
	char *quick[2] = { NULL, NULL }, *quick_text = NULL;   /* --counter, --histogram */
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
	if (parse_listen(listen, &ss, err, sizeof(err)) || scry_lazylib_load(&mhd_lib, err, sizeof(err)))
		goto fail;
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
	sv.bpf_stats = bpf_stats_on(stats_fd);
	/* listening first (503 until loaded): a port in use fails before anything is loaded */
	d = mhd.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0,
				 NULL, NULL, on_request, &sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				 MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
				 MHD_OPTION_END);
	if (!d) {
		snprintf(err, sizeof(err), "cannot listen on %s (address in use, or not this machine's?)", listen);
		goto fail;
	}
	if (cli_metrics_start(&m, on_signal, err, sizeof(err)))
		goto fail;
	__atomic_store_n(&sv.ready, true, __ATOMIC_RELEASE);
	fprintf(stderr, "scry: serving %zu metrics of %s at http://%s/metrics%s%s\n", m.cfg->nmetrics,
		config ? config : "the command line", listen,
		m.exp ? "; spans to " : "", m.exp ? scry_otlp_endpoint(m.exp) : "");
	{
		struct scry_run_opts ro = {
			.duration_ns = m.duration > 0 ? (uint64_t)(m.duration * 1e9) : 0,
			.max_poll_delay_ns = cli_metrics_spans(&m) ? 50 * 1000 * 1000ULL : 0,
			.after_poll = cli_metrics_spans(&m) ? cli_metrics_pump : NULL,
			.ctx = &m,
			.stop = &stop_signal,
		};
		struct scry_run_end end;

		if (scry_session_run(m.s, &ro, &end, err, sizeof(err)))
			fprintf(stderr, "scry: %s\n", err);
		if (stop_signal)
			fprintf(stderr, "scry: stopped by %s\n", strsignal(stop_signal));
		else if (end.deadline)
			fprintf(stderr, "scry: stopped after --duration\n");
	}
	mhd.MHD_stop_daemon(d);
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
		mhd.MHD_stop_daemon(d);
	if (stats_fd >= 0)
		close(stats_fd);
	cli_metrics_free(&m);
	free(quick[0]);
	free(quick[1]);
	free(quick_text);
	pthread_mutex_destroy(&sv.lock);
	return ret;
}
