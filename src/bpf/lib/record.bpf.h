// SPDX-License-Identifier: GPL-2.0
/* record.bpf.h — an event's bytes in their CTF layout (docs/FORMAT.md): the header (id,
 * timestamp), the contexts of ctx_mask (their code dropped by the verifier when disabled),
 * and user strings; scry trace -k's user stack copies. */

static __always_inline __u32 pid_ns_inum(struct task_struct *t)
{
	unsigned int level = BPF_CORE_READ(t, thread_pid, level);
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	return BPF_CORE_READ(p, numbers[level].ns, ns.inum);
}

static __always_inline __s32 task_vnr(struct pid *p)
{
	unsigned int level = BPF_CORE_READ(p, level);
	return BPF_CORE_READ(p, numbers[level].nr);
}

/* vppid as LTTng's task_tgid_vnr(real_parent): the parent's tgid in t's pid namespace, 0 when
 * the parent is outside it (the namespace's init). */
static __noinline __s32 vppid_nested(struct task_struct *t)
{
	struct pid *me = BPF_CORE_READ(t, thread_pid);
	struct pid *pp = BPF_CORE_READ(t, real_parent, group_leader, thread_pid);
	unsigned int lv = BPF_CORE_READ(me, level), plv = BPF_CORE_READ(pp, level);

	if (plv < lv || lv >= SCRY_MAX_PIDNS_LEVEL)
		return 0;
	if (BPF_CORE_READ(pp, numbers[lv].ns) != BPF_CORE_READ(me, numbers[lv].ns))
		return 0;
	return BPF_CORE_READ(pp, numbers[lv].nr);
}

static __always_inline __s32 vppid_of(struct task_struct *t)
{
	/* in the initial pid namespace (the common case) every parent shows its global tgid:
	 * three direct loads instead of eight probe reads (a subprogram's, in a child one) */
	if (t->thread_pid->level == 0)
		return t->real_parent->tgid;
	return vppid_nested(t);
}

/* from_k[ug]id_munged(current_user_ns(), id) (kernel/user_namespace.c, map_id_up): the id
 * as map m (a user namespace's uid_map or gid_map) shows it, ovf when it maps nowhere.
 * Up to 5 extents sit in the map; more are in its forward array, walked with bpf_loop. */
struct idmap_walk {
	struct uid_gid_extent *ext;
	__u32 id, out;
};

static long idmap_step(__u32 i, struct idmap_walk *w)
{
	struct uid_gid_extent e;

	if (bpf_probe_read_kernel(&e, sizeof(e), &w->ext[i]))
		return 1;
	if (w->id >= e.lower_first && w->id - e.lower_first < e.count) {
		w->out = w->id - e.lower_first + e.first;
		return 1;
	}
	return 0;
}

static __noinline __u32 map_id_up(struct uid_gid_map *m, __u32 id, __u32 ovf)
{
	__u32 nr = BPF_CORE_READ(m, nr_extents);
	struct idmap_walk w = { .id = id, .out = ovf };

	if (nr > 5) {
		w.ext = BPF_CORE_READ(m, forward);
		bpf_loop(nr, idmap_step, &w, 0);
		return w.out;
	}
#define IDMAP_EXT(k) \
	if (nr > k) { \
		__u32 lo = BPF_CORE_READ(m, extent[k].lower_first); \
		if (id >= lo && id - lo < BPF_CORE_READ(m, extent[k].count)) \
			return id - lo + BPF_CORE_READ(m, extent[k].first); \
	}
	IDMAP_EXT(0) IDMAP_EXT(1) IDMAP_EXT(2) IDMAP_EXT(3) IDMAP_EXT(4)
#undef IDMAP_EXT
	return ovf;
}

static __always_inline __u32 vuid_of(struct task_struct *t, __u32 kuid)
{
	struct user_namespace *ns = BPF_CORE_READ(t, cred, user_ns);
	return map_id_up((void *)ns + bpf_core_field_offset(struct user_namespace, uid_map), kuid, ovf_uid);
}

static __always_inline __u32 vgid_of(struct task_struct *t, __u32 kgid)
{
	struct user_namespace *ns = BPF_CORE_READ(t, cred, user_ns);
	return map_id_up((void *)ns + bpf_core_field_offset(struct user_namespace, gid_map), kgid, ovf_gid);
}

