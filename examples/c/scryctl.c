/* scryctl.c — libscry's example of the control part: a session in the daemon (scryd, which
 * must run) recording process PID's calls to openat(2) (or the events SPEC... given) into
 * DIR, from now until this program's standard input ends; then the session's description,
 * as the daemon gives it, and the session destroyed (its trace stays in DIR).
 *   usage: scryctl NAME DIR PID [SPEC...]     e.g. echo | scryctl demo /tmp/t 1234
 * Build: cc scryctl.c $(pkg-config --cflags --libs scry). */
#include <stdio.h>
#include <stdlib.h>
#include <scry/scry.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	struct scry_ctl *c;
	char err[512], *desc = NULL;
	int created = 0, ok;

	if (argc < 4) {
		fprintf(stderr, "usage: scryctl NAME DIR PID [SPEC...]\n");
		return 2;
	}
	ok = (c = scry_ctl_connect(err, sizeof(err))) &&
	     (created = !scry_ctl_create(c, name, argv[2], 0, err, sizeof(err)));
	for (int i = 4; ok && i < (argc > 4 ? argc : 5); i++)
		ok = !scry_ctl_enable_event(c, name, argc > 4 ? argv[i] : "syscall:openat", NULL, err, sizeof(err));
	ok = ok && !scry_ctl_track_pid(c, name, atoi(argv[3]), err, sizeof(err)) &&
	     !scry_ctl_start(c, name, err, sizeof(err));
	if (ok) {
		fprintf(stderr, "scryctl: %s started\n", name);
		while (getchar() != EOF)
			;
		ok = !scry_ctl_stop(c, name, err, sizeof(err)) && !scry_ctl_list(c, name, &desc, err, sizeof(err));
		if (ok)
			fputs(desc, stdout);
		free(desc);
	}
	if (!ok)
		fprintf(stderr, "scryctl: %s\n", err);
	if (created && scry_ctl_destroy(c, name, err, sizeof(err))) {
		fprintf(stderr, "scryctl: %s\n", err);
		ok = 0;
	}
	scry_ctl_close(c);
	return !ok;
}
