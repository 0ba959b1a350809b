/* badstart.c — scry_session_start's refusals as a program sees them (tests/e2e/
 * test_libscry.py): a session of this process with the event SPEC and FILTER, started; the
 * result and the error printed; once started, scry_session_run_for 200 ms (this process
 * lives on: the time runs out).
 *   usage: badstart SPEC [FILTER] */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <scry/scry.h>

static void on_event(const struct scry_event *e, void *ctx)
{
}

int main(int argc, char **argv)
{
	char err[512] = "";
	struct scry_session *s = scry_session_new(NULL, err, sizeof(err));
	int r;

	if (argc < 2 || !s)
		return 2;
	if (scry_session_enable_event(s, argv[1], argc > 2 ? argv[2] : NULL, err, sizeof(err)) ||
	    scry_session_track_pid(s, getpid(), err, sizeof(err)) || scry_session_on_event(s, on_event, NULL))
		return 2;
	r = scry_session_start(s, err, sizeof(err));
	printf("%d %s\n", r, r ? err : "started");
	if (!r) {   /* this process lives: 0.2 s run out */
		struct timespec a, b;
		int k;

		clock_gettime(CLOCK_MONOTONIC, &a);
		k = scry_session_run_for(s, NULL, 200, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("run_for=%d %s\n", k, (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 >= 200 ?
		       "after 200 ms" : "too soon");
	}
	scry_session_destroy(s);
	return r ? 1 : 0;
}
