/* misses.c — the recursion misses of a session's programs per CPU (see probes.h): each
 * program's id from its fd, then one pass of the misses iterator (src/bpf/misses.bpf.c),
 * loaded once per process when first read.  Where the iterator cannot be loaded (a kernel
 * without this_cpu_off), the programs' totals (bpf_prog_info) are put on CPU 0: the count
 * is in the trace all the same, on one stream. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"
#include "misses.skel.h"

static pthread_mutex_t iter_lock = PTHREAD_MUTEX_INITIALIZER;
static struct misses_bpf *iter_skel;
static struct bpf_link *iter_link;
static bool iter_failed;

/* The iterator's link, loaded and attached at the first call; NULL if the kernel refused. */
static struct bpf_link *iter_get(void)
{
	if (iter_link || iter_failed)
		return iter_link;
	iter_skel = misses_bpf__open();
	if (iter_skel) {
		int n = libbpf_num_possible_cpus();

		iter_skel->rodata->ncpus = n > 0 ? (unsigned)n : 1;
		if (!misses_bpf__load(iter_skel))
			iter_link = bpf_program__attach_iter(iter_skel->progs.scry_misses, NULL);
	}
	if (!iter_link) {
		misses_bpf__destroy(iter_skel);
		iter_skel = NULL;
		iter_failed = true;
	}
	return iter_link;
}

/* One program's id and total misses added to ids[*n], *total. */
static void add_prog(int fd, uint32_t *ids, size_t *n, size_t cap, uint64_t *total)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	if (fd < 0 || *n >= cap)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	ids[(*n)++] = info.id;
	*total += info.recursion_misses;
}

static bool has_id(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* One pass of the iterator: the misses of the programs ids[0..n) added to out per CPU. */
static int iter_read(struct bpf_link *link, const uint32_t *ids, size_t n, uint64_t *out, unsigned ncpus)
{
	struct scry_miss buf[64];
	int fd = bpf_iter_create(bpf_link__fd(link)), ret = 0;
	ssize_t got;

	if (fd < 0)
		return -errno;
	while ((got = read(fd, buf, sizeof(buf))) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (size_t i = 0; i < (size_t)got / sizeof(buf[0]); i++)
			if (buf[i].cpu < ncpus && has_id(ids, n, buf[i].id))
				out[buf[i].cpu] += buf[i].misses;
	}
	close(fd);
	return ret;
}

int scry_probes_misses(struct scry_probes *p, uint64_t *out)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	size_t n = 0, cap = (size_t)p->skel->skeleton->prog_cnt + p->nfilters;
	uint64_t total = 0;
	uint32_t *ids;
	int ret = 0;

	memset(out, 0, p->ncpus * sizeof(*out));
	if (!(ids = calloc(cap ? cap : 1, sizeof(*ids))))
		return -ENOMEM;
	for (int i = 0; (prog = probes_prog(p, i)); i++)
		add_prog(probes_prog_fd(p, prog), ids, &n, cap, &total);
	for (size_t i = 0; i < p->nfilters; i++)
		add_prog(p->filters[i].fd, ids, &n, cap, &total);
	if (total) {               /* none: no iterator to load or run */
		pthread_mutex_lock(&iter_lock);
		link = iter_get();
		ret = link ? iter_read(link, ids, n, out, p->ncpus) : 0;
		pthread_mutex_unlock(&iter_lock);
		if (!link || ret) {
			memset(out, 0, p->ncpus * sizeof(*out));
			out[0] = total;
			ret = 0;
		}
	}
	free(ids);
	return ret;
}
