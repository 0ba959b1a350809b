// SPDX-License-Identifier: GPL-2.0
/* scry.bpf.c — scry's kernel programs.
 *   sys_enter / sys_exit  every syscall (BTF tracepoints; classic raw_syscalls fallback),
 *                         arguments from the per-number descriptor table, user strings read;
 *                         an entry whose strings are not mapped yet is written at the exit
 *   scry_tp               any tracefs tracepoint, its payload built from the raw record by
 *                         the copy operations of its descriptor (slot = attach cookie)
 *   sched_process_fork    fork tracking of followed processes + the fork event in
 *                         lttng-modules' layout
 * All events are written in their final CTF layout (docs/FORMAT.md). */
#include "event.bpf.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct scry_sc_desc);
} syscalls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_MAX_TP);
	__type(key, __u32);
	__type(value, struct scry_tp_desc);
} tps SEC(".maps");

/* Counting mode (SCRY_SC_COUNT): entry time per task, totals per syscall and CPU. */
struct task_entry {
	__u64 ts;
	__s64 nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_entry);
} task_entry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct scry_sc_count);
} sc_counts SEC(".maps");

static __always_inline void count_enter(struct task_struct *t, long id)
{
	struct task_entry *te = bpf_task_storage_get(&task_entry, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (te) {
		te->ts = bpf_ktime_get_ns();
		te->nr = id;
	}
}

static __always_inline void count_exit(struct task_struct *t, long id, long ret)
{
	struct task_entry *te = bpf_task_storage_get(&task_entry, t, 0, 0);
	struct scry_sc_count *c;
	__u32 nr = id;

	if (!te || !te->ts || te->nr != id)
		return;
	c = bpf_map_lookup_elem(&sc_counts, &nr);
	if (c) {
		c->calls++;
		if (ret < 0 && ret >= -4095)
			c->errors++;
		c->ns += bpf_ktime_get_ns() - te->ts;
	}
	te->ts = 0;
}

/* Deferred entries.  bpf_probe_read_user_str() cannot fault a page in: a string in a page
 * the process has not touched yet (a child's rodata right after fork, glibc's "" for
 * fstat) reads as a fault at sys_enter.  The syscall itself faults it in, so such an entry
 * is kept here and written at sys_exit (or, for execve, at sched_prepare_exec, before the
 * old image goes) with its entry time and its strings read again. */
struct deferred {
	__u64 ts;             /* entry time */
	__u64 args[SCRY_MAX_ARGS];
	__u64 comm[2];        /* the task's name at entry (exec changes it) */
	__s32 nr;
	__u32 pending;        /* 1: an entry waits for its syscall's exit */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct deferred);
} deferred SEC(".maps");

/* Entries kept and not written yet, over all tasks: those still waiting when recording
 * stops (a call blocked at the end) are reported lost by user space. */
__u64 deferred_waiting = 0;

/* The writing of a fixed-layout entry with strings (write_args): its position and the
 * strings that could not be read, kept in map memory, not on the stack, so that the
 * verifier sees one unknown position after each argument instead of following every
 * combination of string lengths. */
struct args_walk {
	__u32 pos;
	__u32 faults;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct args_walk);
} args_walk SEC(".maps");

/* Keep t's entry of syscall id for its exit; false (write it now) when no room. */
static __always_inline bool defer_entry(struct task_struct *t, long id, const __u64 *args, __u64 ts)
{
	struct deferred *de = bpf_task_storage_get(&deferred, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!de || de->pending)   /* pending: an exit was missed; that entry waits for the next */
		return false;
	de->ts = ts;
	de->nr = id;
	de->comm[0] = *(__u64 *)&t->comm[0];
	de->comm[1] = *(__u64 *)&t->comm[8];
	for (int i = 0; i < SCRY_MAX_ARGS; i++)
		de->args[i] = args[i];
	de->pending = 1;
	__sync_fetch_and_add(&deferred_waiting, 1);
	return true;
}

/* ---- syscalls ---------------------------------------------------------------------- */

/* Entry of a syscall without string arguments: nargs (a constant here) int64 values,
 * written in place in the ring. */
static __always_inline void enter_fixed(const struct scry_sc_desc *d, const __u64 *args, const int nargs,
					struct task_struct *t)
{
	__u32 hs = head_size();
	struct scry_stage *st = NULL;
	__u8 *p = stage_begin(&st, hs + 8 * nargs);

	if (!p && !(p = ring_reserve(hs + 8 * nargs)))
		return;
	write_head(p, d->entry_id, t);
	for (int i = 0; i < nargs; i++) {
		__u64 v = args[i];

		if (d->s32_mask & (1 << i))
			v = (__s64)(__s32)v;
		else if (d->u32_mask & (1 << i))
			v = (__u32)v;
		WR(__u64, p, hs + 8 * i, v);
	}
	if (st)
		stage_commit(st, hs + 8 * nargs);
	else
		ring_commit(p);
}

/* The arguments of an entry event with user strings at p + w->pos, in a room of
 * str_limit + SCRY_STR_MAX bytes; returns the end, or 0 when the event outgrew the room
 * (then the caller drops it).  Strings that could not be read are counted in w->faults. */
