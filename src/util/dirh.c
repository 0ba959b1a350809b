/* dirh.c — directory handles: names made, opened, renamed and removed relative to a held
 * directory, with its owner's rights (see dirh.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/dirh.h"

struct scry_dirh {
	int fd;
	int refs;
	char *path;                 /* for messages */
	bool has_cred;
	struct scry_cred cred;
	bool has_group;             /* what is made here is given this group (--group) */
	gid_t group;
	char **made;                /* names made here, oldest first */
	size_t nmade;
};

static const struct scry_cred *cred_of(const struct scry_dirh *d)
{
	return d->has_cred ? &d->cred : NULL;
}

static struct scry_dirh *dirh_new(int fd, const char *parent, const char *name, const struct scry_cred *c)
{
	struct scry_dirh *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if ((name ? asprintf(&d->path, "%s%s%s", parent, strcmp(parent, "/") ? "/" : "", name)
		  : asprintf(&d->path, "%s", parent)) < 0) {
		free(d);
		return NULL;
	}
	d->fd = fd;
	d->refs = 1;
	if (c && !scry_cred_is_root(c)) {
		d->has_cred = true;
		d->cred = *c;
	}
	return d;
}

static void made_add(struct scry_dirh *d, const char *name)
{
	char **m = realloc(d->made, (d->nmade + 1) * sizeof(*m));

	if (!m)
		return;
	d->made = m;
	if ((m[d->nmade] = strdup(name)))
		d->nmade++;
}

static void made_drop(struct scry_dirh *d, const char *name)
{
	for (size_t i = d->nmade; i-- > 0;)
		if (!strcmp(d->made[i], name)) {
			free(d->made[i]);
			memmove(d->made + i, d->made + i + 1, (d->nmade - i - 1) * sizeof(*d->made));
			d->nmade--;
			return;
		}
}

/* What d makes is given its group, if it has one: 0 or -errno with the reason in err. */
static int give_group(const struct scry_dirh *d, int fd, const char *name, char *err, size_t errlen)
{
	if (!d->has_group || fchown(fd, (uid_t)-1, d->group) == 0)
		return 0;
	snprintf(err, errlen, "'%s/%s': cannot give it group %u: %s", d->path, name, (unsigned)d->group,
		 strerror(errno));
	return -errno;
}

void scry_dirh_set_group(struct scry_dirh *d, gid_t group)
{
	d->has_group = true;
	d->group = group;
}

int scry_dirh_open(struct scry_dirh **out, int at, const char *path, const struct scry_cred *c,
		   char *err, size_t errlen)
{
	struct scry_runas ra;
	int fd, ret;

	*out = NULL;
	if ((ret = scry_runas_begin(c, &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)c->uid, strerror(-ret));
		return ret;
	}
	fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == EACCES)      /* a directory the owner may write, not list */
		fd = openat(at, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	scry_runas_end(&ra);
	if (ret) {
		snprintf(err, errlen, "cannot use directory '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (!(*out = dirh_new(fd, path, NULL, c))) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int scry_dirh_open_parent(struct scry_dirh **parent, char *leaf, size_t leaflen, int at, const char *path,
			  const struct scry_cred *c, char *err, size_t errlen)
{
	size_t len = strlen(path);
	const char *slash;
	char *dir;
	int ret;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (slash = path + len; slash > path && slash[-1] != '/'; slash--)
		;
	if ((size_t)(path + len - slash) >= leaflen || slash == path + len) {
		snprintf(err, errlen, "'%s': not a name for a directory", path);
		return -EINVAL;
	}
	memcpy(leaf, slash, (size_t)(path + len - slash));
	leaf[path + len - slash] = 0;
	if (!strcmp(leaf, ".") || !strcmp(leaf, "..")) {
		snprintf(err, errlen, "'%s': name the directory itself, not '%s'", path, leaf);
		return -EINVAL;
	}
	if (slash == path)
		dir = strdup(".");
	else if (slash == path + 1)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path - 1));
	if (!dir) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = scry_dirh_open(parent, at, dir, c, err, errlen);
	free(dir);
	return ret;
}