/* Context c (SCRY_CTX_VUID ... SCRY_CTX_VSGID) of t, its user namespace's maps walked. */
static __always_inline __u32 vid_slow(struct task_struct *t, const int c)
{
	switch (c) {
	case SCRY_CTX_VUID:  return vuid_of(t, BPF_CORE_READ(t, cred, uid.val));
	case SCRY_CTX_VEUID: return vuid_of(t, BPF_CORE_READ(t, cred, euid.val));
	case SCRY_CTX_VSUID: return vuid_of(t, BPF_CORE_READ(t, cred, suid.val));
	case SCRY_CTX_VGID:  return vgid_of(t, BPF_CORE_READ(t, cred, gid.val));
	case SCRY_CTX_VEGID: return vgid_of(t, BPF_CORE_READ(t, cred, egid.val));
	default:             return vgid_of(t, BPF_CORE_READ(t, cred, sgid.val));
	}
}

/* The six namespace-relative ids of t (struct vid_memo), the maps walked again only when
 * its user namespace or one of its kernel ids changed: on the common path, a task storage
 * lookup and eight loads from the task's credentials.  NULL without a memo (no memory).
 * t is current: its credentials cannot change meanwhile. */
static __noinline struct vid_memo *vids_of(struct task_struct *t)
{
	struct vid_memo *m = bpf_task_storage_get(&vid_memos, bpf_get_current_task_btf(), NULL,
						   BPF_LOCAL_STORAGE_GET_F_CREATE);
	const struct cred *c = t->cred;
	struct user_namespace *ns;
	__u32 k[6], inum;
	bool same;

	if (!m || !c || !(ns = c->user_ns))
		return NULL;
	k[0] = c->uid.val;
	k[1] = c->euid.val;
	k[2] = c->suid.val;
	k[3] = c->gid.val;
	k[4] = c->egid.val;
	k[5] = c->sgid.val;
	inum = ns->ns.inum;
	same = m->ns == (__u64)ns && m->inum == inum;
	for (int i = 0; i < 6; i++)
		same = same && m->kid[i] == k[i];
	if (same)
		return m;
	m->vid[0] = vuid_of(t, k[0]);
	m->vid[1] = vuid_of(t, k[1]);
	m->vid[2] = vuid_of(t, k[2]);
	m->vid[3] = vgid_of(t, k[3]);
	m->vid[4] = vgid_of(t, k[4]);
	m->vid[5] = vgid_of(t, k[5]);
	for (int i = 0; i < 6; i++)
		m->kid[i] = k[i];
	m->inum = inum;
	m->ns = (__u64)ns;
	return m;
}

/* This CPU's preempt count without PREEMPT_NEED_RESCHED (x86 keeps that bit inverted in
 * it): the per-CPU __preempt_count, found at its distance from this CPU's runqueue (current's
 * se.cfs_rq->rq), as BTF's .data..percpu gives it (src/kernel/ctx_paths.c). */
static __always_inline __u32 preempt_count_now(struct task_struct *t)
{
	void *rq = t->se.cfs_rq->rq;   /* direct loads: a probe read each was a helper call */
	__u32 pc = 0;

	if (rq)
		bpf_probe_read_kernel(&pc, sizeof(pc), rq + preempt_delta);
	return pc & 0x7fffffff;
}

/* task_struct.migration_disabled (named migrate_disable before Linux 6.13, LTTng's name:
 * such kernels are refused by src/kernel/ctx_paths.c, a second CO-RE flavour's relocation
 * being hoisted out of its guard by the compiler). */
static __always_inline __u32 migrate_disabled(struct task_struct *t)
{
	return t->migration_disabled;
}

#define SCRY_HARDIRQ_NMI_MASK 0x00ff0000u   /* HARDIRQ_MASK | NMI_MASK of preempt.h */

/* The value of integer context c (every one but procname) for task t, as its CTF field
 * reads: int32 contexts sign-extended, uint32 ones zero-extended.  t is current. */