static __always_inline __u32 write_args(__u8 *p, struct args_walk *w, __u32 str_limit,
					const struct scry_sc_desc *d, const __u64 *args)
{
	for (int i = 0; i < SCRY_MAX_ARGS; i++) {
		__u32 pos = *(volatile __u32 *)&w->pos;
		__u64 v = args[i];

		if (i >= d->nargs)
			break;
		if (d->str_mask & (1 << i)) {
			if (pos > str_limit)
				return 0;
			*(volatile __u32 *)&w->pos = write_user_str(p, pos, v, SCRY_STR_MAX, &w->faults);
			continue;
		}
		if (pos > str_limit + SCRY_STR_MAX - 8)
			return 0;
		if (d->s32_mask & (1 << i))
			v = (__s64)(__s32)v;
		else if (d->u32_mask & (1 << i))
			v = (__u32)v;
		WR(__u64, p, pos, v);
		*(volatile __u32 *)&w->pos = pos + 8;
	}
	return w->pos;
}

/* Room in the stage for an entry with one string: header, contexts and other arguments
 * within STAGE_STR_HEAD bytes, plus the string. */
#define STAGE_STR_HEAD 512
#define STAGE_STR_MAX  (STAGE_STR_HEAD + SCRY_STR_MAX)

/* Entry of syscall id with user strings, stamped ts.  With one string (openat, execve, ...)
 * it is written in the stage like fixed events; with several (rename, mount, ...) it is
 * built in the per-CPU area, whose size allows them all, then copied to the ring.
 * defer: a string that cannot be read sends the whole entry to the syscall's exit. */
static __always_inline void enter_strings(const struct scry_sc_desc *d, long id, const __u64 *args,
					  struct task_struct *t, __u64 ts, bool defer)
{
	struct scry_stage *st = NULL;
	__u32 pos, zero = 0;
	struct args_walk *w = bpf_map_lookup_elem(&args_walk, &zero);
	struct area *a;
	__u8 *p;

	if (!w)
		return;
	w->faults = 0;
	if (!(d->str_mask & (d->str_mask - 1)) && (p = stage_begin(&st, STAGE_STR_MAX))) {
		w->pos = write_head_at(p, d->entry_id, t, ts);
		pos = write_args(p, w, STAGE_STR_HEAD, d, args);
		if (!pos) {
			stage_abort(st);
			count_drop(false);
		} else if (w->faults && defer && defer_entry(t, id, args, ts)) {
			stage_abort(st);
		} else {
			stage_commit(st, pos);
		}
		return;
	}
	a = area_get(AREA_SYS_ENTER);
	if (!a)
		return;
	w->pos = write_head_at(a->buf, d->entry_id, t, ts);
	pos = write_args(a->buf, w, SCRY_EVENT_MAX, d, args);
	if (!pos)
		count_drop(false);
	else if (!(w->faults && defer && defer_entry(t, id, args, ts)))
		submit(a, pos);
	area_put(a);
}

/* ---- syscalls that capture user memory: payload written by operations -------------- */

struct sc_walk {
	const struct scry_sc_op *ops;
	struct area *a;
};

/* Where a SEQ, IOV or DIRENTS operation reads (*ptr) and its length before the max bound
 * (*len); false for a nested operation whose parent was not read (it writes nothing). */
static __always_inline bool op_source(struct area *a, const struct scry_sc_op *op, __u64 *ptr, __u64 *len)
{
	__u32 nest = a->nest, bits;
	__u8 *buf = a->buf;
	__u64 l;
	__s64 v;

	*ptr = a->regs[op->arg & 7];
	if (op->flags & SCRY_SOPF_NESTED) {
		if (!a->nest_n || nest > SCRY_EVENT_MAX)
			return false;
		*ptr = *(__u64 *)(buf + nest + op->ptr_off);
	}
	switch (op->len_src) {
	case SCRY_SLEN_ARG:
		l = a->regs[op->len_arg & 7];
		break;
	case SCRY_SLEN_RET:
		l = (__s64)a->regs[6] > 0 ? a->regs[6] : 0;
		break;
	case SCRY_SLEN_UPTR: {
		__u32 u = 0;

		if (bpf_probe_read_user(&u, 4, (void *)a->regs[op->len_arg & 7]))
			u = 0;
		l = u;
		break;
	}
	case SCRY_SLEN_ARG_BITS:
		v = (__s32)a->regs[op->len_arg & 7];
		bits = op->elem * 8;
		l = v > 0 && bits ? ((__u64)v + bits - 1) / bits : 0;
		break;
	case SCRY_SLEN_FIELD32:
		l = nest <= SCRY_EVENT_MAX ? *(__u32 *)(buf + nest + op->len_arg) : 0;
		break;
	case SCRY_SLEN_FIELD64:
		l = nest <= SCRY_EVENT_MAX ? *(__u64 *)(buf + nest + op->len_arg) : 0;
		break;
	default:
		l = op->max;
		break;
	}
	if ((op->flags & SCRY_SOPF_OK_ONLY) && (__s64)a->regs[6] < 0)
		l = 0;
	if (!*ptr)
		l = 0;
	*len = l;
	return true;
}

/* SEQ: uint32 n, then n elements.  A SEQ that is not nested becomes the parent of the
 * nested operations that follow. */
