/* trace_dir.c — make, lock, rotate and (when the recording never started) remove a trace
 * directory, through directory handles (see trace_dir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ctf/trace_dir.h"

struct ctf_trace_dir {
	struct scry_dirh *parent, *dir, *kernel, *index, *archives;
	char *name;              /* DIR's name in parent */
	bool made_dir;           /* DIR did not exist before */
};

int ctf_trace_dir_lock(const char *dir, bool wait, int *fd)
{
	int f = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

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

static void drop_chunk(struct ctf_trace_dir *d, bool remove)
{
	if (remove && d->index)
		scry_dirh_remove_made(d->index);
	if (remove && d->kernel)
		scry_dirh_remove_made(d->kernel);   /* index/ last: emptied above */
	scry_dirh_unref(d->index);
	scry_dirh_unref(d->kernel);
	d->index = d->kernel = NULL;
}

void ctf_trace_dir_close(struct ctf_trace_dir *d, bool keep)
{
	if (!d)
		return;
	drop_chunk(d, !keep);
	if (!keep && d->dir) {
		scry_dirh_remove_made(d->dir);      /* kernel/, and what else was made in DIR */
		if (d->made_dir)
			scry_dirh_rmdir_child(d->parent, d->name, d->dir);
	}
	scry_dirh_unref(d->archives);
	scry_dirh_unref(d->dir);               /* its flock goes with its descriptor */
	scry_dirh_unref(d->parent);
	free(d->name);
	free(d);
}

int ctf_trace_dir_new_chunk(struct ctf_trace_dir *d, char *err, size_t errlen)
{
	int ret;

	drop_chunk(d, false);
	if ((ret = scry_dirh_mkdir(d->dir, "kernel", SCRY_MKDIR_NEW, &d->kernel, NULL, err, errlen)))
		return ret;
	return scry_dirh_mkdir(d->kernel, "index", SCRY_MKDIR_NEW, &d->index, NULL, err, errlen);
}

int ctf_trace_dir_make_in(struct ctf_trace_dir **out, struct scry_dirh *parent, const char *name, bool exclusive,
			  char *err, size_t errlen)
{
	struct ctf_trace_dir *d = calloc(1, sizeof(*d));
	int ret;

	*out = NULL;
	if (!d || !(d->name = strdup(name))) {
		free(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	d->parent = scry_dirh_ref(parent);
	ret = scry_dirh_mkdir(parent, name, exclusive ? SCRY_MKDIR_NEW : SCRY_MKDIR_EMPTY, &d->dir, &d->made_dir,
			      err, errlen);
	if (ret)
		goto fail;
	if ((ret = scry_dirh_lock(d->dir, false))) {
		if (ret == -EWOULDBLOCK)
			snprintf(err, errlen, "'%s' is being recorded by another scry", scry_dirh_path(d->dir));
		else
			snprintf(err, errlen, "cannot lock '%s': %s", scry_dirh_path(d->dir), strerror(-ret));
		goto fail;
	}
	if ((ret = ctf_trace_dir_new_chunk(d, err, errlen)))
		goto fail;
	*out = d;
	return 0;
fail:
	ctf_trace_dir_close(d, ret == -EWOULDBLOCK);
	return ret;
}

int ctf_trace_dir_make(struct ctf_trace_dir **out, int at, const char *dir, bool exclusive,
		       const struct scry_cred *c, char *err, size_t errlen)
{
	struct scry_dirh *parent;
	char leaf[256];
	int ret;

	*out = NULL;
	if ((ret = scry_dirh_open_parent(&parent, leaf, sizeof(leaf), at, dir, c, err, errlen)))
		return ret;
	ret = ctf_trace_dir_make_in(out, parent, leaf, exclusive, err, errlen);
	scry_dirh_unref(parent);
	return ret;
}

struct scry_dirh *ctf_trace_dir_root(const struct ctf_trace_dir *d)
{
	return d->dir;
}

struct scry_dirh *ctf_trace_dir_kernel(const struct ctf_trace_dir *d)
{
	return d->kernel;
}

struct scry_dirh *ctf_trace_dir_index(const struct ctf_trace_dir *d)
{
	return d->index;
}

int ctf_trace_dir_archive(struct ctf_trace_dir *d, const char *chunk, char *err, size_t errlen)
{
	struct scry_dirh *ch = NULL;
	int ret;

	if (!d->kernel) {
		snprintf(err, errlen, "no trace chunk to archive");
		return -EINVAL;
	}
	if (!d->archives &&
	    (ret = scry_dirh_mkdir(d->dir, "archives", SCRY_MKDIR_ANY, &d->archives, NULL, err, errlen)))
		return ret;
	if ((ret = scry_dirh_mkdir(d->archives, chunk, SCRY_MKDIR_NEW, &ch, NULL, err, errlen)))
		return ret;
	ret = scry_dirh_rename(d->dir, "kernel", ch, "kernel");
	if (ret)
		snprintf(err, errlen, "cannot archive the trace chunk in %s: %s", scry_dirh_path(ch), strerror(-ret));
	else
		drop_chunk(d, false);
	scry_dirh_unref(ch);
	return ret;
}