static __always_inline __s64 ctx_int(struct task_struct *t, const int c)
{
	switch (c) {
	case SCRY_CTX_PID:       return t->tgid;
	case SCRY_CTX_TID:       return t->pid;
	case SCRY_CTX_PPID:      return t->real_parent->tgid;
	/* in the initial pid namespace (level 0) the ids are the global ones: two loads */
	case SCRY_CTX_VPID:      return t->thread_pid->level == 0 ? t->tgid
						   : task_vnr(BPF_CORE_READ(t, group_leader, thread_pid));
	case SCRY_CTX_VTID:      return t->thread_pid->level == 0 ? t->pid : task_vnr(BPF_CORE_READ(t, thread_pid));
	case SCRY_CTX_CPU_ID:    return bpf_get_smp_processor_id();
	case SCRY_CTX_UID:       return (__u32)bpf_get_current_uid_gid();
	case SCRY_CTX_GID:       return bpf_get_current_uid_gid() >> 32;
	case SCRY_CTX_EUID:      return (__u32)t->cred->euid.val;
	case SCRY_CTX_PRIO:      return (__s32)(t->prio - 100);
	case SCRY_CTX_NICE:      return (__s32)(t->static_prio - 120);
	case SCRY_CTX_CGROUP_NS: return (__u32)t->nsproxy->cgroup_ns->ns.inum;
	case SCRY_CTX_IPC_NS:    return (__u32)t->nsproxy->ipc_ns->ns.inum;
	case SCRY_CTX_MNT_NS:    return (__u32)t->nsproxy->mnt_ns->ns.inum;
	case SCRY_CTX_NET_NS:    return (__u32)t->nsproxy->net_ns->ns.inum;
	case SCRY_CTX_PID_NS:    return (__u32)pid_ns_inum(t);
	case SCRY_CTX_USER_NS:   return (__u32)t->cred->user_ns->ns.inum;
	case SCRY_CTX_UTS_NS:    return (__u32)t->nsproxy->uts_ns->ns.inum;
	default:                 return 0;
	}
}

/* This CPU's count of perf counter k (0 when it cannot be read). */
static __always_inline __u64 perf_now(__u32 k)
{
	struct bpf_perf_event_value v = {};

	if (bpf_perf_event_read_value(&perf_ctrs, k * perf_ncpus + bpf_get_smp_processor_id(), &v, sizeof(v)))
		return 0;
	return v.counter;
}

/* perf:thread counter k of the current task: what it counted while it ran (since it was
 * first seen during recording). */
static __always_inline __u64 perf_thread(__u32 k)
{
	struct thread_ctrs *tc = bpf_task_storage_get(&thread_perf, bpf_get_current_task_btf(), NULL,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 now = perf_now(k);

	if (!tc || k >= SCRY_PERF_NR)
		return 0;
	if (!tc->on) {    /* first seen: counting starts now */
		for (int i = 0; i < SCRY_PERF_NR; i++)
			tc->start[i] = (ctx_mask & (1ULL << (SCRY_CTX_PERF_THREAD + i))) ? perf_now(i) : 0;
		tc->on = 1;
	}
	return tc->acc[k] + now - tc->start[k];
}

/* The contexts after uts_ns (LTTng's rarer ones): vppid, hostname and interruptible ...
 * time_ns written in the header's store sequence; cgroup_id and the perf counters by a
 * subprogram of their own (write_head_ext), called only when one of them is enabled
 * (rodata), so events without them do not pay for the call. */
#define SCRY_CTX_EXT_MASK (~0ULL << SCRY_CTX_VPPID)
#define SCRY_CTX_SIMPLE_EXT_MASK (((1ULL << (SCRY_CTX_TIME_NS + 1)) - 1) & ~((1ULL << SCRY_CTX_INTERRUPTIBLE) - 1))
#define SCRY_CTX_VIDS_MASK (((1ULL << (SCRY_CTX_VSGID + 1)) - 1) & ~((1ULL << SCRY_CTX_VUID) - 1))

static __always_inline void ustack_stat(__u32 which)
{
	__u32 zero = 0;
	struct scry_ustack_stats *st = bpf_map_lookup_elem(&ustack_stats, &zero);

	if (!st)
		return;
	if (which == 0)
		st->sent++;
	else if (which == 1)
		st->ring_full++;
	else
		st->busy++;
}

/* scry trace -k: the event at b (id and timestamp written) sends the current task's user
 * registers and stack (scry_abi.h: struct scry_ustack_rec) to the ring ustacks, made in
 * this CPU's area (held: a run this one interrupted is making one; counted). */
static __noinline void ustack_send(__u8 *b)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 key = bpf_get_smp_processor_id(), size;
	struct ustack_area *a = bpf_map_lookup_elem(&ustack_areas, &key);
	__u64 id = bpf_get_current_pid_tgid();
	struct scry_ustack_rec *r;

	if (!a)
		return;
	if (__sync_lock_test_and_set(&a->busy, 1)) {
		ustack_stat(2);
		return;
	}
	r = (struct scry_ustack_rec *)a->rec;
	r->tid = (__u32)id;
	r->tgid = id >> 32;
	r->ts = *(__u64 *)(b + 2);
	r->id = *(__u16 *)b;
	r->pad = 0;
	size = ustack_regs(r->regs, (struct pt_regs *)bpf_task_pt_regs(task))
		       ? ustack_copy(r->data, r->regs[SCRY_DWREG_SP], task, ustack_window) : 0;
	r->size = size;
	if (size > ustack_window)          /* never: for the verifier */
		size = 0;
	if (bpf_ringbuf_output(&ustacks, r, sizeof(*r) + size, BPF_RB_NO_WAKEUP))
		ustack_stat(1);
	else
		ustack_stat(0);
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&a->busy = 0;
}

