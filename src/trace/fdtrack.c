/* fdtrack.c — see fdtrack.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "trace/classes.h"
#include "trace/fdtrack.h"

#define FD_LIMIT 65536                  /* descriptors above are not kept */
#ifndef AT_FDCWD
#define AT_FDCWD -100
#endif
#define CLOSE_RANGE_CLOEXEC_ (1u << 2)
#define F_DUPFD_ 0
#define F_SETFD_ 2
#define F_DUPFD_CLOEXEC_ 1030

struct fdent {
	char *path;
	bool cloexec;
	char proto[16];         /* a socket's protocol when it was made ("TCP", "UNIX-STREAM") */
	bool fresh;             /* a socket neither bound nor connected yet (made by socket()) */
	char *seen;             /* -yy: how it was last described (sockdesc), for when it is gone */
	bool kernel;            /* seen is what the kernel said at the call being printed */
};

struct fdtab {
	struct fdent *v;
	int cap;
	char *cwd;              /* the working directory, NULL until asked (/proc/PID/cwd) */
	bool complete;          /* every open fd is known (primed, or forked from such a table):
				 * an fd not here is not open, /proc is not asked (it may tell a
				 * later state: the lines are printed behind the calls) */
};

#define DELETED " (deleted)"    /* what readlink appends for an unlinked file */

void fdtrack_init(struct fdtrack *t)
{
	memset(t, 0, sizeof(*t));
	t->proc_root = "/proc";
}

static void tab_free(struct fdtab *tb)
{
	if (!tb)
		return;
	for (int i = 0; i < tb->cap; i++) {
		free(tb->v[i].path);
		free(tb->v[i].seen);
	}
	free(tb->v);
	free(tb->cwd);
	free(tb);
}

void fdtrack_free(struct fdtrack *t)
{
	for (size_t i = 0; i < t->procs.cap; i++)
		if (t->procs.slots[i].key)
			tab_free(t->procs.slots[i].val);
	imap_free(&t->procs);
}

static struct fdtab *tab_of(struct fdtrack *t, int pid, bool create)
{
	struct fdtab *tb = imap_get(&t->procs, pid);

	if (tb || !create)
		return tb;
	if (!(tb = calloc(1, sizeof(*tb))))
		return NULL;
	if (imap_put(&t->procs, pid, tb)) {
		free(tb);
		return NULL;
	}
	return tb;
}

/* Takes path (malloc'd; NULL forgets fd). */
static void ent_set(struct fdtrack *t, int pid, int fd, char *path, bool cloexec)
{
	struct fdtab *tb = tab_of(t, pid, path != NULL);

	if (fd < 0 || fd >= FD_LIMIT || !tb) {
		free(path);
		return;
	}
	if (fd >= tb->cap) {
		int ncap = tb->cap ? tb->cap : 64;
		struct fdent *nv;

		if (!path)
			return;
		while (ncap <= fd)
			ncap *= 2;
		if (!(nv = realloc(tb->v, (size_t)ncap * sizeof(*nv)))) {
			free(path);
			return;
		}
		memset(nv + tb->cap, 0, (size_t)(ncap - tb->cap) * sizeof(*nv));
		tb->v = nv;
		tb->cap = ncap;
	}
	free(tb->v[fd].path);
	tb->v[fd].path = path;
	tb->v[fd].cloexec = path && cloexec;
	tb->v[fd].proto[0] = '\0';
	tb->v[fd].fresh = false;
	free(tb->v[fd].seen);
	tb->v[fd].seen = NULL;
	tb->v[fd].kernel = false;
}

void fdtrack_set(struct fdtrack *t, int pid, int fd, const char *path, bool cloexec)
{
	ent_set(t, pid, fd, path ? strdup(path) : NULL, cloexec);
}

/* readlink PROC/pid/what, malloc'd, or NULL */
static char *read_link(struct fdtrack *t, int pid, const char *what)
{
	char path[128], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/%s", t->proc_root, pid, what);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	return strdup(target);
}

static char *fd_link(struct fdtrack *t, int pid, int fd)
{
	char what[32];

	snprintf(what, sizeof(what), "fd/%d", fd);
	return read_link(t, pid, what);
}

/* pid's working directory (cached; /proc/PID/cwd the first time), or NULL. */
static const char *cwd_of(struct fdtrack *t, int pid)
{
	struct fdtab *tb = tab_of(t, pid, true);

	if (tb && !tb->cwd)
		tb->cwd = read_link(t, pid, "cwd");
	return tb ? tb->cwd : NULL;
}

