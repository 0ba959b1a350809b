/* runas.h — acting with another user's file-system rights: a credential (uid, gid and
 * supplementary groups) and, on the calling thread only, the file-system identity switched
 * to it around an operation (setfsuid/setfsgid and the thread's groups, raw system calls:
 * glibc's setgroups would change every thread).  While switched, the kernel checks every
 * path lookup, create, unlink and rename against the credential, and what is created is
 * owned by it; the capabilities that bypass file permissions are off (the kernel clears
 * them when the fsuid leaves 0).  scryd does each file operation of a session so, as
 * lttng-sessiond's run-as worker does: a session's trace, its save file and what load
 * reads are the caller's business, with the caller's rights. */
#ifndef SCRY_UTIL_RUNAS_H
#define SCRY_UTIL_RUNAS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SCRY_CRED_MAX_GROUPS 256

struct scry_cred {
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[SCRY_CRED_MAX_GROUPS];
};

/* A user's credential as login gives it: uid, gid and the groups of the group database.
 * 0, or -errno with the reason in err (no such user, too many groups). */
int scry_cred_of_user(struct scry_cred *c, uid_t uid, gid_t gid, char *err, size_t errlen);
/* The credential is root's: nothing to switch. */
bool scry_cred_is_root(const struct scry_cred *c);

/* What runas_begin changed, for runas_end. */
struct scry_runas {
	bool switched;
	uid_t fsuid;
	gid_t fsgid;
	int ngroups;
	gid_t groups[SCRY_CRED_MAX_GROUPS];
};

/* The calling thread's file-system identity switched to c (NULL, or root's: nothing done).
 * 0 or -errno (EPERM: scry lacks CAP_SETUID/CAP_SETGID). */
int scry_runas_begin(const struct scry_cred *c, struct scry_runas *save);
/* Back to what runas_begin found. */
void scry_runas_end(struct scry_runas *save);

/* The owner of what c creates: c's uid, or scry's own effective uid when c is NULL. */
uid_t scry_cred_uid(const struct scry_cred *c);

#endif
