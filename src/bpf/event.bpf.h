/* event.bpf.h — shared pieces of scry's BPF programs: maps, load-time settings, the target
 * filter, and writing an event's header and contexts into a per-CPU build area, then
 * handing the finished bytes to this CPU's ring buffer without a wakeup.
 * Every event leaves here already in its CTF layout (docs/FORMAT.md). */
#ifndef SCRY_EVENT_BPF_H
#define SCRY_EVENT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "scry_abi.h"

#define SCRY_NO_EVENT 0xffff

/* Load-time settings (rodata): the verifier drops the code of disabled contexts. */
const volatile __u64 ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME);
const volatile __u32 head_bytes = SCRY_EVENT_HEADER_SIZE + 24; /* header + contexts of ctx_mask */
const volatile __u32 self_tgid = 0;        /* scry itself: never recorded */
const volatile __u8 target_all = 0;        /* 1: system-wide; 0: only tgids in `tracked` */
const volatile __u16 fork_event_id = SCRY_NO_EVENT;
const volatile __u16 unknown_entry_id = SCRY_NO_EVENT;
const volatile __u16 unknown_exit_id = SCRY_NO_EVENT;
const volatile __u32 track_mask = 0;       /* SCRY_TRACK_* trackers in use */
const volatile __u32 n_track_cgroups = 0;

/* The session's switch: every event starts and stops being written at one instant, when
 * user space flips it through the mmapped .bss (scry_probes_set_recording).  The programs
 * are attached before it is turned on and detached after it is turned off, so attaching
 * and detaching one tracepoint after another does not show in the trace.  Fork tracking
 * does not wait for it: a child forked before the start is followed all the same. */
volatile __u32 scry_recording = 0;

static __always_inline bool recording(void)
{
	return scry_recording;
}

struct ring_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);         /* resized by user space before load */
};

/* One ring buffer per CPU (index = CPU), created and inserted by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);               /* resized to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct ring_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_cpu_stats);
} stats SEC(".maps");

/* Followed processes (tgid -> 1) when not system-wide; fork tracking adds children, and a
 * process leaves when its last thread exits (scry_exit), so that a reused pid is never
 * followed by mistake.  Allocated as entries come (the set holds the live ones). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCRY_FOLLOW_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* Trackers (SCRY_TRACK_*): an event passes when its task is in every tracker in use. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} track_vpid SEC(".maps"), track_uid SEC(".maps"), track_gid SEC(".maps");

/* The vpid tracker's followers: processes forked by a process it passes (pid in the initial
 * namespace -> 1).  Not their vpids: those mean other processes in other namespaces.  Left
 * at exit, as `tracked`. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCRY_FOLLOW_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
} vpid_followed SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, SCRY_MAX_TRACK_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} track_cgroup SEC(".maps");

/* Event build areas, one per CPU and program kind (index cpu * AREA_NR + kind) so that an
 * interrupt-context program never writes over the area of the program it interrupted.
 * A plain array: per-CPU map values are limited to 32 KiB. */
enum { AREA_SYS_ENTER, AREA_SYS_EXIT, AREA_TP, AREA_FORK, AREA_NR };
_Static_assert(AREA_NR == SCRY_AREAS_PER_CPU, "scry_abi.h SCRY_AREAS_PER_CPU");

struct area {
	__u32 busy;
	__u32 pos;          /* generic tracepoints: write position, kept here (not on the */
	__u32 copy_dst;     /* stack) so the verifier checks the bpf_loop callback once  */
	__u32 copy_src;
	__u32 nest;         /* syscall ops: where the parent element of nested ops starts */
	__u32 nest_n;       /* ... and whether it was read (0: nested ops write nothing) */
	__u32 faults;       /* syscall ops: user strings or string arrays that could not be read */
	__u32 pad;
	__u64 regs[8];      /* syscall ops: arguments 0..5, [6] the return value */
	__u64 src[8];       /* syscall ops: where the strings of argument i are read (regs[i],
			     * except for an execve entry rebuilt from the new image) */
	__u8 buf[SCRY_SCRATCH_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, AREA_NR);        /* resized to possible CPUs * AREA_NR */
	__type(key, __u32);
	__type(value, struct area);
} areas SEC(".maps");

/* Per-CPU staging buffers (index = CPU), see scry_abi.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);               /* resized to the number of possible CPUs */
	__uint(map_flags, BPF_F_MMAPABLE);    /* the consumer reads len to know when to flush */
	__type(key, __u32);
	__type(value, struct scry_stage);
} stages SEC(".maps");

/* Generation of `tracked`: bumped whenever a tgid is added, so that the per-CPU cache
 * below never keeps a stale "not followed" answer. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} tracked_gen SEC(".maps");

/* The current task's memo on this CPU (struct scry_memo in scry_abi.h): consecutive events
 * mostly come from the same task, and a per-CPU array read is far cheaper than a helper
 * call and hash lookups.  Created by user space without the kptr when the kernel has no
 * untrusted kptrs (Linux < 6.4): memo_by_regs = 0 then, and only the answer part is used,
 * keyed by tgid. */
