// SPDX-License-Identifier: GPL-2.0
/* target.bpf.h — is the current task recorded?  Not scry itself; system-wide or a followed
 * process (the pid tracker, -p, the command and their descendants); then the other
 * trackers (vpid, uid, gid, cgroup).  The answer is kept in a per-CPU memo keyed by the
 * syscall's saved registers, proved without a helper call (struct scry_memo).  The follow
 * sets grow at fork (lifecycle.bpf.h) and shrink at exit.  Last, the per-process event sets:
 * is an event enabled for some processes only on for current's? */

/* Does process t pass the vpid tracker: its vpid (the group leader's, in its namespace) is
 * tracked, or it was forked by a process that passes? */
static __always_inline bool vpid_ok(struct task_struct *t)
{
	__u32 vpid = task_vnr(BPF_CORE_READ(t, group_leader, thread_pid)), tgid = BPF_CORE_READ(t, tgid);

	return bpf_map_lookup_elem(&track_vpid, &vpid) || bpf_map_lookup_elem(&vpid_followed, &tgid);
}

/* Is id's bit set in a tracker's bloom word (track_uid_bloom, track_gid_bloom)? */
static __always_inline bool bloom_has(__u64 bloom, __u32 id)
{
	return (bloom >> (id & 63)) & 1;
}

/* Is uid (gid) in the uid (gid) tracker: its bloom bit, then its map. */
static __always_inline bool uid_tracked(__u32 uid)
{
	return bloom_has(track_uid_bloom, uid) && bpf_map_lookup_elem(&track_uid, &uid);
}

static __always_inline bool gid_tracked(__u32 gid)
{
	return bloom_has(track_gid_bloom, gid) && bpf_map_lookup_elem(&track_gid, &gid);
}

/* May a task of credentials c pass the uid and gid trackers of mask (ug_prefilter's, read
 * once: each read of a rodata flag is a load and a test the verifier keeps), by their
 * blooms?  A no is final. */
static __always_inline bool ug_maybe_tracked(const struct cred *c, __u8 mask)
{
	if ((mask & SCRY_TRACK_UID) && !bloom_has(track_uid_bloom, c->uid.val))
		return false;
	return !(mask & SCRY_TRACK_GID) || bloom_has(track_gid_bloom, c->gid.val);
}

/* The trackers other than the pid one (t is current, ug its real gid << 32 | uid). */
static __always_inline bool track_ok(struct task_struct *t, __u64 ug)
{
	if (track_mask & (SCRY_TRACK_UID | SCRY_TRACK_GID)) {
		if ((track_mask & SCRY_TRACK_UID) && !uid_tracked((__u32)ug))
			return false;
		if ((track_mask & SCRY_TRACK_GID) && !gid_tracked((__u32)(ug >> 32)))
			return false;
	}
	if ((track_mask & SCRY_TRACK_VPID) && !vpid_ok(t))
		return false;
	if (track_mask & (SCRY_TRACK_VUID | SCRY_TRACK_VGID)) {   /* LTTng's vuid/vgid trackers */
		__u32 vuid = vuid_of(t, BPF_CORE_READ(t, cred, uid.val)), vgid = vgid_of(t, BPF_CORE_READ(t, cred, gid.val));

		if ((track_mask & SCRY_TRACK_VUID) && !bpf_map_lookup_elem(&track_vuid, &vuid))
			return false;
		if ((track_mask & SCRY_TRACK_VGID) && !bpf_map_lookup_elem(&track_vgid, &vgid))
			return false;
	}
	if (track_mask & SCRY_TRACK_CGROUP) {
		for (__u32 i = 0; i < SCRY_MAX_TRACK_CGROUPS; i++) {
			if (i >= n_track_cgroups)
				return false;
			if (bpf_current_task_under_cgroup(&track_cgroup, i) == 1)
				break;
		}
	}
	return true;
}

/* What of task t the memo's answer depends on (see struct scry_memo). */
static __always_inline __u64 task_ug(struct task_struct *t)
{
	const struct cred *c;

	if (!(track_mask & (SCRY_TRACK_UID | SCRY_TRACK_GID)))
		return 0;
	c = t->cred;
	return (__u64)c->gid.val << 32 | c->uid.val;
}

/* What else the memo's answer depends on: the task's cgroups (cgroup tracker); its user
 * namespace and how many extents its id maps have (vuid/vgid trackers: a map is written once,
 * after the namespace is made) */
static __noinline __u64 task_cgroups_ns(struct task_struct *t);

