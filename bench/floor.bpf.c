/* bench/floor.bpf.c — the cost floor for bench/run.sh: empty programs on the syscall entry and
 * exit tracepoints (tp_btf, as scry uses; raw_syscalls tracepoints as a fallback).  With
 * read_clock set they only read the trace clock (bpf_ktime_get_ns), what any tracer that
 * timestamps its events must pay on top of the floor. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile int read_clock = 0;
__u64 sink;

static __always_inline void touch_clock(void)
{
	if (read_clock)
		sink = bpf_ktime_get_ns();
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
