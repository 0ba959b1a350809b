/* forget.c — series of processes that are gone taken out of the kernel's metric maps (see
 * forget.h): scry top's rows of exited processes leave, and a system-wide run does not fill
 * the maps (max_entries) with the dead. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "metrics/forget.h"
#include "scry_abi.h"

static bool wanted(const uint32_t *pids, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The keys of one hash whose pid is one of pids, then deleted (deleting while walking would
 * restart the walk). */
static long forget_map(int fd, const uint32_t *pids, size_t n)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	uint8_t *keys = NULL, *key, *next;
	size_t nk = 0, cap = 0;
	long gone = 0;
	bool first = true;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) || (info.type != BPF_MAP_TYPE_PERCPU_HASH &&
	    info.type != BPF_MAP_TYPE_HASH && info.type != BPF_MAP_TYPE_LRU_PERCPU_HASH) ||
	    info.key_size < offsetof(struct scry_metric_key, pid) + 4)
		return 0;   /* a dense metric (by syscall number): no pid */
	if (!(key = calloc(2, info.key_size)))
		return -ENOMEM;
	next = key + info.key_size;
	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		uint32_t pid;

		first = false;
		memcpy(key, next, info.key_size);
		memcpy(&pid, key + offsetof(struct scry_metric_key, pid), 4);
		if (!wanted(pids, n, pid))
			continue;
		if (nk == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			uint8_t *nb = realloc(keys, ncap * info.key_size);

			if (!nb)
				break;
			keys = nb;
			cap = ncap;
		}
		memcpy(keys + nk++ * info.key_size, key, info.key_size);
	}
	for (size_t i = 0; i < nk; i++)
		gone += !bpf_map_delete_elem(fd, keys + i * info.key_size);
	free(keys);
	free(key);
	return gone;
}

long scry_metrics_forget_pids(const int *fds, size_t nfds, const uint32_t *pids, size_t n)
{
	long gone = 0;

	for (size_t i = 0; n && i < nfds; i++) {
		long r = fds[i] >= 0 ? forget_map(fds[i], pids, n) : 0;

		if (r < 0)
			return r;
		gone += r;
	}
	return gone;
}