static __always_inline void op_seq(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	__u32 elem = op->elem, n, bytes, room;
	__u8 *buf = a->buf;
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	if (!elem)
		len = 0;
	n = len < op->max ? (__u32)len : op->max;
	bytes = n * elem;
	room = SCRY_SEQ_MAX;
	if (bytes > room) {
		n = room / elem;
		bytes = n * elem;
		count_truncated();
	}
	if (bytes > SCRY_SEQ_MAX)
		bytes = 0;
	if (bytes && bpf_probe_read_user(buf + pos + 4, bytes, (void *)ptr)) {
		n = 0;
		bytes = 0;
	}
	WR(__u32, buf, pos, n);
	if (!(op->flags & SCRY_SOPF_NESTED)) {
		a->nest = pos + 4;
		a->nest_n = n;
	}
	a->pos = pos + 4 + bytes;
}

/* One IOV walk (bpf_loop callback data). */
struct iov_walk {
	struct area *a;
	__u64 vec;            /* the user iovec array */
	__u32 n;              /* iovecs to read */
	__u32 done;           /* iovecs written */
	__u32 each;           /* data bytes kept per iovec */
	__u32 room;           /* data bytes left for the whole operation */
	__u64 ret_left;       /* SCRY_SOPF_RETDATA: bytes of the return value not yet placed */
	__u32 retdata;
};

/* iovec i: {u64 iov_base, u64 iov_len} read in place, then uint32 dn and dn bytes */
static long iov_one(__u32 i, void *data)
{
	struct iov_walk *w = data;
	struct area *a = w->a;
	__u32 pos = a->pos;
	__u8 *buf = a->buf;
	__u64 base, len, dn;

	if (i >= w->n || pos > SCRY_EVENT_MAX)
		return 1;
	if (bpf_probe_read_user(buf + pos, 16, (void *)(w->vec + 16 * (__u64)i)))
		return 1;
	base = *(__u64 *)(buf + pos);
	len = *(__u64 *)(buf + pos + 8);
	if (w->retdata) {
		if (len > w->ret_left)
			len = w->ret_left;
		w->ret_left -= len;
	}
	dn = len < w->each ? len : w->each;
	if (dn > w->room) {
		dn = w->room;
		count_truncated();
	}
	if (dn > SCRY_SEQ_MAX)
		dn = 0;
	if (dn && bpf_probe_read_user(buf + pos + 20, dn, (void *)base))
		dn = 0;
	w->room -= dn;
	WR(__u32, buf, pos + 16, dn);
	a->pos = pos + 20 + dn;
	w->done++;
	return 0;
}

/* IOV: uint32 n, then the iovecs with their data (scry_abi.h). */
static __always_inline void op_iov(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct iov_walk w = { .a = a, .room = SCRY_SEQ_MAX };
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	w.vec = ptr;
	w.n = len < op->max ? (__u32)len : op->max;
	w.each = op->elem;
	w.retdata = op->flags & SCRY_SOPF_RETDATA;
	w.ret_left = (__s64)a->regs[6] > 0 ? a->regs[6] : 0;
	a->pos = pos + 4;
	bpf_loop(w.n, iov_one, &w, 0);
	WR(__u32, a->buf, pos, w.done);
}

/* One DIRENTS walk (bpf_loop callback data). */
struct dent_walk {
	struct area *a;
	__u64 ubuf;           /* the user buffer */
	__u64 off;            /* of the next record in it */
	__u64 end;            /* bytes the call returned */
	__u64 copy_end;       /* records are copied while they end within these bytes */
	__u32 copying;        /* 0 once a record was not copied: the rest are only counted */
	__u32 n;              /* records copied */
	__u32 total;          /* records counted */
};

/* Record i: copied (the 19 bytes up to d_name read in place, then d_name, at most
 * d_reclen - 19 bytes with its NUL) or only counted (its d_reclen read).  Stops at a
 * record that does not end within the bytes returned. */
static long dent_one(__u32 i, void *data)
{
	struct dent_walk *w = data;
	struct area *a = w->a;
	__u32 pos = a->pos, max;
	__u8 *buf = a->buf;
	__u16 reclen = 0;
	long n;

	if (w->off + 19 > w->end)
		return 1;
	if (w->copying && w->off + 19 <= w->copy_end && pos <= SCRY_EVENT_MAX) {
		if (bpf_probe_read_user(buf + pos, 19, (void *)(w->ubuf + w->off)))
			return 1;
		reclen = *(__u16 *)(buf + pos + 16);
	} else {
		w->copying = 0;
		if (bpf_probe_read_user(&reclen, 2, (void *)(w->ubuf + w->off + 16)))
			return 1;
	}
	if (reclen < 20 || w->off + reclen > w->end)
		return 1;
	if (w->copying && w->off + reclen <= w->copy_end && pos <= SCRY_EVENT_MAX) {
		max = reclen - 19;
		if (max > SCRY_NAME_MAX)
			max = SCRY_NAME_MAX;
		n = bpf_probe_read_user_str(buf + pos + 19, max, (void *)(w->ubuf + w->off + 19));
		if (n <= 0) {
			buf[pos + 19] = 0;
			n = 1;
		}
		a->pos = pos + 19 + (__u32)n;
		w->n++;
	} else {
		w->copying = 0;
	}
	w->off += reclen;
	w->total++;
	return 0;
}