const char *fdtrack_path(struct fdtrack *t, int pid, int fd)
{
	struct fdtab *tb = tab_of(t, pid, false);
	char *s, *b;

	if (fd == AT_FDCWD)
		return cwd_of(t, pid);
	if (fd < 0)
		return NULL;
	if (tb && fd < tb->cap && tb->v[fd].path)
		return tb->v[fd].path;
	if ((tb && tb->complete) || !(s = fd_link(t, pid, fd)))
		return NULL;
	b = t->buf[t->next_buf++ % 4];
	snprintf(b, sizeof(t->buf[0]), "%s", s);
	free(s);
	return b;
}

const char *fdtrack_proto(struct fdtrack *t, int pid, int fd, bool *fresh)
{
	struct fdtab *tb = tab_of(t, pid, false);
	bool ok = tb && fd >= 0 && fd < tb->cap && tb->v[fd].path && tb->v[fd].proto[0];

	if (fresh)
		*fresh = ok && tb->v[fd].fresh;
	return ok ? tb->v[fd].proto : NULL;
}

const char *fdtrack_seen(struct fdtrack *t, int pid, int fd, const char *now)
{
	struct fdtab *tb = tab_of(t, pid, false);
	struct fdent *e = tb && fd >= 0 && fd < tb->cap && tb->v[fd].path ? &tb->v[fd] : NULL;

	if (!e)
		return now;
	if (now && (!e->seen || strcmp(e->seen, now))) {
		free(e->seen);
		e->seen = strdup(now);
	}
	return now ? now : e->seen;
}

void fdtrack_kernel_name(struct fdtrack *t, int pid, int fd, const char *name)
{
	struct fdtab *tb = tab_of(t, pid, false);
	struct fdent *e = tb && fd >= 0 && fd < tb->cap && tb->v[fd].path ? &tb->v[fd] : NULL;
	char *n;

	if (!e || !(n = strdup(name)))
		return;
	free(e->seen);
	e->seen = n;
	e->kernel = true;
	e->fresh = false;
}

const char *fdtrack_kernel_seen(struct fdtrack *t, int pid, int fd)
{
	struct fdtab *tb = tab_of(t, pid, false);

	return tb && fd >= 0 && fd < tb->cap && tb->v[fd].path && tb->v[fd].kernel ? tb->v[fd].seen : NULL;
}

/* Calls after which a socket has a local address (or a peer): it is no longer fresh. */
static bool is_binding(const char *n)
{
	static const char *const calls[] = { "bind", "connect", "listen", "sendto", "sendmsg", "sendmmsg" };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(n, calls[i]))
			return true;
	return false;
}

static char *fd_dup_path(struct fdtrack *t, int pid, int fd)
{
	const char *p = fdtrack_path(t, pid, fd);

	return p ? strdup(p) : NULL;
}

/* The absolute path a call named: relative to the cwd or to a directory fd, then
 * canonical (symlinks resolved) when it exists here. */
static char *resolve(struct fdtrack *t, int pid, int dirfd, const char *path)
{
	char *base = NULL, *abs = NULL, real[PATH_MAX];

	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		size_t bl;

		base = fd_dup_path(t, pid, dirfd);   /* AT_FDCWD: the working directory */
		if (!base || base[0] != '/') {
			free(base);
			return strdup(path);
		}
		bl = strlen(base);
		if (asprintf(&abs, "%s%s%s", base, !*path || base[bl - 1] == '/' ? "" : "/", path) < 0)
			abs = NULL;
		free(base);
	}
	if (abs && realpath(abs, real)) {
		free(abs);
		return strdup(real);
	}
	return abs;
}

/* The absolute path of a name that no longer exists (unlinked): the directory resolved,
 * the last component kept. */
