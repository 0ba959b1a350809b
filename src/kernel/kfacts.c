/* kfacts.c — the kernel's facts for loading scry's object, kept per kernel (see kfacts.h).
 * The cache file is a header (magic, the struct's size) and the struct as this build lays
 * it out; the key (util/cache.c) names the build and the kernel, so a file of another build
 * or kernel is never read.  A file that does not read whole is ignored and written again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "kernel/features.h"
#include "kernel/kfacts.h"
#include "util/cache.h"

#define KFACTS_MAGIC 0x5346464BU   /* "KFFS" */

struct kfacts_file {
	uint32_t magic, size;
	struct scry_kfacts f;
};

static struct {
	pthread_mutex_t lock;
	bool done;
	struct scry_kfacts f;
} K = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool read_cached(struct scry_kfacts *out)
{
	struct kfacts_file kf;
	char path[512];
	int fd;
	ssize_t n;

	if (!scry_cache_path("kfacts", "bin", path, sizeof(path)) ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return false;
	n = read(fd, &kf, sizeof(kf));
	close(fd);
	if (n != (ssize_t)sizeof(kf) || kf.magic != KFACTS_MAGIC || kf.size != sizeof(kf.f) || !kf.f.btf)
		return false;
	*out = kf.f;
	return true;
}

static void write_cached(const struct scry_kfacts *f)
{
	struct kfacts_file kf;
	char path[512];

	if (!f->btf || !scry_cache_path("kfacts", "bin", path, sizeof(path)))
		return;
	memset(&kf, 0, sizeof(kf));
	kf.magic = KFACTS_MAGIC;
	kf.size = sizeof(kf.f);
	kf.f = *f;
	scry_cache_prune("kfacts");
	scry_cache_write(path, &kf, sizeof(kf));   /* a failure: the next run parses the BTF again */
}

static void find(struct scry_kfacts *f)
{
	const struct btf *vm = scry_features_vmlinux();

	memset(f, 0, sizeof(*f));
	f->btf = vm != NULL;
	f->tp_sys_enter = scry_feature_tp_btf(vm, "sys_enter");
	f->tp_fork = scry_feature_tp_btf(vm, "sched_process_fork");
	f->tp_exit = scry_feature_tp_btf(vm, "sched_process_exit");
	f->prepare_exec = scry_feature_prepare_exec(vm);
	f->btf_tps = scry_feature_btf_tps(vm);
	f->uprobe_multi = scry_feature_uprobe_multi(vm);
	f->kptr_untrusted = scry_feature_kptr_untrusted();
	f->strnstr_id = scry_feature_strnstr(vm);
	scry_ctx_layout(vm, &f->layout);
	scry_ctx_btf(vm, &f->ctx);
}

bool scry_kfacts_cached(void)
{
	struct scry_kfacts f;
	bool ok;

	pthread_mutex_lock(&K.lock);
	if (!(ok = K.done) && (ok = read_cached(&f))) {
		K.f = f;
		K.done = true;
	}
	pthread_mutex_unlock(&K.lock);
	return ok;
}

const struct scry_kfacts *scry_kfacts(void)
{
	pthread_mutex_lock(&K.lock);
	if (!K.done) {
		if (!read_cached(&K.f)) {
			find(&K.f);
			write_cached(&K.f);
		}
		K.done = true;
	}
	pthread_mutex_unlock(&K.lock);
	return &K.f;
}