/* DIRENTS: the records of a getdents64 buffer, counted and the first ones copied
 * (scry_abi.h). */
static __always_inline void op_dirents(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct dent_walk w = { .a = a, .copying = 1 };
	__u8 *buf = a->buf;
	__u64 ptr, len;

	if (!op_source(a, op, &ptr, &len)) {
		a->pos = pos;
		return;
	}
	if ((__s64)a->regs[6] < 0 || !ptr) {
		WR(__u32, buf, pos, 0);
		a->pos = pos + 4;
		return;
	}
	w.ubuf = ptr;
	w.end = len;
	w.copy_end = len < op->max ? len : op->max;
	if (w.copy_end > SCRY_DIRENTS_MAX)
		w.copy_end = SCRY_DIRENTS_MAX;
	a->pos = pos + 12;
	bpf_loop(SCRY_DIRENTS_COUNT, dent_one, &w, 0);
	WR(__u32, buf, pos, 1);
	WR(__u32, buf, pos + 4, w.total);
	WR(__u32, buf, pos + 8, w.n);
}

/* Counting the pointers of a user string array from index `count` on (bpf_loop). */
struct strv_walk {
	__u64 arr;
	__u32 count;          /* pointers before the NULL seen so far */
	__u32 bad;            /* a slot could not be read */
};

static long strv_count_one(__u32 i, void *data)
{
	struct strv_walk *w = data;
	__u64 p = 0;

	if (bpf_probe_read_user(&p, 8, (void *)(w->arr + 8 * (__u64)w->count))) {
		w->bad = 1;
		return 1;
	}
	if (!p)
		return 1;
	w->count++;
	return 0;
}

/* STRV (scry_abi.h): the array's pointer, count, n, then n strings, read at src (see struct
 * area).  An array or string that cannot be read is a fault. */
static __always_inline void op_strv(struct area *a, const struct scry_sc_op *op, __u32 pos)
{
	struct strv_walk w = { .arr = a->src[op->arg & 7] };
	__u32 start = pos, n = 0, max = op->max, each = op->elem;
	bool end = !w.arr, full = false;
	__u8 *buf = a->buf;

	pos += 16;
	if (each > SCRY_STR_MAX)
		each = SCRY_STR_MAX;
	for (__u32 i = 0; i < SCRY_STRV_MAX && !end; i++) {
		__u64 p = 0;
		long len;

		if (i >= max)
			break;
		if (pos > SCRY_EVENT_MAX) {
			full = true;
			break;
		}
		if (bpf_probe_read_user(&p, 8, (void *)(w.arr + 8 * i))) {
			a->faults++;
			w.bad = 1;
			break;
		}
		if (!p) {
			end = true;
			break;
		}
		len = bpf_probe_read_user_str(buf + pos, each, (void *)p);
		if (len < 0) {
			a->faults++;
			break;
		}
		if (len == 0) {   /* "" on kernels before the strncpy_from_user_nofault fix */
			buf[pos] = 0;
			len = 1;
		}
		pos += len;
		n++;
	}
	w.count = n;
	if (!end && !w.bad)
		bpf_loop(SCRY_STRV_COUNT_MAX - n, strv_count_one, &w, 0);
	if (full && w.count > n)
		count_truncated();
	if (w.bad && !w.count)
		w.count = SCRY_STRV_UNREADABLE;
	if (start <= SCRY_EVENT_MAX) {
		WR(__u64, buf, start, a->regs[op->arg & 7]);
		WR(__u32, buf, start + 8, w.count);
		WR(__u32, buf, start + 12, n);
	}
	a->pos = pos;
}

static long sc_op(__u32 i, void *data)
{
	struct sc_walk *w = data;
	struct area *a = w->a;
	const struct scry_sc_op *op;
	__u32 pos = a->pos;
	__u8 *buf = a->buf;
	__u64 v;

	if (i >= SCRY_MAX_SC_OPS || pos > SCRY_EVENT_MAX)
		return 1;
	op = &w->ops[i];
	v = a->regs[op->arg & 7];
	switch (op->kind) {
	case SCRY_SOP_INT:
		if (op->flags & SCRY_SOPF_S32)
			v = (__s64)(__s32)v;
		else if (op->flags & SCRY_SOPF_U32)
			v = (__u32)v;
		WR(__u64, buf, pos, v);
		a->pos = pos + 8;
		break;
	case SCRY_SOP_RET:
		WR(__u64, buf, pos, a->regs[6]);
		a->pos = pos + 8;
		break;
	case SCRY_SOP_STR:
		a->pos = write_user_str(buf, pos, a->src[op->arg & 7], op->max, &a->faults);
		break;
	case SCRY_SOP_SEQ:
		op_seq(a, op, pos);
		break;
	case SCRY_SOP_STRV:
		op_strv(a, op, pos);
		break;
	case SCRY_SOP_IOV:
		op_iov(a, op, pos);
		break;
	case SCRY_SOP_DIRENTS:
		op_dirents(a, op, pos);
		break;
	default:
		break;
	}
	return 0;
}

/* The registers the operations read: arguments 0..5 and the return value; strings are
 * read where the arguments point. */
