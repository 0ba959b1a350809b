/* control.c — the control verbs on the CLI's side (create, enable-event, start... see
 * ctl/verbs.h): the command line sent to the daemon as it is, with the caller's working
 * directory, home and current session (~/.scryrc, "session=NAME" as LTTng's ~/.lttngrc);
 * the daemon started when none answers (fork and exec of `scryd`, which detaches once it
 * serves); its reply printed, its reason of a failure as the one line of the error. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/commands.h"
#include "ctl/client.h"
#include "ctl/verbs.h"
#include "daemon/daemon.h"

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return h;
	pw = getpwuid(getuid());
	return pw ? pw->pw_dir : "/";
}

static void rc_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/.scryrc", home_dir());
}

/* The current session from ~/.scryrc ("session=NAME"), or "". */
static void read_current(char *name, size_t len)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	name[0] = 0;
	rc_path(path, sizeof(path));
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "session=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(name, len, "%.200s", line + 8);
		}
	fclose(f);
}

static void write_current(const char *name)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	rc_path(path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!name) {
		unlink(path);
		return;
	}
	if (!(f = fopen(tmp, "w")))
		return;
	fprintf(f, "session=%s\n", name);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* Start scryd (it detaches once it serves, or says why it cannot): 0 or -1 with err. */
static int start_daemon(char *err, size_t errlen)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start the daemon: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char *const argv[] = { "scryd", NULL };

		execv("/proc/self/exe", argv);
		fprintf(stderr, "scry: cannot start the daemon: exec: %s\n", strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		/* it said why on stderr; a daemon that a concurrent command started is fine */
		if (scry_ctl_dial() >= 0)
			return 0;
		snprintf(err, errlen, "the daemon (scryd) did not start (see above, or %s/scryd.log)", scry_ctl_rundir());
		return -1;
	}
	return 0;
}

/* Connected to a daemon, started if start and none answers: the fd, or -1 with err. */
static int get_daemon(bool start, char *err, size_t errlen)
{
	int fd = scry_ctl_dial();

	if (fd >= 0)
		return fd;
	if (fd == -EACCES || fd == -EPERM || (geteuid() != 0 && (fd == -ENOENT || fd == -ECONNREFUSED))) {
		scry_ctl_refused(err, errlen);
		return -1;
	}
	if (fd == -ENAMETOOLONG) {
		snprintf(err, errlen, "the run directory %s is too long a path for a UNIX socket", scry_ctl_rundir());
		return -1;
	}
	if (!start || (fd != -ENOENT && fd != -ECONNREFUSED)) {
		snprintf(err, errlen, "cannot reach the daemon: %s", strerror(-fd));
		return -1;
	}
	if (start_daemon(err, errlen))
		return -1;
	for (int i = 0; i < 50; i++) {
		if ((fd = scry_ctl_dial()) >= 0)
			return fd;
		usleep(20000);
	}
	snprintf(err, errlen, "the daemon started but does not answer on its socket: %s", strerror(-fd));
	return -1;
}

/* Send the command line, print the reply.  *handled: the daemon answered (or could not
 * be reached when start is false: then 0 is returned and nothing printed). */
static int request(int argc, char **argv, bool start, bool quiet_error, bool *failed, char *capture,
		   size_t caplen)
{
	struct scry_ctl_request rq;
	struct scry_ctl_msg m;
	char err[1024] = "", cur[256], cwd[PATH_MAX];
	const char *status, *out, *e;
	const char **env = NULL;
	size_t nenv = 0;
	int fd, ret = 1;

	*failed = true;
	if ((fd = get_daemon(start, err, sizeof(err))) < 0) {
		fprintf(stderr, "scry: %s\n", err);
		return 1;
	}
	read_current(cur, sizeof(cur));
	for (char **ev = environ; *ev; ev++)   /* a session's spans go where this command's variables say */
		if (!strncmp(*ev, "OTEL_", 5)) {
			const char **v = realloc(env, (nenv + 1) * sizeof(*env));

			if (!v) {
				fprintf(stderr, "scry: out of memory\n");
				goto out;
			}
			(env = v)[nenv++] = *ev;
		}
	rq = (struct scry_ctl_request){
		.cwd = getcwd(cwd, sizeof(cwd)), .home = home_dir(), .session = cur,
		.args = (const char *const *)argv, .nargs = (size_t)argc, .env = env, .nenv = nenv,
	};
	if (scry_ctl_call(fd, &rq, &m, err, sizeof(err))) {
		fprintf(stderr, "scry: %s\n", err);
		goto out;
	}
	status = scry_ctl_get(&m, "status");
	out = scry_ctl_get(&m, "out");
	e = scry_ctl_get(&m, "error");
	*failed = !status || strcmp(status, "0");
	if (!*failed && capture)
		snprintf(capture, caplen, "%s", out ? out : "");
	else if (!*failed || !quiet_error) {
		if (out)
			fputs(out, stdout);
		if (*failed)
			fprintf(stderr, "scry: %s\n", e ? e : "the daemon failed without a reason");
	}
	for (size_t i = 0; i < m.nkv; i++) {
		if (!strcmp(m.kv[i].key, "set-session"))
			write_current(m.kv[i].value);
		else if (!strcmp(m.kv[i].key, "clear-session") && cur[0] && !strcmp(cur, m.kv[i].value))
			write_current(NULL);
	}
	ret = *failed ? 1 : 0;
	scry_ctl_msg_free(&m);
out:
	free(env);
	close(fd);
	return ret;
}

int cmd_control(int argc, char **argv)
{
	const struct scry_ctl_verb *v = scry_ctl_verb(argv[0]);
	bool failed;

	for (int i = 1; i < argc && v; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(v->usage, stdout);
			return 0;
		}
	}
	return request(argc, argv, true, false, &failed, NULL, 0);
}

int cmd_session_trace_dir(const char *name, char *dir, size_t len, bool *no_daemon)
{
	char *argv[] = { "view", (char *)name, NULL };
	bool failed;
	int fd = scry_ctl_dial();

	*no_daemon = fd == -ENOENT || fd == -ECONNREFUSED;
	if (*no_daemon)
		return 1;
	if (fd >= 0)
		close(fd);
	if (request(name ? 2 : 1, argv, false, false, &failed, dir, len))
		return 1;
	dir[strcspn(dir, "\n")] = 0;
	return dir[0] ? 0 : 1;
}

int cmd_list_sessions(int argc, char **argv, bool *handled)
{
	bool failed;
	int fd, ret;

	*handled = false;
	if ((fd = scry_ctl_dial()) == -EACCES || fd == -EPERM) {
		char err[256];

		scry_ctl_refused(err, sizeof(err));
		fprintf(stderr, "scry: %s\n", err);
		*handled = true;
		return 1;
	}
	if (fd < 0)
		return 0;            /* no daemon: no session to list */
	close(fd);
	ret = request(argc, argv, false, argc > 1, &failed, NULL, 0);
	*handled = !(failed && argc > 1);   /* NAME is no session: the events named NAME */
	return ret;
}

int cmd_daemon(int argc, char **argv)
{
	return scryd_main(argc, argv);
}
