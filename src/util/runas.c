/* runas.c — another user's file-system rights on the calling thread (see runas.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "util/runas.h"

int scry_cred_of_user(struct scry_cred *c, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = SCRY_CRED_MAX_GROUPS;

	memset(c, 0, sizeof(*c));
	c->uid = uid;
	c->gid = gid;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res) {
		/* a uid without a name (a container's, say): its own gid, no other group */
		c->groups[0] = gid;
		c->ngroups = 1;
		return 0;
	}
	if (getgrouplist(res->pw_name, gid, c->groups, &n) < 0) {
		snprintf(err, errlen, "user %s is in more than %d groups", res->pw_name, SCRY_CRED_MAX_GROUPS);
		return -E2BIG;
	}
	c->ngroups = n;
	return 0;
}

bool scry_cred_is_root(const struct scry_cred *c)
{
	return !c || c->uid == 0;
}

uid_t scry_cred_uid(const struct scry_cred *c)
{
	return c ? c->uid : geteuid();
}

int scry_runas_begin(const struct scry_cred *c, struct scry_runas *save)
{
	long n;

	save->switched = false;
	if (scry_cred_is_root(c) || geteuid() != 0)
		return 0;
	n = syscall(SYS_getgroups, SCRY_CRED_MAX_GROUPS, save->groups);
	if (n < 0)
		return -errno;
	save->ngroups = (int)n;
	save->fsuid = (uid_t)syscall(SYS_setfsuid, -1);
	save->fsgid = (gid_t)syscall(SYS_setfsgid, -1);
	if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) < 0)
		return -errno;
	syscall(SYS_setfsgid, c->gid);
	syscall(SYS_setfsuid, c->uid);
	save->switched = true;
	/* setfsuid/setfsgid say nothing of a failure: read the identity back */
	if ((uid_t)syscall(SYS_setfsuid, -1) != c->uid || (gid_t)syscall(SYS_setfsgid, -1) != c->gid) {
		scry_runas_end(save);
		return -EPERM;
	}
	return 0;
}

void scry_runas_end(struct scry_runas *save)
{
	int e = errno;      /* the caller's errno survives */

	if (!save->switched)
		return;
	syscall(SYS_setfsuid, save->fsuid);
	syscall(SYS_setfsgid, save->fsgid);
	syscall(SYS_setgroups, (size_t)save->ngroups, save->groups);
	save->switched = false;
	errno = e;
}