static __always_inline void ops_init(struct area *a, const __u64 *args, long ret)
{
	for (int i = 0; i < SCRY_MAX_ARGS; i++) {
		a->regs[i] = args[i];
		a->src[i] = args[i];
	}
	a->regs[6] = ret;
	a->faults = 0;
	a->nest_n = 0;
}

/* Build an event from its operations in the area (ops_init first); a->pos is its end. */
static __always_inline void ops_run(struct area *a, __u16 id, const struct scry_sc_op *ops, __u8 nops,
				    struct task_struct *t, __u64 ts)
{
	struct sc_walk w = { .ops = ops, .a = a };

	a->pos = write_head_at(a->buf, id, t, ts);
	bpf_loop(nops, sc_op, &w, 0);
}

/* Exit event built from its operations, handed to the ring. */
static __always_inline void exit_ops(const struct scry_sc_desc *d, const __u64 *args, long ret,
				     struct task_struct *t)
{
	struct area *a = area_get(AREA_SYS_EXIT);

	if (!a)
		return;
	ops_init(a, args, ret);
	ops_run(a, d->exit_id, d->exit_ops, d->n_exit_ops, t, bpf_ktime_get_ns());
	submit(a, a->pos);
	area_put(a);
}

/* Entry of syscall id built from its operations, stamped ts; deferred like enter_strings. */
static __always_inline void enter_ops(const struct scry_sc_desc *d, long id, const __u64 *args,
				      struct task_struct *t, __u64 ts, bool defer)
{
	struct area *a = area_get(AREA_SYS_ENTER);

	if (!a)
		return;
	ops_init(a, args, 0);
	ops_run(a, d->entry_id, d->entry_ops, d->n_entry_ops, t, ts);
	if (!(a->faults && defer && defer_entry(t, id, args, ts)))
		submit(a, a->pos);
	area_put(a);
}

/* A successful execve's deferred entry when sched_prepare_exec could not write it: the old
 * image is gone, so the strings are read where exec copied them into the new one: the
 * file name right after the environment strings (mm->env_end; fs/exec.c copies it first,
 * then envp, then argv, top down), argv and envp through the pointer arrays above the new
 * stack pointer (argc, argv[], NULL, envp[], NULL).  A script's argv then reads as its
 * interpreter's, and execveat's path relative to a directory fd as "/dev/fd/N/path".
 * procname is the name at entry (comm). */
static __always_inline void enter_exec_image(const struct scry_sc_desc *d, const __u64 *args,
					     const __u64 *comm, struct task_struct *t, __u64 ts)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	__u64 sp = BPF_CORE_READ(regs, sp), argc = 0, name = BPF_CORE_READ(t, mm, env_end);
	struct area *a;
	bool argv_done = false;

	if (bpf_probe_read_user(&argc, 8, (void *)sp))
		argc = 0;
	a = area_get(AREA_SYS_ENTER);
	if (!a)
		return;
	ops_init(a, args, 0);
	for (int i = 0; i < SCRY_MAX_SC_OPS && i < d->n_entry_ops; i++) {
		const struct scry_sc_op *op = &d->entry_ops[i];

		if (op->kind == SCRY_SOP_STR) {
			a->src[op->arg & 7] = name;
		} else if (op->kind == SCRY_SOP_STRV) {
			a->src[op->arg & 7] = argv_done ? sp + 16 + 8 * argc : sp + 8;
			argv_done = true;
		}
	}
	ops_run(a, d->entry_id, d->entry_ops, d->n_entry_ops, t, ts);
	if (ctx_mask & (1ULL << SCRY_CTX_PROCNAME)) {
		WR(__u64, a->buf, procname_offset(), comm[0]);
		WR(__u64, a->buf, procname_offset() + 8, comm[1]);
	}
	submit(a, a->pos);
	area_put(a);
}

/* The entry deferred by t, if any, written now with its entry time and its strings read
 * again (the syscall has faulted their pages in).  exit_nr, ret: the syscall exiting, or
 * -1 before an exec replaces the image.  The entry may be another syscall's than the one
 * exiting (its exit was missed): it is written all the same. */
static __always_inline void resume_entry(struct task_struct *t, long exit_nr, long ret)
{
	struct deferred *de = bpf_task_storage_get(&deferred, t, 0, 0);
	struct scry_sc_desc *d;
	__u32 nr;

	if (!de || !de->pending)
		return;
	de->pending = 0;
	__sync_fetch_and_sub(&deferred_waiting, 1);
	nr = de->nr;
	d = nr < SCRY_MAX_SYSCALLS ? bpf_map_lookup_elem(&syscalls, &nr) : NULL;
	if (!d) {
		count_drop(false);
		return;
	}
	if ((d->flags & (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS)) == (SCRY_SC_EXEC | SCRY_SC_ENTRY_OPS) &&
	    exit_nr == nr && ret == 0)
		enter_exec_image(d, de->args, de->comm, t, de->ts);
	else if (d->flags & SCRY_SC_ENTRY_OPS)
		enter_ops(d, nr, de->args, t, de->ts, false);
	else
		enter_strings(d, nr, de->args, t, de->ts, false);
}

static __always_inline void enter_unknown(long id, const __u64 *args, __u16 ev, struct task_struct *t)
{
	__u32 hs = head_size();
	__u8 *p = ring_reserve(hs + 8 + 8 * SCRY_MAX_ARGS);

	if (!p)
		return;
	write_head(p, ev, t);
	WR(__s64, p, hs, id);
	for (int i = 0; i < SCRY_MAX_ARGS; i++)
		WR(__u64, p, hs + 8 + 8 * i, args[i]);
	ring_commit(p);
}

