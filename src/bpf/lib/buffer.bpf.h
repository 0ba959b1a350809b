// SPDX-License-Identifier: GPL-2.0
/* buffer.bpf.h — how an event is reserved and committed, hidden from the sources: per-CPU
 * build areas (one per program kind, so that a program interrupting another never writes
 * over its event), the per-CPU stage that batches events (fixed-size ones written in
 * place, an area's of at most 1 KiB copied in) into one ring copy,
 * the per-CPU ring itself (no wakeup per event), and the loss counters of every event
 * that found no room.  An overwrite (flight recorder) backend is a second implementation of
 * these functions. */

/* Store v as type at b + pos (event bytes are written in place, host order). */
#define WR(type, b, pos, v) (*(type *)((b) + (pos)) = (type)(v))

/* The call stack contexts (the last ones) in a record: the header holds each one's word,
 * the frames go at the event's end, after its payload, only those there are (the
 * consumer puts them back in LTTng's place: scry_record_compact).  A word is the frame
 * count | the frames' offset in the record << 16.  The stacks are the current task's
 * (kernel: from the tracepoint's BPF runner down, the helper's two frames and this program
 * skipped; user: from its saved user registers, frame pointers), at most stack_max frames,
 * LTTng's ULONG_MAX mark after a full one.  A perf event's program (pe: its context) takes
 * them from the registers the sample interrupted instead: the kernel stack starts at the
 * interrupted function, not at the timer interrupt's handlers, and is empty when user
 * code was interrupted.  Read from the program itself, never from a subprogram: the
 * unwinder finds no ORC data for a BPF frame and falls back on a slow path, one more a
 * subprogram (callstack-kernel was 1.6x a bare bpf_get_task_stack's cost from there). */
#define SCRY_CTX_CALLSTACK_MASK ((1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER))
#define STACK_ROOM (8 * SCRY_CALLSTACK_SLOTS)   /* what the helper may write, and the mark */

/* Bytes past an event's end its stacks may take (a verifier constant: 0 without them;
 * shape: ctx_mask_in's). */
static __always_inline __u32 stacks_room_in(const __u64 shape)
{
	const __u64 mask = ctx_mask_in(shape);
	__u32 room = 0;

	/* tests the verifier settles (ctx_mask is rodata): no arithmetic left at run time */
	if (mask & (1ULL << SCRY_CTX_CALLSTACK_KERNEL))
		room += STACK_ROOM;
	if (mask & (1ULL << SCRY_CTX_CALLSTACK_USER))
		room += STACK_ROOM;
	return room;
}

static __always_inline __u32 stacks_room(void)
{
	return stacks_room_in(0);
}

/* One stack at base + at (the caller guarantees STACK_ROOM there), its word at base + word,
 * at - start its offset in the record; returns where it ends. */
static __always_inline __u32 stack_put(__u8 *base, __u32 start, __u32 at, __u32 word, const __u32 limit,
				       const bool user, void *pe)
{
	/* checked again in the register the helper is given (never true: the caller checked
	 * it), lest a compiler's spill and reload hand the verifier an unbounded copy */
	asm volatile("" : "+r"(at));
	if (at > limit - STACK_ROOM)
		return at;
	long n = pe ? bpf_get_stack(pe, base + at, SCRY_CALLSTACK_MAX * 8, user ? BPF_F_USER_STACK : 0)
		    : bpf_get_task_stack(bpf_get_current_task_btf(), base + at, SCRY_CALLSTACK_MAX * 8,
					 user ? BPF_F_USER_STACK : (3 & BPF_F_SKIP_FIELD_MASK));
	__u32 k = n > 0 ? (__u32)n / 8 : 0;

	if (k >= stack_max && k < SCRY_CALLSTACK_SLOTS) {
		*(__u64 *)(base + at + 8 * (k & 0xff)) = ~0ULL;
		k++;
	}
	if (k > SCRY_CALLSTACK_SLOTS)
		k = 0;
	asm volatile("" : "+r"(word));   /* checked in the register the store uses */
	if (word <= limit - 4)
		*(__u32 *)(base + word) = k | (at - start) << 16;
	return at + 8 * k;
}

