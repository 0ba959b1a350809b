/* cache.c — the cache directory and the names of its files (see cache.h). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "util/cache.h"
#include "util/overrides.h"

const char *scry_cache_dir(void)
{
	const char *d = scry_overrides()->cache_dir;

	return d ? d : "/var/cache/scry";
}

/* The build id of scry's executable, hashed; 0 if it has none. */
static int note_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	uLong *out = arg;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*nh), *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
			    desc + nh->n_descsz <= end) {
				*out = crc32(1L, (const Bytef *)desc, nh->n_descsz);
				return 1;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;     /* the first object is the executable: stop */
}

/* This scry build: its build id, else its executable's size and time. */
static uLong build_id(void)
{
	uLong id = 0;
	struct stat st;

	dl_iterate_phdr(note_build_id, &id);
	if (!id && !stat("/proc/self/exe", &st)) {
		id = crc32(0L, (const Bytef *)&st.st_size, sizeof(st.st_size));
		id = crc32(id, (const Bytef *)&st.st_mtime, sizeof(st.st_mtime));
	}
	return id;
}

/* The cache directory is scry's own (or not made yet): a real directory of this user that
 * no one else may write in.  Anything else (a symlink, another user's directory) and scry
 * caches nothing: what it reads from the cache it would otherwise trust. */
static bool cache_dir_safe(void)
{
	struct stat st;

	if (lstat(scry_cache_dir(), &st) < 0)
		return errno == ENOENT;
	return S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

bool scry_cache_path(const char *prefix, const char *suffix, char *buf, size_t n)
{
	struct utsname u;
	struct stat st;
	uLong k;

	if (scry_overrides()->no_cache || !cache_dir_safe() || uname(&u) || stat("/sys/kernel/btf/vmlinux", &st))
		return false;
	k = crc32(0L, (const Bytef *)u.release, (uInt)strlen(u.release));
	k = crc32(k, (const Bytef *)u.version, (uInt)strlen(u.version));
	k = crc32(k, (const Bytef *)u.machine, (uInt)strlen(u.machine));
	k = crc32(k, (const Bytef *)&st.st_size, sizeof(st.st_size));
	return snprintf(buf, n, "%s/%s-%08lx-%08lx.%s", scry_cache_dir(), prefix, build_id(), k, suffix) < (int)n;
}

int scry_cache_mkdir(void)
{
	if (mkdir(scry_cache_dir(), 0700) && errno != EEXIST)
		return -errno;
	return cache_dir_safe() ? 0 : -EPERM;
}

#define CACHE_KEEP 4

void scry_cache_prune(const char *prefix)
{
	struct { char name[256]; time_t mtime; } old[64];
	size_t n = 0, plen = strlen(prefix);
	DIR *d = opendir(scry_cache_dir());
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && n < sizeof(old) / sizeof(old[0])) {
		struct stat st;

		if (strncmp(e->d_name, prefix, plen) || e->d_name[plen] != '-' || strstr(e->d_name, ".tmp") ||
		    fstatat(dirfd(d), e->d_name, &st, 0))
			continue;
		snprintf(old[n].name, sizeof(old[n].name), "%s", e->d_name);
		old[n++].mtime = st.st_mtime;
	}
	/* remove the oldest until CACHE_KEEP - 1 are left: the new file makes CACHE_KEEP */
	while (n >= CACHE_KEEP) {
		size_t k = 0;

		for (size_t i = 1; i < n; i++)
			if (old[i].mtime < old[k].mtime)
				k = i;
		unlinkat(dirfd(d), old[k].name, 0);
		old[k] = old[--n];
	}
	closedir(d);
}

int scry_cache_write(const char *path, const void *data, size_t len)
{
	char tmp[600];
	int fd, ret = 0;

	if ((ret = scry_cache_mkdir()))
		return ret;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

bool scry_cache_elf_path(const char *bid, char *buf, size_t n)
{
	size_t len = strlen(bid);

	if (scry_overrides()->no_cache || !cache_dir_safe() || len < 2 || len > 128 ||
	    strspn(bid, "0123456789abcdef") != len)
		return false;
	return snprintf(buf, n, "%s/elf-%s", scry_cache_dir(), bid) < (int)n;
}

#define KEEP_MAX (1ULL << 30)
#define KEPT_TOTAL (512ULL << 20)     /* the copies' bytes at most, the oldest removed first */
#define KEPT_SCAN 4096

/* Room for need more bytes of copies: the oldest elf-* files removed until the copies and
 * need fit in KEPT_TOTAL (the first KEPT_SCAN files seen). */
static void keep_room(unsigned long long need)
{
	struct kept { char name[140]; time_t mtime; off_t size; } *v = malloc(KEPT_SCAN * sizeof(*v));
	unsigned long long total = need;
	DIR *d = opendir(scry_cache_dir());
	struct dirent *e;
	size_t n = 0;

	if (!v || !d)
		goto out;
	while ((e = readdir(d)) && n < KEPT_SCAN) {
		struct stat st;

		if (strncmp(e->d_name, "elf-", 4) || strlen(e->d_name) >= sizeof(v[n].name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n].mtime = st.st_mtime;
		v[n++].size = st.st_size;
		total += (unsigned long long)st.st_size;
	}
	while (total > KEPT_TOTAL && n) {
		size_t k = 0;

		for (size_t i = 1; i < n; i++)
			if (v[i].mtime < v[k].mtime)
				k = i;
		unlinkat(dirfd(d), v[k].name, 0);
		total -= (unsigned long long)v[k].size;
		v[k] = v[--n];
	}
out:
	if (d)
		closedir(d);
	free(v);
}

int scry_cache_keep(const char *src, const char *path)
{
	struct stat st;
	void *data;
	int fd, ret;

	if (!access(path, F_OK))
		return 0;
	if ((fd = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)) < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size || (unsigned long long)st.st_size > KEEP_MAX) {
		close(fd);
		return -EINVAL;
	}
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED)
		return -errno;
	keep_room((unsigned long long)st.st_size);
	ret = scry_cache_write(path, data, (size_t)st.st_size);
	munmap(data, (size_t)st.st_size);
	return ret;
}