/* Does the event at b send a user stack copy (ustack_ids)? */
static __always_inline bool ustack_wanted(const __u8 *b)
{
	__u16 id = *(const __u16 *)b;

	return ustack_window && (ustack_ids[id >> 6] >> (id & 63) & 1);
}

/* The contexts of mask (a subset of SCRY_CTX_BASIC_MASK; a constant where the caller can)
 * after the header; returns the position after them. */
static __always_inline __u32 write_basic(__u8 *b, struct task_struct *t, const __u64 mask)
{
	__u32 pos = SCRY_EVENT_HEADER_SIZE;

	if (mask & (1ULL << SCRY_CTX_PID)) {
		WR(__u32, b, pos, t->tgid);
		pos += 4;
	}
	if (mask & (1ULL << SCRY_CTX_TID)) {
		WR(__u32, b, pos, t->pid);
		pos += 4;
	}
	if (mask & (1ULL << SCRY_CTX_PROCNAME)) {
		/* comm is NUL-padded by the kernel: two loads instead of bpf_get_current_comm() */
		WR(__u64, b, pos, *(__u64 *)&t->comm[0]);
		WR(__u64, b, pos + 8, *(__u64 *)&t->comm[8]);
		pos += SCRY_COMM_LEN;
	}
	return pos;
}

/* The hostname context: the nodename, in direct loads (no helper call) up to its first
 * word holding a NUL: sethostname (and a namespace's copy) zero the rest of the 65 bytes,
 * so the words after it are stored as zeroes, not loaded (a short name, "vm", is one load
 * and the test where it was nine loads); zeroes once nsproxy is gone (exit): a load
 * through NULL reads 0. */
#define HAS_NUL(v) (((v) - 0x0101010101010101ULL) & ~(v) & 0x8080808080808080ULL)
static __always_inline __u32 write_hostname(__u8 *b, __u32 pos, struct task_struct *t)
{
	const char *n = t->nsproxy->uts_ns->name.nodename;
	__u8 *q = b + pos;     /* the words at constant offsets from it: one store each */
	bool end = false;

	_Static_assert(SCRY_HOSTNAME_LEN == 65, "hostname: 8 words and a byte");
	/* nodename sits at an odd offset: hidden from the compiler, which would otherwise
	 * split each word into eight byte loads */
	asm volatile("" : "+r"(n));
#pragma unroll
	for (int k = 0; k < 8; k++) {
		__u64 v = 0;

		if (!end) {
			v = *(const __u64 *)(n + 8 * k);
			end = HAS_NUL(v) != 0;
		}
		WR(__u64, q, 8 * k, v);
	}
	WR(__u8, q, 64, end ? 0 : n[64]);
	return pos + SCRY_HOSTNAME_LEN;
}

/* The loop runs over the enabled ones alone (ext_ctx[0..n_ext_ctx), rodata): the verifier
 * knows each iteration's context and keeps only its code, and an event pays for the contexts
 * it carries, not for a test of each of the ~45 (~90 ns an event). */