static bool fd_dir_empty(int fd)
{
	int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dd = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	bool empty = true;

	if (!dd) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	while ((e = readdir(dd)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(dd);
	return empty;
}

/* The checks of mkdir on the directory it opened: 0 or -errno with the reason in err. */
static int check_dir(const struct scry_dirh *parent, const char *name, int fd, enum scry_mkdir_how how,
		     bool made, char *err, size_t errlen)
{
	uid_t owner = scry_cred_uid(cred_of(parent));
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "'%s/%s': %s", parent->path, name, strerror(errno));
		return -errno;
	}
	if (how == SCRY_MKDIR_OPEN)
		return 0;
	if (st.st_uid != owner) {
		if (made)
			snprintf(err, errlen, "'%s/%s' was replaced while it was being made: refusing it", parent->path,
				 name);
		else
			snprintf(err, errlen, "'%s/%s' belongs to uid %u, not to uid %u: refusing to write in it",
				 parent->path, name, (unsigned)st.st_uid, (unsigned)owner);
		return -EPERM;
	}
	if (made && fchmod(fd, SCRY_DIR_MODE) < 0) {
		snprintf(err, errlen, "'%s/%s': chmod: %s", parent->path, name, strerror(errno));
		return -errno;
	}
	if (how == SCRY_MKDIR_EMPTY && !made && !fd_dir_empty(fd)) {
		snprintf(err, errlen, "output directory '%s/%s' exists and is not empty: refusing to overwrite it",
			 parent->path, name);
		return -EEXIST;
	}
	return 0;
}

int scry_dirh_mkdir(struct scry_dirh *parent, const char *name, enum scry_mkdir_how how, struct scry_dirh **out,
		    bool *made, char *err, size_t errlen)
{
	struct scry_runas ra;
	bool is_new = false;
	int fd = -1, ret;

	*out = NULL;
	if (made)
		*made = false;
	if ((ret = scry_runas_begin(cred_of(parent), &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)parent->cred.uid, strerror(-ret));
		return ret;
	}
	if (how != SCRY_MKDIR_OPEN) {
		if (mkdirat(parent->fd, name, SCRY_DIR_MODE) == 0) {
			is_new = true;
		} else if (errno != EEXIST || how == SCRY_MKDIR_NEW) {
			ret = -errno;
			if (ret != -EEXIST)
				snprintf(err, errlen, "cannot create '%s/%s': %s", parent->path, name, strerror(errno));
			else
				snprintf(err, errlen, "'%s/%s' exists", parent->path, name);
			goto out;
		}
	}
	fd = openat(parent->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (errno == ELOOP || errno == ENOTDIR)
			snprintf(err, errlen, "'%s/%s' exists and is not a directory (a symlink or a file): refusing it",
				 parent->path, name);
		else
			snprintf(err, errlen, "cannot open '%s/%s': %s", parent->path, name, strerror(errno));
		goto out;
	}
	if (is_new)
		made_add(parent, name);
	ret = check_dir(parent, name, fd, how, is_new, err, errlen);
	if (!ret && is_new)
		ret = give_group(parent, fd, name, err, errlen);
out:
	scry_runas_end(&ra);
	if (!ret && !(*out = dirh_new(fd, parent->path, name, cred_of(parent)))) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	if (!ret && parent->has_group)
		scry_dirh_set_group(*out, parent->group);
	if (ret && fd >= 0)
		close(fd);
	if (made)
		*made = is_new;
	return ret;
}

int scry_dirh_create(struct scry_dirh *d, const char *name, char *err, size_t errlen)
{
	struct scry_runas ra;
	int fd, ret;

	if ((ret = scry_runas_begin(cred_of(d), &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)d->cred.uid, strerror(-ret));
		return ret;
	}
	fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, SCRY_FILE_MODE);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create '%s/%s': %s", d->path, name, strerror(errno));
	} else {
		made_add(d, name);
		if (fchmod(fd, SCRY_FILE_MODE) < 0) {
			ret = -errno;
			snprintf(err, errlen, "'%s/%s': chmod: %s", d->path, name, strerror(errno));
		} else {
			ret = give_group(d, fd, name, err, errlen);
		}
		if (ret) {
			close(fd);
			unlinkat(d->fd, name, 0);
			made_drop(d, name);
		}
	}
	scry_runas_end(&ra);
	return ret ? ret : fd;
}