/* The enabled stacks after the event of end bytes at base + start, in a buffer of limit
 * bytes from base (a verifier constant); returns the event's new end.  An event too long
 * for them (never: its writer reserved stacks_room()) keeps its end, the words 0. */
static __always_inline __u32 stacks_put(__u8 *base, __u32 start, __u32 end, const __u32 limit, void *pe)
{
	const __u64 mask = ctx_mask;
	__u32 at = start + end, w = start + head_bytes - 4;

	if (!(mask & SCRY_CTX_CALLSTACK_MASK))
		return end;
	if (start > limit || end > 0xffff - stacks_room() || at > limit - stacks_room() || w < 4)
		return end;
	if ((mask & SCRY_CTX_CALLSTACK_MASK) == SCRY_CTX_CALLSTACK_MASK) {
		at = stack_put(base, start, at, w - 4, limit, false, pe);
		if (at > limit - STACK_ROOM)
			return end;
		at = stack_put(base, start, at, w, limit, true, pe);
	} else {
		at = stack_put(base, start, at, w, limit, mask & (1ULL << SCRY_CTX_CALLSTACK_USER), pe);
	}
	return at - start;
}

static __always_inline struct scry_cpu_stats *cpu_stats(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&stats, &zero);
}

/* A global function, as count_truncated below: the loss paths' counting verified once
 * per program rather than at each of them (a call only when events are lost). */