static __always_inline __u64 task_cgroups(struct task_struct *t)
{
	if (!(track_mask & (SCRY_TRACK_VUID | SCRY_TRACK_VGID)))
		return (track_mask & SCRY_TRACK_CGROUP) ? (__u64)t->cgroups : 0;
	return task_cgroups_ns(t);
}

/* The same with the vuid/vgid trackers (out of line: its zeroed locals, whose address the
 * reads take, cost the other trackers' rejections two stores). */
static __noinline __u64 task_cgroups_ns(struct task_struct *t)
{
	struct user_namespace *ns;
	__u64 cg = 0, nsv = 0;

	if (!t)
		return 0;
	/* pointers as numbers (the verifier allows no arithmetic on them) */
	if (track_mask & SCRY_TRACK_CGROUP)
		bpf_probe_read_kernel(&cg, sizeof(cg), &t->cgroups);
	ns = t->cred->user_ns;
	bpf_probe_read_kernel(&nsv, sizeof(nsv), &t->cred->user_ns);
	return cg ^ nsv ^ ((__u64)ns->uid_map.nr_extents << 48) ^ ((__u64)ns->gid_map.nr_extents << 56);
}

/* Does memo m prove current for this call's registers regs by the generation gen (read
 * before: memo_by_gen's proof, no task alive at the fill has exited)? */
static __always_inline bool memo_gen_proves(const struct scry_memo *m, const void *regs, __u64 gen)
{
	return m->regs == (__u64)regs && m->task_gen == gen;
}

/* Current, proved from memo m for a syscall program given regs (see struct scry_memo), or
 * NULL; gen: tracked_gen, read before.  An untrusted pointer: for reads only.  With
 * memo_by_gen the registers and the generation prove it (no load through the task: each
 * is a checked load, and stack and exit_state were two more cache lines an event). */
static __always_inline struct task_struct *memo_current(struct scry_memo *m, const void *regs, __u64 gen)
{
	struct task_struct *mt;

	if (!memo_by_regs || !regs || m->regs != (__u64)regs)
		return NULL;
	if (memo_by_gen)
		return m->task_gen == gen ? m->task : NULL;
	mt = m->task;
	if (!mt || (__u64)mt->stack != m->stack || mt->exit_state)
		return NULL;
	return mt;
}

/* System-wide without trackers, a syscall program finds current in the memo (current_ro):
 * its pointer is then untrusted, for reads only. */
static __always_inline bool current_in_memo(void)
{
	return memo_by_regs && target_all && !track_mask;
}

/* The memo's identity for the next event: current (from the helper), this call's registers
 * regs, as of generation gen (read before), no target answer kept.  Returns the memo's
 * untrusted copy of current (the kptr's type, read back), so that the verifier sees one
 * pointer type whichever way current was found. */
static __always_inline struct task_struct *memo_fill_current(struct scry_memo *m, const void *regs, __u64 gen)
{
	struct task_struct *t = bpf_get_current_task_btf();

	m->regs = (__u64)regs;
	m->task = t;
	m->stack = (__u64)t->stack;
	m->gen = SCRY_MEMO_NO_GEN;
	m->task_gen = gen;
	asm volatile("" ::: "memory");
	return m->task;
}

/* Current for reading, in a syscall program given regs (system-wide, no tracker): the memo's
 * task when this call's registers are the memo's (memo_current), without a helper call
 * (bpf_get_current_task_btf() was ~7 of the ~10 ns of scry's own code in an event of
 * `record -a` on this VM: its return goes through the SRSO thunk); else from the helper, the
 * memo's identity filled for the next event (memo_fill_current).  Either way the memo's
 * untrusted copy.  NULL only if the per-CPU memo were missing. */
static __always_inline struct task_struct *current_ro(struct scry_memo *m, const void *regs)
{
	__u64 gen = tracked_gen;
	struct task_struct *t = memo_current(m, regs, gen);

	return t ? t : memo_fill_current(m, regs, gen);
}

/* t (current, as target_ok gave it) as helpers taking a task accept it (task storage,
 * bpf_task_pt_regs): current again whenever target_ok may have read it from the memo (a
 * syscall program given regs, any mode: memo_by_regs), else t itself. */
static __always_inline struct task_struct *current_trusted(struct task_struct *t)
{
	return memo_by_regs ? bpf_get_current_task_btf() : t;
}

/* The key of task t in `tracked`: its process (tgid), or, when children are not followed
 * (scry trace without -f, as strace), the thread itself: strace follows neither. */
static __always_inline __u32 follow_key(struct task_struct *t)
{
	return follow_forks ? BPF_CORE_READ(t, tgid) : BPF_CORE_READ(t, pid);
}

/* System-wide without trackers where a helper's return is not thunked (current_by_helper):
 * current from the helper (*tp, unless given), recorded unless it is scry itself. */
