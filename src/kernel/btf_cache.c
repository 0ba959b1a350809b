/* btf_cache.c — the CO-RE BTF cache (see btf_cache.h): what scry's BPF object reads of the
 * kernel's types (bpftool gen min_core_btf: ~130 of vmlinux's ~120k), kept per kernel and
 * scry build (util/cache.h), so that libbpf matches the CO-RE relocations against those
 * few types instead of searching all of vmlinux for each (~20 ms of every start).  A miss
 * is filled for the next run by bpftool in the background, after the load. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "kernel/btf_cache.h"
#include "util/cache.h"
#include "util/log.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"

extern char **environ;

bool scry_btf_cache_lookup(char *path, size_t n)
{
	struct btf *b;

	if (!scry_cache_path("core", "btf", path, n) || access(path, R_OK))
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
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid;
	int fd, st;

	if (!scry_cache_path("core", "btf", path, sizeof(path)))
		return;
	if ((fd = scry_cache_mkdir())) {
		scry_log(SCRY_LOG_VERBOSE, "scry: no BTF cache: %s: %s", scry_cache_dir(), strerror(-fd));
		return;
	}
	scry_cache_prune("core");
	snprintf(objpath, sizeof(objpath), "%s/scry-XXXXXX.bpf.o", scry_cache_dir());
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
		"(bpftool gen min_core_btf " VMLINUX " \"$1.$$.tmp\" \"$2\" && mv -f \"$1.$$.tmp\" \"$1\"; "
		"rm -f \"$1.$$.tmp\" \"$2\") &";
	char *argv[] = { "sh", "-c", (char *)script, "sh", path, objpath, NULL };

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* no signal blocked (the event loop blocks its stop signals while it runs) */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ)) {
		unlink(objpath);
	} else {
		waitpid(pid, &st, 0);
		scry_log(SCRY_LOG_VERBOSE, "scry: filling the BTF cache %s", path);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
}
