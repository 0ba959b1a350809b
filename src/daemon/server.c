/* server.c — scryd's process (see daemon.h): its run directory and lock, the control
 * socket (root, or the members of a `tracing` group, checked with SO_PEERCRED on every
 * connection), detaching when it is not --foreground, and the one event loop that serves
 * connections (each one request and one reply, read without blocking, bounded in size and
 * time) and pumps every started session; the ready object's requests (warm.c) answered with
 * descriptors. */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ctl/proto.h"
#include "kernel/probes.h"
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/loop.h"
#include "util/privs.h"

/* Connections are bounded in number and time: each gets 5 s to send its message whole (not
 * reset by what it sends), a uid holds at most CONNS_PER_UID at once and the daemon
 * MAX_CONNS.  A new connection always gets in: past its uid's bound the uid's oldest goes,
 * past the daemon's the oldest of the uid holding the most, so that root's verbs (or any
 * user's) are never starved by another user's idle connections.  Each one evicted is told
 * why in one line. */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#define CONN_TIMEOUT_NS (5 * 1000000000ULL)
#define CONN_GRACE_NS (1000000000ULL)     /* once, when the loop, not the client, was late */
#define CONNS_PER_UID 32
#define MAX_CONNS 256
#define ACCEPT_PAUSE_NS (100 * 1000000ULL)   /* out of fds: accept again after this */
#define DEFAULT_SESSIONS_PER_USER 32
#define MAX_SESSIONS_PER_USER 100000

struct conn {
	struct daemon *d;
	uid_t uid;                  /* the peer's (SO_PEERCRED) */
	int fd, timer;
	bool graced;                   /* conn_timeout found bytes waiting once */
	struct ucred cr;            /* the peer, as the kernel says */
	int pidfd;                  /* its process (SO_PEERPIDFD), or -1 */
	uint8_t *buf;
	size_t len, want;           /* want: header, then header + payload */
	uint64_t seq;               /* order of acceptance: the lowest is the oldest */
	struct conn *next;
};

static struct {
	struct daemon d;
	int listen_fd;
	gid_t group;                /* the group allowed besides root, or (gid_t)-1 */
	const char *group_name;
	struct conn *conns;
	unsigned nconns;
	uint64_t accepted;          /* connections accepted so far: the next seq */
	char sock_path[108];          /* a sockaddr_un's */
} g = { .listen_fd = -1, .group = (gid_t)-1 };

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scryd [--foreground] [--group NAME] [--max-sessions-per-user N]\n"
		"The scry session daemon: it owns the recording sessions that `scry create`, `enable-event`,\n"
		"`start`... control.  One per machine; the first control command starts it.\n"
		"\n"
		"  -F, --foreground   stay in the foreground, log to stderr (a systemd unit)\n"
		"  -g, --group NAME   members of group NAME may control it too (default: 'tracing' if it\n"
		"                     exists, else root only)\n"
		"  --max-sessions-per-user N\n"
		"                     sessions a user other than root may have at once (default %d);\n"
		"                     a create or load beyond it is refused\n"
		"\n"
		"Its directory is $SCRY_RUNDIR, or /run/scry: control (the socket), scryd.pid, scryd.log.\n",
		DEFAULT_SESSIONS_PER_USER);
}

/* --- connections ---------------------------------------------------------------------- */

