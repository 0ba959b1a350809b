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

/* Is the file at path exactly these bytes? */
static bool same_content(const char *path, const struct idx_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* Replace path with b's bytes: written beside it under a hidden name, then renamed. */
static int replace_file(const char *path, const struct idx_buf *b)
{
	char tmp[4096];
	const char *base = strrchr(path, '/');
	int fd, ret = 0;
	size_t off = 0;

	base = base ? base + 1 : path;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp", (int)(base - path), path, base) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

/* One stream file: keep its complete packets, rebuild its index. */
static int recover_stream(int kfd, const char *kdir, const char *name, struct ctf_recover_report *rep,
			  char *err, size_t errlen)
{
	struct idx_buf idx = { 0 };
	uint8_t hdr[PKT_EVENTS_OFF], ent[CTF_INDEX_LEN];
	char idx_path[4096];
	uint64_t off = 0, size;
	struct stat st;
	int fd, ret = 0;

	fd = openat(kfd, name, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s/%s: %s", kdir, name, strerror(errno));
		goto out;
	}
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
	if (snprintf(idx_path, sizeof(idx_path), "%s/index/%s.idx", kdir, name) >= (int)sizeof(idx_path)) {
		ret = -ENAMETOOLONG;
		snprintf(err, errlen, "%s/index/%s.idx: path too long", kdir, name);
		goto out;
	}
	if (!same_content(idx_path, &idx)) {
		mkdirat(kfd, "index", 0755);
		ret = replace_file(idx_path, &idx);
		if (ret) {
			snprintf(err, errlen, "%s: cannot rebuild the index: %s", idx_path, strerror(-ret));
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
	free(idx.p);
	return ret;
}

int ctf_trace_recover(const char *dir, struct ctf_recover_report *rep, char *err, size_t errlen)
{
	char kdir[4096];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
	if (stat(kdir, &st) < 0 || !S_ISDIR(st.st_mode))
		snprintf(kdir, sizeof(kdir), "%s", dir);     /* given the kernel/ directory itself */
	d = opendir(kdir);
	if (!d) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", kdir, strerror(errno));
		return ret;
	}
	if (fstatat(dirfd(d), "metadata", &st, 0) < 0) {
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
