/* cgroup.c — see cgroup.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include "util/cgroup.h"

static bool hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* systemd's unit name escaping undone: "\x2d" -> '-'. */
static void unescape(const char *s, size_t n, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < len; i++) {
		unsigned v;

		if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && sscanf(s + i + 2, "%2x", &v) == 1 &&
		    isxdigit((unsigned char)s[i + 2]) && isxdigit((unsigned char)s[i + 3])) {
			out[k++] = (char)v;
			i += 3;
		} else {
			out[k++] = s[i];
		}
	}
	out[k] = '\0';
}

/* The container the path component [s, s + n) names, with prev the component before it. */
static bool component(const char *s, size_t n, const char *prev, size_t pn, struct scry_container *out)
{
	static const struct { const char *prefix, *runtime; } scopes[] = {
		{ "docker-", "docker" }, { "cri-containerd-", "containerd" }, { "crio-", "crio" },
		{ "libpod-", "podman" },
	};
	const char *scope = n > 6 && !memcmp(s + n - 6, ".scope", 6) ? s + n - 6 : NULL;

	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t pl = strlen(scopes[i].prefix);
		const char *end = scope ? scope : s + n;   /* podman under cgroupfs: libpod-ID */

		if (n > pl && !memcmp(s, scopes[i].prefix, pl) && hex64(s + pl, (size_t)(end - s - pl)) &&
		    (scope || !strcmp(scopes[i].runtime, "podman"))) {
			out->runtime = scopes[i].runtime;
			memcpy(out->id, s + pl, 64);
			out->id[64] = '\0';
			return true;
		}
	}
	if (scope && n > 8 + 6 && !memcmp(s, "machine-", 8)) {
		out->runtime = "machine";
		unescape(s + 8, (size_t)(scope - s - 8), out->id, sizeof(out->id));
		return out->id[0] != '\0';
	}
	/* cgroupfs drivers: /docker/ID, /containerd/ID (kubelet's: /kubepods/.../ID too) */
	if (hex64(s, n) && prev && ((pn == 6 && !memcmp(prev, "docker", 6)) || (pn == 10 && !memcmp(prev, "containerd", 10)))) {
		out->runtime = pn == 6 ? "docker" : "containerd";
		memcpy(out->id, s, 64);
		out->id[64] = '\0';
		return true;
	}
	return false;
}

bool scry_container_of_cgroup(const char *path, struct scry_container *out)
{
	const char *s = path, *prev = NULL;
	size_t pn = 0;
	bool found = false;

	while (*s) {
		const char *e;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n < SCRY_CONTAINER_ID_MAX + 16 && component(s, n, prev, pn, out))
			found = true;   /* the innermost wins: keep going */
		prev = s;
		pn = n;
		s += n;
	}
	return found;
}

bool scry_container_of_pid(pid_t pid, struct scry_container *out)
{
	char path[64], line[4096];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			found = scry_container_of_cgroup(line + 3, out);
		}
	fclose(f);
	return found;
}

void scry_container_label(const struct scry_container *c, char *buf, size_t len)
{
	bool hex = strcmp(c->runtime, "machine") != 0;

	snprintf(buf, len, "%.*s", hex ? SCRY_CONTAINER_SHORT : SCRY_CONTAINER_ID_MAX, c->id);
}

int scry_cgroup_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];
	int found = 0;

	while (f && !found && fscanf(f, "%255s %4095s %63s %*[^\n]\n", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2"))
			found = snprintf(buf, len, "%s", dir) < (int)len;
	if (f)
		fclose(f);
	return found ? 0 : -1;
}

static void walk(const char *dir, int depth, int max, void (*fn)(const char *, void *), void *ctx)
{
	DIR *d;
	struct dirent *e;
	char sub[4096];

	fn(dir, ctx);
	if (depth >= max || !(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < (int)sizeof(sub))
			walk(sub, depth + 1, max, fn, ctx);
	closedir(d);
}

void scry_cgroup_walk(int depth, void (*fn)(const char *path, void *ctx), void *ctx)
{
	char root[4096];

	if (!scry_cgroup_root(root, sizeof(root)))
		walk(root, 0, depth, fn, ctx);
}

uint64_t scry_cgroup_id(const char *path)
{
	struct { struct file_handle fh; uint64_t id; } h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) || h.fh.handle_bytes != sizeof(uint64_t))
		return 0;
	return h.id;
}

#define CGROUP_MAX_DEPTH 256

/* The id of the directory fd names (0: none). */
static uint64_t fd_id(int fd, int *type)
{
	struct { struct file_handle fh; uint64_t id; } h = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) || h.fh.handle_bytes != sizeof(uint64_t))
		return 0;
	if (type)
		*type = h.fh.handle_type;
	return h.id;
}

int scry_cgroup_ancestor(uint64_t id, unsigned level, uint64_t *out)
{
	struct { struct file_handle fh; uint64_t id; } h = { .fh.handle_bytes = sizeof(uint64_t), .id = id };
	uint64_t chain[CGROUP_MAX_DEPTH + 1];
	char root[4096];
	uint64_t root_id;
	int rfd, fd, up, type = 0, n = 0, ret = -1;

	*out = 0;
	if (scry_cgroup_root(root, sizeof(root)) || (rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	root_id = fd_id(rfd, &type);
	h.fh.handle_type = type;
	fd = root_id ? open_by_handle_at(rfd, &h.fh, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	/* chain[0] the cgroup, chain[k] its k-th parent, up to the root */
	while (fd >= 0 && n <= CGROUP_MAX_DEPTH && (chain[n] = fd_id(fd, NULL))) {
		if (chain[n++] == root_id) {
			ret = 0;
			break;
		}
		up = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = up;
	}
	if (fd >= 0)
		close(fd);
	close(rfd);
	if (!ret && level < (unsigned)n)    /* the root at depth 0 is chain[n - 1] */
		*out = chain[n - 1 - level];
	return ret;
}

int scry_cgroup_open(const char *path, char *err, size_t errlen)
{
	struct statfs sf;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "--track-cgroup '%s': %s", path, strerror(e));
		return -e;
	}
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		snprintf(err, errlen, "--track-cgroup '%s': not a cgroup v2 directory", path);
		return -ENOTDIR;
	}
	return fd;
}
