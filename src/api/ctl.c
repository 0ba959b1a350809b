/* ctl.c — libscry's control of scryd (include/scry/scry.h, scry_ctl_*): each call one
 * request of the control protocol (ctl/client.h, as `scry create`, `scry start`... send
 * them), the command line built from the call's arguments, the daemon's reply its result. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "api/engine.h"
#include <scry/scry.h>

#define SAY(...) ((void)(errlen ? snprintf(err, errlen, __VA_ARGS__) : 0))
#define MAX_ARGS 16

struct scry_ctl {
	char home[PATH_MAX];            /* the caller's home: the daemon's default outputs */
};

/* A reachable daemon's socket: its fd, or -errno with the reason. */
static int dial(char *err, size_t errlen)
{
	int fd = scry_ctl_dial();

	if (fd >= 0)
		return fd;
	if (fd == -EACCES || fd == -EPERM) {
		char why[256];

		scry_ctl_refused(why, sizeof(why));
		SAY("%s", why);
	} else if (fd == -ENOENT || fd == -ECONNREFUSED)
		SAY("no daemon answers on %s/control (start scryd, or systemctl start scry-sessiond)",
		    scry_ctl_rundir());
	else if (fd == -ENAMETOOLONG)
		SAY("the run directory %s is too long a path for a UNIX socket", scry_ctl_rundir());
	else
		SAY("cannot reach the daemon: %s", strerror(-fd));
	return fd;
}

struct scry_ctl *scry_ctl_connect(char *err, size_t errlen)
{
	struct scry_ctl *c;
	const char *h = getenv("HOME");
	struct passwd pwd, *pw = NULL;
	char buf[4096];
	int fd;

	if ((fd = dial(err, errlen)) < 0)
		return NULL;
	close(fd);
	if (!(c = calloc(1, sizeof(*c)))) {
		SAY("scry_ctl_connect: out of memory");
		return NULL;
	}
	if ((!h || !*h) && getpwuid_r(getuid(), &pwd, buf, sizeof(buf), &pw) == 0 && pw)
		h = pw->pw_dir;
	if (!h || !*h)
		h = "/";
	snprintf(c->home, sizeof(c->home), "%s", h);
	return c;
}

void scry_ctl_close(struct scry_ctl *c)
{
	free(c);
}

/* One request of argc args (what: the API's function, for messages); the daemon's output in *out (malloc'ed) when out is given.
 * 0, or -errno with the reason (-EREMOTEIO: the daemon refused, with its reason). */
static int call(struct scry_ctl *c, const char *what, size_t argc, const char *const *argv, char **out, char *err, size_t errlen)
{
	struct scry_ctl_msg m;
	char cwd[PATH_MAX], why[1024];
	const char *status, *o, *e;
	int fd, ret;

	if (out)
		*out = NULL;
	if (!c) {
		SAY("%s: no connection (NULL)", what);
		return -EINVAL;
	}
	for (size_t i = 0; i < argc; i++)
		if (!argv[i]) {
			SAY("%s: a NULL argument", what);
			return -EINVAL;
		}
	if ((fd = dial(err, errlen)) < 0)
		return fd;
	struct scry_ctl_request rq = {
		.cwd = getcwd(cwd, sizeof(cwd)), .home = c->home, .args = argv, .nargs = argc,
	};
	ret = scry_ctl_call(fd, &rq, &m, why, sizeof(why));
	close(fd);
	if (ret) {
		SAY("%s", why);
		return ret;
	}
	status = scry_ctl_get(&m, "status");
	o = scry_ctl_get(&m, "out");
	e = scry_ctl_get(&m, "error");
	if (!status || strcmp(status, "0")) {
		SAY("%s", e ? e : "the daemon failed without a reason");
		ret = -EREMOTEIO;
	} else if (out && !(*out = strdup(o ? o : ""))) {
		SAY("%s: out of memory", what);
		ret = -ENOMEM;
	}
	scry_ctl_msg_free(&m);
	return ret;
}

/* A session name given (the daemon would take the current one of ~/.scryrc: a library
 * names it). */
static bool named(const char *what, const char *name, char *err, size_t errlen)
{
	if (name && *name && *name != '-')
		return true;
	SAY("%s: no session name%s", what, name && *name == '-' ? " (it may not begin with '-')" : "");
	return false;
}

int scry_ctl_create(struct scry_ctl *c, const char *name, const char *output, int snapshot, char *err,
		    size_t errlen)
{
	const char *argv[MAX_ARGS] = { "create", name };
	size_t n = 2;

	if (!named("scry_ctl_create", name, err, errlen))
		return -EINVAL;
	if (output) {
		argv[n++] = "-o";
		argv[n++] = output;
	}
	if (snapshot)
		argv[n++] = "--snapshot";
	return call(c, "scry_ctl_create", n, argv, NULL, err, errlen);
}

