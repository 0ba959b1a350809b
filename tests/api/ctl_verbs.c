/* ctl_verbs.c — libscry's control part through every verb (tests/e2e/test_libscry.py): in
 * the daemon that runs, a snapshot session SNAP and a session ROT (both writing openat
 * events of every process into DIR/snap and DIR/rot), started; then each time a line comes
 * on stdin, the next step: a snapshot of SNAP, a rotation of ROT, and at the end both
 * stopped, the list of sessions printed, both destroyed.  "step N" on stderr after each.
 *   usage: ctl_verbs DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scry/scry.h>

static struct scry_ctl *c;
static char err[512];

static int fail(const char *what)
{
	fprintf(stderr, "ctl_verbs: %s: %s\n", what, err);
	return 1;
}

static void step(int n)
{
	char line[64];

	fprintf(stderr, "step %d\n", n);
	if (!fgets(line, sizeof(line), stdin))
		exit(3);
}

int main(int argc, char **argv)
{
	char snap[4096], rot[4096], *list = NULL;
	const char *status[] = { "status" };

	if (argc != 2)
		return 2;
	snprintf(snap, sizeof(snap), "%s/snap", argv[1]);
	snprintf(rot, sizeof(rot), "%s/rot", argv[1]);
	if (!(c = scry_ctl_connect(err, sizeof(err))))
		return fail("connect");
	if (scry_ctl_create(c, "SNAP", snap, 1, err, sizeof(err)) ||
	    scry_ctl_enable_event(c, "SNAP", "syscall:openat", NULL, err, sizeof(err)) ||
	    scry_ctl_add_context(c, "SNAP", "procname", err, sizeof(err)) ||
	    scry_ctl_add_context(c, "SNAP", "pid", err, sizeof(err)) ||
	    scry_ctl_start(c, "SNAP", err, sizeof(err)))
		return fail("SNAP");
	if (scry_ctl_create(c, "ROT", rot, 0, err, sizeof(err)) ||
	    scry_ctl_enable_event(c, "ROT", "syscall:openat", "filename == \"/etc/*\"", err, sizeof(err)) ||
	    scry_ctl_add_context(c, "ROT", "procname", err, sizeof(err)) ||
	    scry_ctl_add_context(c, "ROT", "pid", err, sizeof(err)) ||
	    scry_ctl_start(c, "ROT", err, sizeof(err)))
		return fail("ROT");
	step(1);
	if (scry_ctl_snapshot(c, "SNAP", err, sizeof(err)))
		return fail("snapshot");
	if (scry_ctl_rotate(c, "ROT", err, sizeof(err)))
		return fail("rotate");
	step(2);
	if (scry_ctl_stop(c, "SNAP", err, sizeof(err)) || scry_ctl_stop(c, "ROT", err, sizeof(err)))
		return fail("stop");
	if (scry_ctl_list(c, NULL, &list, err, sizeof(err)))
		return fail("list");
	fputs(list, stdout);
	free(list);
	if (scry_ctl_command(c, 1, status, &list, err, sizeof(err)) == 0)   /* no current session */
		return fail("status without a session succeeded");
	printf("status: %s\n", err);
	if (scry_ctl_destroy(c, "SNAP", err, sizeof(err)) || scry_ctl_destroy(c, "ROT", err, sizeof(err)))
		return fail("destroy");
	if (!scry_ctl_start(c, "SNAP", err, sizeof(err)))
		return fail("start after destroy succeeded");
	printf("start: %s\n", err);
	scry_ctl_close(c);
	return 0;
}
