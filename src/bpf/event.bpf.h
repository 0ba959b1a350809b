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

/* Followed processes (tgid -> 1) when not system-wide; fork tracking adds children. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

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

/* The last answer of target_ok() on this CPU: consecutive events mostly come from the
 * same process, and a per-CPU array read is far cheaper than a hash lookup. */
struct target_memo {
	__u32 tgid;
	__u32 ok;
	__u64 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct target_memo);
} target_memo SEC(".maps");

static __always_inline bool target_ok(__u32 tgid)
{
	__u32 zero = 0;
	struct target_memo *m;
	__u64 *gen;
	bool ok;

	if (tgid == self_tgid)
		return false;
	if (target_all)
		return true;
	gen = bpf_map_lookup_elem(&tracked_gen, &zero);
	m = bpf_map_lookup_elem(&target_memo, &zero);
	if (!gen || !m)
		return bpf_map_lookup_elem(&tracked, &tgid) != NULL;
	if (m->tgid == tgid && m->gen == *gen)
		return m->ok;
	ok = bpf_map_lookup_elem(&tracked, &tgid) != NULL;
	m->tgid = tgid;
	m->gen = *gen;
	m->ok = ok;
	return ok;
}

/* Follow tgid from now on (fork tracking). */
static __always_inline void target_add(__u32 tgid)
{
	__u32 zero = 0;
	__u8 one = 1;
	__u64 *gen;

	bpf_map_update_elem(&tracked, &tgid, &one, BPF_ANY);
	gen = bpf_map_lookup_elem(&tracked_gen, &zero);
	if (gen)
		__sync_fetch_and_add(gen, 1);
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

/* Header (id, timestamp ts) and the enabled contexts; returns the position after them.
 * t: bpf_get_current_task_btf(), already taken by the caller's target filter (one helper
 * call gives pid, tid and comm). */
static __always_inline __u32 write_head_at(__u8 *b, __u16 id, struct task_struct *t, __u64 ts)
{
	__u32 pos = 0;

	WR(__u16, b, 0, id);
	WR(__u64, b, 2, ts);
	pos = SCRY_EVENT_HEADER_SIZE;
	if (ctx_mask & (1ULL << SCRY_CTX_PID)) {
		WR(__s32, b, pos, t->tgid);
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_TID)) {
		WR(__s32, b, pos, t->pid);
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_PPID)) {
		WR(__s32, b, pos, BPF_CORE_READ(t, real_parent, tgid));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_VPID)) {
		WR(__s32, b, pos, task_vnr(BPF_CORE_READ(t, group_leader, thread_pid)));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_VTID)) {
		WR(__s32, b, pos, task_vnr(BPF_CORE_READ(t, thread_pid)));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_PROCNAME)) {
		/* comm is NUL-padded by the kernel: two loads instead of bpf_get_current_comm() */
		WR(__u64, b, pos, *(__u64 *)&t->comm[0]);
		WR(__u64, b, pos + 8, *(__u64 *)&t->comm[8]);
		pos += SCRY_COMM_LEN;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_CPU_ID)) {
		WR(__s32, b, pos, bpf_get_smp_processor_id());
		pos += 4;
	}
	if (ctx_mask & ((1ULL << SCRY_CTX_UID) | (1ULL << SCRY_CTX_GID))) {
		__u64 ug = bpf_get_current_uid_gid();
		if (ctx_mask & (1ULL << SCRY_CTX_UID)) {
			WR(__u32, b, pos, (__u32)ug);
			pos += 4;
		}
		if (ctx_mask & (1ULL << SCRY_CTX_GID)) {
			WR(__u32, b, pos, ug >> 32);
			pos += 4;
		}
	}
	if (ctx_mask & (1ULL << SCRY_CTX_EUID)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, cred, euid.val));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_PRIO)) {
		WR(__s32, b, pos, BPF_CORE_READ(t, prio) - 100);
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_NICE)) {
		WR(__s32, b, pos, BPF_CORE_READ(t, static_prio) - 120);
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_CGROUP_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, nsproxy, cgroup_ns, ns.inum));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_IPC_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, nsproxy, ipc_ns, ns.inum));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_MNT_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, nsproxy, mnt_ns, ns.inum));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_NET_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, nsproxy, net_ns, ns.inum));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_PID_NS)) {
		WR(__u32, b, pos, pid_ns_inum(t));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_USER_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, cred, user_ns, ns.inum));
		pos += 4;
	}
	if (ctx_mask & (1ULL << SCRY_CTX_UTS_NS)) {
		WR(__u32, b, pos, BPF_CORE_READ(t, nsproxy, uts_ns, ns.inum));
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
