/* http.c — see http.h.  libmicrohttpd is loaded by the first scry_http_start
 * (util/lazylib.h): a scry that serves nothing does not map it.
 *
 * Bounded for clients that hold connections (slowloris): libmicrohttpd runs on a thread of
 * ours (epoll, MHD_run) so that between its runs every connection is ours to judge: each one
 * must send a request's headers whole within HEADER_TIMEOUT_S of being accepted (or of its
 * previous response: keep-alive), and have its response sent within RESPONSE_TIMEOUT_S,
 * however it trickles bytes meanwhile (libmicrohttpd's own timeout is reset by every byte);
 * past that it is shut down.  At most PER_IP_CONNS connections per address
 * (MHD_OPTION_PER_IP_CONNECTION_LIMIT) and MAX_CONNS in all, fewer when the fd limit is
 * short; each one's memory bounded (MHD_OPTION_CONNECTION_MEMORY_LIMIT).  A scraper thus
 * finds a slot while hundreds of idle or trickling connections are held: to keep the
 * endpoint full a client must open MAX_CONNS connections every HEADER_TIMEOUT_S from
 * MAX_CONNS / PER_IP_CONNS addresses. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "feed/http.h"
#include "kernel/probes.h"
#include "metrics/expose.h"
#include "util/clock.h"
#include "util/lazylib.h"

#define MAX_PROGS 64
#define HEADER_TIMEOUT_S 3         /* accepted (or idle after a response) to headers received */
#define RESPONSE_TIMEOUT_S 10      /* headers received to response sent */
#define PER_IP_CONNS 32
#define MAX_CONNS 1024
#define MIN_CONNS 16
#define CONN_MEMORY (16 * 1024)     /* a scrape's request is a few hundred bytes */
#define SWEEP_MS 250               /* connections judged at least this often */
#define NS 1000000000ULL

/* libmicrohttpd's functions used here, typed by <microhttpd.h> */
#define MHD_FNS(X, t) X(t, MHD_start_daemon) X(t, MHD_stop_daemon) X(t, MHD_lookup_connection_value) \
	X(t, MHD_create_response_from_buffer) X(t, MHD_add_response_header) X(t, MHD_queue_response)        \
	X(t, MHD_destroy_response) X(t, MHD_run) X(t, MHD_get_timeout) X(t, MHD_get_daemon_info)            \
	X(t, MHD_get_connection_info)
SCRY_LAZYLIB_DEFINE(mhd, mhd_lib, "libmicrohttpd.so.12", "the metrics' HTTP endpoint", MHD_FNS);

/* A connection, from libmicrohttpd's accept to its close (its socket_context). */
struct hconn {
	struct hconn *prev, *next;
	int fd;
	uint64_t deadline;               /* CLOCK_MONOTONIC ns: shut down past it */
	bool closing;
};

struct scry_http {
	struct MHD_Daemon *d;
	pthread_t thread;                /* runs d: every callback below is on it */
	int wake_fd;                     /* eventfd: stop */
	bool stop;
	struct hconn *conns;
	uint64_t too_slow;               /* connections shut down past their deadline */
	struct scry_feed *f;
	pthread_mutex_t lock;            /* one scrape at a time (the self counters below) */
	uint64_t scrapes;
	double last_scrape_s;
	bool bpf_stats;
	bool progs;
	bool ready;                      /* the session is loaded: its maps can be read */
};

