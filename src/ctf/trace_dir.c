/* trace_dir.c — make, lock and (when the recording never started) remove a trace directory
 * (see trace_dir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf/trace_dir.h"

struct ctf_trace_dir {
	char *dir, *kernel, *index;
	bool made_dir;        /* DIR did not exist before */
	int lock_fd;
};

int ctf_trace_dir_lock(const char *dir, bool wait, int *fd)
{
	int f = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (f < 0)
		return -errno;
	if (flock(f, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
		int e = errno;

		close(f);
		return -e;
	}
	*fd = f;
	return 0;
}

/* Remove the regular files of path, then path (what a recording writes: no subtree deeper
 * than kernel/index/). */
static void remove_dir_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type != DT_DIR)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(path);
}

void ctf_trace_dir_close(struct ctf_trace_dir *d, bool keep)
{
	if (!d)
		return;
	if (!keep) {
		remove_dir_files(d->index);
		remove_dir_files(d->kernel);
		if (d->made_dir)
			rmdir(d->dir);
	}
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	free(d->dir);
	free(d->kernel);
	free(d->index);
	free(d);
}

int ctf_trace_dir_make(struct ctf_trace_dir **out, const char *dir, bool exclusive, char *err, size_t errlen)
{
	struct ctf_trace_dir *d = calloc(1, sizeof(*d));
	int ret;

	if (!d || !(d->dir = strdup(dir)) || asprintf(&d->kernel, "%s/kernel", dir) < 0 ||
	    asprintf(&d->index, "%s/kernel/index", dir) < 0) {
		if (d) {
			free(d->dir);
			free(d);   /* asprintf leaves its pointer undefined on failure */
		}
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->lock_fd = -1;
	if (mkdir(dir, 0755) == 0) {
		d->made_dir = true;
	} else if (errno == EEXIST && exclusive) {
		ret = -EEXIST;                /* the caller picks another name */
		goto fail;
	} else if (errno != EEXIST) {
		ret = -errno;
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		goto fail;
	}
	ret = ctf_trace_dir_lock(dir, false, &d->lock_fd);
	if (ret) {
		if (ret == -EWOULDBLOCK)
			snprintf(err, errlen, "'%s' is being recorded by another scry", dir);
		else
			snprintf(err, errlen, "cannot lock '%s': %s", dir, strerror(-ret));
		goto fail;
	}
	if (mkdir(d->kernel, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create '%s': %s", d->kernel, strerror(errno));
		goto fail;
	}
	if (mkdir(d->index, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create '%s': %s", d->index, strerror(errno));
		goto fail;
	}
	*out = d;
	return 0;
fail:
	ctf_trace_dir_close(d, ret == -EWOULDBLOCK || ret == -EEXIST);
	return ret;
}
