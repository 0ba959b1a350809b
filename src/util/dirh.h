/* dirh.h — directory handles (lttng-tools' lttng_directory_handle): a directory held by a
 * file descriptor, in which scry makes, opens, renames and removes names relative to that
 * descriptor (mkdirat, openat with O_NOFOLLOW | O_EXCL, renameat2, unlinkat), never by a
 * path looked up again: a directory swapped for a symlink while scry works cannot send a
 * write, a rename or an unlink elsewhere.  Each operation runs with the handle's owner's
 * file-system rights (util/runas.h), so what is made is the owner's and what the owner may
 * not do fails with the owner's error.  Directories are made 0750 and files 0640 whatever
 * the umask (the owner's group may read); an existing directory is taken only when it is a
 * real directory of the owner.  A handle remembers the names it made, so that a recording
 * that never started removes exactly those and nothing else. */
#ifndef SCRY_UTIL_DIRH_H
#define SCRY_UTIL_DIRH_H

#include <stdbool.h>
#include <stddef.h>
#include "util/runas.h"

#define SCRY_DIR_MODE 0750
#define SCRY_FILE_MODE 0640

struct scry_dirh;

/* What scry_dirh_mkdir accepts where the name exists. */
enum scry_mkdir_how {
	SCRY_MKDIR_NEW,      /* nothing: made here (-EEXIST, no message, when it exists) */
	SCRY_MKDIR_EMPTY,    /* an empty directory of the owner */
	SCRY_MKDIR_ANY,      /* any directory of the owner */
	SCRY_MKDIR_OPEN,     /* an existing directory (no symlink), whoever's; never made */
};

/* An existing directory by path (relative to at, AT_FDCWD for the process's directory;
 * symlinks followed: a path the caller named), with c's rights (NULL: scry's own).  0 or
 * -errno with the reason in err. */
int scry_dirh_open(struct scry_dirh **out, int at, const char *path, const struct scry_cred *c,
		   char *err, size_t errlen);
/* path split into its parent, opened as scry_dirh_open does, and its last component (into
 * leaf, leaflen bytes; "." and ".." refused).  0 or -errno with the reason in err. */
int scry_dirh_open_parent(struct scry_dirh **parent, char *leaf, size_t leaflen, int at, const char *path,
			  const struct scry_cred *c, char *err, size_t errlen);
/* The directory name in parent, made (0750) or taken as how says; *made (may be NULL): made
 * here.  0 or -errno with the reason in err (-EEXIST for SCRY_MKDIR_NEW without one). */
int scry_dirh_mkdir(struct scry_dirh *parent, const char *name, enum scry_mkdir_how how, struct scry_dirh **out,
		    bool *made, char *err, size_t errlen);
/* A new file name in d (O_EXCL, no symlink followed, 0640), open for writing: its fd, or
 * -errno with the reason in err. */
int scry_dirh_create(struct scry_dirh *d, const char *name, char *err, size_t errlen);
/* name in d open for appending: made (0640) if missing, else it must be a regular file of
 * the owner.  Its fd, or -errno with the reason in err. */
int scry_dirh_append(struct scry_dirh *d, const char *name, char *err, size_t errlen);
/* A regular file name in d (no symlink followed) open for reading, with the owner's rights. */
int scry_dirh_open_file(struct scry_dirh *d, const char *name, int flags);
/* Write len bytes as name in d whole or not at all: written to a hidden new file, synced,
 * then renamed over name (replace: an existing name replaced, else -EEXIST).  0 or -errno
 * with the reason in err. */
int scry_dirh_write_file(struct scry_dirh *d, const char *name, const void *data, size_t len, bool replace,
			 char *err, size_t errlen);
/* renameat2 of from/name to to/to_name (not replacing), with from's owner's rights. */
int scry_dirh_rename(struct scry_dirh *from, const char *name, struct scry_dirh *to, const char *to_name);
/* unlinkat of name in d (dir: a directory), with the owner's rights. */
int scry_dirh_unlink(struct scry_dirh *d, const char *name, bool dir);
/* Remove what d made (files, then the directories it made, emptied by their own handles
 * first), newest first; the rest stays. */
void scry_dirh_remove_made(struct scry_dirh *d);
/* Remove the directory child from d if it is still the very directory child_h holds and
 * is empty (a name swapped meanwhile is left alone). */
void scry_dirh_rmdir_child(struct scry_dirh *d, const char *child, const struct scry_dirh *child_h);
/* What is made through d and the handles made from it from now on is given group (chgrp,
 * with the owner's rights: the owner must be in it): who besides the owner may read. */
void scry_dirh_set_group(struct scry_dirh *d, gid_t group);
/* An exclusive flock on the directory (wait: block).  0 or -errno. */
int scry_dirh_lock(struct scry_dirh *d, bool wait);

/* 0 when the owner may make names in d, else -errno (EACCES, EROFS...). */
int scry_dirh_writable(const struct scry_dirh *d);
/* The directory's owner (its uid on disk), and whether it holds no name. */
uid_t scry_dirh_owner(const struct scry_dirh *d);
bool scry_dirh_is_empty(const struct scry_dirh *d);

int scry_dirh_fd(const struct scry_dirh *d);
const char *scry_dirh_path(const struct scry_dirh *d);
const struct scry_cred *scry_dirh_cred(const struct scry_dirh *d);
struct scry_dirh *scry_dirh_ref(struct scry_dirh *d);
void scry_dirh_unref(struct scry_dirh *d);   /* NULL ignored */

/* A file to write a report to (strace's -o, a save file): path opened with c's rights,
 * created 0640 if missing; an existing regular file must be the owner's and is truncated
 * (no_replace: an existing file is refused, -EEXIST); a symlink is followed only when it
 * is the owner's or root's (as fs.protected_symlinks); devices (/dev/null) as they are.
 * Its fd, or -errno with the reason in err. */
int scry_open_output(int at, const char *path, const struct scry_cred *c, bool no_replace, char *err,
		     size_t errlen);

#endif