const volatile __u8 memo_by_regs = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_memo);
} memo SEC(".maps");

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

/* Does process t pass the vpid tracker: its vpid (the group leader's, in its namespace) is
 * tracked, or it was forked by a process that passes? */
static __always_inline bool vpid_ok(struct task_struct *t)
{
	__u32 vpid = task_vnr(BPF_CORE_READ(t, group_leader, thread_pid)), tgid = BPF_CORE_READ(t, tgid);

	return bpf_map_lookup_elem(&track_vpid, &vpid) || bpf_map_lookup_elem(&vpid_followed, &tgid);
}

/* The trackers other than the pid one (t is current, ug its real gid << 32 | uid). */
static __always_inline bool track_ok(struct task_struct *t, __u64 ug)
{
	if (track_mask & (SCRY_TRACK_UID | SCRY_TRACK_GID)) {
		__u32 uid = ug, gid = ug >> 32;

		if ((track_mask & SCRY_TRACK_UID) && !bpf_map_lookup_elem(&track_uid, &uid))
			return false;
		if ((track_mask & SCRY_TRACK_GID) && !bpf_map_lookup_elem(&track_gid, &gid))
			return false;
	}
	if ((track_mask & SCRY_TRACK_VPID) && !vpid_ok(t))
		return false;
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

static __always_inline __u64 task_cgroups(struct task_struct *t)
{
	return (track_mask & SCRY_TRACK_CGROUP) ? (__u64)t->cgroups : 0;
}

/* Current, proved from memo m for a syscall program given regs (see struct scry_memo), or
 * NULL.  An untrusted pointer: for reads only. */
static __always_inline struct task_struct *memo_current(struct scry_memo *m, const void *regs)
{
	struct task_struct *mt;

	if (!memo_by_regs || !regs || m->regs != (__u64)regs)
		return NULL;
	mt = m->task;
	if (!mt || (__u64)mt->stack != m->stack || mt->exit_state)
		return NULL;
	return mt;
}

/* Is current recorded?  Not scry itself; system-wide or a followed tgid (pid tracker, -p,
 * the command); then the other trackers.  *tp: current, asked for only when needed (may be
 * given); set whenever the answer is yes.  regs: the syscall's saved user registers, or
 * NULL; with them a memo hit answers without asking for the task. */
static __always_inline bool target_ok(const void *regs, struct task_struct **tp)
{
	struct task_struct *t = *tp, *mt;
	__u32 zero = 0, tgid;
	struct scry_memo *m;
	__u64 *gen, ug, cgroups;
	bool ok;

	if (target_all && !track_mask) {
		if (!t)
			t = *tp = bpf_get_current_task_btf();
		return t->tgid != self_tgid;
	}
	gen = bpf_map_lookup_elem(&tracked_gen, &zero);
	m = bpf_map_lookup_elem(&memo, &zero);
	if (!gen || !m)
		return false;
	mt = memo_current(m, regs);
	if (mt && m->gen == *gen && task_ug(mt) == m->ug && task_cgroups(mt) == m->cgroups) {
		if (!m->ok)
			return false;
		if (!t)
			*tp = bpf_get_current_task_btf();
		return true;
	}
	if (!t)
		t = *tp = bpf_get_current_task_btf();
	tgid = t->tgid;
	ug = task_ug(t);
	cgroups = task_cgroups(t);
	if (m->tgid == tgid && m->gen == *gen && m->ug == ug && m->cgroups == cgroups) {
		ok = m->ok;       /* another thread of the process: the same answer */
	} else {
		ok = tgid != self_tgid &&
		     (target_all || bpf_map_lookup_elem(&tracked, &tgid) != NULL) && track_ok(t, ug);
		m->gen = *gen;
		m->ug = ug;
		m->cgroups = cgroups;
		m->tgid = tgid;
		m->ok = ok;
	}
	/* the identity is the answer's task, or none: a program without regs (tracepoints,
	 * fork) may have answered for a task that is not the memo's */
	if (memo_by_regs && regs) {
		m->regs = (__u64)regs;
		m->task = t;
		m->stack = (__u64)t->stack;
	} else {
		m->regs = 0;
	}
	return ok;
}

/* The tracker maps changed (a followed process or vpid added): forget the memos. */
static __always_inline void target_gen_bump(void)
{
	__u32 zero = 0;
	__u64 *gen = bpf_map_lookup_elem(&tracked_gen, &zero);

	if (gen)
		__sync_fetch_and_add(gen, 1);
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

static __always_inline struct scry_cpu_stats *cpu_stats(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline void count_drops(bool nested, __u32 n)
{
	struct scry_cpu_stats *st = cpu_stats();
	if (!st)
		return;
	if (nested)
		st->nested += n;
	else
		st->discarded += n;
}

static __always_inline void count_drop(bool nested)
{
	count_drops(nested, 1);
}

/* Take this CPU's build area of the given kind; NULL (and the event counted lost) when a
 * preempted or nested run of the same kind holds it. */
static __always_inline struct area *area_get(__u32 kind)
{
	__u32 key = bpf_get_smp_processor_id() * AREA_NR + kind;
	struct area *a = bpf_map_lookup_elem(&areas, &key);
	if (!a)
		return NULL;
	if (__sync_lock_test_and_set(&a->busy, 1)) {
		count_drop(true);
		return NULL;
	}
	return a;
}

static __always_inline void area_put(struct area *a)
{
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&a->busy = 0;
}

#define WR(type, b, pos, v) (*(type *)((b) + (pos)) = (type)(v))

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
	return write_head_at(b, id, t, bpf_ktime_get_ns());
}

/* Bytes of header + enabled contexts, a verifier constant (set with ctx_mask), so that
 * fixed-size events are reserved in the ring and written in place. */
static __always_inline __u32 head_size(void)
{
	return head_bytes;
}

static __always_inline void *cpu_ring(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&rings, &cpu);
}

static __always_inline struct scry_stage *cpu_stage(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&stages, &cpu);
}

