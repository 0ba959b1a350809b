/* peer.c — who asks the daemon (see daemon_int.h, struct dpeer): the credential the kernel
 * gives for a control connection (SO_PEERCRED), the working directory the kernel says its
 * process has (/proc/PID/cwd, read while its pidfd shows that process alive: never a
 * directory the client claims), its home from the password database, and what it may see:
 * its own sessions, or every one for root (lttng-sessiond's rule). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "daemon/daemon_int.h"

/* The pid is still the process that connected (its pidfd names it): a pid reused since
 * cannot lend another process's directory. */
static bool still_alive(int pidfd)
{
	return pidfd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0;
}

int dpeer_of(struct dpeer *p, uid_t uid, gid_t gid, pid_t pid, int pidfd, const char *claimed_home, char *err,
	     size_t errlen)
{
	char link[64], cwd[PATH_MAX], buf[4096];
	struct passwd pw, *res = NULL;
	ssize_t n;
	int ret;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if ((ret = scry_cred_of_user(&p->cred, uid, gid, err, errlen)))
		return ret;
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n > 0 && still_alive(pidfd)) {
		cwd[n] = 0;
		if (cwd[0] == '/' && !(p->cwd = strdup(cwd)))
			goto oom;
	}
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res) {
		snprintf(p->user, sizeof(p->user), "%s", res->pw_name);
		p->home = strdup(res->pw_dir);
	} else {
		snprintf(p->user, sizeof(p->user), "%u", (unsigned)uid);
		p->home = strdup("/");
	}
	/* root's own commands may say where home is ($HOME: the tests' and scripts'); another
	 * user's home is the one the password database gives */
	if (uid == 0 && claimed_home && claimed_home[0] == '/') {
		free(p->home);
		p->home = strdup(claimed_home);
	}
	if (!p->home)
		goto oom;
	return 0;
oom:
	dpeer_free(p);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void dpeer_free(struct dpeer *p)
{
	free(p->cwd);
	free(p->home);
	p->cwd = p->home = NULL;
}

bool dpeer_is_root(const struct dpeer *p)
{
	return p->cred.uid == 0;
}

const struct scry_cred *dpeer_cred(const struct dpeer *p)
{
	return dpeer_is_root(p) ? NULL : &p->cred;
}

int dpeer_path(const struct dpeer *p, const char *path, char **out)
{
	if (path[0] == '/')
		*out = strdup(path);
	else if (!p->cwd)
		*out = NULL;
	else if (asprintf(out, "%s%s%s", p->cwd, strcmp(p->cwd, "/") ? "/" : "", path) < 0)
		*out = NULL;
	return *out ? 0 : p->cwd || path[0] == '/' ? -ENOMEM : -ENOENT;
}

bool dpeer_owns(const struct dpeer *p, const struct dsession *s)
{
	return dpeer_is_root(p) || s->owner.uid == p->cred.uid;
}

const struct scry_cred *dsession_owner(const struct dsession *s)
{
	return scry_cred_is_root(&s->owner) ? NULL : &s->owner;
}

bool dpeer_in_group(const struct dpeer *p, gid_t group)
{
	if (dpeer_is_root(p) || p->cred.gid == group)
		return true;
	for (int i = 0; i < p->cred.ngroups; i++)
		if (p->cred.groups[i] == group)
			return true;
	return false;
}
