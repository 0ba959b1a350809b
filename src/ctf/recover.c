/* recover.c — cut unfinished packets, rebuild packet indexes (see recover.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf/packet.h"
#include "ctf/recover.h"

/* A growing buffer of index bytes. */
struct idx_buf {
	uint8_t *p;
	size_t len, cap;
};

static int idx_put(struct idx_buf *b, const void *bytes, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap)))
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, bytes, n);
	b->len += n;
	return 0;
}

/* Is the file name in ifd exactly these bytes? */
static bool same_content(int ifd, const char *name, const struct idx_buf *b)
{
	int fd = ifd >= 0 ? openat(ifd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	uint8_t *cur = malloc(b->len + 1);
	ssize_t n = -1;

	if (fd >= 0 && cur)
		n = pread(fd, cur, b->len + 1, 0);
	if (fd >= 0)
		close(fd);
	bool same = n == (ssize_t)b->len && !memcmp(cur, b->p, b->len);
	free(cur);
	return same;
}

/* Replace name in ifd with b's bytes: written beside it under a hidden name (made new, no
 * symlink followed), then renamed over it. */
static int replace_file(int ifd, const char *name, const struct idx_buf *b)
{
	char tmp[300];
	int fd, ret = 0;
	size_t off = 0;

	if (snprintf(tmp, sizeof(tmp), ".%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlinkat(ifd, tmp, 0);
	fd = openat(ifd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	while (off < b->len && !ret) {
		ssize_t n = write(fd, b->p + off, b->len - off);

		if (n > 0)
			off += (size_t)n;
		else if (n == 0 || errno != EINTR)
			ret = n ? -errno : -EIO;
	}
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	close(fd);
	if (!ret && renameat(ifd, tmp, ifd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(ifd, tmp, 0);
	return ret;
}

/* kfd's index/ directory, made if missing (no symlink followed): its fd, or -errno. */
static int index_dir(int kfd)
{
	int fd = openat(kfd, "index", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && mkdirat(kfd, "index", 0750) == 0)
		fd = openat(kfd, "index", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One stream file: keep its complete packets, rebuild its index. */
static int recover_stream(int kfd, const char *kdir, const char *name, struct ctf_recover_report *rep,
			  char *err, size_t errlen)
{
	struct idx_buf idx = { 0 };
	uint8_t hdr[PKT_EVENTS_OFF], ent[CTF_INDEX_LEN];
	char idx_name[300];
	uint64_t off = 0, size;
	struct stat st;
	int fd, ifd = -1, ret = 0;

	/* no symlink followed, and only a regular file: the directory may be another user's */
	fd = openat(kfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s/%s: %s", kdir, name, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode))
		goto out;
	size = (uint64_t)st.st_size;
	ctf_index_header(ent);
	if ((ret = idx_put(&idx, ent, CTF_INDEX_HDR_LEN)))
		goto oom;
	while (off + PKT_EVENTS_OFF <= size) {
		uint64_t psize, csize;

		if (pread(fd, hdr, sizeof(hdr), (off_t)off) != (ssize_t)sizeof(hdr))
			break;
		psize = get_le64(hdr + OFF_PACKET_SIZE);
		csize = get_le64(hdr + OFF_CONTENT_SIZE);
		if (get_le32(hdr + OFF_MAGIC) != CTF_MAGIC || psize % 8 || csize > psize ||
		    csize < PKT_EVENTS_OFF * 8 || psize / 8 > size - off)
			break;      /* an unfinished packet: from here on nothing is whole */
		ctf_index_entry(ent, hdr, off);
		if ((ret = idx_put(&idx, ent, sizeof(ent))))
			goto oom;
		rep->packets++;
		off += psize / 8;
	}
	rep->streams++;
	if (off < size) {
		if (ftruncate(fd, (off_t)off) < 0 || fsync(fd) < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s/%s: cannot cut its unfinished packet: %s", kdir, name, strerror(errno));
			goto out;
		}
		rep->streams_cut++;
		rep->bytes_cut += size - off;
	}
	if (snprintf(idx_name, sizeof(idx_name), "%s.idx", name) >= (int)sizeof(idx_name)) {
		ret = -ENAMETOOLONG;
		snprintf(err, errlen, "%s/index/%s.idx: name too long", kdir, name);
		goto out;
	}
	ifd = index_dir(kfd);
	if (ifd < 0 || !same_content(ifd, idx_name, &idx)) {
		ret = ifd < 0 ? ifd : replace_file(ifd, idx_name, &idx);
		if (ret) {
			snprintf(err, errlen, "%s/index/%s: cannot rebuild the index: %s", kdir, idx_name, strerror(-ret));
			goto out;
		}
		rep->indexes_rebuilt++;
	}
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (fd >= 0)
		close(fd);
	if (ifd >= 0)
		close(ifd);
	free(idx.p);
	return ret;
}

int ctf_trace_recover_at(int dfd, const char *label, struct ctf_recover_report *rep, char *err, size_t errlen)
{
	char kdir[4096];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int kfd, ret = 0;

	memset(rep, 0, sizeof(*rep));
	snprintf(kdir, sizeof(kdir), "%s/kernel", label);
	kfd = openat(dfd, "kernel", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (kfd < 0) {      /* given the kernel/ directory itself */
		snprintf(kdir, sizeof(kdir), "%s", label);
		kfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (kfd < 0 || !(d = fdopendir(kfd))) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", kdir, strerror(errno));
		if (kfd >= 0)
			close(kfd);
		return ret;
	}
	if (fstatat(dirfd(d), "metadata", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = -ENOENT;
		snprintf(err, errlen, "%s: no metadata: not a trace, or its recorder died before it began", kdir);
		goto out;
	}
	while ((e = readdir(d)) && !ret) {
		/* stream files: regular, not hidden, not the metadata */
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "metadata") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		ret = recover_stream(dirfd(d), kdir, e->d_name, rep, err, errlen);
	}
out:
	closedir(d);
	return ret;
}

int ctf_trace_recover(const char *dir, struct ctf_recover_report *rep, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = -errno;
		memset(rep, 0, sizeof(*rep));
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return ret;
	}
	ret = ctf_trace_recover_at(fd, dir, rep, err, errlen);
	close(fd);
	return ret;
}