static __noinline __u32 write_head_ext(__u8 *b, __u32 pos, struct task_struct *t)
{
	for (__u32 i = 0; i < n_ext_ctx && i < SCRY_CTX_NR; i++) {
		int c = ext_ctx[i];

		if (c <= SCRY_CTX_TIME_NS)   /* vppid ... time_ns: written by the caller */
			continue;
		if (c >= SCRY_CTX_PERF_CPU && c < SCRY_CTX_PERF_THREAD + SCRY_PERF_NR) {
			__u64 v = c < SCRY_CTX_PERF_THREAD ? perf_now(c - SCRY_CTX_PERF_CPU)
							   : perf_thread(c - SCRY_CTX_PERF_THREAD);
			WR(__u64, b, pos, v);
			pos += 8;
			continue;
		}
		if (c >= SCRY_CTX_CALLSTACK_KERNEL)   /* the last ones: their words by the caller */
			break;
		if (c == SCRY_CTX_CGROUP_ID) {     /* one helper call: the cgroup v2 id */
			WR(__u64, b, pos, bpf_get_current_cgroup_id());
			pos += 8;
			continue;
		}
	}
	return pos;
}

/* A v*id computed without a memo (none could be had): context SCRY_CTX_VUID + i. */
static __noinline __u32 vid_uncached(struct task_struct *t, __u32 i)
{
	return vid_slow(t, SCRY_CTX_VUID + (int)(i % 6));
}

/* The miss of this CPU's v*id memo cm (may be NULL): the task's memo (vids_of), copied into
 * cm under its seq.  NULL without a task memo. */
static __noinline struct vid_memo *vids_refill(struct task_struct *t, struct vid_cpu_memo *cm)
{
	struct vid_memo *m = vids_of(t);

	if (m && cm) {
		cm->seq |= 1;
		asm volatile("" ::: "memory");
		cm->m = *m;
		asm volatile("" ::: "memory");
		cm->seq++;
	}
	return m;
}

/* The enabled ones of vuid ... vsgid at pos: from this CPU's memo when its inputs (the user
 * namespace and the six kernel ids, direct loads) are current's, without a helper call;
 * else from the task's memo, which refills it.  seq unchanged around the read: no nested
 * program rewrote the memo meanwhile. */
static __always_inline __u32 write_vids(__u8 *b, __u32 pos, struct task_struct *t, const __u64 mask)
{
	__u32 zero = 0, seq = 1, p = pos;
	struct vid_cpu_memo *cm = bpf_map_lookup_elem(&vid_cpu, &zero);
	const struct cred *c = t->cred;
	struct user_namespace *ns = c->user_ns;
	struct vid_memo *m;

	if (cm) {
		seq = cm->seq;
		asm volatile("" ::: "memory");
		if (!(seq & 1) && cm->m.ns == (__u64)ns && cm->m.inum == ns->ns.inum &&
		    cm->m.kid[0] == c->uid.val && cm->m.kid[1] == c->euid.val && cm->m.kid[2] == c->suid.val &&
		    cm->m.kid[3] == c->gid.val && cm->m.kid[4] == c->egid.val && cm->m.kid[5] == c->sgid.val) {
#pragma unroll
			for (int i = 0; i < 6; i++)
				if (mask & (1ULL << (SCRY_CTX_VUID + i))) {
					WR(__u32, b, p, cm->m.vid[i]);
					p += 4;
				}
			asm volatile("" ::: "memory");
			if (cm->seq == seq)
				return p;
			p = pos;
		}
	}
	m = vids_refill(t, cm);
#pragma unroll
	for (int i = 0; i < 6; i++)
		if (mask & (1ULL << (SCRY_CTX_VUID + i))) {
			WR(__u32, b, p, m ? m->vid[i] : vid_uncached(t, i));
			p += 4;
		}
	return p;
}

/* interruptible ... time_ns (LTTng's simple contexts past vppid and hostname), the enabled
 * ones of mask at pos, in the header's store sequence: direct loads from the task, one probe
 * read of the preempt count for the two that need it, the v*ids from the memos. */
