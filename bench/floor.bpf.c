/* bench/floor.bpf.c — the cost floor for bench/run.sh: empty programs on the syscall entry and
 * exit tracepoints (tp_btf, as scry uses; raw_syscalls tracepoints as a fallback).  With
 * read_clock set they only read the trace clock (bpf_ktime_get_ns), what any tracer that
 * timestamps its events must pay on top of the floor; with read_stack they read a call stack. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile int read_clock = 0;
/* 1: the current task's kernel stack, 2: its user stack, as scry's callstack contexts read
 * them (bpf_get_task_stack, 128 frames, the kernel one skipping 4), into a per-CPU buffer:
 * the floor of a call stack context (bench/progcost.sh) */
const volatile int read_stack = 0;
/* 1: the current task's tid through bpf_get_current_task_btf(), as scry's target check reads
 * it: what the helper call costs (bench/progcost.sh's floor-task row) */
const volatile int read_task = 0;
__u64 sink;

#define FLOOR_STACK_MAX 128
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[FLOOR_STACK_MAX]);
} stack_buf SEC(".maps");

static __always_inline void touch_clock(void)
{
	if (read_clock)
		sink = bpf_ktime_get_ns();
	if (read_task)
		sink += bpf_get_current_task_btf()->pid;
	if (read_stack) {
		__u32 zero = 0;
		__u64 *buf = bpf_map_lookup_elem(&stack_buf, &zero);

		if (buf)
			sink += bpf_get_task_stack(bpf_get_current_task_btf(), buf, FLOOR_STACK_MAX * 8,
						   read_stack == 2 ? BPF_F_USER_STACK : (4 & BPF_F_SKIP_FIELD_MASK));
	}
}

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter_btf, struct pt_regs *regs, long id)
{
	touch_clock();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit_btf, struct pt_regs *regs, long ret)
{
	touch_clock();
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int floor_enter_tp(void *ctx)
{
	touch_clock();
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int floor_exit_tp(void *ctx)
{
	touch_clock();
	return 0;
}