/* The page of one scrape in *buf (malloc'd). */
static int render(struct scry_http *sv, bool om, char **buf, size_t *len)
{
	struct scry_feed *f = sv->f;
	uint64_t t0 = scry_monotonic_ns();
	struct scry_metrics_snap snap;
	struct scry_metric_stats ks;
	struct scry_prog_stats ps[MAX_PROGS];
	struct scry_expose_prog ep[MAX_PROGS];
	size_t nps;
	FILE *out;
	int ret;

	if ((ret = scry_feed_read(f, &snap)))
		return ret;
	if (scry_session_metric_stats(f->s, &ks))
		memset(&ks, 0, sizeof(ks));
	nps = sv->progs ? scry_session_prog_stats(f->s, ps, MAX_PROGS) : 0;
	for (size_t i = 0; i < nps; i++)
		ep[i] = (struct scry_expose_prog){ ps[i].name, ps[i].run_cnt, ps[i].run_time_ns, ps[i].recursion_misses };
	struct scry_otlp_stats os = { 0 };
	if (f->exp)
		scry_otlp_stats(f->exp, &os);
	struct scry_expose_self self = {
		.spans = f->exp != NULL, .spans_sent = os.sent, .spans_retries = os.retries,
		.spans_dropped = os.dropped_queue_full + os.dropped_failed + os.dropped_at_exit,
		.ks = &ks,
		.progs = ep, .nprogs = nps,
		.bpf_stats = sv->bpf_stats, .last_scrape_seconds = sv->last_scrape_s, .scrapes = ++sv->scrapes,
	};
	if (!(out = open_memstream(buf, len))) {
		scry_metrics_snap_free(&snap);
		return -ENOMEM;
	}
	ret = scry_metrics_expose(out, &snap, &self, om);
	if (fclose(out) && !ret)
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

/* --- connections: each one's deadline (see the top) ------------------------------------ */

static struct hconn *hconn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = mhd.MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The headers are in: the response has its own bound. */
static void request_started(struct MHD_Connection *c)
{
	struct hconn *hc = hconn_of(c);

	if (hc)
		hc->deadline = scry_monotonic_ns() + RESPONSE_TIMEOUT_S * NS;
}

/* A response sent (or the request given up): an idle keep-alive connection gets as long as a
 * new one to send its next request. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode toe)
{
	struct hconn *hc = hconn_of(c);

	if (hc)
		hc->deadline = scry_monotonic_ns() + HEADER_TIMEOUT_S * NS;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct scry_http *sv = cls;
	struct hconn *hc = *socket_context;
	const union MHD_ConnectionInfo *ci;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!hc)
			return;
		if (hc->prev)
			hc->prev->next = hc->next;
		else
			sv->conns = hc->next;
		if (hc->next)
			hc->next->prev = hc->prev;
		free(hc);
		*socket_context = NULL;
		return;
	}
	ci = mhd.MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || !(hc = calloc(1, sizeof(*hc))))
		return;              /* not judged: libmicrohttpd's own timeout still bounds it */
	hc->fd = ci->connect_fd;
	hc->deadline = scry_monotonic_ns() + HEADER_TIMEOUT_S * NS;
	hc->next = sv->conns;
	if (sv->conns)
		sv->conns->prev = hc;
	sv->conns = hc;
	*socket_context = hc;
}

/* Between two runs of libmicrohttpd, on its thread: the connections past their deadline shut
 * down (their fds are still libmicrohttpd's, which sees them end at its next run and closes
 * them). */
static void sweep(struct scry_http *sv, uint64_t now)
{
	for (struct hconn *hc = sv->conns; hc; hc = hc->next)
		if (!hc->closing && now > hc->deadline) {
			shutdown(hc->fd, SHUT_RDWR);
			hc->closing = true;
			__atomic_add_fetch(&sv->too_slow, 1, __ATOMIC_RELAXED);
		}
}

