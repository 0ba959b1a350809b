/* peer.c — who asks the daemon (see daemon_int.h, struct dpeer): the credential the kernel
 * gives for a control connection (SO_PEERCRED), the working directory the kernel says its
 * process has (/proc/PID/cwd, read while its pidfd shows that process alive: never a
 * directory the client claims), its home from the password database, and what it may see:
 * its own sessions, or every one for root (lttng-sessiond's rule); and whether it could load
 * BPF programs itself (its effective capabilities, in the daemon's user namespace): scryd's
 * ready object goes to no one else (warm.c). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
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

/* CapEff of /proc/PID/status, read while pidfd shows that process alive. */
static int cap_eff(pid_t pid, int pidfd, unsigned long long *caps)
{
	char path[64], line[256];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", caps) == 1) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret || still_alive(pidfd) ? ret : -ESRCH;
}

/* /proc/PID/ns/user is this process's user namespace (the same inode on the same device). */
static bool same_userns(pid_t pid, int pidfd)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	return stat(path, &a) == 0 && stat("/proc/self/ns/user", &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev && still_alive(pidfd);
}

int dpeer_may_load_bpf(pid_t pid, int pidfd, char *err, size_t errlen)
{
	const unsigned long long sys_admin = 1ULL << 21, perfmon = 1ULL << 38, bpf = 1ULL << 39;
	unsigned long long caps = 0;

	if (pidfd < 0) {     /* no pidfd (an older kernel): the pid could be another's by now */
		snprintf(err, errlen, "the caller's process cannot be told apart from a reused pid");
		return -EPERM;
	}
	if (cap_eff(pid, pidfd, &caps)) {
		snprintf(err, errlen, "cannot read the caller's capabilities");
		return -EPERM;
	}
	if (!(caps & sys_admin) && (caps & (bpf | perfmon)) != (bpf | perfmon)) {
		snprintf(err, errlen, "the caller could not load the programs itself (it needs CAP_BPF and "
			 "CAP_PERFMON, or CAP_SYS_ADMIN)");
		return -EPERM;
	}
	if (!same_userns(pid, pidfd)) {
		snprintf(err, errlen, "the caller is in another user namespace: its capabilities are not the daemon's");
		return -EPERM;
	}
	return 0;
}
