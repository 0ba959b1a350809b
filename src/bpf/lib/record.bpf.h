// SPDX-License-Identifier: GPL-2.0
/* record.bpf.h — an event's bytes in their CTF layout (docs/FORMAT.md): the header (id,
 * timestamp), the contexts of ctx_mask (their code dropped by the verifier when disabled),
 * and user strings. */

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


/* The value of integer context c (every one but procname) for task t, as its CTF field
 * reads: int32 contexts sign-extended, uint32 ones zero-extended.  t is current. */
static __always_inline __s64 ctx_int(struct task_struct *t, const int c)
{
	switch (c) {
	case SCRY_CTX_PID:       return t->tgid;
	case SCRY_CTX_TID:       return t->pid;
	case SCRY_CTX_PPID:      return BPF_CORE_READ(t, real_parent, tgid);
	case SCRY_CTX_VPID:      return task_vnr(BPF_CORE_READ(t, group_leader, thread_pid));
	case SCRY_CTX_VTID:      return task_vnr(BPF_CORE_READ(t, thread_pid));
	case SCRY_CTX_CPU_ID:    return bpf_get_smp_processor_id();
	case SCRY_CTX_UID:       return (__u32)bpf_get_current_uid_gid();
	case SCRY_CTX_GID:       return bpf_get_current_uid_gid() >> 32;
	case SCRY_CTX_EUID:      return (__u32)BPF_CORE_READ(t, cred, euid.val);
	case SCRY_CTX_PRIO:      return (__s32)(BPF_CORE_READ(t, prio) - 100);
	case SCRY_CTX_NICE:      return (__s32)(BPF_CORE_READ(t, static_prio) - 120);
	case SCRY_CTX_CGROUP_NS: return (__u32)BPF_CORE_READ(t, nsproxy, cgroup_ns, ns.inum);
	case SCRY_CTX_IPC_NS:    return (__u32)BPF_CORE_READ(t, nsproxy, ipc_ns, ns.inum);
	case SCRY_CTX_MNT_NS:    return (__u32)BPF_CORE_READ(t, nsproxy, mnt_ns, ns.inum);
	case SCRY_CTX_NET_NS:    return (__u32)BPF_CORE_READ(t, nsproxy, net_ns, ns.inum);
	case SCRY_CTX_PID_NS:    return (__u32)pid_ns_inum(t);
	case SCRY_CTX_USER_NS:   return (__u32)BPF_CORE_READ(t, cred, user_ns, ns.inum);
	case SCRY_CTX_UTS_NS:    return (__u32)BPF_CORE_READ(t, nsproxy, uts_ns, ns.inum);
	default:                 return 0;
	}
}

/* Header (id, timestamp ts) and the enabled contexts; returns the position after them.
 * t: bpf_get_current_task_btf(), already taken by the caller's target filter (one helper
 * call gives pid, tid and comm). */
static __always_inline __u32 write_head_at(__u8 *b, __u16 id, struct task_struct *t, __u64 ts)
{
	__u32 pos = SCRY_EVENT_HEADER_SIZE;

	WR(__u16, b, 0, id);
	WR(__u64, b, 2, ts);
#pragma unroll
	for (int c = 0; c < SCRY_CTX_NR; c++) {
		if (!(ctx_mask & (1ULL << c)))
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

/* Where write_head puts the procname context (when enabled). */
static __always_inline __u32 procname_offset(void)
{
	__u32 off = SCRY_EVENT_HEADER_SIZE;

	for (int c = SCRY_CTX_PID; c < SCRY_CTX_PROCNAME; c++)
		if (ctx_mask & (1ULL << c))
			off += 4;
	return off;
}

/* The same, stamped now. */
static __always_inline __u32 write_head(__u8 *b, __u16 id, struct task_struct *t)
{
	return write_head_at(b, id, t, scry_now());
}

/* Bytes of header + enabled contexts, a verifier constant (set with ctx_mask), so that
 * fixed-size events are reserved in the ring and written in place. */
static __always_inline __u32 head_size(void)
{
	return head_bytes;
}

/* A user string at pos, at most max bytes with its NUL (max is clamped to 8..SCRY_STR_MAX):
 * NUL-terminated, "(null)" / "(fault)" when it cannot be read (*faults is then counted up:
 * mostly a page not mapped yet, which the syscall itself will fault in).  A string cut at
 * SCRY_STR_MAX is counted (a shorter max is the user's -s, not a loss).
 * bpf_probe_read_user_str() returns the bytes copied with the NUL, or < 0 (the buffer then
 * zeroed); kernels before the 2025 fix of strncpy_from_user_nofault() return 0 for "",
 * whose NUL they did copy: that is an empty string, not a fault.
 * The caller guarantees pos <= SCRY_EVENT_MAX. */
static __always_inline __u32 write_user_str(__u8 *b, __u32 pos, __u64 uptr, __u32 max, __u32 *faults)
{
	long n;

	if (max > SCRY_STR_MAX)
		max = SCRY_STR_MAX;
	if (max < 8)
		max = 8;
	if (!uptr) {
		__builtin_memcpy(b + pos, "(null)", 7);
		return pos + 7;
	}
	n = bpf_probe_read_user_str(b + pos, max, (const void *)uptr);
	if (n < 0) {
		(*faults)++;
		__builtin_memcpy(b + pos, "(fault)", 8);
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
