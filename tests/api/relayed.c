/* relayed.c — a libscry session streamed to an lttng-relayd (tests/e2e/test_libscry.py):
 * PID's openat calls sent to the relay at URL as session NAME, and each one the callback
 * gets printed ("ENTRY PATH" or "EXIT RET"), until PID ends; then stop's relay_lost.
 *   usage: relayed URL NAME PID */
#include <stdio.h>
#include <stdlib.h>
#include <scry/scry.h>

static void on_event(const struct scry_event *e, void *ctx)
{
	const char *path = scry_event_field_string(e, "filename", NULL);
	int64_t ret;

	if (scry_event_kind(e) == SCRY_EVENT_LOSS)
		printf("LOST %llu\n", (unsigned long long)scry_event_lost(e));
	else if (path)
		printf("ENTRY %s\n", path);
	else if (!scry_event_field_int(e, "ret", &ret))
		printf("EXIT %lld\n", (long long)ret);
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session_stats st = SCRY_SESSION_STATS_INIT;
	struct scry_session *s;
	char err[512];
	int ok;

	if (argc != 4) {
		fprintf(stderr, "usage: relayed URL NAME PID\n");
		return 2;
	}
	o.relay_url = argv[1];
	o.relay_name = argv[2];
	ok = (s = scry_session_new(&o, err, sizeof(err))) &&
	     !scry_session_enable_event(s, "syscall:openat", NULL, err, sizeof(err)) &&
	     !scry_session_track_pid(s, atoi(argv[3]), err, sizeof(err)) &&
	     !scry_session_on_event(s, on_event, NULL) && !scry_session_start(s, err, sizeof(err)) &&
	     fprintf(stderr, "relayed: tracing\n") && !scry_session_run(s, NULL, err, sizeof(err)) &&
	     !scry_session_stop(s, &st, err, sizeof(err));
	if (!ok)
		fprintf(stderr, "relayed: %s\n", err);
	scry_session_destroy(s);
	printf("relay_lost=%llu events=%llu\n", (unsigned long long)st.relay_lost, (unsigned long long)st.events);
	return !ok;
}