/* Is the entry of syscall id recorded for current?  *tp: current when yes (regs and *tp as
 * for target_ok); *dp: its descriptor, NULL for a call the table does not know (recorded
 * as syscall_entry_unknown if selected).  Nothing else is read before this answer: a
 * rejected event costs only the target check. */
static __always_inline bool enter_wanted(const void *regs, struct task_struct **tp, long id,
					 struct scry_sc_desc **dp)
{
	struct scry_sc_desc *d = NULL;
	__u32 nr = id;

	if (!recording() || !target_ok(regs, tp))
		return false;
	if (id >= 0 && id < SCRY_MAX_SYSCALLS)
		d = bpf_map_lookup_elem(&syscalls, &nr);
	*dp = d;
	if (!d)
		return unknown_entry_id != SCRY_NO_EVENT;
	if (d->flags & SCRY_SC_COUNT) {
		count_enter(*tp, id);
		return false;
	}
	return d->flags & SCRY_SC_ENTRY;
}

static __always_inline void sys_enter(long id, const __u64 *args, struct task_struct *t, struct scry_sc_desc *d)
{
	if (!d) {
		enter_unknown(id, args, unknown_entry_id, t);
		return;
	}
	if (d->flags & SCRY_SC_UNKNOWN) {
		enter_unknown(id, args, d->entry_id, t);
		return;
	}
	if (d->flags & SCRY_SC_ENTRY_OPS) {
		enter_ops(d, id, args, t, bpf_ktime_get_ns(), d->flags & SCRY_SC_DEFER);
		return;
	}
	if (d->str_mask) {
		enter_strings(d, id, args, t, bpf_ktime_get_ns(), d->flags & SCRY_SC_DEFER);
		return;
	}
	switch (d->nargs) {
	case 0: enter_fixed(d, args, 0, t); break;
	case 1: enter_fixed(d, args, 1, t); break;
	case 2: enter_fixed(d, args, 2, t); break;
	case 3: enter_fixed(d, args, 3, t); break;
	case 4: enter_fixed(d, args, 4, t); break;
	case 5: enter_fixed(d, args, 5, t); break;
	default: enter_fixed(d, args, 6, t); break;
	}
}

/* The descriptor of syscall id at its exit for current, the deferred entry of the call
 * written first; NULL when current is not a target or the table does not know the call.
 * (regs and *tp as for target_ok) */
static __always_inline struct scry_sc_desc *exit_resume(const void *regs, struct task_struct **tp, long id,
							long ret, bool *target)
{
	struct scry_sc_desc *d = NULL;
	__u32 nr = id;

	*target = recording() && target_ok(regs, tp);
	if (!*target)
		return NULL;
	if (id >= 0 && id < SCRY_MAX_SYSCALLS)
		d = bpf_map_lookup_elem(&syscalls, &nr);
	if (d && (d->flags & SCRY_SC_DEFER))
		resume_entry(*tp, id, ret);
	return d;
}

/* Is the exit of syscall id recorded?  (*dp as for enter_wanted) */
static __always_inline bool exit_wanted(const void *regs, struct task_struct **tp, long id, long ret,
					struct scry_sc_desc **dp)
{
	bool target;
	struct scry_sc_desc *d = exit_resume(regs, tp, id, ret, &target);

	*dp = d;
	if (!target)
		return false;
	if (!d)
		return unknown_exit_id != SCRY_NO_EVENT;
	if (d->flags & SCRY_SC_COUNT) {
		count_exit(*tp, id, ret);
		return false;
	}
	return d->flags & SCRY_SC_EXIT;
}

/* Write the exit of syscall id; args (read only for exit captures) may be NULL otherwise. */
static __always_inline void sys_exit(long id, long ret, const __u64 *args, struct task_struct *t,
				     struct scry_sc_desc *d)
{
	__u32 hs = head_size();
	__u8 *p;

	if (d && (d->flags & (SCRY_SC_UNKNOWN | SCRY_SC_EXIT_OPS)) == SCRY_SC_EXIT_OPS) {
		if (args)
			exit_ops(d, args, ret, t);
		return;
	}
	if (d && !(d->flags & SCRY_SC_UNKNOWN)) {
		struct scry_stage *st = NULL;

		p = stage_begin(&st, hs + 8);
		if (!p && !(p = ring_reserve(hs + 8)))
			return;
		write_head(p, d->exit_id, t);
		WR(__s64, p, hs, ret);
		if (st)
			stage_commit(st, hs + 8);
		else
			ring_commit(p);
		return;
	}
	__u16 ev = d ? d->exit_id : unknown_exit_id;
	if (ev == SCRY_NO_EVENT)
		return;
	p = ring_reserve(hs + 16);
	if (!p)
		return;
	write_head(p, ev, t);
	WR(__s64, p, hs, id);
	WR(__s64, p, hs + 8, ret);
	ring_commit(p);
}

