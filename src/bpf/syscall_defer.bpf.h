// SPDX-License-Identifier: GPL-2.0
/* syscall_defer.bpf.h — an entry whose strings are not mapped yet kept for its exit
 * (maps.bpf.h: deferred). */

/* Keep t's entry of syscall id for its exit; false (write it now) when no room. */
static __always_inline bool defer_entry(struct task_struct *t, long id, const __u64 *args, __u64 ts)
{
	struct deferred *de = bpf_task_storage_get(&deferred, current_trusted(t), 0,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);

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
