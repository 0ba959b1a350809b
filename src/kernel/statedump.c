/* statedump.c — runs the statedump's BPF iterators (src/bpf/statedump.bpf.h) once the
 * session records: the items user space prepared go into the sd_items map and are written
 * by a task iterator when it reaches scry's own thread (an iterator over the map itself,
 * iter/bpf_map_elem, is refused here); the kernel's threads, file tables and memory maps by the
 * task, task_file and task_vma iterators.  Each iterator is read to its end; every read
 * returns after a few objects, and the caller's drain empties the rings between them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"

/* Run iterator prog to its end. */
static int run_iter(struct bpf_program *prog, const char *what, void (*drain)(void *), void *arg,
		    char *err, size_t errlen)
{
	struct bpf_link *link;
	char buf[4096];
	int fd, ret = 0;
	ssize_t n;

	link = bpf_program__attach_iter(prog, NULL);
	if (!link) {
		ret = -errno;
		snprintf(err, errlen, "statedump: cannot attach the %s iterator: %s", what, strerror(errno));
		return ret;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "statedump: cannot open the %s iterator: %s", what, strerror(errno));
		bpf_link__destroy(link);
		return ret;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "statedump: reading the %s iterator: %s", what, strerror(errno));
			break;
		}
		if (drain)
			drain(arg);
	}
	close(fd);
	bpf_link__destroy(link);
	if (drain)
		drain(arg);
	return ret;
}

/* Write items[0..n) through the items iterator. */
static int run_items(struct scry_probes *p, const struct scry_sd_item *items, size_t n, void (*drain)(void *),
		     void *arg, char *err, size_t errlen)
{
	int map_fd = bpf_map__fd(p->skel->maps.sd_items);

	if (!n)
		return 0;
	if (n > SCRY_SD_ITEMS) {
		snprintf(err, errlen, "statedump: %zu items (at most %d)", n, SCRY_SD_ITEMS);
		return -E2BIG;
	}
	for (__u32 k = 0; k < n; k++)
		if (bpf_map_update_elem(map_fd, &k, &items[k], BPF_ANY)) {
			snprintf(err, errlen, "statedump: cannot hand item %u over: %s", k, strerror(errno));
			return -errno;
		}
	p->skel->bss->sd_nitems = (__u32)n;
	p->skel->bss->sd_tid = gettid();
	return run_iter(p->skel->progs.scry_sd_items, "items", drain, arg, err, errlen);
}

int scry_probes_statedump(struct scry_probes *p, const struct scry_sd_item *items, size_t n, size_t nhead,
			  void (*drain)(void *), void *arg, char *err, size_t errlen)
{
	int ret;

	if (!p->opts.sd_ids) {
		snprintf(err, errlen, "statedump: not enabled in this channel");
		return -EINVAL;
	}
	if ((ret = run_items(p, items, nhead, drain, arg, err, errlen)) ||
	    (ret = run_iter(p->skel->progs.scry_sd_task, "task", drain, arg, err, errlen)) ||
	    (ret = run_iter(p->skel->progs.scry_sd_file, "task_file", drain, arg, err, errlen)))
		return ret;
	if (p->opts.sd_ids[SCRY_SD_VM_MAP] != SCRY_NO_EVENT &&
	    (ret = run_iter(p->skel->progs.scry_sd_vma, "task_vma", drain, arg, err, errlen)))
		return ret;
	return run_items(p, items + nhead, n - nhead, drain, arg, err, errlen);
}