int scry_ctl_enable_event(struct scry_ctl *c, const char *name, const char *spec, const char *filter, char *err,
			  size_t errlen)
{
	const char *argv[MAX_ARGS] = { "enable-event", "-k", "-s", name };
	size_t n = 4;

	if (!named("scry_ctl_enable_event", name, err, errlen))
		return -EINVAL;
	if (!spec || !*spec || *spec == '-') {
		SAY("scry_ctl_enable_event: no event spec (e.g. \"syscall:openat\")");
		return -EINVAL;
	}
	if (filter) {
		argv[n++] = "--filter";
		argv[n++] = filter;
	}
	if (!strncmp(spec, "syscall:", 8)) {   /* the daemon's spelling: --syscall NAME */
		argv[n++] = "--syscall";
		spec += 8;
	}
	argv[n++] = "--";
	argv[n++] = spec;
	return call(c, "scry_ctl_enable_event", n, argv, NULL, err, errlen);
}

int scry_ctl_add_context(struct scry_ctl *c, const char *name, const char *context, char *err, size_t errlen)
{
	const char *argv[] = { "add-context", "-k", "-s", name, "-t", context };

	if (!named("scry_ctl_add_context", name, err, errlen))
		return -EINVAL;
	return call(c, "scry_ctl_add_context", 6, argv, NULL, err, errlen);
}

int scry_ctl_track_pid(struct scry_ctl *c, const char *name, pid_t pid, char *err, size_t errlen)
{
	char p[24];
	const char *argv[] = { "track", "-k", "-s", name, "--pid", p };

	if (!named("scry_ctl_track_pid", name, err, errlen))
		return -EINVAL;
	if (pid <= 0) {
		SAY("scry_ctl_track_pid: %d is no process id", (int)pid);
		return -EINVAL;
	}
	snprintf(p, sizeof(p), "%d", (int)pid);
	return call(c, "scry_ctl_track_pid", 6, argv, NULL, err, errlen);
}

/* A verb whose one argument is the session's name. */
static int verb_name(struct scry_ctl *c, const char *what, const char *verb, const char *name, char *err,
		     size_t errlen)
{
	const char *argv[] = { verb, name };

	if (!named(what, name, err, errlen))
		return -EINVAL;
	return call(c, what, 2, argv, NULL, err, errlen);
}

int scry_ctl_start(struct scry_ctl *c, const char *name, char *err, size_t errlen)
{
	return verb_name(c, "scry_ctl_start", "start", name, err, errlen);
}

int scry_ctl_stop(struct scry_ctl *c, const char *name, char *err, size_t errlen)
{
	return verb_name(c, "scry_ctl_stop", "stop", name, err, errlen);
}

int scry_ctl_rotate(struct scry_ctl *c, const char *name, char *err, size_t errlen)
{
	return verb_name(c, "scry_ctl_rotate", "rotate", name, err, errlen);
}

int scry_ctl_destroy(struct scry_ctl *c, const char *name, char *err, size_t errlen)
{
	return verb_name(c, "scry_ctl_destroy", "destroy", name, err, errlen);
}

int scry_ctl_snapshot(struct scry_ctl *c, const char *name, char *err, size_t errlen)
{
	const char *argv[] = { "snapshot", "record", "-s", name };

	if (!named("scry_ctl_snapshot", name, err, errlen))
		return -EINVAL;
	return call(c, "scry_ctl_snapshot", 4, argv, NULL, err, errlen);
}

int scry_ctl_list(struct scry_ctl *c, const char *name, char **out, char *err, size_t errlen)
{
	const char *argv[] = { "list", name };

	if (!out) {
		SAY("scry_ctl_list: nowhere for the list (out is NULL)");
		return -EINVAL;
	}
	*out = NULL;
	if (name && !named("scry_ctl_list", name, err, errlen))
		return -EINVAL;
	return call(c, "scry_ctl_list", name ? 2 : 1, argv, out, err, errlen);
}

int scry_ctl_command(struct scry_ctl *c, int argc, const char *const *argv, char **out, char *err, size_t errlen)
{
	if (out)
		*out = NULL;
	if (argc < 1 || !argv || !argv[0] || !scry_ctl_verb(argv[0])) {
		SAY("scry_ctl_command: %s is no control verb (scry --help lists them)",
		    argc >= 1 && argv && argv[0] ? argv[0] : "(none)");
		return -EINVAL;
	}
	return call(c, "scry_ctl_command", (size_t)argc, argv, out, err, errlen);
}
