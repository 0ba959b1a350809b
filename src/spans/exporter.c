/* exporter.c — the OTLP/HTTP span exporter (see exporter.h).  libcurl is loaded when an
 * exporter starts (util/lazylib.h): a scry that exports nothing does not map it. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>
#include "spans/exporter.h"
#include "spans/otlp.h"
#include "util/lazylib.h"

#define QUEUE_MAX      4096          /* spans waiting at most */
#define BATCH_MAX      512           /* spans per request at most */
#define BATCH_DELAY_NS (200 * 1000 * 1000ULL)   /* a batch waits this long to fill */
#define RETRIES        6             /* after the first attempt */
#define BACKOFF_NS     (100 * 1000 * 1000ULL)   /* first wait; doubled each time, capped */
#define BACKOFF_MAX_NS (5 * 1000 * 1000 * 1000ULL)
#define TIMEOUT_MS     10000L

/* libcurl's functions used here, typed by <curl/curl.h>.  curl_easy_setopt and
 * curl_easy_getinfo are also macros there (typecheck-gcc.h): their calls are written
 * (curl.curl_easy_setopt)(...), which calls the pointer. */
#define CURL_FNS(X, t) X(t, curl_global_init) X(t, curl_global_cleanup) X(t, curl_easy_init)     \
	X(t, curl_easy_cleanup) X(t, curl_easy_setopt) X(t, curl_easy_perform) X(t, curl_easy_getinfo) \
	X(t, curl_slist_append) X(t, curl_slist_free_all)
SCRY_LAZYLIB_DEFINE(curl, curl_lib, "libcurl.so.4", "OTLP export", CURL_FNS);

struct scry_otlp_exporter {
	char *url;
	struct curl_slist *headers;
	struct scry_otlp_resource res;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct scry_span *q;             /* ring of QUEUE_MAX */
	size_t head, n;
	bool stopping;
	uint64_t deadline_ns;            /* stopping: give up after this (CLOCK_MONOTONIC) */
	struct scry_otlp_stats st;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void abs_time(struct timespec *ts, uint64_t from_now_ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	uint64_t ns = (uint64_t)ts->tv_nsec + from_now_ns;
	ts->tv_sec += (time_t)(ns / 1000000000ULL);
	ts->tv_nsec = (long)(ns % 1000000000ULL);
}

/* "k=v,k2=v2" -> "k: v" headers. */
static int add_headers(struct scry_otlp_exporter *e, const char *const *env, const char *var, char *err,
		       size_t errlen)
{
	const char *v = scry_otlp_getenv(env, var);

	for (const char *p = v; p && *p;) {
		const char *end = strchr(p, ','), *eq;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char line[1024];
		struct curl_slist *l;

		eq = memchr(p, '=', n);
		if (!eq || eq == p || n >= sizeof(line) - 4) {
			snprintf(err, errlen, "%s: '%.*s' is not key=value", var, (int)(n > 60 ? 60 : n), p);
			return -EINVAL;
		}
		snprintf(line, sizeof(line), "%.*s: %.*s", (int)(eq - p), p, (int)(n - (size_t)(eq + 1 - p)), eq + 1);
		if (!(l = curl.curl_slist_append(e->headers, line)))
			return -ENOMEM;
		e->headers = l;
		p = end ? end + 1 : p + n;
	}
	return 0;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	return size * n;
}

/* One request: 2xx -> 0; retryable -> 1; refused for good -> -1. */
static int post(struct scry_otlp_exporter *e, CURL *c, const uint8_t *body, size_t len)
{
	long code = 0;
	CURLcode rc;

	(curl.curl_easy_setopt)(c, CURLOPT_URL, e->url);
	(curl.curl_easy_setopt)(c, CURLOPT_HTTPHEADER, e->headers);
	(curl.curl_easy_setopt)(c, CURLOPT_POSTFIELDS, (const char *)body);
	(curl.curl_easy_setopt)(c, CURLOPT_POSTFIELDSIZE, (long)len);
	(curl.curl_easy_setopt)(c, CURLOPT_TIMEOUT_MS, TIMEOUT_MS);
	(curl.curl_easy_setopt)(c, CURLOPT_NOSIGNAL, 1L);
	(curl.curl_easy_setopt)(c, CURLOPT_WRITEFUNCTION, discard);
	rc = curl.curl_easy_perform(c);
	if (rc != CURLE_OK)
		return 1;          /* no connection, timeout: the collector may come back */
	(curl.curl_easy_getinfo)(c, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return 0;
	return code == 429 || code == 502 || code == 503 || code == 504 ? 1 : -1;
}

/* Send batch (n spans), retrying with backoff; the counters updated under the lock. */
static void send_batch(struct scry_otlp_exporter *e, CURL *c, struct scry_span *batch, size_t n)
{
	uint8_t *body = NULL;
	size_t len = 0;
	uint64_t wait = BACKOFF_NS;
	int r = -1;

	if (!scry_otlp_encode(batch, n, &e->res, &body, &len)) {
		for (int attempt = 0; attempt <= RETRIES; attempt++) {
			pthread_mutex_lock(&e->lock);
			e->st.requests++;
			if (attempt)
				e->st.retries++;
			pthread_mutex_unlock(&e->lock);
			if ((r = post(e, c, body, len)) <= 0)
				break;
			/* wait before the next try, unless stopping past the deadline */
			pthread_mutex_lock(&e->lock);
			if (e->stopping && mono_ns() + wait > e->deadline_ns) {
				pthread_mutex_unlock(&e->lock);
				break;
			}
			struct timespec ts;
			abs_time(&ts, wait);
			pthread_cond_timedwait(&e->cond, &e->lock, &ts);
			pthread_mutex_unlock(&e->lock);
			wait = wait * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : wait * 2;
		}
	}
	free(body);
	pthread_mutex_lock(&e->lock);
	if (r == 0)
		e->st.sent += n;
	else
		e->st.dropped_failed += n;
	pthread_mutex_unlock(&e->lock);
}

static void *run(void *arg)
{
	struct scry_otlp_exporter *e = arg;
	struct scry_span *batch = malloc(BATCH_MAX * sizeof(*batch));
	CURL *c = curl.curl_easy_init();
	sigset_t stops;

	/* the stop signals go to the event loop's thread, whose wait they end */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stops, NULL);

	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!e->n && !e->stopping)
			pthread_cond_wait(&e->cond, &e->lock);
		if (!e->n && e->stopping)
			break;
		if (e->n < BATCH_MAX && !e->stopping) {   /* let the batch fill a little */
			struct timespec ts;
			abs_time(&ts, BATCH_DELAY_NS);
			pthread_cond_timedwait(&e->cond, &e->lock, &ts);
		}
		if (e->stopping && mono_ns() > e->deadline_ns)
			break;
		size_t n = e->n < BATCH_MAX ? e->n : BATCH_MAX;
		for (size_t i = 0; i < n && batch; i++)
			batch[i] = e->q[(e->head + i) % QUEUE_MAX];
		e->head = (e->head + n) % QUEUE_MAX;
		e->n -= n;
		pthread_mutex_unlock(&e->lock);
		if (batch && c) {
			send_batch(e, c, batch, n);
		} else {
			pthread_mutex_lock(&e->lock);
			e->st.dropped_failed += n;
			pthread_mutex_unlock(&e->lock);
		}
		pthread_mutex_lock(&e->lock);
	}
	e->st.dropped_at_exit += e->n;
	e->n = 0;
	pthread_mutex_unlock(&e->lock);
	free(batch);
	if (c)
		curl.curl_easy_cleanup(c);
	return NULL;
}

