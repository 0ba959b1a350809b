/* opensnoop.c — libscry's example: each openat(2) of process PID (and its children), or of
 * the machine without PID, as "PID COMM RET PATH" — until the process ends or Ctrl-C.
 * Build: cc opensnoop.c $(pkg-config --cflags --libs scry).  Run as root. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <scry/scry.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

/* a call's two halves, met in either order (callbacks keep each CPU's order, and a thread
 * may return on another CPU than it entered on) */
static struct call { int64_t tid, ret; int has_ret; char path[256]; } calls[4096];

static void on_event(const struct scry_event *e, void *ctx)
{
	int64_t tid = 0, pid = 0;
	const char *path = scry_event_field_string(e, "filename", NULL);
	struct call *c;
	if (scry_event_kind(e) == SCRY_EVENT_LOSS) {
		fprintf(stderr, "opensnoop: %llu events lost\n", (unsigned long long)scry_event_lost(e));
		return;
	}
	scry_event_context_int(e, "tid", &tid);
	c = &calls[tid % 4096];
	if (c->tid != tid)
		*c = (struct call){ .tid = tid };
	if (path)
		snprintf(c->path, sizeof(c->path), "%s", path);
	else if (!scry_event_field_int(e, "ret", &c->ret))
		c->has_ret = 1;
	if (c->path[0] && c->has_ret) {
		scry_event_context_int(e, "pid", &pid);
		printf("%lld %s %lld %s\n", (long long)pid, scry_event_context_string(e, "procname", NULL),
		       (long long)c->ret, c->path);
		c->tid = 0;
	}
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session *s;
	char err[512];
	o.system_wide = argc < 2;
	signal(SIGINT, on_signal), signal(SIGTERM, on_signal);
	int ok = (s = scry_session_new(&o, err, sizeof(err))) &&
	     !scry_session_enable_event(s, "syscall:openat", NULL, err, sizeof(err)) &&
	     (argc < 2 || !scry_session_track_pid(s, atoi(argv[1]), err, sizeof(err))) &&
	     !scry_session_on_event(s, on_event, NULL) && !scry_session_start(s, err, sizeof(err)) &&
	     fprintf(stderr, "opensnoop: tracing\n") && !scry_session_run(s, &stop, err, sizeof(err)) &&
	     !scry_session_stop(s, NULL, err, sizeof(err));
	if (!ok)
		fprintf(stderr, "opensnoop: %s\n", err);
	scry_session_destroy(s);
	return !ok;
}
