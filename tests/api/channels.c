/* channels.c — libscry's channels and trackers (tests/e2e/test_libscry_channels.py): a
 * session built from the command line, each flag one call, in order:
 *   -o DIR          options.output (before any other flag)
 *   -O -S BYTES -N COUNT -B BYTES -T US -F BYTES -K COUNT   the next channel's overwrite,
 *                   subbuf_size, num_subbuf, buffer_size, switch_timer_us, tracefile_size,
 *                   tracefile_count
 *   -c NAME         scry_session_add_channel(NAME) with the options so far (then reset)
 *   -e SPEC         enable SPEC in the last channel added (none yet: channel0)
 *   -x CTX          add context CTX to the last channel added (none yet: every channel)
 *   -g PATH         the cgroup tracker;  -v VPID  the vpid tracker
 *   -p PID          track PID (until it ends);  -a  system-wide (until SIGINT)
 *   -q              count the events only (no line per event)
 * Each event printed as "CHANNEL NAME PID CTXCOUNT [filename]" (a loss: "LOST N"); at the
 * end "COUNT CHANNEL NAME N" lines (with -q) and "stats events=E discarded=D lost=L
 * lost_packets=P".  "channels: tracing" on stderr once started. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <scry/scry.h>

#define MAXC 64

static volatile sig_atomic_t stop;
static int quiet;
static struct { char key[128]; unsigned long n; } counts[MAXC];

static void on_signal(int sig)
{
	stop = sig;
}

static void on_event(const struct scry_event *e, void *ctx)
{
	const char *path = scry_event_field_string(e, "filename", NULL);
	int64_t pid = -1;
	char key[128];
	int i;

	if (scry_event_kind(e) == SCRY_EVENT_LOSS) {
		printf("LOST %llu\n", (unsigned long long)scry_event_lost(e));
		return;
	}
	if (!quiet) {
		scry_event_context_int(e, "pid", &pid);
		printf("%s %s %lld %u%s%s\n", scry_event_channel(e), scry_event_name(e), (long long)pid,
		       scry_event_context_count(e), path ? " " : "", path ? path : "");
		return;
	}
	snprintf(key, sizeof(key), "%s %s", scry_event_channel(e), scry_event_name(e));
	for (i = 0; i < MAXC && counts[i].key[0] && strcmp(counts[i].key, key); i++)
		;
	if (i < MAXC) {
		strcpy(counts[i].key, key);
		counts[i].n++;
	}
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_channel_options co = SCRY_CHANNEL_OPTIONS_INIT;
	struct scry_session_stats st = SCRY_SESSION_STATS_INIT;
	struct scry_session *s = NULL;
	const char *chan = NULL;
	char err[512];
	int opt, ret = 0, wide = 0;

	if (argc > 2 && !strcmp(argv[1], "-o"))
		o.output = argv[2];
	for (int i = 1; i < argc; i++)
		wide |= !strcmp(argv[i], "-a");
	o.system_wide = wide;
	signal(SIGINT, on_signal);
	if (!(s = scry_session_new(&o, err, sizeof(err))))
		goto fail;
	while ((opt = getopt(argc, argv, "o:OS:N:B:T:F:K:c:e:x:g:v:p:aq")) != -1 && !ret) {
		switch (opt) {
		case 'O': co.overwrite = 1; break;
		case 'S': co.subbuf_size = strtoul(optarg, NULL, 0); break;
		case 'N': co.num_subbuf = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'B': co.buffer_size = strtoul(optarg, NULL, 0); break;
		case 'T': co.switch_timer_us = strtoull(optarg, NULL, 0); break;
		case 'F': co.tracefile_size = strtoull(optarg, NULL, 0); break;
		case 'K': co.tracefile_count = strtoull(optarg, NULL, 0); break;
		case 'c':
			ret = scry_session_add_channel(s, optarg, &co, err, sizeof(err));
			chan = optarg;
			memset(&co, 0, sizeof(co));
			co.size = sizeof(co);
			break;
		case 'e': ret = scry_session_enable_event_in_channel(s, chan, optarg, NULL, err, sizeof(err)); break;
		case 'x': ret = scry_session_add_context_in_channel(s, chan, optarg, err, sizeof(err)); break;
		case 'g': ret = scry_session_track_cgroup(s, optarg, err, sizeof(err)); break;
		case 'v': ret = scry_session_track_vpid(s, atoi(optarg), err, sizeof(err)); break;
		case 'p': ret = scry_session_track_pid(s, atoi(optarg), err, sizeof(err)); break;
		case 'q': quiet = 1; break;
		case 'o': case 'a': break;
		default: return 2;
		}
	}
	if (ret || scry_session_on_event(s, on_event, NULL) || scry_session_start(s, err, sizeof(err)))
		goto fail;
	fprintf(stderr, "channels: tracing\n");
	if (scry_session_run(s, wide ? &stop : NULL, err, sizeof(err)) || scry_session_stop(s, &st, err, sizeof(err)))
		goto fail;
	for (int i = 0; i < MAXC && counts[i].key[0]; i++)
		printf("COUNT %s %lu\n", counts[i].key, counts[i].n);
	printf("stats events=%llu discarded=%llu lost=%llu lost_packets=%llu\n", (unsigned long long)st.events,
	       (unsigned long long)st.discarded, (unsigned long long)st.lost, (unsigned long long)st.lost_packets);
	scry_session_destroy(s);
	return 0;
fail:
	fprintf(stderr, "channels: %s\n", err);
	scry_session_destroy(s);
	return 1;
}