__noinline int count_drops(__u32 nested, __u32 n)
{
	struct scry_cpu_stats *st = cpu_stats();
	if (!st)
		return 0;
	if (nested)
		st->nested += n;
	else
		st->discarded += n;
	return 0;
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
 * the returned pointer and closed with stage_commit(st, its size).  shape: as ctx_mask_in's
 * (the _in functions below likewise). */
static __always_inline __u8 *stage_begin_in(struct scry_stage **out, __u32 max, const __u64 shape)
{
	struct scry_stage *st = cpu_stage();
	__u32 len;

	if (ctx_mask_in(shape) & SCRY_CTX_CALLSTACK_MASK)
		max += stacks_room();
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

static __always_inline __u8 *stage_begin(struct scry_stage **out, __u32 max)
{
	return stage_begin_in(out, max, 0);
}

/* Give the stage back without an event (it outgrew its room, counted lost by the caller,
 * or it was deferred to the syscall's exit). */
static __always_inline void stage_abort(struct scry_stage *st)
{
	asm volatile("" ::: "memory");
	st->busy = 0;
}

/* Close the event of size bytes (its stacks put) begun at the stage's end; give it back. */
static __always_inline void stage_close(struct scry_stage *st, __u32 size)
{
	__u32 len = st->len;

	if (len <= SCRY_STAGE_SIZE - 2)
		WR(__u16, st->data, len, size);
	st->len = len + 2 + size;
	st->nevents++;
	asm volatile("" ::: "memory");
	st->busy = 0;
}

static __always_inline void stage_commit_in(struct scry_stage *st, __u32 size, const __u64 shape)
{
	__u32 len = st->len;

	if ((ctx_mask_in(shape) & SCRY_CTX_CALLSTACK_MASK) && len <= SCRY_STAGE_SIZE - 2)
		size = stacks_put(st->data, len + 2, size, SCRY_STAGE_SIZE, NULL);
	stage_close(st, size);
}

static __always_inline void stage_commit(struct scry_stage *st, __u32 size)
{
	stage_commit_in(st, size, 0);
}

/* A slot of exactly size bytes (a verifier constant) in this CPU's ring, or NULL with the
 * event counted lost; filled in place, then ring_commit(). */
static __always_inline void *ring_reserve_in(__u32 size, const __u64 shape)
{
	void *ring, *p;

	stage_drain();
	ring = cpu_ring();
	if (ctx_mask_in(shape) & SCRY_CTX_CALLSTACK_MASK)
		size += stacks_room();
	p = ring ? bpf_ringbuf_reserve(ring, size, 0) : NULL;
	if (!p)
		count_drop(false);
	return p;
}

static __always_inline void *ring_reserve(__u32 size)
{
	return ring_reserve_in(size, 0);
}

/* The event of size bytes (ring_reserve's size) at p: its stacks, if any, after it (the
 * reservation's room they do not take stays, unread: the words give the frames' place). */
static __always_inline void ring_commit_in(void *p, __u32 size, const __u64 shape)
{
	if (ctx_mask_in(shape) & SCRY_CTX_CALLSTACK_MASK)
		stacks_put(p, 0, size, size + stacks_room(), NULL);
	bpf_ringbuf_submit(p, BPF_RB_NO_WAKEUP);
}

static __always_inline void ring_commit(void *p, __u32 size)
{
	ring_commit_in(p, size, 0);
}

/* The largest event built in an area that is appended to the stage (stage_append); a
 * longer one goes to the ring by itself. */
#define STAGE_APPEND_MAX 1024

/* Append the event of len bytes built in area a to this CPU's stage, in one copy; false
 * (nothing done) when it is longer than STAGE_APPEND_MAX or the stage is held by the
 * code this program interrupted.  Where an event of a build area went to the ring by
 * itself, each one was a ring reservation (~55 ns on the 2-vCPU VM: its lock, and the
 * positions' cache lines shared with the consumer's CPU) after a flush of the stage (so
 * that the ring keeps this CPU's events in order): scry trace's events of strings and
 * structures, one in three of a `find`'s.  A global function: verified once per program,
 * not at each of submit's ~20 call sites. */
__noinline int stage_append(struct area *a, __u32 len)
{
	struct scry_stage *st = NULL;
	__u8 *p;

	if (!a || !len || len > STAGE_APPEND_MAX || !(p = stage_begin(&st, STAGE_APPEND_MAX)))
		return 0;
	/* in the register the helper gets (p's room is the verifier's constant) */
	asm volatile("" : "+r"(len));
	if (len > STAGE_APPEND_MAX || bpf_probe_read_kernel(p, len, a->buf)) {
		stage_abort(st);
		return 0;
	}
	stage_close(st, len);    /* the stacks are in the copy */
	return 1;
}

/* Hand len bytes of the build area, and the stacks (pe: a perf event's program's context,
 * else NULL), to this CPU's stage (stage_append), or else to its ring; count the event
 * lost if full. */
static __always_inline void submit_pe_in(struct area *a, __u32 len, void *pe, const __u64 shape)
{
	void *ring;

	if (ctx_mask_in(shape) & SCRY_CTX_CALLSTACK_MASK)
		len = stacks_put(a->buf, 0, len, SCRY_SCRATCH_SIZE, pe);
	if (stage_append(a, len))
		return;
	stage_drain();
	ring = cpu_ring();
	/* checked in the register the helper gets: where the compiler knows len's bound (a
	 * program made for the defaults, a constant header) it would drop the test the
	 * verifier needs */
	asm volatile("" : "+r"(len));
	if (len > SCRY_SCRATCH_SIZE)
		len = SCRY_SCRATCH_SIZE;
	if (!ring || bpf_ringbuf_output(ring, a->buf, len, BPF_RB_NO_WAKEUP))
		count_drop(false);
}

static __always_inline void submit_pe(struct area *a, __u32 len, void *pe)
{
	submit_pe_in(a, len, pe, 0);
}

static __always_inline void submit_in(struct area *a, __u32 len, const __u64 shape)
{
	submit_pe_in(a, len, NULL, shape);
}

static __always_inline void submit(struct area *a, __u32 len)
{
	submit_pe(a, len, NULL);
}

/* A global function: verified once per program, where inlined it was checked again at
 * each of its call sites on every path there (each string writer, in each of their copies:
 * ~600 of sys_enter's ~19k verified instructions); a call only on the rare truncated path. */
__noinline int count_truncated(void)
{
	struct scry_cpu_stats *st = cpu_stats();

	if (st)
		st->truncated++;
	return 0;
}