static __always_inline bool current_not_self(struct task_struct **tp)
{
	if (!*tp)
		*tp = bpf_get_current_task_btf();
	return (*tp)->tgid != self_tgid;
}

/* target_ok in memo_all_gen's mode for a syscall program (regs given): current from the
 * memo, proved by the registers and the generation (memo_current and current_ro without
 * their tests of the mode), else from the helper, the memo filled for the next event. */
static __always_inline bool target_ok_all(const void *regs, struct task_struct **tp)
{
	struct task_struct *t = *tp;
	struct scry_memo *m;
	__u32 zero = 0;
	__u64 gen;

	if (t || current_by_helper)
		return current_not_self(tp);
	m = bpf_map_lookup_elem(&memo, &zero);
	if (!m)
		return false;
	gen = tracked_gen;
	if (memo_gen_proves(m, regs, gen))
		t = m->task;
	else
		t = memo_fill_current(m, regs, gen);
	*tp = t;
	return t && t->tgid != self_tgid;
}

/* The syscall dispatchers' modes (syscalls.bpf.h), compile-time constants each program is
 * made for: ANY tests the modes' rodata; ALL is memo_all_gen's (system-wide, no tracker:
 * record -a); TRK the trackers' (memo_by_gen, not memo_all_gen: a follow set, the pid
 * tracker's, or another tracker narrows the session; regs given).  DFLT or PT, beside
 * either: a context set the program is made for, no user stack copies (disp_shape). */
enum { SCRY_DISP_ANY = 0, SCRY_DISP_ALL = 1, SCRY_DISP_TRK = 2, SCRY_DISP_DFLT = 4, SCRY_DISP_PT = 8 };

/* The contexts a dispatcher of mode was made for (ctx_mask_in's shape): record's defaults
 * (pid, tid, procname), scry trace's (pid, tid), or 0: the session's ctx_mask. */
static __always_inline __u64 disp_shape(const int mode)
{
	return mode & SCRY_DISP_DFLT ? SCRY_CTX_BASIC_MASK : mode & SCRY_DISP_PT ? SCRY_CTX_PIDTID_MASK : 0;
}

/* Is current recorded?  Not scry itself; system-wide or a followed tgid (pid tracker, -p,
 * the command); then the other trackers.  *tp: current, asked for only when needed (may be
 * given); set whenever the answer is yes.  regs: the syscall's saved user registers, or
 * NULL; with them a memo hit answers without asking for the task.  trk (a constant): made
 * for SCRY_DISP_TRK, the tests of the other modes left out. */
static __always_inline bool target_ok_m(const void *regs, struct task_struct **tp, const bool trk)
{
	struct task_struct *t = *tp, *mt;
	__u32 zero = 0, tgid, key;
	struct scry_memo *m;
	__u64 gen, ug, cgroups;
	bool ok, given;
	__u8 ugm;

	if (!trk && memo_all_gen && regs)
		return target_ok_all(regs, tp);
	if (!trk && target_all && !track_mask && (current_by_helper || !(memo_by_regs && regs)))
		return current_not_self(tp);
	ugm = ug_prefilter;
	if (ugm) {   /* an untracked uid or gid, rejected before the memo */
		if (!t)
			t = *tp = bpf_get_current_task_btf();
		if (!ug_maybe_tracked(t->cred, ugm))
			return false;
	}
	m = bpf_map_lookup_elem(&memo, &zero);
	if (!m)
		return false;
	if (!trk && current_in_memo()) {   /* system-wide, a syscall program */
		if (!t)
			t = *tp = current_ro(m, regs);
		return t && t->tgid != self_tgid;
	}
	gen = tracked_gen;
	if (trk)    /* memo_current by the generation, its tests of the mode left out */
		mt = memo_gen_proves(m, regs, gen) ? m->task : NULL;
	else
		mt = memo_current(m, regs, gen);
	if (mt && m->gen == gen && task_ug(mt) == m->ug && task_cgroups(mt) == m->cgroups) {
		if (!m->ok)
			return false;
		/* current is the memo's task, proved: no helper call (a followed process's
		 * every event paid one, ~the -p row's cost over -a on this VM's SRSO thunk) */
		if (!t)
			*tp = mt;
		return true;
	}
	given = t != NULL;
	if (!t)
		t = *tp = bpf_get_current_task_btf();
	tgid = t->tgid;
	key = follow_forks ? tgid : t->pid;
	ug = task_ug(t);
	cgroups = task_cgroups(t);
	if (m->tgid == key && m->gen == gen && m->ug == ug && m->cgroups == cgroups) {
		ok = m->ok;       /* another thread of the process (or the thread): the same answer */
	} else {
		ok = tgid != self_tgid &&
		     (target_all || bpf_map_lookup_elem(&tracked, &key) != NULL) && track_ok(t, ug);
		m->gen = gen;
		m->ug = ug;
		m->cgroups = cgroups;
		m->tgid = key;
		m->ok = ok;
	}
	/* the identity is the answer's task, or none: a program without regs (tracepoints,
	 * fork) may have answered for a task that is not the memo's */
	if (trk || (memo_by_regs && regs)) {
		m->regs = (__u64)regs;
		m->task = t;
		m->stack = (__u64)t->stack;
		m->task_gen = gen;
		if (!given) {   /* read back: the kptr's (untrusted) type, as on a hit */
			asm volatile("" ::: "memory");
			*tp = m->task;
			if (!*tp)
				return false;
		}
	} else {
		m->regs = 0;
	}
	return ok;
}

