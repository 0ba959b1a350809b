/* badstart.c — scry_session_start's refusals as a program sees them (tests/e2e/
 * test_libscry.py): a session of this process with the event SPEC and FILTER, started; the
 * result and the error printed.
 *   usage: badstart SPEC [FILTER] */
#include <stdio.h>
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
	scry_session_destroy(s);
	return r ? 1 : 0;
}
