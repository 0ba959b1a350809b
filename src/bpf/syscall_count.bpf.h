// SPDX-License-Identifier: GPL-2.0
/* syscall_count.bpf.h — the counting channel (scry trace -c): calls, errors and time per
 * syscall counted in the kernel, no event written.  A call's entry (time, number) waits for
 * its exit in this CPU's slot, as latency metrics keep theirs (metric_slot, maps.bpf.h): no
 * helper call but the clock's on the way of a call that does not leave the CPU (the task's
 * storage cost two an entry and two an exit); scry_metrics_lat_switch, loaded with the
 * counting channel, moves the entry to the task's storage (metric_entry) when the task
 * leaves the CPU mid-call, so that its exit finds it there, on whatever CPU. */

static __always_inline void count_enter(struct task_struct *t, long id)
{
	struct metric_slot *s;
	struct task_entry *te;
	__u32 zero = 0;
	__u64 gen, ts;

	s = bpf_map_lookup_elem(&metric_slot, &zero);
	if (!s)
		return;
	gen = slot_gen(s);
	ts = bpf_ktime_get_ns();
	s->ts = ts;
	s->nr = id;
	s->task = (__u64)t;
	if (slot_gen(s) != gen) {
		/* preempted meanwhile (the switch may have moved half of it): the task's storage
		 * alone holds this entry */
		s->task = 0;
		te = bpf_task_storage_get(&metric_entry, current_trusted(t), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (te) {
			te->ts = ts;
			te->nr = id;
		}
	}
}

static __always_inline void count_exit(struct task_struct *t, long id, long ret)
{
	struct scry_sc_count *c;
	__u32 nr = id;
	__u64 ts = slot_take(t, id);

	if (!ts)
		return;     /* its entry was not seen (the call began before the session) */
	c = bpf_map_lookup_elem(&sc_counts, &nr);
	if (c) {
		c->calls++;
		if (ret < 0 && ret >= -4095)
			c->errors++;
		c->ns += bpf_ktime_get_ns() - ts;
	}
}
