// SPDX-License-Identifier: GPL-2.0
/* misses.bpf.c — the kernel's recursion misses per CPU, one BPF object of its own (loaded
 * only when read, by src/kernel/misses.c).  The kernel skips a tracing program that would
 * run while another one (a tracepoint program, or a bpf() map syscall: both hold the CPU's
 * bpf_prog_active) or the same one runs on that CPU, and counts it in the program's per-CPU
 * stats; bpf_prog_info gives only their sum.  An event skipped so is lost on that CPU, so
 * its count belongs in that CPU's stream: this iterator over the loaded programs reads each
 * CPU's count (prog->stats + that CPU's per-CPU offset) and writes one struct scry_miss per
 * program and CPU that has any. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "scry_abi.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 ncpus = 1;     /* possible CPUs, set before load */

extern const unsigned long this_cpu_off __ksym;   /* x86: each CPU's per-CPU offset */

/* One CPU's misses of prog (its stats at stats + the CPU's offset), 0 if unreadable. */
static __always_inline __u64 cpu_misses(unsigned long stats, __u32 cpu)
{
	const unsigned long *off = bpf_per_cpu_ptr(&this_cpu_off, cpu);
	__u64 n = 0;

	if (!off)
		return 0;
	bpf_probe_read_kernel(&n, sizeof(n),
			      (void *)(stats + *off + bpf_core_field_offset(struct bpf_prog_stats, misses)));
	return n;
}

SEC("iter/bpf_prog")
int scry_misses(struct bpf_iter__bpf_prog *ctx)
{
	struct bpf_prog *prog = ctx->prog;
	struct scry_miss m;
	unsigned long stats;

	if (!prog)
		return 0;
	stats = (unsigned long)BPF_CORE_READ(prog, stats);
	m.id = BPF_CORE_READ(prog, aux, id);
	if (!stats)
		return 0;
	for (__u32 cpu = 0; cpu < ncpus && cpu < SCRY_MAX_CPUS; cpu++) {
		m.cpu = cpu;
		m.misses = cpu_misses(stats, cpu);
		if (m.misses)
			bpf_seq_write(ctx->meta->seq, &m, sizeof(m));
	}
	return 0;
}