static void conn_close(struct conn *c)
{
	struct conn **p;

	scry_loop_fd_cancel(g.d.loop, c->fd);
	scry_loop_timer_cancel(g.d.loop, c->timer);
	close(c->fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	for (p = &g.conns; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	g.nconns--;
	free(c->buf);
	free(c);
}

/* Reply and close: a reply is small, written with a bounded wait. */
static void reply(struct conn *c, struct scry_ctl_builder *b)
{
	char err[256];
	struct timeval tv = { .tv_sec = 2 };
	int fl = fcntl(c->fd, F_GETFL);

	if (scry_ctl_finish(b) == 0) {
		fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (scry_ctl_send(c->fd, b, err, sizeof(err)))
			scry_log(SCRY_LOG_INFO, "scryd: %s", err);
	}
	scry_ctl_builder_free(b);
	conn_close(c);
}

static void reply_error(struct conn *c, const char *reason)
{
	struct scry_ctl_builder b;

	scry_ctl_builder_init(&b, SCRY_CTL_REPLY);
	scry_ctl_add(&b, "status", "1");
	scry_ctl_add(&b, "error", reason);
	reply(c, &b);
}

/* "warm FINGERPRINT": scryd's ready object for a caller that could load it itself (warm.c),
 * its descriptors with the reply (SCM_RIGHTS), each named by an fd= string in order; "warm"
 * alone: the counts only.  scryd closes every descriptor it held once the reply is sent (or
 * could not be): the object is used once. */
static void serve_warm(struct conn *c, const char *fp)
{
	struct scry_ctl_builder b;
	struct scry_warm *w = NULL;
	struct dwarm_status st;
	struct timeval tv = { .tv_sec = 2 };
	char err[256] = "", serr[256];
	int ret = fp ? dwarm_take(fp, c->cr.pid, c->pidfd, &w, err, sizeof(err)) : 0;

	dwarm_status(&st);
	scry_ctl_builder_init(&b, SCRY_CTL_REPLY);
	scry_ctl_add(&b, "status", ret ? "1" : "0");
	if (ret)
		scry_ctl_add(&b, "error", err);
	scry_ctl_addf(&b, "ready", "%d", st.ready);
	if (st.ready)
		scry_ctl_add(&b, "fingerprint", st.fp);
	scry_ctl_addf(&b, "made", "%llu", (unsigned long long)st.made);
	scry_ctl_addf(&b, "handed", "%llu", (unsigned long long)st.handed);
	scry_ctl_addf(&b, "refused", "%llu", (unsigned long long)st.refused);
	scry_ctl_addf(&b, "failed", "%llu", (unsigned long long)st.failed);
	for (size_t i = 0; w && i < w->n; i++)
		scry_ctl_add(&b, "fd", w->names[i]);
	if (scry_ctl_finish(&b) == 0) {
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (scry_ctl_send_fds(c->fd, &b, w ? w->fds : NULL, w ? w->n : 0, serr, sizeof(serr)))
			scry_log(SCRY_LOG_INFO, "scryd: the ready object was not handed over: %s", serr);
	}
	if (w) {
		scry_log(SCRY_LOG_VERBOSE, "scryd: the ready object handed to pid %d", (int)c->cr.pid);
		scry_warm_clear(w);
		free(w);
	} else if (ret == -EPERM)
		scry_log(SCRY_LOG_INFO, "scryd: the ready object refused to pid %d (uid %u): %s", (int)c->cr.pid,
			 (unsigned)c->cr.uid, err);
	scry_ctl_builder_free(&b);
	conn_close(c);
}

static void serve(struct conn *c, const struct scry_ctl_msg *m)
{
	struct scry_ctl_builder b;
	struct dreply r = { 0 };
	struct dpeer peer = { 0 };
	char err[1024] = "", *out = NULL;
	size_t outlen = 0, argc = 0, nenv = 0;
	char **argv = NULL, **env = NULL;
	int ret;

	if (m->type != SCRY_CTL_REQUEST) {
		reply_error(c, "malformed message: not a request");
		return;
	}
	if (!(argv = calloc(m->nkv + 1, sizeof(*argv)))) {
		reply_error(c, "out of memory");
		return;
	}
	if (!(env = calloc(m->nkv + 1, sizeof(*env)))) {
		free(argv);
		reply_error(c, "out of memory");
		return;
	}
	for (size_t i = 0; i < m->nkv; i++)
		if (!strcmp(m->kv[i].key, "arg"))
			argv[argc++] = (char *)m->kv[i].value;
		else if (!strcmp(m->kv[i].key, "env") && !strncmp(m->kv[i].value, "OTEL_", 5) &&
			 strchr(m->kv[i].value, '='))
			env[nenv++] = (char *)m->kv[i].value;   /* the caller's OTEL_* variables */
	if (argc && !strcmp(argv[0], "warm")) {      /* descriptors in the reply: not a verb's */
		serve_warm(c, argc > 1 ? argv[1] : NULL);
		free(argv);
		free(env);
		return;
	}
	r.out = open_memstream(&out, &outlen);
	r.err = err;
	r.errlen = sizeof(err);
	if (!r.out) {
		free(argv);
		free(env);
		reply_error(c, "out of memory");
		return;
	}
	if ((ret = dpeer_of(&peer, c->cr.uid, c->cr.gid, c->cr.pid, c->pidfd, scry_ctl_get(m, "home"), err,
			    sizeof(err))) == 0)
		ret = daemon_verb(&g.d, argv, (int)argc, &peer, scry_ctl_get(m, "session"), (const char *const *)env, &r);
	dpeer_free(&peer);
	fclose(r.out);
	if (ret && !err[0])
		snprintf(err, sizeof(err), "%s: %s", argc ? argv[0] : "request", strerror(-ret));
	err[strcspn(err, "\n")] = 0;     /* a reason is one line (a filter's caret lines dropped) */
	scry_ctl_builder_init(&b, SCRY_CTL_REPLY);
	scry_ctl_add(&b, "status", ret ? "1" : "0");
	if (outlen)
		scry_ctl_add(&b, "out", out);
	if (ret)
		scry_ctl_add(&b, "error", err);
	if (r.set_session)
		scry_ctl_add(&b, "set-session", r.set_session);
	for (size_t i = 0; i < r.ncleared; i++) {
		scry_ctl_add(&b, "clear-session", r.cleared[i]);
		free(r.cleared[i]);
	}
	free(r.cleared);
	free(out);
	free(argv);
	free(env);
	if (b.error == -E2BIG) {      /* a listing beyond the protocol's bound */
		scry_ctl_builder_free(&b);
		reply_error(c, "the reply is larger than the protocol allows");
		return;
	}
	reply(c, &b);
}

static void conn_readable(void *ctx, int fd)
{
	struct conn *c = ctx;
	struct scry_ctl_header h;
	struct scry_ctl_msg m;
	char err[256];
	ssize_t n;

	n = read(fd, c->buf + c->len, c->want - c->len);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->len)
			scry_log(SCRY_LOG_INFO, "scryd: a client closed its connection within a message (%zu bytes)",
				 c->len);
		conn_close(c);
		return;
	}
	c->len += (size_t)n;
	if (c->len < c->want)
		return;
	if (c->want == SCRY_CTL_HEADER_SIZE) {
		uint8_t *nb;

		if (scry_ctl_header_parse(c->buf, c->len, &h, err, sizeof(err))) {
			scry_log(SCRY_LOG_INFO, "scryd: refused a message: %s", err);
			reply_error(c, err);
			return;
		}
		if (h.length) {
			if (!(nb = realloc(c->buf, SCRY_CTL_HEADER_SIZE + h.length))) {
				reply_error(c, "out of memory");
				return;
			}
			c->buf = nb;
			c->want = SCRY_CTL_HEADER_SIZE + h.length;
			return;
		}
	}
	if (scry_ctl_parse(c->buf, c->len, &m, err, sizeof(err))) {
		scry_log(SCRY_LOG_INFO, "scryd: refused a message: %s", err);
		reply_error(c, err);
		return;
	}
	serve(c, &m);
	scry_ctl_msg_free(&m);
}

