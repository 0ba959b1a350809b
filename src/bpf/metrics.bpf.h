// SPDX-License-Identifier: GPL-2.0
/* metrics.bpf.h — the metrics channel (scry serve, scry top): counters and histograms of
 * syscall exits updated here, in per-CPU hashes keyed by their labels (scry_abi.h, struct
 * scry_metric_key); no event is written and nothing is copied to user space per call.
 * Its own sys_enter/sys_exit programs, loaded only for a metrics channel: the recording
 * programs (syscalls.bpf.h) are untouched.  The entry program keeps the entry time of the
 * calls a latency metric wants in a per-CPU slot, moved to the task's storage when the task
 * leaves the CPU during the call (metric_slot, scry_metrics_lat_switch).
 * The metrics are load-time settings (metric_desc, metric_sc_mask in maps.bpf.h): the
 * exit program is unrolled over the SCRY_METRICS_MAX ids, so that the verifier sees each
 * metric's kind, value, labels and buckets as constants and keeps only their code. */

/* i bounded for the verifier even where clang has merged the unrolled copies into one with
 * i a variable (a constant i stays a constant: the verifier tracks the and). */
static __always_inline __u32 metric_idx(__u32 i)
{
	if (__builtin_constant_p(i))            /* the unrolled copies: no instruction */
		return i & (SCRY_METRICS_MAX - 1);
	asm volatile("%0 &= 15" : "+r"(i));    /* SCRY_METRICS_MAX - 1 */
	return i;
}

/* The values only wide metrics read (cgroup, addr, wchan labels: scry_metric_desc.wide). */
struct metric_wide {
	__u64 cgroup;
	__u64 wchan;
	__u8 addr[16];
};
#define METRIC_WIDE_LABELS (SCRY_ML_CGROUP | SCRY_ML_ADDR | SCRY_ML_WCHAN)

/* What one observation (a syscall exit, a switch in, a request's completion) gives the
 * metrics of its event. */
struct metric_call {
	__u32 mask;           /* syscalls: the metrics this syscall feeds */
	__u32 nr;
	__u32 err;            /* -ret for an error, else 0 */
	__u32 pid, tid, uid, dev;     /* dev: syscalls, the family of addr */
	__s64 ret;
	__s64 lat;            /* ns, or -1: entry not seen */
	__u64 now;            /* the observation's end (when lat >= 0) */
	struct scry_metric_stats *st;
	char comm[SCRY_COMM_LEN];
	/* last, and written (zeroed first) only when metrics_label_union has wide labels:
	 * the other metrics pay nothing for them (metrics_exit) */
	struct metric_wide w;
};

/* The application's mark (span_marks) of the task a span of event (started at start) is
 * about, into *out: a syscall's, current's; a run-queue wait's, the waiting task's (by its
 * tid: bpf_task_from_pid, Linux 6.2; none before); a block request's, its issuer's at the
 * issue, which scry_span_mark_rq_complete put in span_cur.  1, or 0 when it has none.  A
 * function of its own, called only when marks are on: the metrics' code around the call is
 * the same with or without them. */
static __noinline int span_mark_of(__u32 event, __u32 tid, __u64 start, struct scry_span_parent *out)
{
	struct scry_span_parent *m = NULL;
	struct task_struct *t;
	struct span_cur *cur;
	__u32 zero = 0;
	int ret = 0;

	if (event == SCRY_ME_SYSCALL) {
		m = bpf_task_storage_get(&span_mark, bpf_get_current_task_btf(), 0, 0);
	} else if (event == SCRY_ME_BLOCK_IO) {
		cur = bpf_map_lookup_elem(&span_cur, &zero);
		if (cur && cur->tid == tid && cur->start == start)
			m = &cur->p;
	} else if (bpf_task_from_pid && (t = bpf_task_from_pid((__s32)tid))) {
		m = bpf_task_storage_get(&span_mark, t, 0, 0);
		if (m && m->span) {
			*out = *m;
			ret = 1;
		}
		bpf_task_release(t);
		return ret;
	}
	if (!m || !m->span)
		return 0;
	*out = *m;
	return 1;
}

