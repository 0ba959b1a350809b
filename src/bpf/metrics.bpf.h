// SPDX-License-Identifier: GPL-2.0
/* metrics.bpf.h — the metrics channel (scry serve, scry top): counters and histograms of
 * syscall exits updated here, in per-CPU hashes keyed by their labels (scry_abi.h, struct
 * scry_metric_key); no event is written and nothing is copied to user space per call.
 * Its own sys_enter/sys_exit programs, loaded only for a metrics channel: the recording
 * programs (syscalls.bpf.h) are untouched.  The entry program keeps the entry time of the
 * calls a latency metric wants (task storage "task_entry", as the counting channel).
 * The metrics are load-time settings (metric_desc, metric_sc_mask in maps.bpf.h): the
 * exit program is unrolled over the SCRY_METRICS_MAX ids, so that the verifier sees each
 * metric's kind, value, labels and buckets as constants and keeps only their code. */

/* What one syscall exit gives every metric. */
struct metric_call {
	__u32 mask;           /* metrics this syscall feeds */
	__u32 nr;
	__u32 err;            /* -ret for an error, else 0 */
	__u32 pid, tid, uid;
	__s64 ret;
	__s64 lat;            /* ns, or -1: entry not seen */
	struct scry_metric_stats *st;
};

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
	const volatile struct scry_metric_desc *d = &metric_desc[i];
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

/* The series of key in map inner (a per-CPU hash), added if new; NULL when the map is full
 * (counted in overflow[i]). */
static __always_inline void *metric_series(void *inner, const struct scry_metric_key *key,
					   struct scry_metric_stats *st, __u32 i)
{
	void *v = bpf_map_lookup_elem(inner, key);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(inner, key, &metric_zero, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: added meanwhile */) {
		if (i < SCRY_METRICS_MAX)
			st->overflow[i]++;
		return NULL;
	}
	return bpf_map_lookup_elem(inner, key);
}

/* Metric i (a constant) for call c; key: scratch space, comm: the comm when a metric uses it. */
static __always_inline void metric_one(__u32 i, const struct metric_call *c, struct scry_metric_key *key,
				       const char *comm)
{
	const volatile struct scry_metric_desc *d = &metric_desc[i];
	__u32 labels = d->labels;
	bool error = c->err != 0;
	void *inner, *s;
	__u64 v;

	if ((d->when == SCRY_MW_ERROR && !error) || (d->when == SCRY_MW_SUCCESS && error))
		return;
	if (d->value == SCRY_MV_RET) {
		if (c->ret < 0)
			return;
		v = c->ret;
	} else if (d->value == SCRY_MV_LATENCY) {
		if (c->lat < 0)
			return;
		v = c->lat;
	} else {
		v = 1;
	}
	/* every field written: the key of the previous metric is overwritten whole */
	key->nr = labels & SCRY_ML_SYSCALL ? c->nr : 0;
	key->err = labels & SCRY_ML_ERRNO ? c->err : 0;
	key->pid = labels & SCRY_ML_PID ? c->pid : 0;
	key->tid = labels & SCRY_ML_TID ? c->tid : 0;
	key->uid = labels & SCRY_ML_UID ? c->uid : 0;
	key->pad = 0;
	if (labels & SCRY_ML_COMM) {
		__builtin_memcpy(key->comm, comm, sizeof(key->comm));
	} else {
		*(__u64 *)&key->comm[0] = 0;
		*(__u64 *)&key->comm[8] = 0;
	}
	if (d->kind == SCRY_METRIC_HISTOGRAM) {
		inner = bpf_map_lookup_elem(&metric_hists, &i);
		if (!inner)
			return;
		s = metric_series(inner, key, c->st, i);
		if (s)
			hist_add(i, s, v);
	} else {
		inner = bpf_map_lookup_elem(&metric_counters, &i);
		if (!inner)
			return;
		s = metric_series(inner, key, c->st, i);
		if (s)
			*(__u64 *)s += v;
	}
}

static __always_inline void metrics_exit(struct task_struct *t, long id, long ret)
{
	struct metric_call c = { .nr = id, .ret = ret, .lat = -1 };
	struct scry_metric_key key;
	char comm[SCRY_COMM_LEN];
	__u32 zero = 0;
	struct task_entry *te;

	if (id < 0 || id >= SCRY_MAX_SYSCALLS)
		return;
	c.mask = metric_sc_mask[id];
	if (!c.mask)
		return;
	c.st = bpf_map_lookup_elem(&metric_stats, &zero);
	if (!c.st)
		return;
	c.st->events++;
	if (c.mask & metrics_latency_mask) {
		te = bpf_task_storage_get(&task_entry, t, 0, 0);
		if (te && te->ts && te->nr == id)
			c.lat = bpf_ktime_get_ns() - te->ts;
		else
			c.st->no_entry++;
		if (te)
			te->ts = 0;
	}
	c.err = ret < 0 && ret >= -4095 ? -ret : 0;
	if (metrics_label_union & (SCRY_ML_PID | SCRY_ML_TID)) {
		__u64 pt = bpf_get_current_pid_tgid();

		c.pid = pt >> 32;
		c.tid = (__u32)pt;
	}
	if (metrics_label_union & SCRY_ML_UID)
		c.uid = (__u32)bpf_get_current_uid_gid();
	if (metrics_label_union & SCRY_ML_COMM)
		bpf_get_current_comm(comm, sizeof(comm));
	/* unrolled: i is a constant in each copy, and the copies past n_metrics are dropped */
#pragma clang loop unroll(full)
	for (__u32 i = 0; i < SCRY_METRICS_MAX; i++) {
		if (i >= n_metrics)
			break;
		if (c.mask & (1u << i))
			metric_one(i, &c, &key, comm);
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(scry_metrics_enter, struct pt_regs *regs, long id)
{
	struct task_struct *t = NULL;
	struct task_entry *te;

	if (!recording() || id < 0 || id >= SCRY_MAX_SYSCALLS)
		return 0;
	if (!(metric_sc_mask[id] & metrics_latency_mask) || !target_ok(regs, &t))
		return 0;
	te = bpf_task_storage_get(&task_entry, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (te) {
		te->ts = bpf_ktime_get_ns();
		te->nr = id;
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(scry_metrics_exit, struct pt_regs *regs, long ret)
{
	struct task_struct *t = NULL;
	long id = regs->orig_ax;

	if (id == -1)
		id = SCRY_NR_RT_SIGRETURN;
	if (!recording() || !target_ok(regs, &t))
		return 0;
	metrics_exit(t, id, ret);
	return 0;
}