int scry_dirh_append(struct scry_dirh *d, const char *name, char *err, size_t errlen)
{
	struct scry_runas ra;
	struct stat st;
	int fd, ret;

	if ((fd = scry_dirh_create(d, name, err, errlen)) != -EEXIST)
		return fd;
	if ((ret = scry_runas_begin(cred_of(d), &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)d->cred.uid, strerror(-ret));
		return ret;
	}
	fd = openat(d->fd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	scry_runas_end(&ra);
	if (ret) {
		snprintf(err, errlen, "cannot open '%s/%s': %s", d->path, name, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != scry_cred_uid(cred_of(d))) {
		close(fd);
		snprintf(err, errlen, "'%s/%s' is not a file of uid %u: refusing to write in it", d->path, name,
			 (unsigned)scry_cred_uid(cred_of(d)));
		return -EPERM;
	}
	return fd;
}

int scry_dirh_open_file(struct scry_dirh *d, const char *name, int flags)
{
	struct scry_runas ra;
	int fd, ret;

	if ((ret = scry_runas_begin(cred_of(d), &ra)))
		return ret;
	fd = openat(d->fd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : fd;
	scry_runas_end(&ra);
	return ret;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int scry_dirh_write_file(struct scry_dirh *d, const char *name, const void *data, size_t len, bool replace,
			 char *err, size_t errlen)
{
	struct scry_runas ra;
	char tmp[300];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "'%s': name too long", name);
		return -ENAMETOOLONG;
	}
	scry_dirh_unlink(d, tmp, false);       /* a stale one of a writer that died */
	if ((fd = scry_dirh_create(d, tmp, err, errlen)) < 0)
		return fd;
	ret = write_all(fd, data, len);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "%s/%s: write: %s", d->path, name, strerror(-ret));
		scry_dirh_unlink(d, tmp, false);
		return ret;
	}
	if ((ret = scry_runas_begin(cred_of(d), &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)d->cred.uid, strerror(-ret));
		scry_dirh_unlink(d, tmp, false);
		return ret;
	}
	if (renameat2(d->fd, tmp, d->fd, name, RENAME_NOREPLACE) == 0)
		made_add(d, name);
	else if (errno == EEXIST && replace && renameat(d->fd, tmp, d->fd, name) == 0)
		;
	else
		ret = -errno;
	scry_runas_end(&ra);
	made_drop(d, tmp);
	if (ret) {
		if (ret == -EEXIST)
			snprintf(err, errlen, "'%s/%s' exists", d->path, name);
		else
			snprintf(err, errlen, "cannot write '%s/%s': %s", d->path, name, strerror(-ret));
		scry_dirh_unlink(d, tmp, false);
	}
	return ret;
}

int scry_dirh_rename(struct scry_dirh *from, const char *name, struct scry_dirh *to, const char *to_name)
{
	struct scry_runas ra;
	int ret;

	if ((ret = scry_runas_begin(cred_of(from), &ra)))
		return ret;
	ret = renameat2(from->fd, name, to->fd, to_name, RENAME_NOREPLACE) < 0 ? -errno : 0;
	scry_runas_end(&ra);
	if (!ret) {
		made_drop(from, name);
		made_add(to, to_name);
	}
	return ret;
}

