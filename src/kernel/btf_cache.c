/* btf_cache.c — the CO-RE BTF cache (see btf_cache.h): what scry's BPF object reads of the
 * kernel's types (bpftool gen min_core_btf: ~130 of vmlinux's ~120k), kept per kernel and
 * scry build, so that libbpf matches the CO-RE relocations against those few types instead
 * of searching all of vmlinux for each (~20 ms of every start).  A miss is filled for the
 * next run by bpftool in the background, after the load. */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <bpf/btf.h>
#include "kernel/btf_cache.h"
#include "util/log.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

extern char **environ;

static const char *cache_dir(void)
{
	const char *d = getenv("SCRY_CACHE_DIR");

	return d && *d ? d : "/var/cache/scry";
}

/* The build id of scry's executable (which embeds the object), as a hash: 0 if none. */
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

/* DIR/core-OBJECT-KERNEL.btf: the object (by scry's build id, else its bytes) and the
 * kernel's identity (release, build, machine, size of its BTF) hashed; false when the
 * kernel has no BTF. */
static bool cache_path(const void *obj, size_t objsz, char *buf, size_t n)
{
	struct utsname u;
	struct stat st;
	uLong ko, oo = 0;

	if (uname(&u) || stat(VMLINUX, &st))
		return false;
	ko = crc32(0L, (const Bytef *)u.release, (uInt)strlen(u.release));
	ko = crc32(ko, (const Bytef *)u.version, (uInt)strlen(u.version));
	ko = crc32(ko, (const Bytef *)u.machine, (uInt)strlen(u.machine));
	ko = crc32(ko, (const Bytef *)&st.st_size, sizeof(st.st_size));
	dl_iterate_phdr(note_build_id, &oo);
	if (!oo)
		oo = crc32(0L, (const Bytef *)obj, (uInt)objsz);
	return snprintf(buf, n, "%s/core-%08lx-%08lx.btf", cache_dir(), oo, ko) < (int)n;
}

bool scry_btf_cache_lookup(const void *obj, size_t objsz, char *path, size_t n)
{
	struct btf *b;

	if (getenv("SCRY_NO_BTF_CACHE") || !cache_path(obj, objsz, path, n) || access(path, R_OK))
		return false;
	b = btf__parse_raw(path);
	if (!b) {        /* cut short or not BTF: filled again */
		scry_log(SCRY_LOG_VERBOSE, "scry: %s is not BTF: removed", path);
		unlink(path);
		return false;
	}
	btf__free(b);
	return true;
}

void scry_btf_cache_drop(const char *path)
{
	unlink(path);
}

void scry_btf_cache_fill(const void *obj, size_t objsz)
{
	char path[512], objpath[600];
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int fd, st;

	if (getenv("SCRY_NO_BTF_CACHE") || !cache_path(obj, objsz, path, sizeof(path)))
		return;
	if (mkdir(cache_dir(), 0700) && errno != EEXIST) {
		scry_log(SCRY_LOG_VERBOSE, "scry: no BTF cache: %s: %s", cache_dir(), strerror(errno));
		return;
	}
	snprintf(objpath, sizeof(objpath), "%s/scry-XXXXXX.bpf.o", cache_dir());
	if ((fd = mkstemps(objpath, 6)) < 0)
		return;
	if (write(fd, obj, objsz) != (ssize_t)objsz) {
		close(fd);
		unlink(objpath);
		return;
	}
	close(fd);
	/* sh backgrounds the work and exits at once (reaped here): nothing of it outlives this
	 * call as a child of scry; the BTF is written aside, then renamed into place */
	static const char script[] =
		"(bpftool gen min_core_btf " VMLINUX " \"$1.$$\" \"$2\" && mv -f \"$1.$$\" \"$1\"; "
		"rm -f \"$1.$$\" \"$2\") &";
	char *argv[] = { "sh", "-c", (char *)script, "sh", path, objpath, NULL };

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ)) {
		unlink(objpath);
	} else {
		waitpid(pid, &st, 0);
		scry_log(SCRY_LOG_VERBOSE, "scry: filling the BTF cache %s", path);
	}
	posix_spawn_file_actions_destroy(&fa);
}