static __always_inline bool target_ok(const void *regs, struct task_struct **tp)
{
	return target_ok_m(regs, tp, false);
}

/* target_ok in a program made for mode (a constant): the compiler then keeps no other
 * path in it (syscalls.bpf.h, scry_sys_*_all_btf and scry_sys_*_trk_btf). */
static __always_inline bool target_ok_in(const void *regs, struct task_struct **tp, const int mode)
{
	if (mode & SCRY_DISP_ALL)
		return target_ok_all(regs, tp);
	return target_ok_m(regs, tp, mode & SCRY_DISP_TRK);
}

/* Is process t (not current) followed?  As target_ok without the memo; with the cgroup
 * tracker only current can be asked, so another task is not. */
static __always_inline bool task_followed(struct task_struct *t)
{
	__u32 tgid = BPF_CORE_READ(t, tgid);
	const struct cred *c;
	__u64 ug = 0;

	if (tgid == self_tgid || (track_mask & SCRY_TRACK_CGROUP))
		return false;
	if (!target_all) {
		__u32 key = follow_key(t);

		if (!bpf_map_lookup_elem(&tracked, &key))
			return false;
	}
	if (track_mask & (SCRY_TRACK_UID | SCRY_TRACK_GID)) {
		c = BPF_CORE_READ(t, cred);
		ug = (__u64)BPF_CORE_READ(c, gid.val) << 32 | BPF_CORE_READ(c, uid.val);
	}
	return track_ok(t, ug);
}

/* The tracker maps changed (a followed process or vpid added): forget the memos. */
static __always_inline void target_gen_bump(void)
{
	__sync_fetch_and_add(&tracked_gen, 1);
}

static __always_inline struct scry_cpu_stats *cpu_stats(void);

/* Add tgid to a follow set (tracked, vpid_followed); a full set is counted, never silent. */
static __always_inline void follow_add(void *set, __u32 tgid)
{
	__u8 one = 1;

	if (bpf_map_update_elem(set, &tgid, &one, BPF_ANY)) {
		struct scry_cpu_stats *st = cpu_stats();

		if (st)
			st->unfollowed++;
	}
	target_gen_bump();
}

/* Follow tgid from now on (fork tracking). */
static __always_inline void target_add(__u32 tgid)
{
	follow_add(&tracked, tgid);
}

/* Per-process event sets: does current's process (t: current, as target_ok gave it) have a
 * set whose bit `bit` of its sc or tp bitmap is on?  Counted in the slot's hits when so.
 * Asked only for an event enabled for per-process sets alone (SCRY_SC_PIDSET,
 * SCRY_TP_PIDSET): for a process without a set, a bit of pid_set_bloom (or, when another
 * process with a set shares it, one hash lookup by tgid). */
static __always_inline bool pid_set_has(struct task_struct *t, bool tp, __u32 bit)
{
	__u32 tgid = t->tgid, slot;
	struct scry_pid_set *ps;
	__u64 w, *hits;

	if (!((pid_set_bloom[(tgid / 64) & (SCRY_PID_BLOOM_BITS / 64 - 1)] >> (tgid & 63)) & 1))
		return false;                     /* no process with a set has its bit */
	ps = bpf_map_lookup_elem(&pid_set_of, &tgid);
	if (!ps)
		return false;
	if (tp)
		w = ps->tp[(bit / 64) & (SCRY_MAX_TP / 64 - 1)];
	else
		w = ps->sc[(bit / 64) & (SCRY_MAX_SYSCALLS / 64 - 1)];
	if (!((w >> (bit & 63)) & 1))
		return false;
	slot = ps->slot;
	hits = bpf_map_lookup_elem(&pid_set_hits, &slot);
	if (hits)
		*hits += 1;
	return true;
}