static char *resolve_gone(struct fdtrack *t, int pid, int dirfd, const char *name)
{
	const char *slash = strrchr(name, '/');
	char *dir, *path = NULL, *dname;

	if (!slash)
		dir = dirfd == AT_FDCWD ? (cwd_of(t, pid) ? strdup(cwd_of(t, pid)) : NULL) : fd_dup_path(t, pid, dirfd);
	else if (!(dname = strndup(name, slash == name ? 1 : (size_t)(slash - name))))
		return NULL;
	else {
		dir = resolve(t, pid, dirfd, dname);
		free(dname);
	}
	if (dir && dir[0] == '/' &&
	    asprintf(&path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", slash ? slash + 1 : name) < 0)
		path = NULL;
	free(dir);
	return path;
}

/* Every descriptor, of every process, on path now names a deleted file (as readlink then
 * says: "PATH (deleted)"). */
static void mark_deleted(struct fdtrack *t, const char *path)
{
	size_t n = strlen(path);

	for (size_t k = 0; k < t->procs.cap; k++) {
		struct fdtab *tb = t->procs.slots[k].key ? t->procs.slots[k].val : NULL;

		for (int i = 0; tb && i < tb->cap; i++) {
			char *p = tb->v[i].path, *np;

			if (!p || strncmp(p, path, n) || p[n] || asprintf(&np, "%s%s", p, DELETED) < 0)
				continue;
			free(p);
			tb->v[i].path = np;
		}
	}
}

/* What readlink would have said of the descriptor when the call returned: socket:[INO],
 * pipe:[INO], anon_inode:NAME; a file's own name otherwise (memfd:x). */
static char *file_link(const struct trace_file *f)
{
	char *s = NULL;

	if (S_ISSOCK(f->mode))
		asprintf(&s, "socket:[%llu]", (unsigned long long)f->ino);
	else if (S_ISFIFO(f->mode))
		asprintf(&s, "pipe:[%llu]", (unsigned long long)f->ino);
	else if (!(f->mode & S_IFMT))
		asprintf(&s, "anon_inode:%s", f->name);
	else if (f->name[0] && asprintf(&s, "/%s", f->name) < 0)
		s = NULL;
	return s;
}

/* newfd refers to what oldfd does (dup, F_DUPFD), its socket protocol included. */
static void ent_dup(struct fdtrack *t, int pid, int newfd, int oldfd, bool cloexec)
{
	const char *proto = fdtrack_proto(t, pid, oldfd, NULL);
	char keep[sizeof(((struct fdent *)0)->proto)];
	struct fdtab *tb;

	snprintf(keep, sizeof(keep), "%s", proto ? proto : "");
	ent_set(t, pid, newfd, fd_dup_path(t, pid, oldfd), cloexec);
	if ((tb = tab_of(t, pid, false)) && newfd >= 0 && newfd < tb->cap && tb->v[newfd].path)
		memcpy(tb->v[newfd].proto, keep, sizeof(keep));
}

static bool arg_have(const struct trace_call *c, const struct scry_argval *all, unsigned i)
{
	return i < c->nargs && all[i].have;
}

static int arg_int(const struct trace_call *c, const struct scry_argval *all, unsigned i, int dflt)
{
	return arg_have(c, all, i) ? (int)all[i].v : dflt;
}

static char *arg_str(const struct trace_call *c, const struct scry_argval *all, unsigned i)
{
	char *s;

	if (!arg_have(c, all, i) || !all[i].p)
		return NULL;
	if (!(s = malloc(all[i].len + 1)))
		return NULL;
	memcpy(s, all[i].p, all[i].len);
	s[all[i].len] = '\0';
	return s;
}

static void opened(struct fdtrack *t, const struct trace_call *c, const struct scry_argval *all,
		   int dirfd, int path_arg, uint64_t flags)
{
	int pid = c->pid, fd = (int)c->ret;
	char *name = path_arg >= 0 ? arg_str(c, all, (unsigned)path_arg) : NULL;
	char *path = name ? resolve(t, pid, dirfd, name) : fd_link(t, pid, fd);

	free(name);
	ent_set(t, pid, fd, path, flags & O_CLOEXEC);
}

/* The fds written into an int[2] (pipe, pipe2, socketpair). */
static void fd_pair(struct fdtrack *t, const struct trace_call *c, const struct scry_argval *all,
		    unsigned arg, bool cloexec)
{
	int32_t fds[2];

	if (!arg_have(c, all, arg) || !all[arg].p || all[arg].len < sizeof(fds))
		return;
	memcpy(fds, all[arg].p, sizeof(fds));
	for (int i = 0; i < 2; i++) {
		struct fdtab *tb;

		ent_set(t, c->pid, fds[i], c->file[i].have ? file_link(&c->file[i]) : fd_link(t, c->pid, fds[i]),
			cloexec);
		if (c->file[i].have && S_ISSOCK(c->file[i].mode) && (tb = tab_of(t, c->pid, false)) &&
		    fds[i] >= 0 && fds[i] < tb->cap)
			snprintf(tb->v[fds[i]].proto, sizeof(tb->v[fds[i]].proto), "%.*s",
				 (int)sizeof(tb->v[fds[i]].proto) - 1, c->file[i].name);
	}
}

static void exec_closes(struct fdtrack *t, int pid)
{
	struct fdtab *tb = tab_of(t, pid, false);

	for (int i = 0; tb && i < tb->cap; i++)
		if (tb->v[i].cloexec) {
			free(tb->v[i].path);
			tb->v[i].path = NULL;
			tb->v[i].cloexec = false;
		}
}

static void close_range_(struct fdtrack *t, int pid, uint64_t lo, uint64_t hi, bool cloexec)
{
	struct fdtab *tb = tab_of(t, pid, false);

	for (uint64_t i = lo; tb && i <= hi && i < (uint64_t)tb->cap; i++) {
		if (!tb->v[i].path)
			continue;
		if (cloexec) {
			tb->v[i].cloexec = true;
		} else {
			free(tb->v[i].path);
			tb->v[i].path = NULL;
		}
	}
}

/* Calls returning a new fd with no path: where their close-on-exec flag is. */
static const struct {
	const char *name;
	unsigned arg;
	uint64_t bit;
} cloexec_args[] = {
	{ "socket", 1, O_CLOEXEC }, { "accept4", 3, O_CLOEXEC }, { "eventfd2", 1, O_CLOEXEC },
	{ "epoll_create1", 0, O_CLOEXEC }, { "signalfd4", 3, O_CLOEXEC },
	{ "timerfd_create", 1, O_CLOEXEC }, { "inotify_init1", 0, O_CLOEXEC },
	{ "memfd_create", 1, 1 /* MFD_CLOEXEC */ }, { "fanotify_init", 0, 1 /* FAN_CLOEXEC */ },
	{ "userfaultfd", 0, O_CLOEXEC }, { "perf_event_open", 4, 8 /* PERF_FLAG_FD_CLOEXEC */ },
	{ "pidfd_open", 0, 0 }, { "pidfd_getfd", 0, 0 },   /* always close-on-exec */
};

void fdtrack_apply(struct fdtrack *t, const struct trace_call *c, const struct scry_argval *all)
{
	const char *n = c->name;
	int pid = c->pid;
	int64_t ret = c->ret;

	if (!n || pid <= 0 || !c->have_exit)
		return;
	if (!strcmp(n, "close")) {
		if (ret != -EBADF && arg_have(c, all, 0))
			ent_set(t, pid, arg_int(c, all, 0, -1), NULL, false);
		return;
	}
	if (ret < 0)
		return;
	if (is_binding(n) && arg_have(c, all, 0)) {   /* the socket has an address now */
		struct fdtab *tb = tab_of(t, pid, false);
		int fd = arg_int(c, all, 0, -1);

		if (tb && fd >= 0 && fd < tb->cap)
			tb->v[fd].fresh = false;
		return;
	}
	if (!strcmp(n, "open")) {
		opened(t, c, all, AT_FDCWD, 0, arg_have(c, all, 1) ? all[1].v : 0);
	} else if (!strcmp(n, "openat")) {
		opened(t, c, all, arg_int(c, all, 0, AT_FDCWD), 1, arg_have(c, all, 2) ? all[2].v : 0);
	} else if (!strcmp(n, "creat")) {
		opened(t, c, all, AT_FDCWD, 0, 0);
	} else if (!strcmp(n, "openat2")) {
		uint64_t flags = 0;

		if (arg_have(c, all, 2) && all[2].p && all[2].len >= 8)
			memcpy(&flags, all[2].p, 8);   /* struct open_how: flags first */
		opened(t, c, all, arg_int(c, all, 0, AT_FDCWD), 1, flags);
	} else if (!strcmp(n, "dup") || !strcmp(n, "dup2") || !strcmp(n, "dup3")) {
		bool cx = n[3] == '3' && arg_have(c, all, 2) && (all[2].v & O_CLOEXEC);

		if ((int)ret != arg_int(c, all, 0, -1))
			ent_dup(t, pid, (int)ret, arg_int(c, all, 0, -1), cx);
	} else if (!strcmp(n, "fcntl")) {
		int cmd = arg_int(c, all, 1, -1), fd = arg_int(c, all, 0, -1);
		struct fdtab *tb = tab_of(t, pid, false);

		if (cmd == F_DUPFD_ || cmd == F_DUPFD_CLOEXEC_)
			ent_dup(t, pid, (int)ret, fd, cmd == F_DUPFD_CLOEXEC_);
		else if (cmd == F_SETFD_ && tb && fd >= 0 && fd < tb->cap && tb->v[fd].path)
			tb->v[fd].cloexec = arg_have(c, all, 2) && (all[2].v & 1);
	} else if (!strcmp(n, "close_range")) {
		if (arg_have(c, all, 0) && arg_have(c, all, 1))
			close_range_(t, pid, (uint32_t)all[0].v, (uint32_t)all[1].v,
				     arg_have(c, all, 2) && (all[2].v & CLOSE_RANGE_CLOEXEC_));
	} else if (!strcmp(n, "execve") || !strcmp(n, "execveat")) {
		exec_closes(t, pid);
	} else if (!strcmp(n, "chdir") || !strcmp(n, "fchdir")) {
		struct fdtab *tb = tab_of(t, pid, true);
		char *name = n[0] == 'c' ? arg_str(c, all, 0) : NULL;
		char *dir = name ? resolve(t, pid, AT_FDCWD, name) : fd_dup_path(t, pid, arg_int(c, all, 0, -1));

		free(name);
		if (tb) {
			free(tb->cwd);
			tb->cwd = dir;   /* NULL: asked again from /proc */
		} else {
			free(dir);
		}
	} else if (!strcmp(n, "unlink") || !strcmp(n, "unlinkat") || !strcmp(n, "rmdir")) {
		unsigned a = n[6] == 'a' ? 1 : 0;
		char *name = arg_str(c, all, a);
		char *path = name ? resolve_gone(t, pid, a ? arg_int(c, all, 0, AT_FDCWD) : AT_FDCWD, name) : NULL;

		free(name);
		if (path)
			mark_deleted(t, path);
		free(path);
	} else if (!strcmp(n, "pipe") || !strcmp(n, "pipe2")) {
		fd_pair(t, c, all, 0, n[4] == '2' && arg_have(c, all, 1) && (all[1].v & O_CLOEXEC));
	} else if (!strcmp(n, "socketpair")) {
		fd_pair(t, c, all, 3, arg_have(c, all, 1) && (all[1].v & O_CLOEXEC));
	} else if (trace_syscall_classes(n) & TRACE_RET_FD) {
		bool cx = false;

		for (size_t i = 0; i < sizeof(cloexec_args) / sizeof(cloexec_args[0]); i++)
			if (!strcmp(cloexec_args[i].name, n))
				cx = !cloexec_args[i].bit ||
				     (arg_have(c, all, cloexec_args[i].arg) && (all[cloexec_args[i].arg].v & cloexec_args[i].bit));
		struct fdtab *tb;

		ent_set(t, pid, (int)ret, c->file[0].have ? file_link(&c->file[0]) : fd_link(t, pid, (int)ret), cx);
		if (c->file[0].have && S_ISSOCK(c->file[0].mode) && (tb = tab_of(t, pid, false)) && ret < tb->cap) {
			snprintf(tb->v[ret].proto, sizeof(tb->v[ret].proto), "%.*s", (int)sizeof(tb->v[ret].proto) - 1,
				 c->file[0].name);
			tb->v[ret].fresh = !strcmp(n, "socket");
		}
	}
}

void fdtrack_fork(struct fdtrack *t, int parent_pid, int pid)
{
	struct fdtab *from = tab_of(t, parent_pid, false), *to;

	if (!from || parent_pid == pid || tab_of(t, pid, false) || !(to = tab_of(t, pid, true)))
		return;
	for (int i = 0; i < from->cap; i++)
		if (from->v[i].path) {
			ent_set(t, pid, i, strdup(from->v[i].path), from->v[i].cloexec);
			if (i < to->cap)
				memcpy(to->v[i].proto, from->v[i].proto, sizeof(to->v[i].proto));
		}
	if (from->cwd)
		to->cwd = strdup(from->cwd);
	to->complete = from->complete;
}

void fdtrack_prime(struct fdtrack *t, int pid)
{
	struct fdtab *tb;
	char dir[128];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/%d/fd", t->proc_root, pid);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char info[160], line[128];
		int fd = atoi(e->d_name);
		unsigned long flags = 0;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(info, sizeof(info), "%s/%d/fdinfo/%d", t->proc_root, pid, fd);
		if ((f = fopen(info, "re"))) {
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "flags: %lo", &flags) == 1)
					break;
			fclose(f);
		}
		ent_set(t, pid, fd, fd_link(t, pid, fd), flags & O_CLOEXEC);
	}
	closedir(d);
	cwd_of(t, pid);
	if ((tb = tab_of(t, pid, true)))
		tb->complete = true;
}

void fdtrack_drop(struct fdtrack *t, int pid)
{
	tab_free(imap_del(&t->procs, pid));
}