/* Hand the staged events to the ring (caller holds st->busy or runs where no writer of
 * this CPU can be interrupted). */
static __always_inline void stage_flush(struct scry_stage *st)
{
	__u32 len = st->len;
	void *ring;

	if (len > 2 && len <= SCRY_STAGE_SIZE) {
		ring = cpu_ring();
		if (!ring || bpf_ringbuf_output(ring, st->data, len, BPF_RB_NO_WAKEUP))
			count_drops(false, st->nevents);
	}
	st->len = 0;
	st->nevents = 0;
}

/* Before writing any event outside the stage: flush what is staged, so that the ring
 * keeps this CPU's events in time order.  Not possible when we interrupted a stage
 * writer (busy): the stream writer puts the event back in place (ctf/stream.c). */
static __always_inline void stage_drain(void)
{
	struct scry_stage *st = cpu_stage();

	if (st && !st->busy && st->len > 2) {
		st->busy = 1;
		asm volatile("" ::: "memory");
		stage_flush(st);
		asm volatile("" ::: "memory");
		st->busy = 0;
	}
}

/* Room for an event of at most max bytes (a verifier constant) in this CPU's stage,
 * flushed first when too full.  NULL when the stage is held by the code this program
 * interrupted: the caller then writes to the ring directly.  The event is then written at
 * the returned pointer and closed with stage_commit(st, its size). */
static __always_inline __u8 *stage_begin(struct scry_stage **out, __u32 max)
{
	struct scry_stage *st = cpu_stage();
	__u32 len;

	if (!st || st->busy)
		return NULL;
	st->busy = 1;
	asm volatile("" ::: "memory");
	len = st->len;
	if (len < 2 || len > SCRY_STAGE_SIZE - 2 - max) {
		if (len >= 2)
			stage_flush(st);
		WR(__u16, st->data, 0, SCRY_STAGE_MARK);
		st->len = len = 2;
	}
	*out = st;
	return st->data + len + 2;
}

/* Give the stage back without an event (it outgrew its room, counted lost by the caller,
 * or it was deferred to the syscall's exit). */
static __always_inline void stage_abort(struct scry_stage *st)
{
	asm volatile("" ::: "memory");
	st->busy = 0;
}

static __always_inline void stage_commit(struct scry_stage *st, __u32 size)
{
	__u32 len = st->len;

	if (len <= SCRY_STAGE_SIZE - 2)
		WR(__u16, st->data, len, size);
	st->len = len + 2 + size;
	st->nevents++;
	asm volatile("" ::: "memory");
	st->busy = 0;
}

/* A slot of exactly size bytes (a verifier constant) in this CPU's ring, or NULL with the
 * event counted lost; filled in place, then ring_commit(). */
static __always_inline void *ring_reserve(__u32 size)
{
	void *ring, *p;

	stage_drain();
	ring = cpu_ring();
	p = ring ? bpf_ringbuf_reserve(ring, size, 0) : NULL;
	if (!p)
		count_drop(false);
	return p;
}

static __always_inline void ring_commit(void *p)
{
	bpf_ringbuf_submit(p, BPF_RB_NO_WAKEUP);
}

/* Hand len bytes of the build area to this CPU's ring; count the event lost if full. */
static __always_inline void submit(struct area *a, __u32 len)
{
	void *ring;

	stage_drain();
	ring = cpu_ring();
	if (len > SCRY_SCRATCH_SIZE)
		len = SCRY_SCRATCH_SIZE;
	if (!ring || bpf_ringbuf_output(ring, a->buf, len, BPF_RB_NO_WAKEUP))
		count_drop(false);
}

static __always_inline void count_truncated(void)
{
	struct scry_cpu_stats *st = cpu_stats();

	if (st)
		st->truncated++;
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

#endif /* SCRY_EVENT_BPF_H */