static void exporter_free(struct scry_otlp_exporter *e)
{
	if (!e)
		return;
	if (e->headers)
		curl.curl_slist_free_all(e->headers);
	scry_otlp_resource_free(&e->res);
	free(e->q);
	free(e->url);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e);
}

int scry_otlp_start(struct scry_otlp_exporter **out, const char *const *env, char *err, size_t errlen)
{
	struct scry_otlp_exporter *e = calloc(1, sizeof(*e));
	const char *traces = scry_otlp_getenv(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
		   *base = scry_otlp_getenv(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
	struct curl_slist *l;
	int ret;

	*out = NULL;
	if (scry_lazylib_load(&curl_lib, err, errlen)) {
		free(e);
		return -ELIBACC;
	}
	if (!e)
		goto oom;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	if (traces && *traces) {
		e->url = strdup(traces);
	} else {
		const char *b = base && *base ? base : "http://localhost:4318";
		size_t n = strlen(b);

		while (n && b[n - 1] == '/')
			n--;
		if (asprintf(&e->url, "%.*s/v1/traces", (int)n, b) < 0)
			e->url = NULL;
	}
	if (!e->url || !(e->q = calloc(QUEUE_MAX, sizeof(*e->q))))
		goto oom;
	if (strncmp(e->url, "http://", 7) && strncmp(e->url, "https://", 8)) {
		snprintf(err, errlen, "OTLP endpoint '%s': expected an http:// or https:// URL", e->url);
		exporter_free(e);
		return -EINVAL;
	}
	if (!(l = curl.curl_slist_append(NULL, "Content-Type: application/x-protobuf")))
		goto oom;
	e->headers = l;
	if ((ret = add_headers(e, env, "OTEL_EXPORTER_OTLP_HEADERS", err, errlen)) ||
	    (ret = add_headers(e, env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", err, errlen)) ||
	    (ret = scry_otlp_resource_from_env(&e->res, env, err, errlen))) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		exporter_free(e);
		return ret;
	}
	if (curl.curl_global_init(CURL_GLOBAL_DEFAULT) || pthread_create(&e->thread, NULL, run, e)) {
		snprintf(err, errlen, "cannot start the span exporter");
		exporter_free(e);
		return -ENOMEM;
	}
	*out = e;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	exporter_free(e);
	return -ENOMEM;
}

const char *scry_otlp_endpoint(const struct scry_otlp_exporter *e)
{
	return e->url;
}

void scry_otlp_submit(struct scry_otlp_exporter *e, const struct scry_span *s)
{
	pthread_mutex_lock(&e->lock);
	e->st.queued++;
	if (e->n >= QUEUE_MAX) {
		e->st.dropped_queue_full++;
	} else {
		e->q[(e->head + e->n) % QUEUE_MAX] = *s;
		if (++e->n == BATCH_MAX || e->n == 1)
			pthread_cond_broadcast(&e->cond);
	}
	pthread_mutex_unlock(&e->lock);
}

void scry_otlp_stats(struct scry_otlp_exporter *e, struct scry_otlp_stats *out)
{
	pthread_mutex_lock(&e->lock);
	*out = e->st;
	pthread_mutex_unlock(&e->lock);
}

void scry_otlp_stop(struct scry_otlp_exporter *e, uint64_t flush_ns, struct scry_otlp_stats *out)
{
	if (!e) {
		memset(out, 0, sizeof(*out));
		return;
	}
	pthread_mutex_lock(&e->lock);
	e->stopping = true;
	e->deadline_ns = mono_ns() + flush_ns;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->thread, NULL);
	*out = e->st;
	exporter_free(e);
	curl.curl_global_cleanup();
}