static __always_inline __u32 write_simple_ext(__u8 *b, __u32 pos, struct task_struct *t, const __u64 mask,
					      const __u32 own_migr)
{
	const __u64 creds = (1ULL << SCRY_CTX_EGID) | (1ULL << SCRY_CTX_SGID) | (1ULL << SCRY_CTX_SUID);
	__u32 pc = 0;

	/* the tracing program runs with preemption disabled once (the tracepoint's guard):
	 * that count is the probe's own, as LTTng's LTTNG_PREEMPT_DISABLE_NESTING */
	if (mask & ((1ULL << SCRY_CTX_INTERRUPTIBLE) | (1ULL << SCRY_CTX_PREEMPTIBLE)))
		pc = preempt_count_now(t);
	if (mask & (1ULL << SCRY_CTX_INTERRUPTIBLE)) {
		WR(__u8, b, pos, !(pc & SCRY_HARDIRQ_NMI_MASK));
		pos += 1;
	}
	if (mask & (1ULL << SCRY_CTX_PREEMPTIBLE)) {
		WR(__u8, b, pos, pc == 1);
		pos += 1;
	}
	if (mask & (1ULL << SCRY_CTX_NEED_RESCHEDULE)) {
		WR(__u8, b, pos, (t->thread_info.flags >> tif_need_resched) & 1);
		pos += 1;
	}
	if (mask & (1ULL << SCRY_CTX_MIGRATABLE)) {
		WR(__u8, b, pos, migrate_disabled(t) <= own_migr);
		pos += 1;
	}
	if (mask & creds) {
		const struct cred *c = t->cred;

		if (mask & (1ULL << SCRY_CTX_EGID)) {
			WR(__u32, b, pos, c->egid.val);
			pos += 4;
		}
		if (mask & (1ULL << SCRY_CTX_SGID)) {
			WR(__u32, b, pos, c->sgid.val);
			pos += 4;
		}
		if (mask & (1ULL << SCRY_CTX_SUID)) {
			WR(__u32, b, pos, c->suid.val);
			pos += 4;
		}
	}
	if (mask & SCRY_CTX_VIDS_MASK)
		pos = write_vids(b, pos, t, mask);
	if (mask & (1ULL << SCRY_CTX_TIME_NS)) {
		WR(__u32, b, pos, t->nsproxy->time_ns->ns.inum);
		pos += 4;
	}
	return pos;
}

/* The enabled contexts lo..hi-1 (constants, below SCRY_CTX_VPPID) of mask at pos. */
static __always_inline __u32 write_ctx_range(__u8 *b, __u32 pos, struct task_struct *t, const __u64 mask,
					     const int lo, const int hi)
{
	if (!(mask & (((1ULL << hi) - 1) & ~((1ULL << lo) - 1))))
		return pos;
#pragma unroll
	for (int c = lo; c < hi; c++) {
		if (!(mask & (1ULL << c)))
			continue;
		if (c == SCRY_CTX_PROCNAME) {
			/* comm is NUL-padded by the kernel: two loads instead of bpf_get_current_comm() */
			WR(__u64, b, pos, *(__u64 *)&t->comm[0]);
			WR(__u64, b, pos + 8, *(__u64 *)&t->comm[8]);
			pos += SCRY_COMM_LEN;
			continue;
		}
		WR(__u32, b, pos, ctx_int(t, c));
		pos += 4;
	}
	return pos;
}

/* Header (id, timestamp ts) and the enabled contexts; returns the position after them.
 * t: bpf_get_current_task_btf(), already taken by the caller's target filter (one helper
 * call gives pid, tid and comm).  own_migr: the migrate_disable() the BPF runtime itself
 * holds around the program (1 for perf-event tracepoints and uprobes, whose programs
 * bpf_prog_run_array runs so; 0 for tp_btf, raw_tp, iterators): not the traced code's.
 * shape (a constant): the contexts the program was made for (ctx_mask_in), where no user
 * stack is copied. */
