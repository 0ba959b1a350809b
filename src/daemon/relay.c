/* relay.c — what the daemon says of a session streamed to an lttng-relayd (create --set-url,
 * -C/-D, --live): its relay and live timer in list/status, and, at stop, what was delivered
 * and what was not ("N packets (M events) not delivered to RELAY: why"); and a snapshot
 * session's `snapshot record` to a relay. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "daemon/daemon_int.h"

const char *dsession_relay_output(struct dsession *s)
{
	static char buf[700];
	char cu[600], du[600];

	relay_url_format_uris(&s->relay, cu, sizeof(cu), du, sizeof(du));
	snprintf(buf, sizeof(buf), "%s [data: %u]", cu, s->relay.data_port);
	return buf;
}

void dsession_describe_relay(struct dsession *s, const struct scry_session_summary *sum, FILE *out)
{
	char url[300];
	const char *why = s->eng ? scry_session_relay_error(s->eng) : "";

	relay_url_format(&s->relay, url, sizeof(url));
	if (s->live_timer_us)
		fprintf(out, "    Live timer interval: %u us\n", s->live_timer_us);
	fprintf(out, "    Relay: %llu packets (%llu events) streamed to %s", (unsigned long long)sum->relay_packets,
		(unsigned long long)sum->relay_events, url);
	if (s->eng && scry_session_relay_path(s->eng)[0])
		fprintf(out, " (its %s)", scry_session_relay_path(s->eng));
	fprintf(out, "\n");
	if (sum->relay_lost_packets)
		fprintf(out, "    Error: %llu packets (%llu events) not delivered to %s%s%s\n",
			(unsigned long long)sum->relay_lost_packets, (unsigned long long)sum->relay_lost_events, url,
			*why ? ": " : "", why);
}

int dsession_relay_loss(struct dsession *s, char *err, size_t errlen)
{
	char url[300];
	const char *why = s->eng ? scry_session_relay_error(s->eng) : "";

	if (!s->has_relay || !s->sum.relay_lost_packets)
		return 0;
	relay_url_format(&s->relay, url, sizeof(url));
	snprintf(err, errlen, "session '%s': %llu packets (%llu events) not delivered to %s%s%s", s->name,
		 (unsigned long long)s->sum.relay_lost_packets, (unsigned long long)s->sum.relay_lost_events, url,
		 *why ? ": " : "", why);
	return -EPIPE;
}

int dsession_snapshot_relay(struct dsession *s, const char *url, const char *name, uint64_t max, struct dreply *r)
{
	struct relay_url u;
	char stamp[32], leaf[128], path[4200] = "";
	uint64_t bytes = 0;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	if (url && (ret = relay_url_parse(&u, url, r->err, r->errlen)))
		return ret;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(leaf, sizeof(leaf), "%s-%u-%s", name, s->nsnapshots + 1, stamp);
	if (!url)
		u = s->relay;
	if ((ret = scry_session_snapshot_relay(s->eng, &u, leaf, max, &bytes, path, sizeof(path), r->err, r->errlen)))
		return ret;
	s->nsnapshots++;
	fprintf(r->out, "Snapshot recorded successfully for session %s on relay tcp://%s/%s [control port %u, data port "
		"%u] (%llu bytes)\n", s->name, u.host, path, u.ctrl_port, u.data_port, (unsigned long long)bytes);
	return 0;
}