int scry_dirh_unlink(struct scry_dirh *d, const char *name, bool dir)
{
	struct scry_runas ra;
	int ret;

	if ((ret = scry_runas_begin(cred_of(d), &ra)))
		return ret;
	ret = unlinkat(d->fd, name, dir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
	scry_runas_end(&ra);
	if (!ret)
		made_drop(d, name);
	return ret;
}

void scry_dirh_remove_made(struct scry_dirh *d)
{
	while (d->nmade) {
		char *name = d->made[d->nmade - 1];

		if (scry_dirh_unlink(d, name, false) == -EISDIR)
			scry_dirh_unlink(d, name, true);
		if (d->nmade && d->made[d->nmade - 1] == name) {   /* could not: forget it */
			free(name);
			d->nmade--;
		}
	}
}

void scry_dirh_rmdir_child(struct scry_dirh *d, const char *child, const struct scry_dirh *child_h)
{
	struct stat a, b;

	if (fstat(child_h->fd, &b) == 0 && fstatat(d->fd, child, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		scry_dirh_unlink(d, child, true);
}

int scry_dirh_lock(struct scry_dirh *d, bool wait)
{
	return flock(d->fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0 ? -errno : 0;
}

int scry_dirh_writable(const struct scry_dirh *d)
{
	struct scry_runas ra;
	int ret;

	if ((ret = scry_runas_begin(cred_of(d), &ra)))
		return ret;
	/* AT_EACCESS: the file-system identity in force, the owner's */
	ret = faccessat(d->fd, ".", W_OK | X_OK, AT_EACCESS) < 0 ? -errno : 0;
	scry_runas_end(&ra);
	return ret;
}

uid_t scry_dirh_owner(const struct scry_dirh *d)
{
	struct stat st;

	return fstat(d->fd, &st) == 0 ? st.st_uid : (uid_t)-1;
}

bool scry_dirh_is_empty(const struct scry_dirh *d)
{
	return fd_dir_empty(d->fd);
}

int scry_dirh_fd(const struct scry_dirh *d)
{
	return d->fd;
}

const char *scry_dirh_path(const struct scry_dirh *d)
{
	return d->path;
}

const struct scry_cred *scry_dirh_cred(const struct scry_dirh *d)
{
	return cred_of(d);
}

struct scry_dirh *scry_dirh_ref(struct scry_dirh *d)
{
	if (d)
		d->refs++;
	return d;
}

void scry_dirh_unref(struct scry_dirh *d)
{
	if (!d || --d->refs)
		return;
	close(d->fd);
	for (size_t i = 0; i < d->nmade; i++)
		free(d->made[i]);
	free(d->made);
	free(d->path);
	free(d);
}

/* A symlink at path is followed only when it is c's or root's (fs.protected_symlinks). */
static int open_symlink_target(int at, const char *path, uid_t owner, int flags)
{
	struct stat st;

	if (fstatat(at, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	int fd;

	if (!S_ISLNK(st.st_mode) || (st.st_uid != owner && st.st_uid != 0))
		return -ELOOP;
	fd = openat(at, path, flags);
	return fd < 0 ? -errno : fd;
}

int scry_open_output(int at, const char *path, const struct scry_cred *c, bool no_replace, char *err,
		     size_t errlen)
{
	uid_t owner = scry_cred_uid(c);
	struct scry_runas ra;
	struct stat st;
	int fd, ret;

	if ((ret = scry_runas_begin(c, &ra))) {
		snprintf(err, errlen, "cannot take uid %u's rights: %s", (unsigned)c->uid, strerror(-ret));
		return ret;
	}
	fd = openat(at, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, SCRY_FILE_MODE);
	if (fd >= 0) {
		if (fchmod(fd, SCRY_FILE_MODE) < 0) {   /* the umask's bits back */
			ret = -errno;
			close(fd);
			fd = -1;
			unlinkat(at, path, 0);
		}
		goto out;
	}
	if (errno != EEXIST) {
		ret = -errno;
		goto out;
	}
	if (no_replace) {
		ret = -EEXIST;
		goto out;
	}
	fd = openat(at, path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP) {
		fd = open_symlink_target(at, path, owner, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd == -ELOOP) {
			scry_runas_end(&ra);
			snprintf(err, errlen, "'%s' is a symlink of another user: refusing to follow it", path);
			return -ELOOP;
		}
		if (fd < 0) {
			ret = fd;
			fd = -1;
			goto out;
		}
	} else if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if (st.st_uid != owner) {
			close(fd);
			scry_runas_end(&ra);
			snprintf(err, errlen, "'%s' belongs to uid %u, not to uid %u: refusing to overwrite it", path,
				 (unsigned)st.st_uid, (unsigned)owner);
			return -EPERM;
		}
		if (ftruncate(fd, 0) < 0)
			ret = -errno;
	}
out:
	scry_runas_end(&ra);
	if (ret) {
		if (fd >= 0)
			close(fd);
		if (ret == -EEXIST)
			snprintf(err, errlen, "'%s' exists", path);
		else
			snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
		return ret;
	}
	return fd;
}