static __always_inline __u32 write_head_pe_in(__u8 *b, __u16 id, struct task_struct *t, __u64 ts,
					      const __u32 own_migr, void *pe, const __u64 shape)
{
	/* one load of the rodata mask: the verifier knows its value and drops the tests of
	 * disabled contexts; a test of ctx_mask itself (volatile) would be a load each */
	const __u64 mask = ctx_mask_in(shape);
	__u32 pos = SCRY_EVENT_HEADER_SIZE;

	WR(__u16, b, 0, id);
	WR(__u64, b, 2, ts);
	if (!shape && ustack_wanted(b))      /* scry trace -k (never otherwise: the verifier drops it) */
		ustack_send(b);
	/* pid, tid and procname alone (record's and trace's defaults): one store sequence, no
	 * test of the other contexts (each a mov, and, test and jump the verifier keeps) */
	if (mask == SCRY_CTX_BASIC_MASK)
		return write_basic(b, t, SCRY_CTX_BASIC_MASK);
	if (mask == SCRY_CTX_PIDTID_MASK)
		return write_basic(b, t, SCRY_CTX_PIDTID_MASK);
	if (!(mask & ~SCRY_CTX_BASIC_MASK))
		return write_basic(b, t, mask);
	if (!(mask & ((1ULL << SCRY_CTX_VPPID) - 1) & ~SCRY_CTX_BASIC_MASK)) {
		/* of the groups' contexts only pid, tid and procname (the defaults with vppid,
		 * hostname ... added): their store sequence.  The groups' tests, though the
		 * verifier drops their jumps, leave their ALU instructions and jumps over the
		 * dead code: -1.2 ns for vppid, -0.8 for hostname (bench/progpair.sh, 8 rounds) */
		pos = write_basic(b, t, mask & SCRY_CTX_BASIC_MASK);
	} else {
		/* in three groups: a group without an enabled context costs one test, not one a context */
		pos = write_ctx_range(b, pos, t, mask, 0, SCRY_CTX_CPU_ID);
		pos = write_ctx_range(b, pos, t, mask, SCRY_CTX_CPU_ID, SCRY_CTX_CGROUP_NS);
		pos = write_ctx_range(b, pos, t, mask, SCRY_CTX_CGROUP_NS, SCRY_CTX_VPPID);
	}
	/* vppid and hostname, the first two after the groups, without the subprogram's call */
	if (mask & (1ULL << SCRY_CTX_VPPID)) {
		WR(__u32, b, pos, vppid_of(t));
		pos += 4;
	}
	if (mask & (1ULL << SCRY_CTX_HOSTNAME))
		pos = write_hostname(b, pos, t);
	if (mask & SCRY_CTX_SIMPLE_EXT_MASK)
		pos = write_simple_ext(b, pos, t, mask, own_migr);
	if (mask & SCRY_CTX_EXT_MASK & ~(SCRY_CTX_CALLSTACK_MASK | SCRY_CTX_SIMPLE_EXT_MASK |
					 (1ULL << SCRY_CTX_VPPID) | (1ULL << SCRY_CTX_HOSTNAME)))
		pos = write_head_ext(b, pos, t);
	/* the call stacks' words, 0 until the commit puts the frames after the event
	 * (buffer.bpf.h, stacks_put) */
	if (mask & (1ULL << SCRY_CTX_CALLSTACK_KERNEL)) {
		WR(__u32, b, pos, 0);
		pos += 4;
	}
	if (mask & (1ULL << SCRY_CTX_CALLSTACK_USER)) {
		WR(__u32, b, pos, 0);
		pos += 4;
	}
	return pos;
}

static __always_inline __u32 write_head_pe_m(__u8 *b, __u16 id, struct task_struct *t, __u64 ts,
					      const __u32 own_migr, void *pe)
{
	return write_head_pe_in(b, id, t, ts, own_migr, pe, 0);
}

static __always_inline __u32 write_head_at_m(__u8 *b, __u16 id, struct task_struct *t, __u64 ts,
					     const __u32 own_migr)
{
	return write_head_pe_m(b, id, t, ts, own_migr, NULL);
}

static __always_inline __u32 write_head_at(__u8 *b, __u16 id, struct task_struct *t, __u64 ts)
{
	return write_head_at_m(b, id, t, ts, 0);
}

/* The same in a program made for the contexts of shape (head_size_in). */
static __always_inline __u32 write_head_at_in(__u8 *b, __u16 id, struct task_struct *t, __u64 ts,
					      const __u64 shape)
{
	return write_head_pe_in(b, id, t, ts, 0, NULL, shape);
}

/* Where write_head puts the procname context (when enabled), in a program made for the
 * contexts of shape (ctx_mask_in). */
static __always_inline __u32 procname_offset_in(const __u64 shape)
{
	const __u64 mask = ctx_mask_in(shape);
	__u32 off = SCRY_EVENT_HEADER_SIZE;

	for (int c = SCRY_CTX_PID; c < SCRY_CTX_PROCNAME; c++)
		if (mask & (1ULL << c))
			off += 4;
	return off;
}