/* Span i (a constant): the observation c as a record of span_rb, if long enough, with its
 * parent's mark (span_mark_of) or none. */
static __always_inline void span_emit(__u32 i, const struct metric_call *c, __u64 v)
{
	const volatile struct scry_metric_desc *d = &metric_desc[metric_idx(i)];
	struct scry_span_rec *r;

	if (v < d->span_min_ns)
		return;
	r = bpf_ringbuf_reserve(&span_rb, sizeof(*r), 0);
	if (!r) {
		if (i < SCRY_METRICS_MAX)
			c->st->overflow[i & (SCRY_METRICS_MAX - 1)]++;
		return;
	}
	r->start_ns = c->now - v;
	r->end_ns = c->now;
	r->ret = c->ret;
	r->event = d->event;
	r->nr = c->nr;
	r->pid = c->pid;
	r->tid = c->tid;
	r->dev = c->dev;
	r->metric = i;
	__builtin_memcpy(r->comm, c->comm, sizeof(r->comm));
	if (!span_marks || !span_mark_of(d->event, c->tid, r->start_ns, &r->parent)) {
		r->parent.trace_hi = 0;
		r->parent.trace_lo = 0;
		r->parent.span = 0;
	}
	bpf_ringbuf_submit(r, 0);
}

/* ceil(log2(v)) for v >= 1 (0 for v <= 1): the exp2 bucket of v. */
static __always_inline __u32 log2_ceil(__u64 v)
{
	__u32 r = 0;

	if (v <= 1)
		return 0;
	v--;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { v >>= 1; r += 1; }
	return r + (__u32)v;
}

/* The first fixed bucket of metric i whose bound holds v (a binary search over the 64
 * bounds, unused ones ~0); SCRY_HIST_BUCKETS when none. */
