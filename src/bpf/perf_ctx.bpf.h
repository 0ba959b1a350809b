// SPDX-License-Identifier: GPL-2.0
/* perf_ctx.bpf.h — perf:thread counters: at each context switch, what the CPU's counters
 * moved while prev ran is added to prev's counts, and next starts from the counters' values
 * (record.bpf.h perf_thread reads them at events).  Loaded only when a perf:thread context
 * is enabled. */

static __noinline void perf_switch_out(struct thread_ctrs *p)
{
	if (!p)
		return;
	for (int i = 0; i < SCRY_PERF_NR; i++)
		if ((ctx_mask & (1ULL << (SCRY_CTX_PERF_THREAD + i))) && p->on)
			p->acc[i] += perf_now(i) - p->start[i];
	p->on = 0;
}

static __noinline void perf_switch_in(struct thread_ctrs *n)
{
	if (!n)
		return;
	for (int i = 0; i < SCRY_PERF_NR; i++)
		if (ctx_mask & (1ULL << (SCRY_CTX_PERF_THREAD + i)))
			n->start[i] = perf_now(i);
	n->on = 1;
}

SEC("tp_btf/sched_switch") SCRY_LANE(1)
int BPF_PROG(scry_perf_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	perf_switch_out(bpf_task_storage_get(&thread_perf, prev, NULL, 0));
	perf_switch_in(bpf_task_storage_get(&thread_perf, next, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE));
	return 0;
}
