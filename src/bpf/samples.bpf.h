// SPDX-License-Identifier: GPL-2.0
/* samples.bpf.h — the profile source (src/session/src_profile.c): "profile:cpu-clock:HZ"
 * puts a cpu-clock perf event on each CPU at HZ samples a second, and each sample of a
 * target task is an event of its own, profile_cpu_clock, with the header and the channel's
 * contexts (its stacks: the callstack_kernel / callstack_user contexts, as LTTng's add-context
 * writes them, from the interrupted registers: the kernel stack starts at the function the
 * sample interrupted, empty when it interrupted user code) and no payload.  LTTng has no sampling event: the name is scry's
 * (docs/FORMAT.md).  The idle task's samples are not events.  A sample that finds its
 * build area taken or no room in the ring is counted lost as any event is. */

const volatile __u16 profile_event_id = SCRY_NO_EVENT;

SEC("perf_event") SCRY_LANE(1)
int scry_profile_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = NULL;
	struct area *a;
	__u32 pos;

	if (!recording() || !target_ok(NULL, &t) || t->pid == 0)
		return 0;
	/* the tracepoint programs' area: a perf event's program never runs inside a tracefs
	 * tracepoint's (bpf_prog_active), and a BTF one it interrupts makes it a counted loss */
	a = area_get(AREA_TP);
	if (!a)
		return 0;
	/* run in the timer interrupt: no migrate_disable of its own; the stacks the interrupted
	 * code's (ctx: its registers) */
	pos = write_head_pe(a->buf, profile_event_id, t, ctx);
	submit_pe(a, pos, ctx);
	area_put(a);
	return 0;
}