/* A line of the log said at most once per 10 s, with how many were not said since (a client
 * reconnecting in a loop does not fill the disk). */
struct said {
	uint64_t last, unsaid;
};

static void __attribute__((format(printf, 2, 3))) say_limited(struct said *s, const char *fmt, ...)
{
	uint64_t now = scry_monotonic_ns();
	char line[512];
	va_list ap;

	if (s->last && now - s->last < 10 * 1000000000ULL) {
		s->unsaid++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (s->unsaid)
		scry_log(SCRY_LOG_INFO, "%s (and %llu more since the last such line)", line,
			 (unsigned long long)s->unsaid);
	else
		scry_log(SCRY_LOG_INFO, "%s", line);
	s->last = now;
	s->unsaid = 0;
}

static struct said timeout_said, evicted_said, refused_said;

static uint64_t conn_timeout(void *ctx, uint64_t now)
{
	struct conn *c = ctx;
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	/* bytes waiting: the loop was late (busy with a long verb: a session's BPF load), not the
	 * client; once, a moment more for them to be read (a client trickling gets no more) */
	if (!c->graced && poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
		c->graced = true;
		return CONN_GRACE_NS;
	}
	c->timer = -1;
	say_limited(&timeout_said, "scryd: a client sent no whole message in %llu s: connection closed",
		    CONN_TIMEOUT_NS / 1000000000ULL);
	reply_error(c, "timed out waiting for a whole message");
	return SCRY_LOOP_NEVER;
}

static bool peer_allowed(const struct ucred *cr)
{
	gid_t groups[256];
	int n = 256;
	struct passwd *pw;

	if (cr->uid == 0)
		return true;
	if (g.group == (gid_t)-1)
		return false;
	if (cr->gid == g.group)
		return true;
	if (!(pw = getpwuid(cr->uid)) || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == g.group)
			return true;
	return false;
}

static unsigned conns_of(uid_t uid)
{
	unsigned n = 0;

	for (struct conn *c = g.conns; c; c = c->next)
		n += c->uid == uid;
	return n;
}

/* The oldest connection of uid, but not keep. */
static struct conn *oldest_of(uid_t uid, const struct conn *keep)
{
	struct conn *o = NULL;

	for (struct conn *c = g.conns; c; c = c->next)
		if (c != keep && c->uid == uid && (!o || c->seq < o->seq))
			o = c;
	return o;
}

/* The uid holding the most connections (the first found of those tied). */
static uid_t busiest_uid(void)
{
	uid_t best = 0;
	unsigned most = 0;

	for (struct conn *c = g.conns; c; c = c->next) {
		unsigned n = conns_of(c->uid);

		if (n > most) {
			most = n;
			best = c->uid;
		}
	}
	return best;
}

/* Room for the new connection c: its uid's oldest closed past CONNS_PER_UID, else the
 * busiest uid's oldest past MAX_CONNS. */
static void make_room(struct conn *c)
{
	struct conn *old = NULL;
	char why[160];

	if (conns_of(c->uid) > CONNS_PER_UID) {
		old = oldest_of(c->uid, c);
		snprintf(why, sizeof(why), "connection closed: uid %u has %d connections open at once, the most "
			 "allowed per user (the oldest goes)", (unsigned)c->uid, CONNS_PER_UID);
	} else if (g.nconns > MAX_CONNS) {
		old = oldest_of(busiest_uid(), c);
		snprintf(why, sizeof(why), "connection closed: the daemon has %d connections open at once, the most "
			 "it allows (the oldest of the user holding the most goes)", MAX_CONNS);
	}
	if (!old)
		return;
	say_limited(&evicted_said, "scryd: uid %u's connection closed: %s", (unsigned)old->uid,
		    why + strlen("connection closed: "));
	reply_error(old, why);
}

static void accept_ready(void *ctx, int fd);

static uint64_t accept_again(void *ctx, uint64_t now)
{
	if (scry_loop_fd(g.d.loop, g.listen_fd, accept_ready, NULL))
		return ACCEPT_PAUSE_NS;
	return SCRY_LOOP_NEVER;
}

/* Out of file descriptors: the pending connection stays in the backlog (the listening socket
 * stays readable: watched, it would spin the loop); accepting resumes a moment later. */
static void pause_accepting(void)
{
	static uint64_t last_said;
	uint64_t now = scry_monotonic_ns();

	if (now - last_said > 10 * 1000000000ULL) {
		scry_log(SCRY_LOG_INFO, "scryd: cannot accept a connection: %s (RLIMIT_NOFILE); retrying",
			 strerror(errno));
		last_said = now;
	}
	scry_loop_fd_cancel(g.d.loop, g.listen_fd);
	if (scry_loop_timer(g.d.loop, ACCEPT_PAUSE_NS, accept_again, NULL) < 0)
		scry_loop_fd(g.d.loop, g.listen_fd, accept_ready, NULL);
}

static void refuse_peer(struct conn *c, const struct ucred *cr)
{
	char why[128];

	if (g.group != (gid_t)-1)
		snprintf(why, sizeof(why), "the control socket is for root and the group '%s' only", g.group_name);
	else
		snprintf(why, sizeof(why), "the control socket is root-only");
	say_limited(&refused_said, "scryd: refused uid %d (pid %d): not root%s", (int)cr->uid, (int)cr->pid,
		    g.group != (gid_t)-1 ? " nor in the group" : "");
	reply_error(c, why);
}

static void accept_ready(void *ctx, int fd)
{
	struct ucred cr = { .uid = (uid_t)-1 };
	socklen_t len = sizeof(cr);
	struct conn *c;
	bool allowed;
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (cfd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			pause_accepting();
		return;
	}
	allowed = getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && peer_allowed(&cr);
	if (!(c = calloc(1, sizeof(*c))) || !(c->buf = malloc(SCRY_CTL_HEADER_SIZE))) {
		free(c);
		close(cfd);
		return;
	}
	*c = (struct conn){ .d = &g.d, .uid = cr.uid, .fd = cfd, .timer = -1, .cr = cr, .pidfd = -1, .buf = c->buf,
			    .want = SCRY_CTL_HEADER_SIZE, .seq = g.accepted++, .next = g.conns };
	len = sizeof(c->pidfd);
	if (allowed && getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &c->pidfd, &len) < 0)
		c->pidfd = -1;        /* before Linux 6.5: the pid alone */
	g.conns = c;
	g.nconns++;
	if (scry_loop_fd(g.d.loop, cfd, conn_readable, c)) {
		scry_loop_fd_cancel(g.d.loop, cfd);
		close(cfd);
		g.conns = c->next;
		g.nconns--;
		free(c->buf);
		free(c);
		return;
	}
	if (!allowed) {
		refuse_peer(c, &cr);
		return;
	}
	make_room(c);
	c->timer = scry_loop_timer(g.d.loop, CONN_TIMEOUT_NS, conn_timeout, c);
}