static __always_inline bool exit_captures(const struct scry_sc_desc *d)
{
	return d && (d->flags & (SCRY_SC_UNKNOWN | SCRY_SC_EXIT_OPS)) == SCRY_SC_EXIT_OPS;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(scry_sys_enter_btf, struct pt_regs *regs, long id)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!enter_wanted(regs, &t, id, &d))
		return 0;
	__u64 args[SCRY_MAX_ARGS] = {
		regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9,
	};
	sys_enter(id, args, t, d);
	return 0;
}

/* At sys_exit the saved user registers still hold the arguments (nothing between the
 * syscall and this tracepoint rewrites them, except execve/rt_sigreturn, which have no
 * exit captures): out-structs are read from the pointers the caller passed. */
SEC("tp_btf/sys_exit")
int BPF_PROG(scry_sys_exit_btf, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	long id = regs->orig_ax;
	struct scry_sc_desc *d;

	if (!exit_wanted(regs, &t, id, ret, &d))
		return 0;
	if (exit_captures(d)) {
		__u64 args[SCRY_MAX_ARGS] = {
			regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9,
		};
		sys_exit(id, ret, args, t, d);
	} else {
		sys_exit(id, ret, NULL, t, d);
	}
	return 0;
}

/* A filter front rejected the exit of a call that deferred its entry: write the entry. */
SEC("tp_btf/sys_exit")
int BPF_PROG(scry_sys_exit_resume_btf, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	bool target;

	exit_resume(regs, &t, regs->orig_ax, ret, &target);
	return 0;
}

/* exec is past its checks and about to replace the image (Linux 6.10): a deferred execve
 * entry is written now, its strings read from the old image, whose pages exec has just
 * faulted in by copying them. */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(scry_prepare_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	if (recording())
		resume_entry(bpf_get_current_task_btf(), -1, 0);
	return 0;
}

struct raw_sys_enter {
	__u64 common;
	long id;
	unsigned long args[6];
};

struct raw_sys_exit {
	__u64 common;
	long id;
	long ret;
};

SEC("tracepoint/raw_syscalls/sys_enter")
int scry_sys_enter_tp(struct raw_sys_enter *ctx)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!enter_wanted(NULL, &t, ctx->id, &d))
		return 0;
	__u64 args[SCRY_MAX_ARGS] = {
		ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3], ctx->args[4], ctx->args[5],
	};
	sys_enter(ctx->id, args, t, d);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int scry_sys_exit_tp(struct raw_sys_exit *ctx)
{
	struct task_struct *t = NULL;
	struct scry_sc_desc *d;

	if (!exit_wanted(NULL, &t, ctx->id, ctx->ret, &d))
		return 0;
	if (exit_captures(d)) {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
		__u64 args[SCRY_MAX_ARGS] = {
			BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), BPF_CORE_READ(regs, dx),
			BPF_CORE_READ(regs, r10), BPF_CORE_READ(regs, r8), BPF_CORE_READ(regs, r9),
		};
		sys_exit(ctx->id, ctx->ret, args, t, d);
	} else {
		sys_exit(ctx->id, ctx->ret, NULL, t, d);
	}
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int scry_sys_exit_resume_tp(struct raw_sys_exit *ctx)
{
	struct task_struct *t = NULL;
	bool target;

	exit_resume(NULL, &t, ctx->id, ctx->ret, &target);
	return 0;
}

/* ---- generic tracepoints ----------------------------------------------------------- */

/* One walk over a descriptor's copy operations (bpf_loop callback data).  The position
 * and last copy live in the build area (struct area), not here. */
struct tp_walk {
	unsigned long base;         /* the raw trace record */
	struct scry_tp_desc *d;
	struct area *a;
};

/* Where a __data_loc / __rel_loc field's data lies in the record; *loc gets the raw u32
 * (length << 16 | offset). */
static __always_inline __u32 loc_offset(struct tp_walk *w, struct scry_tp_op *op, __u32 *loc)
{
	__u32 off;

	bpf_probe_read_kernel(loc, 4, (void *)(w->base + op->src_off));
	off = *loc & 0xffff;
	if (op->kind == SCRY_OP_STR_REL || op->kind == SCRY_OP_SEQ_REL)
		off += op->src_off + 4;   /* relative to the end of the loc field */
	return off;
}

static long tp_op(__u32 i, void *data)
{
	struct tp_walk *w = data;
	struct area *a = w->a;
	struct scry_tp_op *op;
	__u32 loc = 0, off, len, pos = a->pos;
	__u8 *buf = a->buf;
	long n;

	if (i >= SCRY_MAX_TP_OPS || pos > SCRY_EVENT_MAX)
		return 1;
	op = &w->d->ops[i];
	switch (op->kind) {
	case SCRY_OP_COPY:
		len = op->len;
		if (len > SCRY_STR_MAX)
			len = SCRY_STR_MAX;
		if (bpf_probe_read_kernel(buf + pos, len, (void *)(w->base + op->src_off)))
			__builtin_memset(buf + pos, 0, 8);
		a->copy_dst = pos;
		a->copy_src = op->src_off;
		a->pos = pos + len;
		break;
	case SCRY_OP_ADD32:
		off = a->copy_dst + (__u32)(op->src_off - a->copy_src);
		if (off <= SCRY_EVENT_MAX)
			*(__s32 *)(buf + off) += (__s16)op->elem;
		break;
	case SCRY_OP_STR_LOC:
	case SCRY_OP_STR_REL:
		off = loc_offset(w, op, &loc);
		n = bpf_probe_read_kernel_str(buf + pos, SCRY_STR_MAX, (void *)(w->base + off));
		if (n <= 0) {
			buf[pos] = 0;
			n = 1;
		}
		a->pos = pos + n;
		break;
	case SCRY_OP_SEQ_LOC:
	case SCRY_OP_SEQ_REL:
		off = loc_offset(w, op, &loc);
		len = loc >> 16;
		n = op->elem ? len / op->elem : 0;
		len = (__u32)n * op->elem;
		if (len > SCRY_STR_MAX - 8) {
			len = 0;
			n = 0;
		}
		WR(__u32, buf, pos, n);
		pos += 4;
		if (len && bpf_probe_read_kernel(buf + pos, len, (void *)(w->base + off)))
			__builtin_memset(buf + pos, 0, 8);
		a->pos = pos + len;
		break;
	default:
		break;
	}
	return 0;
}

