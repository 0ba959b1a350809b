/* pid_sets.c — per-process event sets in the kernel's maps (pid_set_of, pid_set_hits, the
 * pid_set_bloom bits of src/bpf/maps.bpf.h): a process given its set, whose bits say which
 * syscalls and tracepoints it records beside the channel's events, and what each slot let
 * through; and a tracepoint descriptor rewritten when its flags change (see probes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"

static bool slot_ok(const struct scry_probes *p, unsigned slot)
{
	return slot < p->opts.max_pid_sets && slot < SCRY_PID_SETS_MAX;
}

/* The bloom bits of every slot's process (pid_set_bloom in maps.bpf.h), written word by word
 * into the mmapped .bss: a bit is set before its process is pointed at a slot, and cleared
 * once no process with a set has it. */
static void write_bloom(struct scry_probes *p)
{
	__u64 bloom[SCRY_PID_BLOOM_BITS / 64] = { 0 };

	for (unsigned i = 0; i < p->opts.max_pid_sets && i < SCRY_PID_SETS_MAX; i++)
		if (p->pid_set_pids[i] > 0) {
			unsigned b = (unsigned)p->pid_set_pids[i] % SCRY_PID_BLOOM_BITS;

			bloom[b / 64] |= 1ULL << (b % 64);
		}
	for (unsigned w = 0; w < SCRY_PID_BLOOM_BITS / 64; w++)
		__atomic_store_n(&p->skel->bss->pid_set_bloom[w], bloom[w], __ATOMIC_SEQ_CST);
}

int scry_probes_pid_set(struct scry_probes *p, unsigned slot, pid_t tgid, const struct scry_pid_set *set)
{
	struct scry_pid_set v = *set;
	__u32 pid = (__u32)tgid;

	if (!slot_ok(p, slot) || tgid <= 0)
		return -EINVAL;
	if (!p->pid_set_pids && !(p->pid_set_pids = calloc(SCRY_PID_SETS_MAX, sizeof(pid_t))))
		return -ENOMEM;
	p->pid_set_pids[slot] = tgid;
	write_bloom(p);
	v.slot = slot;     /* the element replaced whole: an event sees the old set or the new */
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.pid_set_of), &pid, &v, BPF_ANY))
		return -errno;
	return 0;
}

int scry_probes_pid_set_clear(struct scry_probes *p, unsigned slot, pid_t tgid)
{
	__u32 k = slot, pid = (__u32)tgid;
	__u64 *zero;
	int ret = 0;

	if (!slot_ok(p, slot))
		return -EINVAL;
	if (tgid > 0 && bpf_map_delete_elem(bpf_map__fd(p->skel->maps.pid_set_of), &pid) && errno != ENOENT)
		return -errno;
	if (p->pid_set_pids) {
		p->pid_set_pids[slot] = 0;
		write_bloom(p);
	}
	if (!(zero = calloc(p->ncpus, sizeof(*zero))))
		return -ENOMEM;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.pid_set_hits), &k, zero, BPF_ANY))
		ret = -errno;
	free(zero);
	return ret;
}

int scry_probes_pid_set_hits(struct scry_probes *p, unsigned slot, uint64_t *out)
{
	__u32 k = slot;
	__u64 *v;
	int ret = 0;

	*out = 0;
	if (!slot_ok(p, slot))
		return -EINVAL;
	if (!(v = calloc(p->ncpus, sizeof(*v))))
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.pid_set_hits), &k, v))
		ret = -errno;
	for (unsigned c = 0; !ret && c < p->ncpus; c++)
		*out += v[c];
	free(v);
	return ret;
}

int scry_probes_set_tracepoint(struct scry_probes *p, int slot, const struct scry_tp_desc *d)
{
	__u32 k = (__u32)slot;

	if (slot < 0 || (unsigned)slot >= p->next_tp_slot)
		return -ENOENT;
	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tps), &k, d, BPF_ANY))
		return -errno;
	return 0;
}
