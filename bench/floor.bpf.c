/* bench/floor.bpf.c — the cost floor for bench/run.sh: empty programs on the syscall entry and
 * exit tracepoints (tp_btf, as scry uses; raw_syscalls tracepoints as a fallback). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_enter_btf, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(floor_exit_btf, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int floor_enter_tp(void *ctx)
{
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int floor_exit_tp(void *ctx)
{
	return 0;
}