/* --- the process ---------------------------------------------------------------------- */

/* The run directory: made, or checked to be root's and not writable by others. */
static int make_rundir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	mode_t mode = g.group != (gid_t)-1 ? 0750 : 0700;

	if (mkdir(dir, mode) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
		return -errno;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
		snprintf(err, errlen, "%s is not a directory of root's", dir);
		return -EPERM;
	}
	if (chown(dir, 0, g.group != (gid_t)-1 ? g.group : 0) < 0 || chmod(dir, mode) < 0) {
		snprintf(err, errlen, "cannot set the owner and mode of %s: %s", dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* One daemon per run directory: the pid file locked for the daemon's life. */
static int take_lock(const char *dir, char *err, size_t errlen)
{
	char path[512], pid[32];
	int fd;

	snprintf(path, sizeof(path), "%s/scryd.pid", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %.300s: %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n = read(fd, pid, sizeof(pid) - 1);

		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		snprintf(err, errlen, "a daemon already runs for %s (pid %s)", dir, pid[0] ? pid : "?");
		close(fd);
		return -EEXIST;
	}
	if (ftruncate(fd, 0) == 0) {
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

		if (pwrite(fd, pid, (size_t)n, 0) != n) {
			/* the lock is what counts */
		}
	}
	return fd;   /* kept open: the lock */
}

static int open_socket(char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	mode_t old;
	int fd;

	if (scry_ctl_socket_path(g.sock_path, sizeof(g.sock_path))) {
		snprintf(err, errlen, "the run directory's path is too long for a UNIX socket");
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, g.sock_path, sizeof(sa.sun_path));
	unlink(g.sock_path);      /* a dead daemon's: we hold the lock */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		umask(old);
		snprintf(err, errlen, "cannot bind %s: %s", g.sock_path, strerror(e));
		close(fd);
		return -e;
	}
	umask(old);
	if ((g.group != (gid_t)-1 && (chown(g.sock_path, 0, g.group) < 0 || chmod(g.sock_path, 0660) < 0)) ||
	    listen(fd, SOMAXCONN) < 0) {
		snprintf(err, errlen, "cannot set up %s: %s", g.sock_path, strerror(errno));
		close(fd);
		return -errno;
	}
	return fd;
}

static void log_to_fd(void *ctx, enum scry_log_level level, const char *text)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "%s %s\n", stamp, text);
	fflush(stderr);
}