static void *serve_thread(void *arg)
{
	struct scry_http *sv = arg;
	const union MHD_DaemonInfo *di = mhd.MHD_get_daemon_info(sv->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd pf[2] = { { .fd = di ? di->epoll_fd : -1, .events = POLLIN }, { .fd = sv->wake_fd, .events = POLLIN } };

	while (!__atomic_load_n(&sv->stop, __ATOMIC_ACQUIRE)) {
		MHD_UNSIGNED_LONG_LONG to;
		int wait = sv->conns ? SWEEP_MS : -1;     /* no connection: nothing to judge */

		if (mhd.MHD_get_timeout(sv->d, &to) == MHD_YES && (wait < 0 || to < (MHD_UNSIGNED_LONG_LONG)wait))
			wait = to > SWEEP_MS ? SWEEP_MS : (int)to;
		if (poll(pf, 2, wait) < 0 && errno != EINTR)
			break;
		mhd.MHD_run(sv->d);
		sweep(sv, scry_monotonic_ns());
	}
	return NULL;
}

/* MAX_CONNS, or fewer when the fd limit leaves less than twice that free. */
static unsigned conn_limit(void)
{
	struct rlimit rl;
	unsigned open_fds = 0;
	DIR *dir = opendir("/proc/self/fd");
	uint64_t free_fds;

	if (dir) {
		while (readdir(dir))
			open_fds++;
		closedir(dir);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return MAX_CONNS;
	free_fds = rl.rlim_cur > open_fds ? rl.rlim_cur - open_fds : 0;
	return free_fds / 2 > MAX_CONNS ? MAX_CONNS : free_fds / 2 < MIN_CONNS ? MIN_CONNS : (unsigned)(free_fds / 2);
}

/* --- requests --------------------------------------------------------------------------- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **state)
{
	static const char index_page[] = "scry: metrics at /metrics\n";
	static const char not_found[] = "not found (metrics are at /metrics)\n";
	static const char bad_method[] = "only GET\n";
	static const char failed[] = "reading the metrics failed\n";
	static const char starting[] = "starting\n";
	struct scry_http *sv = cls;
	char *body = NULL;
	size_t len = 0;
	bool om;
	int ret;

	if (!*state) {                   /* the request's first call: its headers are in */
		*state = sv;
		request_started(c);
	}
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

int scry_http_start(struct scry_http **out, const char *listen, struct scry_feed *f, bool progs, bool bpf_stats,
		    char *err, size_t errlen)
{
	struct scry_http *h;
	struct sockaddr_storage ss;

	*out = NULL;
	if (parse_listen(listen, &ss, err, errlen) || scry_lazylib_load(&mhd_lib, err, errlen))
		return -1;
	if (!(h = calloc(1, sizeof(*h)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->f = f;
	h->progs = progs;
	h->bpf_stats = bpf_stats;
	pthread_mutex_init(&h->lock, NULL);
	if ((h->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	h->d = mhd.MHD_start_daemon(MHD_USE_EPOLL | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
				    on_request, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				    MHD_OPTION_CONNECTION_LIMIT, conn_limit(),
				    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)PER_IP_CONNS,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HEADER_TIMEOUT_S,
				    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
				    MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				    MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "cannot listen on %s (address in use, or not this machine's?)", listen);
		goto fail;
	}
	if ((errno = pthread_create(&h->thread, NULL, serve_thread, h))) {
		snprintf(err, errlen, "cannot start the HTTP thread: %s", strerror(errno));
		mhd.MHD_stop_daemon(h->d);
		goto fail;
	}
	*out = h;
	return 0;
fail:
	if (h->wake_fd >= 0)
		close(h->wake_fd);
	pthread_mutex_destroy(&h->lock);
	free(h);
	return -1;
}

void scry_http_ready(struct scry_http *h, bool ready)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);       /* a scrape under way ends first */
	__atomic_store_n(&h->ready, ready, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&h->lock);
}

uint64_t scry_http_too_slow(struct scry_http *h)
{
	return __atomic_load_n(&h->too_slow, __ATOMIC_RELAXED);
}

uint64_t scry_http_scrapes(struct scry_http *h)
{
	uint64_t n;

	pthread_mutex_lock(&h->lock);
	n = h->scrapes;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void scry_http_stop(struct scry_http *h)
{
	uint64_t one = 1;

	if (!h)
		return;
	__atomic_store_n(&h->stop, true, __ATOMIC_RELEASE);
	if (write(h->wake_fd, &one, sizeof(one)) < 0) {
		/* the thread sees stop within SWEEP_MS anyway */
	}
	pthread_join(h->thread, NULL);
	mhd.MHD_stop_daemon(h->d);         /* every connection closed: their hconns freed */
	close(h->wake_fd);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
