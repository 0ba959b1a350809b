// SPDX-License-Identifier: GPL-2.0
/* syscall_count.bpf.h — the counting channel (scry trace -c): calls, errors and time per
 * syscall counted in the kernel, no event written. */

static __always_inline void count_enter(struct task_struct *t, long id)
{
	struct task_entry *te = bpf_task_storage_get(&task_entry, current_trusted(t), 0,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (te) {
		te->ts = bpf_ktime_get_ns();
		te->nr = id;
	}
}

static __always_inline void count_exit(struct task_struct *t, long id, long ret)
{
	struct task_entry *te = bpf_task_storage_get(&task_entry, current_trusted(t), 0, 0);
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