/* The same, stamped now (the session's clock), in a program run with migration disabled
 * (see write_head_at_m). */
static __always_inline __u32 write_head_nomigr(__u8 *b, __u16 id, struct task_struct *t)
{
	return write_head_at_m(b, id, t, scry_now(), 1);
}

/* The same, stamped now. */
static __always_inline __u32 write_head(__u8 *b, __u16 id, struct task_struct *t)
{
	return write_head_at(b, id, t, scry_now());
}

/* The same in a perf event's program, pe its context (its call stacks, the sample's, are
 * put by submit_pe with the same pe: buffer.bpf.h, stacks_put). */
static __always_inline __u32 write_head_pe(__u8 *b, __u16 id, struct task_struct *t, void *pe)
{
	return write_head_pe_m(b, id, t, scry_now(), 0, pe);
}

/* Bytes of header + enabled contexts, a verifier constant (set with ctx_mask), so that
 * fixed-size events are reserved in the ring and written in place. */
static __always_inline __u32 head_size(void)
{
	return head_bytes;
}

/* head_size and write_head in a program made for the contexts of shape when not 0 (a
 * constant, of pid, tid and procname only; ctx_mask_in), no user stack copy (the copies
 * are made only where ustack_window is 0). */
static __always_inline __u32 head_size_in(const __u64 shape)
{
	if (!shape)
		return head_size();
	return SCRY_EVENT_HEADER_SIZE + (shape & (1ULL << SCRY_CTX_PID) ? 4 : 0) +
	       (shape & (1ULL << SCRY_CTX_TID) ? 4 : 0) + (shape & (1ULL << SCRY_CTX_PROCNAME) ? SCRY_COMM_LEN : 0);
}

static __always_inline __u32 write_head_in(__u8 *b, __u16 id, struct task_struct *t, const __u64 shape)
{
	return write_head_pe_in(b, id, t, scry_now(), 0, NULL, shape);
}

/* A user string at pos, at most max bytes with its NUL (max is clamped to 8..SCRY_STR_MAX):
 * NUL-terminated, "(null)" / "(fault)" when it cannot be read (*faults is then counted up:
 * mostly a page not mapped yet, which the syscall itself will fault in).  A string cut at
 * SCRY_STR_MAX is counted (a shorter max is the user's -s, not a loss).
 * bpf_probe_read_user_str() returns the bytes copied with the NUL, or < 0 (the buffer then
 * zeroed); kernels before the 2025 fix of strncpy_from_user_nofault() return 0 for "",
 * whose NUL they did copy: that is an empty string, not a fault.
 * The caller guarantees pos <= SCRY_EVENT_MAX. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "SCRY_STR8_*: little-endian targets only"
#endif
#define SCRY_STR8_NULL  0x0000296c6c756e28ULL    /* "(null)\0\0", little-endian */
#define SCRY_STR8_FAULT 0x0029746c75616628ULL    /* "(fault)\0" */
/* The string itself, max already within 8..SCRY_STR_MAX as the caller proved it (the clamps
 * below, or uprobes.bpf.h's mask). */
static __always_inline __u32 put_user_str(__u8 *b, __u32 pos, __u64 uptr, __u32 max, __u32 *faults)
{
	long n;

	/* "(null)" and "(fault)" with their NUL, each one 8-byte store (a byte store each
	 * from memcpy: ~2.7k of the ~22k instructions sys_enter's verification goes through;
	 * "(null)"'s eighth byte lies past the string's end, inside the room max holds) */
	if (!uptr) {
		WR(__u64, b, pos, SCRY_STR8_NULL);
		return pos + 7;
	}
	n = bpf_probe_read_user_str(b + pos, max, (const void *)uptr);
	if (n < 0) {
		(*faults)++;
		WR(__u64, b, pos, SCRY_STR8_FAULT);
		return pos + 8;
	}
	if (n == 0) {
		b[pos] = 0;
		return pos + 1;
	}
	if (n == SCRY_STR_MAX)
		count_truncated();
	return pos + (__u32)n;
}

static __always_inline __u32 write_user_str(__u8 *b, __u32 pos, __u64 uptr, __u32 max, __u32 *faults)
{
	if (max > SCRY_STR_MAX)
		max = SCRY_STR_MAX;
	if (max < 8)
		max = 8;
	return put_user_str(b, pos, uptr, max, faults);
}