SEC("tracepoint")
int scry_tp(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 slot = bpf_get_attach_cookie(ctx);
	struct tp_walk w = { .base = (unsigned long)ctx };

	if (!recording() || !target_ok(NULL, &t))
		return 0;
	w.d = bpf_map_lookup_elem(&tps, &slot);
	if (!w.d)
		return 0;
	w.a = area_get(AREA_TP);
	if (!w.a)
		return 0;
	w.a->pos = write_head(w.a->buf, w.d->event_id, t);
	bpf_loop(w.d->nops, tp_op, &w, 0);
	submit(w.a, w.a->pos);
	area_put(w.a);
	return 0;
}

/* Run by the consumer on one CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU): hand
 * that CPU's staged events to its ring unless a writer there is mid-event. */
SEC("raw_tp")
int scry_flush(void *ctx)
{
	stage_drain();
	return 0;
}

/* ---- process lifecycle ------------------------------------------------------------- */

/* The fork event (lttng-modules' layout) into the fork area. */
static __always_inline void write_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct area *a;
	__u32 pos, level;

	a = area_get(AREA_FORK);
	if (!a)
		return;
	pos = write_head(a->buf, fork_event_id, bpf_get_current_task_btf());
	if (pos > 512)
		goto out;
	bpf_probe_read_kernel(a->buf + pos, SCRY_COMM_LEN, parent->comm);
	pos += SCRY_COMM_LEN;
	WR(__s32, a->buf, pos, parent->pid);
	WR(__s32, a->buf, pos + 4, ptgid);
	WR(__u32, a->buf, pos + 8, pid_ns_inum(parent));
	pos += 12;
	bpf_probe_read_kernel(a->buf + pos, SCRY_COMM_LEN, child->comm);
	pos += SCRY_COMM_LEN;
	WR(__s32, a->buf, pos, child->pid);
	pos += 4;
	level = BPF_CORE_READ(child, thread_pid, level);
	if (level >= SCRY_MAX_PIDNS_LEVEL)
		level = SCRY_MAX_PIDNS_LEVEL - 1;
	WR(__u8, a->buf, pos, level + 1);
	pos += 1;
	for (__u32 i = 0; i < SCRY_MAX_PIDNS_LEVEL; i++) {
		if (i > level || pos > 1024)
			break;
		WR(__s32, a->buf, pos, BPF_CORE_READ(child, thread_pid, numbers[i].nr));
		pos += 4;
	}
	if (pos > 1024)
		goto out;
	WR(__s32, a->buf, pos, ctgid);
	WR(__u32, a->buf, pos + 4, pid_ns_inum(child));
	pos += 8;
	submit(a, pos);
out:
	area_put(a);
}

/* Fork tracking (the command's or -p's children, --track-vpid), then the fork event of a
 * target (the parent is current): through its filter front when it has one (flt_fork[0],
 * which tail-calls scry_fork_write), else written here. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(scry_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;

	if (ptgid == self_tgid)
		return 0;
	if (!target_all) {
		if (!bpf_map_lookup_elem(&tracked, &ptgid))
			return 0;
		if (ctgid != ptgid)
			target_add(ctgid);
	}
	if ((track_mask & SCRY_TRACK_VPID) && ctgid != ptgid && vpid_ok(parent))
		follow_add(&vpid_followed, ctgid);
	struct task_struct *t = parent;   /* current */

	if (fork_event_id == SCRY_NO_EVENT || !recording() || !target_ok(NULL, &t))
		return 0;
	bpf_tail_call_static(ctx, &flt_fork, 0);
	write_fork(parent, child);
	return 0;
}

/* A followed process whose last thread exits leaves the follow sets: its pid may be reused
 * by any process.  (signal->live reached 0 in do_exit before this tracepoint.) */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(scry_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	bool left = false;

	if (p->signal->live.counter != 0)
		return 0;
	if (!target_all && !bpf_map_delete_elem(&tracked, &tgid))
		left = true;
	if ((track_mask & SCRY_TRACK_VPID) && !bpf_map_delete_elem(&vpid_followed, &tgid))
		left = true;
	if (left)
		target_gen_bump();     /* no memo keeps the answer for a pid reused later */
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(scry_fork_write, struct task_struct *parent, struct task_struct *child)
{
	write_fork(parent, child);
	return 0;
}
