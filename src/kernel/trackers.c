/* trackers.c — who is recorded, in the kernel's maps: the tracker sets (vpid, uid, gid,
 * vuid, vgid, cgroup), the followed processes (-p, the command; their children follow by fork
 * tracking), and the memo map that keeps the answer per CPU (see probes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kernel/features.h"
#include "kernel/kfacts.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"
#include "util/overrides.h"

static int fill_set(int fd, const uint32_t *keys, size_t n, const char *what, char *err, size_t errlen)
{
	__u8 one = 1;

	for (size_t i = 0; i < n; i++) {
		if (bpf_map_update_elem(fd, &keys[i], &one, BPF_ANY)) {
			int e = -errno;
			snprintf(err, errlen, "cannot track %s %u: %s", what, keys[i], strerror(-e));
			return e;
		}
	}
	return 0;
}

/* The tracker maps (vpid, uid, gid, cgroup). */
int probes_fill_trackers(struct scry_probes *p, const struct scry_probes_opts *o, char *err, size_t errlen)
{
	int ret;

	if ((ret = fill_set(bpf_map__fd(p->skel->maps.track_vpid), o->track_vpids, o->ntrack_vpids, "vpid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_uid), o->track_uids, o->ntrack_uids, "uid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_gid), o->track_gids, o->ntrack_gids, "gid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_vuid), o->track_vuids, o->ntrack_vuids, "vuid", err, errlen)) ||
	    (ret = fill_set(bpf_map__fd(p->skel->maps.track_vgid), o->track_vgids, o->ntrack_vgids, "vgid", err, errlen)))
		return ret;
	for (size_t i = 0; i < o->ntrack_cgroups; i++) {
		__u32 key = i;
		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.track_cgroup), &key, &o->track_cgroup_fds[i], BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot track cgroup #%zu: %s", i + 1, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The uid and gid trackers' bloom words (rodata: the sets are fixed at load). */
void probes_track_blooms(struct scry_probes *p, const struct scry_probes_opts *o)
{
	for (size_t i = 0; i < o->ntrack_uids; i++)
		p->skel->rodata->track_uid_bloom |= 1ULL << (o->track_uids[i] % 64);
	for (size_t i = 0; i < o->ntrack_gids; i++)
		p->skel->rodata->track_gid_bloom |= 1ULL << (o->track_gids[i] % 64);
}

/* The memo's modes (rodata; target_all and track_mask set before): keyed by the syscall's
 * registers where the kernel takes untrusted kptrs (SCRY_NO_KPTR=1: by tgid, for tests);
 * then hits proved by the exits' generation (memo_by_gen: scry_memo_exit, attached first)
 * where sched_process_exit has its BTF tracepoint (SCRY_NO_MEMO_GEN=1: through the task);
 * memo_all_gen when it is so system-wide without trackers; there current from the helper
 * rather than the memo where a helper's return is not thunked (current_by_helper). */
void probes_memo_modes(struct scry_probes *p)
{
	char why[256];

	p->memo_by_regs = !scry_overrides()->no_kptr && scry_kfacts()->kptr_untrusted;
	p->skel->rodata->memo_by_regs = p->memo_by_regs;
	p->skel->rodata->memo_by_gen = p->memo_by_regs && scry_kfacts()->tp_exit && !scry_overrides()->no_memo_gen;
	p->skel->rodata->memo_all_gen = p->skel->rodata->memo_by_gen && p->skel->rodata->target_all &&
					!p->skel->rodata->track_mask;
	bpf_program__set_autoload(p->skel->progs.scry_memo_exit, p->skel->rodata->memo_by_gen);
	__u32 mask = p->skel->rodata->track_mask;
	bool system_wide = p->skel->rodata->target_all && !mask;
	/* sysfs read only where the answer is used */
	bool no_thunk = (system_wide || (mask & (SCRY_TRACK_UID | SCRY_TRACK_GID))) &&
			!scry_feature_ret_thunk(why, sizeof(why));
	p->current_by_helper = system_wide && no_thunk;
	p->skel->rodata->current_by_helper = p->current_by_helper;
	/* with a uid or gid tracker, the same helper's answer and the blooms reject before the
	 * memo (target.bpf.h, target_ok_m) */
	p->skel->rodata->ug_prefilter = no_thunk ? mask & (SCRY_TRACK_UID | SCRY_TRACK_GID) : 0;
}

/* The memo map (struct scry_memo): with its kptr as the object declares it, or, on a
 * kernel without untrusted kptrs, created here without BTF and used by tgid only
 * (memo_by_regs = 0: probes_memo_modes). */
int probes_prepare_memo(struct scry_probes *p, char *err, size_t errlen)
{
	int fd, ret;

	if (p->memo_by_regs)
		return 0;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "memo", 4, sizeof(struct scry_memo), 1, NULL);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create the memo map: %s", strerror(-ret));
		return ret;
	}
	ret = bpf_map__reuse_fd(p->skel->maps.memo, fd);
	close(fd);
	if (ret)
		snprintf(err, errlen, "cannot use the memo map: %s", strerror(-ret));
	return ret;
}

int scry_probes_track(struct scry_probes *p, pid_t tgid)
{
	__u32 key = tgid;
	__u8 one = 1;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.tracked), &key, &one, BPF_ANY))
		return -errno;
	/* invalidate the programs' per-CPU "not followed" memos (see target_ok); the programs
	 * add 1 at forks and exits, user space 1 << 32 */
	__atomic_fetch_add(&p->skel->bss->tracked_gen, 1ULL << 32, __ATOMIC_SEQ_CST);
	return 0;
}
