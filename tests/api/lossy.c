/* lossy.c — a libscry program whose callback is slow (tests/e2e/test_libscry.py): it
 * traces PID's getppid calls, and the callback is stuck at the first event while the
 * process makes them: the rings overflow and the loss must reach the callback as loss
 * records.  The callback waits at the first event until PID has ended (at most
 * 30 s), so what the rings and their drain could not hold is lost whatever the machine's
 * speed.  Prints "records=R losses=L lost=N events=E discarded=D dropped=X" (R
 * records and L loss records of N events in all seen by the callback; scry_session_stop's
 * counts) and "disorder=O" (records older than the one before on their CPU), when PID ends.
 *   usage: lossy PID */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <scry/scry.h>

static unsigned long long records, losses, lost, disorder;
static unsigned long long last_ts[4096];
static pid_t pid;

static void on_event(const struct scry_event *e, void *ctx)
{
	if (scry_event_kind(e) == SCRY_EVENT_LOSS) {
		losses++;
		lost += scry_event_lost(e);
		return;
	}
	if (scry_event_cpu(e) < 4096) {
		disorder += scry_event_timestamp(e) < last_ts[scry_event_cpu(e)];
		last_ts[scry_event_cpu(e)] = scry_event_timestamp(e);
	}
	if (strcmp(scry_event_name(e), "syscall_entry_getppid") && strcmp(scry_event_name(e), "syscall_exit_getppid"))
		fprintf(stderr, "lossy: unexpected %s\n", scry_event_name(e));
	if (!records++) {
		struct timespec ts = { 0, 10 * 1000000 };

		for (int i = 0; i < 3000 && kill(pid, 0) == 0; i++)
			nanosleep(&ts, NULL);
	}
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session_stats st = SCRY_SESSION_STATS_INIT;
	struct scry_session *s;
	char err[512];
	int ok;

	if (argc != 2) {
		fprintf(stderr, "usage: lossy PID\n");
		return 2;
	}
	pid = atoi(argv[1]);
	o.buffer_size = 1 << 20;
	ok = (s = scry_session_new(&o, err, sizeof(err))) &&
	     !scry_session_enable_event(s, "syscall:getppid", NULL, err, sizeof(err)) &&
	     !scry_session_track_pid(s, pid, err, sizeof(err)) &&
	     !scry_session_on_event(s, on_event, NULL) && !scry_session_start(s, err, sizeof(err)) &&
	     fprintf(stderr, "lossy: tracing\n") && !scry_session_run(s, NULL, err, sizeof(err)) &&
	     !scry_session_stop(s, &st, err, sizeof(err));
	if (!ok)
		fprintf(stderr, "lossy: %s\n", err);
	scry_session_destroy(s);
	printf("records=%llu losses=%llu lost=%llu events=%llu discarded=%llu dropped=%llu disorder=%llu\n", records,
	       losses, lost, (unsigned long long)st.events, (unsigned long long)st.discarded,
	       (unsigned long long)st.lost, disorder);
	return !ok;
}