static __always_inline __u64 fixed_bucket(__u32 i, __u64 v)
{
	struct scry_metric_bounds *b = bpf_map_lookup_elem(&metric_bounds, &i);
	__u32 lo = 0, hi = SCRY_HIST_BUCKETS;

	if (!b)
		return SCRY_HIST_BUCKETS;
	for (int s = 0; s < 7; s++) {
		__u32 mid = (lo + hi) >> 1;

		if (lo >= hi || mid >= SCRY_HIST_BUCKETS)
			break;
		if (v <= b->b[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Adds v to histogram i (a constant: its settings are known to the verifier). */
static __always_inline void hist_add(__u32 i, struct scry_metric_hist *h, __u64 v)
{
	const volatile struct scry_metric_desc *d;

	i = metric_idx(i);
	d = &metric_desc[i];
	__u64 k;

	if (d->bucket_type == SCRY_HB_FIXED)
		k = fixed_bucket(i, v);
	else if (d->bucket_type == SCRY_HB_LINEAR)
		k = d->bucket_width ? (v + d->bucket_width - 1) / d->bucket_width : 0;
	else
		k = log2_ceil(v);
	if (k < d->bucket_min)
		k = d->bucket_min;
	h->count++;
	h->sum += v;
	k -= d->bucket_min;
	if (k <= d->bucket_max - d->bucket_min && k < SCRY_HIST_BUCKETS)
		h->buckets[k]++;
}

/* The series of key in map inner (a per-CPU hash), added if new; NULL when it cannot be,
 * counted by reason: the map full (overflow[i]), no memory, its lock busy, other. */
static __always_inline void *metric_series(void *inner, const struct scry_metric_key *key,
					   struct scry_metric_stats *st, __u32 i)
{
	void *v = bpf_map_lookup_elem(inner, key);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(inner, key, &metric_zero, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: added meanwhile */) {
		if (i >= SCRY_METRICS_MAX)
			return NULL;
		if (err == -7 /* E2BIG */)
			st->overflow[i]++;
		else if (err == -12 /* ENOMEM */)
			st->no_memory[i]++;
		else if (err == -16 /* EBUSY */)
			st->busy[i]++;
		else
			st->failed[i]++;
		return NULL;
	}
	return bpf_map_lookup_elem(inner, key);
}

/* The value of metric d (its settings known to the verifier) for an observation (its
 * return, error, latency) into *v; false when it does not count (its outcome, or no value:
 * a negative return, no entry seen). */
static __always_inline bool metric_value(const volatile struct scry_metric_desc *d, __s64 ret, bool error,
					 __s64 lat, __u64 *v)
{
	const __u8 when = d->when, value = d->value;   /* one load each: the verifier knows them */

	if (when == SCRY_MW_ANY && value == SCRY_MV_COUNT) {   /* the common counter: no test */
		*v = 1;
		return true;
	}
	if ((when == SCRY_MW_ERROR && !error) || (when == SCRY_MW_SUCCESS && error))
		return false;
	if (value == SCRY_MV_RET) {
		if (ret < 0)
			return false;
		*v = ret;
	} else if (value == SCRY_MV_LATENCY) {
		if (lat < 0)
			return false;
		*v = lat;
	} else {
		*v = 1;
	}
	return true;
}

/* Dense metric i (a constant): a slot per syscall number, no key to build, hash nor compare;
 * a function of its own, before the keyed path, so that the compiler prepares none of the
 * key's stores and addresses for it (each an instruction of every call). */
static __always_inline void metric_dense(__u32 i, __u32 nr, __s64 ret, bool error, __s64 lat)
{
	const volatile struct scry_metric_desc *d = &metric_desc[metric_idx(i)];
	__u32 slot = d->labels & SCRY_ML_SYSCALL ? nr : 0;
	__u64 v;

	if (!metric_value(d, ret, error, lat, &v))
		return;
	if (d->kind == SCRY_METRIC_HISTOGRAM) {
		__u32 k = metric_hist_base[metric_idx(i)] + slot;
		struct scry_metric_hist *h = bpf_map_lookup_elem(&metric_dense_hists, &k);

		if (h)
			hist_add(i, h, v);
	} else {
		struct metric_dense_row *row = bpf_map_lookup_elem(&metric_dense_counters, &i);

		if (row)
			row->slot[slot & (SCRY_MAX_SYSCALLS - 1)] += v;
	}
}

/* Metric i (a constant) for call c; key: scratch space. */
static __always_inline void metric_one(__u32 i, const struct metric_call *c, struct scry_metric_key *key)
{
	const volatile struct scry_metric_desc *d = &metric_desc[metric_idx(i)];
	__u32 labels = d->labels;
	void *inner, *s;
	__u64 v;

	if (d->dense && d->kind != SCRY_METRIC_SPAN) {
		metric_dense(i, c->nr, c->ret, c->err != 0, c->lat);
		return;
	}
	if (!metric_value(d, c->ret, c->err != 0, c->lat, &v))
		return;
	if (d->kind == SCRY_METRIC_SPAN) {
		span_emit(i, c, v);
		return;
	}
	/* every field written: the key of the previous metric is overwritten whole */
	key->nr = labels & SCRY_ML_SYSCALL ? c->nr : 0;
	key->err = labels & SCRY_ML_ERRNO ? c->err : 0;
	key->pid = labels & SCRY_ML_PID ? c->pid : 0;
	key->tid = labels & SCRY_ML_TID ? c->tid : 0;
	key->uid = labels & SCRY_ML_UID ? c->uid : 0;
	key->dev = labels & (SCRY_ML_DEV | SCRY_ML_ADDR) ? c->dev : 0;
	if (labels & METRIC_WIDE_LABELS) {   /* d->wide; else the maps read the key's first
					      * SCRY_METRIC_KEY_NARROW bytes */
		key->cgroup = labels & SCRY_ML_CGROUP ? c->w.cgroup : 0;
		if (labels & SCRY_ML_ADDR) {
			__builtin_memcpy(key->addr, c->w.addr, sizeof(key->addr));
		} else {
			*(__u64 *)&key->addr[0] = labels & SCRY_ML_WCHAN ? c->w.wchan : 0;
			*(__u64 *)&key->addr[8] = 0;
		}
	}
	if (labels & SCRY_ML_COMM) {
		__builtin_memcpy(key->comm, c->comm, sizeof(key->comm));
	} else {
		*(__u64 *)&key->comm[0] = 0;
		*(__u64 *)&key->comm[8] = 0;
	}
	if (d->kind == SCRY_METRIC_HISTOGRAM) {
		inner = bpf_map_lookup_elem(labels & METRIC_WIDE_LABELS ? (void *)&metric_hists_wide : (void *)&metric_hists, &i);
		if (!inner)
			return;
		s = metric_series(inner, key, c->st, i);
		if (s)
			hist_add(i, s, v);
	} else {
		inner = bpf_map_lookup_elem(labels & METRIC_WIDE_LABELS ? (void *)&metric_counters_wide :
					    (void *)&metric_counters, &i);
		if (!inner)
			return;
		s = metric_series(inner, key, c->st, i);
		if (s)
			*(__u64 *)s += v;
	}
}

/* SCRY_ML_ADDR: the IP address of the call's struct sockaddr argument, if it has one (read
 * at the exit: connect's, bind's, sendto's as passed; accept's and recvfrom's as filled). */
static __always_inline void metric_sockaddr(struct metric_call *c, struct pt_regs *regs, long id)
{
	__u8 a = metric_sc_addr_arg[id & (SCRY_MAX_SYSCALLS - 1)];
	__u64 p;
	struct { __u16 family; __u16 port; __u32 v4; } sa;   /* sockaddr_in; sockaddr_in6's address at 8 */

	if (!a)
		return;
	p = a == 1 ? BPF_CORE_READ(regs, di) : a == 2 ? BPF_CORE_READ(regs, si) : a == 3 ? BPF_CORE_READ(regs, dx) :
	    a == 4 ? BPF_CORE_READ(regs, r10) : a == 5 ? BPF_CORE_READ(regs, r8) : BPF_CORE_READ(regs, r9);
	if (!p || bpf_probe_read_user(&sa, sizeof(sa), (void *)p))
		return;
	if (sa.family == 2) {          /* AF_INET: ::ffff:a.b.c.d */
		*(__u64 *)&c->w.addr[0] = 0;
		*(__u32 *)&c->w.addr[8] = 0xffff0000;   /* bytes 00 00 ff ff (little-endian) */
		*(__u32 *)&c->w.addr[12] = sa.v4;
		c->dev = 2;
	} else if (sa.family == 10 && !bpf_probe_read_user(c->w.addr, sizeof(c->w.addr), (void *)(p + 8))) {
		c->dev = 10;   /* AF_INET6 */
	}
}

/* The latency of syscall id, ended now, from its entry (entry_slot.bpf.h: slot_take).  -1,
 * counted in st->no_entry, when the entry was not seen. */
static __always_inline __s64 metric_latency(struct task_struct *t, long id, struct scry_metric_stats *st, __u64 *now)
{
	__u64 ts = slot_take(t, id);

	if (!ts) {
		st->no_entry++;
		return -1;
	}
	*now = bpf_ktime_get_ns();
	return *now - ts;
}

/* The exit of syscall id when every syscall metric is dense (metrics_dense_only): the call's
 * number, return, error and latency kept in registers, no struct metric_call to fill. */
static __always_inline void metrics_exit_dense(struct task_struct *t, long id, long ret)
{
	struct scry_metric_stats *st;
	__u32 mask, zero = 0;
	__s64 lat = -1;
	__u64 now;
	bool error;

	if (id < 0 || id >= SCRY_MAX_SYSCALLS)
		return;
	mask = metric_sc_mask[id];
	if (!mask)
		return;
	st = bpf_map_lookup_elem(&metric_stats, &zero);
	if (!st)
		return;
	st->events++;
	if (mask & metrics_latency_mask)
		lat = metric_latency(t, id, st, &now);
	error = ret < 0 && ret >= -4095;
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < SCRY_METRICS_MAX; i++) {
		if (i >= n_metrics)
			break;
		if (metric_desc[i].event == SCRY_ME_SYSCALL && (mask & (1u << i)))
			metric_dense(i, id, ret, error, lat);
	}
}

static __always_inline void metrics_exit(struct task_struct *t, struct pt_regs *regs, long id, long ret)
{
	const __u32 lu = metrics_label_union;   /* one load: the verifier knows the value */
	struct metric_call c;
	struct scry_metric_key key;
	__u32 zero = 0;

	if (metrics_dense_only) {
		metrics_exit_dense(t, id, ret);
		return;
	}
	if (id < 0 || id >= SCRY_MAX_SYSCALLS)
		return;
	c.mask = metric_sc_mask[id];
	if (!c.mask)
		return;
	c.st = bpf_map_lookup_elem(&metric_stats, &zero);
	if (!c.st)
		return;
	c.st->events++;
	/* every field a metric may read, written once (no memset of the whole: w and comm only
	 * when some metric has such labels) */
	c.nr = id;
	c.ret = ret;
	c.lat = -1;
	c.now = 0;
	c.pid = c.tid = c.uid = c.dev = 0;
	if (c.mask & metrics_latency_mask)
		c.lat = metric_latency(t, id, c.st, &c.now);
	c.err = ret < 0 && ret >= -4095 ? -ret : 0;
	if (lu & (SCRY_ML_PID | SCRY_ML_TID)) {
		__u64 pt = bpf_get_current_pid_tgid();

		c.pid = pt >> 32;
		c.tid = (__u32)pt;
	}
	if (lu & SCRY_ML_UID)
		c.uid = (__u32)bpf_get_current_uid_gid();
	if (lu & SCRY_ML_COMM)
		bpf_get_current_comm(c.comm, sizeof(c.comm));
	if (lu & METRIC_WIDE_LABELS) {
		c.w = (struct metric_wide){};
		if (lu & SCRY_ML_CGROUP)
			c.w.cgroup = bpf_get_current_cgroup_id();
		if (lu & SCRY_ML_ADDR)
			metric_sockaddr(&c, regs, id);
	}
	/* unrolled: i is a constant in each copy, and the copies past n_metrics or of other
	 * events are dropped */
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < SCRY_METRICS_MAX; i++) {
		if (i >= n_metrics)
			break;
		if (metric_desc[i].event == SCRY_ME_SYSCALL && (c.mask & (1u << i)))
			metric_one(i, &c, &key);
	}
}

/* Is current measured?  target_ok, with its system-wide paths first, each tested once (the
 * load-time settings target_ok tests before them are loads and branches of every call):
 * current from the helper where its return is not thunked (current_by_helper), else the
 * memo's task, no helper call (current_in_memo). */
static __always_inline bool metrics_target(const void *regs, struct task_struct **tp)
{
	struct task_struct *t;
	struct scry_memo *m;
	__u32 zero = 0;

	if (current_by_helper)
		return current_not_self(tp);
	if (!current_in_memo())
		return target_ok(regs, tp);
	m = bpf_map_lookup_elem(&memo, &zero);
	if (!m)
		return false;
	t = *tp = current_ro(m, regs);
	return t && t->tgid != self_tgid;
}

/* A latency metric's entry: its time and number in this CPU's slot (metric_slot), as the
 * task's; the task's storage only if the program was preempted meanwhile (its entry voided:
 * the slot's fields may mix another task's, and the switch may have moved them). */
SEC("tp_btf/sys_enter") SCRY_LANE(1)
int BPF_PROG(scry_metrics_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t = NULL;
	struct metric_slot *s;
	struct task_entry *te;
	__u32 zero = 0;
	__u64 gen;

	if (!recording() || id < 0 || id >= SCRY_MAX_SYSCALLS)
		return 0;
	if (!(metric_sc_mask[id] & metrics_latency_mask) || !metrics_target(regs, &t))
		return 0;
	s = bpf_map_lookup_elem(&metric_slot, &zero);
	if (!s)
		return 0;
	gen = slot_gen(s);
	s->ts = bpf_ktime_get_ns();
	s->nr = id;
	s->task = (__u64)t;
	if (slot_gen(s) != gen) {
		s->task = 0;
		te = bpf_task_storage_get(&metric_entry, current_trusted(t), 0, 0);
		if (te)
			te->ts = 0;
	}
	return 0;
}

/* A task leaves this CPU: the entry of its syscall in the slot, if any, goes to its storage
 * (its exit may come on another CPU, and another task's entry takes the slot meanwhile);
 * none for a dead task.  Loaded with a latency metric, attached before the entry program. */
SEC("tp_btf/sched_switch") SCRY_LANE(1)
int BPF_PROG(scry_metrics_lat_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct metric_slot *s;
	struct task_entry *te;
	__u32 zero = 0;

	s = bpf_map_lookup_elem(&metric_slot, &zero);
	if (!s)
		return 0;
	s->gen++;
	if (s->task != (__u64)prev)
		return 0;
	s->task = 0;
	if (prev_state & 0x80 /* TASK_DEAD */)
		return 0;
	te = bpf_task_storage_get(&metric_entry, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (te) {          /* else its exit finds no entry: counted there (no_entry) */
		te->ts = s->ts;
		te->nr = s->nr;
	}
	return 0;
}

SEC("tp_btf/sys_exit") SCRY_LANE(0)
int BPF_PROG(scry_metrics_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	long id = regs->orig_ax;

	if (id == -1)
		id = SCRY_NR_RT_SIGRETURN;
	if (!recording() || !metrics_target(regs, &t))
		return 0;
	metrics_exit(t, regs, id, ret);
	return 0;
}

/* ---- scheduler and block I/O metrics (events other than syscalls) ---------------------- */

/* Is task t (not necessarily current) measured?  As target_ok for current, on the task's
 * own identity (the cgroup tracker is refused with these events: kernel/metrics.c). */
static __always_inline bool task_measured(struct task_struct *t)
{
	__u32 tgid = BPF_CORE_READ(t, tgid), key;
	const struct cred *cr;

	if (tgid == self_tgid || !tgid)
		return false;
	if (!target_all) {
		key = follow_key(t);
		if (!bpf_map_lookup_elem(&tracked, &key))
			return false;
	}
	if (track_mask & (SCRY_TRACK_UID | SCRY_TRACK_GID)) {
		__u32 uid, gid;

		cr = BPF_CORE_READ(t, cred);
		uid = BPF_CORE_READ(cr, uid.val);
		gid = BPF_CORE_READ(cr, gid.val);
		if ((track_mask & SCRY_TRACK_UID) && !uid_tracked(uid))
			return false;
		if ((track_mask & SCRY_TRACK_GID) && !gid_tracked(gid))
			return false;
	}
	if ((track_mask & SCRY_TRACK_VPID) && !vpid_ok(t))
		return false;
	return true;
}

/* The labels of task t into c. */
static __always_inline void metric_task_labels(struct metric_call *c, struct task_struct *t)
{
	c->pid = BPF_CORE_READ(t, tgid);
	c->tid = BPF_CORE_READ(t, pid);
	if (metrics_label_union & SCRY_ML_UID)
		c->uid = BPF_CORE_READ(t, cred, uid.val);
	if (metrics_label_union & SCRY_ML_COMM)
		bpf_probe_read_kernel_str(c->comm, sizeof(c->comm), t->comm);
	if (metrics_label_union & SCRY_ML_CGROUP)
		c->w.cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

static __always_inline bool sched_text(__u64 ip)
{
	return (ip >= metric_sched_text[0] && ip < metric_sched_text[1]) ||
	       (ip >= metric_sched_text[2] && ip < metric_sched_text[3]);
}

#define WCHAN_FRAMES 24

/* Where current blocks (it is being switched out): the first return address after the
 * scheduler's frames that is not one of them, as the kernel's get_wchan (the frames before
 * __schedule are the tracepoint's and this program's); 0 when not found. */
static __always_inline __u64 current_wchan(void *ctx)
{
	__u64 ips[WCHAN_FRAMES];
	long n = bpf_get_stack(ctx, ips, sizeof(ips), 0);
	bool in = false;

	if (n <= 0)
		return 0;
	n /= 8;
	for (int i = 0; i < WCHAN_FRAMES; i++) {
		if (i >= n)
			break;
		if (sched_text(ips[i]))
			in = true;
		else if (in)
			return ips[i];
	}
	return 0;
}

/* Observe value v (ns) for the metrics of event (a constant). */
static __always_inline void metrics_observe(__u32 event, struct metric_call *c)
{
	struct scry_metric_key key;
	__u32 zero = 0;

	c->st = bpf_map_lookup_elem(&metric_stats, &zero);
	if (!c->st)
		return;
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < SCRY_METRICS_MAX; i++) {
		if (i >= n_metrics)
			break;
		if (metric_desc[i].event == event)
			metric_one(i, c, &key);
	}
}

static __always_inline void runq_enqueued(struct task_struct *p)
{
	struct sched_ts *ts;

	if (!(metrics_event_mask & (1u << SCRY_ME_RUNQUEUE)) || !recording() || !task_measured(p))
		return;
	ts = bpf_task_storage_get(&task_sched, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts)
		ts->queued = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_wakeup") SCRY_LANE(0)
int BPF_PROG(scry_metrics_wakeup, struct task_struct *p)
{
	runq_enqueued(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new") SCRY_LANE(0)
int BPF_PROG(scry_metrics_wakeup_new, struct task_struct *p)
{
	runq_enqueued(p);
	return 0;
}

SEC("tp_btf/sched_switch") SCRY_LANE(1)
int BPF_PROG(scry_metrics_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct metric_call c = { .lat = -1 };
	struct sched_ts *ts;
	__u64 now;
	__s64 queued = -1, off = -1;

	if (!recording())
		return 0;
	now = bpf_ktime_get_ns();
	/* prev leaves the CPU: blocked (prev_state not TASK_RUNNING), off-CPU from now; still
	 * runnable (preempted), queued on the run queue from now */
	if (task_measured(prev)) {
		ts = bpf_task_storage_get(&task_sched, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (ts) {
			if ((metrics_event_mask & (1u << SCRY_ME_OFFCPU)) && prev_state != 0) {
				ts->off = now;
				if (metrics_label_union & SCRY_ML_WCHAN)
					ts->wchan = current_wchan(ctx);
			}
			if ((metrics_event_mask & (1u << SCRY_ME_RUNQUEUE)) && prev_state == 0 /* TASK_RUNNING */)
				ts->queued = now;
		}
	}
	ts = bpf_task_storage_get(&task_sched, next, 0, 0);
	if (!ts)
		return 0;
	c.now = now;
	if (ts->queued && now >= ts->queued)
		queued = now - ts->queued;
	if (ts->off && now >= ts->off)
		off = now - ts->off;
	c.w.wchan = ts->wchan;
	ts->queued = 0;
	ts->off = 0;
	if (queued < 0 && off < 0)
		return 0;
	metric_task_labels(&c, next);
	if ((metrics_event_mask & (1u << SCRY_ME_RUNQUEUE)) && queued >= 0) {
		c.lat = queued;
		metrics_observe(SCRY_ME_RUNQUEUE, &c);
	}
	if ((metrics_event_mask & (1u << SCRY_ME_OFFCPU)) && off >= 0) {
		c.lat = off;
		metrics_observe(SCRY_ME_OFFCPU, &c);
	}
	return 0;
}

SEC("tp_btf/block_rq_issue") SCRY_LANE(0)
int BPF_PROG(scry_metrics_rq_issue, struct request *rq)
{
	struct task_struct *t = NULL;
	struct blk_start b = {};
	struct gendisk *disk;
	__u64 key = (__u64)rq;
	__u32 zero = 0;
	struct scry_metric_stats *st;

	if (!recording())
		return 0;
	/* the issuer: current, when it is measured; else the request is not measured */
	t = bpf_get_current_task_btf();
	if (!task_measured(t))
		return 0;
	disk = BPF_CORE_READ(rq, q, disk);
	b.dev = disk ? (BPF_CORE_READ(disk, major) << 20 | BPF_CORE_READ(disk, first_minor)) : 0;
	b.pid = t->tgid;
	b.tid = t->pid;
	if (metrics_label_union & SCRY_ML_UID)
		b.uid = BPF_CORE_READ(t, cred, uid.val);
	if (metrics_label_union & SCRY_ML_COMM)
		bpf_get_current_comm(b.comm, sizeof(b.comm));
	if (metrics_label_union & SCRY_ML_CGROUP)
		b.cgroup = bpf_get_current_cgroup_id();
	b.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&blk_start, &key, &b, BPF_ANY)) {
		st = bpf_map_lookup_elem(&metric_stats, &zero);
		if (st)
			st->no_entry++;
	}
	return 0;
}

SEC("tp_btf/block_rq_complete") SCRY_LANE(0)
int BPF_PROG(scry_metrics_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct metric_call c = { .lat = -1 };
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct blk_start *b = bpf_map_lookup_elem(&blk_start, &key);

	if (!b)
		return 0;
	c.now = now;
	if (now >= b->ts)
		c.lat = now - b->ts;
	c.dev = b->dev;
	c.pid = b->pid;
	c.tid = b->tid;
	c.uid = b->uid;
	c.w.cgroup = b->cgroup;
	__builtin_memcpy(c.comm, b->comm, sizeof(c.comm));
	bpf_map_delete_elem(&blk_start, &key);
	if (c.lat >= 0)
		metrics_observe(SCRY_ME_BLOCK_IO, &c);
	return 0;
}

/* ---- the application's marks (tracing: parent:) ----------------------------------------- */

/* A mark not kept (no memory for a thread's, blk_mark full): counted. */
static __always_inline void mark_lost(void)
{
	__u32 zero = 0;
	struct scry_metric_stats *st = bpf_map_lookup_elem(&metric_stats, &zero);

	if (st)
		st->marks_lost++;
}

/* Mark the current thread with the application's span (trace id high, low, span id), or
 * clear the mark (a zero span id or trace id). */
static __always_inline int span_mark_set(__u64 hi, __u64 lo, __u64 span)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct scry_span_parent *m;

	if (!span || !(hi | lo)) {
		bpf_task_storage_delete(&span_mark, t);
		return 0;
	}
	m = bpf_task_storage_get(&span_mark, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (m) {
		m->trace_hi = hi;
		m->trace_lo = lo;
		m->span = span;
	} else {
		mark_lost();
	}
	return 0;
}

/* uprobe on the application's function f(trace_hi, trace_lo, span_id, ...) */
SEC("uprobe") SCRY_LANE(0)
int scry_span_mark_uprobe(struct pt_regs *ctx)
{
	return span_mark_set(ctx->di, ctx->si, ctx->dx);
}

/* USDT probe with the arguments trace_hi, trace_lo, span_id */
SEC("usdt") SCRY_LANE(0)
int scry_span_mark_usdt(struct pt_regs *ctx)
{
	long hi = 0, lo = 0, span = 0;

	bpf_usdt_arg(ctx, 0, &hi);
	bpf_usdt_arg(ctx, 1, &lo);
	bpf_usdt_arg(ctx, 2, &span);
	return span_mark_set(hi, lo, span);
}

/* The issuer's mark goes with its request (a program of its own, loaded with the marks only:
 * scry_metrics_rq_issue is the same with or without them). */
SEC("tp_btf/block_rq_issue") SCRY_LANE(0)
int BPF_PROG(scry_span_mark_rq_issue, struct request *rq)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct scry_span_parent *pm;
	__u64 key = (__u64)rq;

	if (!recording() || !task_measured(t))
		return 0;
	pm = bpf_task_storage_get(&span_mark, t, 0, 0);
	if (!pm)
		bpf_map_delete_elem(&blk_mark, &key);
	else if (bpf_map_update_elem(&blk_mark, &key, pm, BPF_ANY))
		mark_lost();
	return 0;
}

/* A marked request's mark into span_cur, with its issue time and issuer (blk_start, before
 * scry_metrics_rq_complete, attached after this one, deletes it), for its span. */
SEC("tp_btf/block_rq_complete") SCRY_LANE(0)
int BPF_PROG(scry_span_mark_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct scry_span_parent *m = bpf_map_lookup_elem(&blk_mark, &key);
	struct blk_start *b;
	struct span_cur *cur;
	__u32 zero = 0;

	if (!m)
		return 0;
	b = bpf_map_lookup_elem(&blk_start, &key);
	cur = bpf_map_lookup_elem(&span_cur, &zero);
	if (b && cur) {
		cur->start = b->ts;
		cur->tid = b->tid;
		cur->p = *m;
	}
	bpf_map_delete_elem(&blk_mark, &key);
	return 0;
}
