/* http.h — a feed's metrics served to Prometheus over HTTP (libmicrohttpd, its own thread):
 * GET /metrics reads the maps at each scrape and answers in the text exposition format
 * 0.0.4, or OpenMetrics when the Accept header asks for it, with scry's own counters; 503
 * until the session is loaded.  `scry serve --listen` and a daemon session's `--listen`. */
#ifndef SCRY_FEED_HTTP_H
#define SCRY_FEED_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "feed/feed.h"

struct scry_http;

/* Listen on ADDR:PORT ("127.0.0.1:9435", "[::1]:9435", ":9435") for f's metrics (f's session
 * read only once scry_http_ready is called).  progs: the self metrics of the session's BPF
 * programs too (their list must not change while served); bpf_stats: the kernel counts their
 * runs.  0, or -1 with a one-line err naming the address. */
int scry_http_start(struct scry_http **out, const char *listen, struct scry_feed *f, bool progs, bool bpf_stats,
		    char *err, size_t errlen);
/* f's session is loaded (its metrics' fds set): scrapes read it from now on; false: 503 again
 * (before its session goes). */
void scry_http_ready(struct scry_http *h, bool ready);
/* Connections shut down so far for taking too long to send a request (or receive its
 * response): see http.c. */
uint64_t scry_http_too_slow(struct scry_http *h);
/* Scrapes served so far. */
uint64_t scry_http_scrapes(struct scry_http *h);
/* Stop listening (a scrape under way ends first) and free h. */
void scry_http_stop(struct scry_http *h);

#endif /* SCRY_FEED_HTTP_H */