/* Detach: the parent waits until the child serves (or says why it cannot), so that the
 * command that started it connects at once.  Returns in the child; the parent exits. */
static int detach(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char buf[512];
	ssize_t n;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(p[1]);
		n = read(p[0], buf, sizeof(buf) - 1);
		if (n > 0 && buf[0] == 'R')
			_exit(0);
		buf[n > 0 ? n : 0] = 0;
		fprintf(stderr, "scryd: %s\n", n > 0 ? buf : "the daemon died while starting");
		_exit(1);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

static void ready(int fd, const char *err)
{
	if (fd < 0)
		return;
	if (err) {
		if (write(fd, err, strlen(err)) < 0) {
		}
	} else if (write(fd, "R", 1) < 0) {
	}
	close(fd);
}

static int redirect_output(const char *dir)
{
	char path[512];
	int fd, null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	snprintf(path, sizeof(path), "%s/scryd.log", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || null_fd < 0)
		return -errno;
	dup2(null_fd, STDIN_FILENO);
	dup2(null_fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	close(null_fd);
	return 0;
}

int scryd_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "foreground", no_argument, NULL, 'F' }, { "group", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' }, { "max-sessions-per-user", required_argument, NULL, 'm' }, { 0 } };
	const char *dir = scry_ctl_rundir(), *group = NULL;
	bool foreground = false;
	char err[512] = "";
	int opt, ready_fd = -1, lock_fd, ret;
	struct sigaction sa = { .sa_handler = on_signal };

	optind = 1;
	g.d.max_sessions_per_user = DEFAULT_SESSIONS_PER_USER;
	while ((opt = getopt_long(argc, argv, "Fg:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'F': foreground = true; break;
		case 'g': group = optarg; break;
		case 'm': {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || optarg[0] == '-' || n < 1 || n > MAX_SESSIONS_PER_USER) {
				fprintf(stderr, "scryd: --max-sessions-per-user takes a number from 1 to %d, not '%s'\n",
					MAX_SESSIONS_PER_USER, optarg);
				return 2;
			}
			g.d.max_sessions_per_user = (unsigned)n;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "scryd: unexpected argument '%s' (scryd --help)\n", argv[optind]);
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "scryd: the session daemon runs as root (it loads BPF programs and owns /run/scry)\n");
		return 1;
	}
	{
		struct group *gr = getgrnam(group ? group : "tracing");

		if (gr) {
			g.group = gr->gr_gid;
			g.group_name = strdup(gr->gr_name);
		} else if (group) {
			fprintf(stderr, "scryd: no group named '%s'\n", group);
			return 1;
		}
	}
	scry_raise_nofile_max();   /* a map's fd each: ~70 a loaded session (privs.h) */
	scry_probes_one_lane();    /* not three fds a map (probes.h) */
	if (!foreground && (ret = detach(&ready_fd))) {
		fprintf(stderr, "scryd: cannot detach: %s\n", strerror(-ret));
		return 1;
	}
	if ((ret = make_rundir(dir, err, sizeof(err))) || (lock_fd = take_lock(dir, err, sizeof(err))) < 0)
		goto fail;
	if (!foreground && redirect_output(dir) < 0) {
		snprintf(err, sizeof(err), "cannot open %s/scryd.log: %s", dir, strerror(errno));
		goto fail;
	}
	prctl(PR_SET_NAME, "scryd");
	scry_log_set(log_to_fd, NULL, false);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	g.d.stop = &stop_signal;
	if ((ret = scry_loop_new(&g.d.loop))) {
		snprintf(err, sizeof(err), "event loop: %s", strerror(-ret));
		goto fail;
	}
	if (!(g.d.cat = scry_catalog_open(NULL, err, sizeof(err))))
		goto fail;
	if ((g.listen_fd = open_socket(err, sizeof(err))) < 0)
		goto fail;
	if ((ret = scry_loop_fd(g.d.loop, g.listen_fd, accept_ready, NULL))) {
		snprintf(err, sizeof(err), "event loop: %s", strerror(-ret));
		goto fail;
	}
	if (dwarm_start(err, sizeof(err)))     /* scry trace starts without it: not fatal */
		scry_log(SCRY_LOG_INFO, "scryd: %s", err);
	err[0] = 0;
	scry_log(SCRY_LOG_INFO, "scryd: pid %d serving %s%s%s", (int)getpid(), g.sock_path,
		 g.group != (gid_t)-1 ? " for root and the group " : " for root only",
		 g.group != (gid_t)-1 ? g.group_name : "");
	ready(ready_fd, NULL);
	ret = scry_loop_run(g.d.loop, &stop_signal);
	if (ret)
		scry_log(SCRY_LOG_INFO, "scryd: event loop: %s", strerror(-ret));
	scry_log(SCRY_LOG_INFO, "scryd: %s: stopping %zu session(s)",
		 stop_signal ? strsignal(stop_signal) : "exiting", g.d.nsess);
	unlink(g.sock_path);
	while (g.d.nsess)
		dsession_destroy(&g.d, g.d.sess[0]);   /* started ones stopped: their traces complete */
	dwarm_stop();
	while (g.conns)
		conn_close(g.conns);
	close(g.listen_fd);
	scry_catalog_close(g.d.cat);
	scry_loop_free(g.d.loop);
	free(g.d.sess);
	close(lock_fd);
	return ret ? 1 : 0;
fail:
	if (ready_fd >= 0)
		ready(ready_fd, err);
	else
		fprintf(stderr, "scryd: %s\n", err);
	return 1;
}
