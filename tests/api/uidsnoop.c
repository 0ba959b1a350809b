/* uidsnoop.c — libscry's uid tracker (tests/e2e/test_libscry.py): the whole machine's
 * openat entries, the uid tracker set to UID, each printed as "PID UID PATH" until SIGINT
 * (before the first, the names of the contexts it carries: "CTX NAME...").
 *   usage: uidsnoop UID */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <scry/scry.h>

static volatile sig_atomic_t stop;
static int contexts_shown;

static void on_signal(int sig)
{
	stop = sig;
}

static void on_event(const struct scry_event *e, void *ctx)
{
	const char *path = scry_event_field_string(e, "filename", NULL);
	int64_t pid = -1, uid = -1;

	if (scry_event_kind(e) == SCRY_EVENT_LOSS) {
		printf("LOST %llu\n", (unsigned long long)scry_event_lost(e));
		return;
	}
	if (!path)
		return;
	if (!contexts_shown++) {    /* the first entry's contexts, once: "CTX pid tid procname uid" */
		printf("CTX");
		for (unsigned i = 0; i < scry_event_context_count(e); i++)
			printf(" %s", scry_event_context_name(e, i));
		printf("%s\n", scry_event_context_name(e, scry_event_context_count(e)) ? " (one too many)" : "");
	}
	scry_event_context_int(e, "pid", &pid);
	scry_event_context_int(e, "uid", &uid);
	printf("%lld %lld %s\n", (long long)pid, (long long)uid, path);
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session *s;
	char err[512];
	int ok;

	if (argc != 2)
		return 2;
	o.system_wide = 1;
	signal(SIGINT, on_signal);
	ok = (s = scry_session_new(&o, err, sizeof(err))) &&
	     !scry_session_enable_event(s, "syscall:openat", NULL, err, sizeof(err)) &&
	     !scry_session_add_context(s, "uid", err, sizeof(err)) &&
	     !scry_session_track_uid(s, (uid_t)atol(argv[1]), err, sizeof(err)) &&
	     !scry_session_on_event(s, on_event, NULL) && !scry_session_start(s, err, sizeof(err)) &&
	     fprintf(stderr, "uidsnoop: tracing\n") && !scry_session_run(s, &stop, err, sizeof(err)) &&
	     !scry_session_stop(s, NULL, err, sizeof(err));
	if (!ok)
		fprintf(stderr, "uidsnoop: %s\n", err);
	scry_session_destroy(s);
	return !ok;
}
