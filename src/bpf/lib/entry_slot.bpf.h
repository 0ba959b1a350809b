// SPDX-License-Identifier: GPL-2.0
/* entry_slot.bpf.h — a syscall's entry (time, number) kept for its exit in this CPU's slot
 * (metric_slot, maps.bpf.h), as latency metrics and the counting channel (scry trace -c) keep
 * theirs: no helper call but the clock's for a call that does not leave the CPU; the switch
 * program (scry_metrics_lat_switch) moves the entry to the task's storage (metric_entry) when
 * the task leaves the CPU mid-call, so that its exit finds it there, on whatever CPU. */

/* The switches on this CPU (metric_slot.gen), read again after the slot: a program
 * preempted in between (a preemptible kernel) sees it changed. */
static __always_inline __u64 slot_gen(struct metric_slot *s)
{
	asm volatile("" ::: "memory");
	return *(volatile __u64 *)&s->gen;
}

/* The entry time of syscall id that t (current) is in, taken: from this CPU's slot when it
 * holds t's entry, else from the task's storage where the switch moved it when t left the
 * CPU during the call; either is cleared (an exit without its entry is not measured twice).
 * 0 when the entry was not seen (the call began before the session). */
static __always_inline __u64 slot_take(struct task_struct *t, long id)
{
	struct metric_slot *s;
	struct task_entry *te;
	__u32 zero = 0;
	__u64 gen, ts;
	__s64 nr;

	s = bpf_map_lookup_elem(&metric_slot, &zero);
	if (s && (gen = slot_gen(s), s->task == (__u64)t)) {
		ts = s->ts;
		nr = s->nr;
		s->task = 0;
		if (slot_gen(s) == gen)
			return ts && nr == id ? ts : 0;
		/* preempted here: the switch moved the entry to the task's storage */
	}
	te = bpf_task_storage_get(&metric_entry, current_trusted(t), 0, 0);
	if (!te)
		return 0;
	ts = te->ts && te->nr == id ? te->ts : 0;
	te->ts = 0;
	return ts;
}
