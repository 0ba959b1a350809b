// SPDX-License-Identifier: GPL-2.0
/* scry.bpf.c — scry's kernel programs, one BPF object: the maps (maps.bpf.h), the layers
 * every source uses (lib/: buffer, record, target), then one header per source:
 *   syscalls.bpf.h     sys_enter / sys_exit: every syscall, arguments from the per-number
 *                      descriptor table (syscall_args, syscall_ops), user strings read; an
 *                      entry whose strings are not mapped yet written at the exit
 *                      (syscall_defer); counting (syscall_count)
 *   tracepoints.bpf.h  any tracefs tracepoint, copied by its descriptor's operations
 *   lifecycle.bpf.h    fork tracking, the fork event, exits of followed processes
 *   signals.bpf.h      signal_deliver with its siginfo, the fatal signal behind a SIGKILL
 *   metrics.bpf.h      the metrics channel: counters and histograms of syscalls, in maps
 *   uprobes.bpf.h      uprobes, uretprobes and USDT probes: registers, user strings and
 *                      USDT arguments by descriptor (libbpf's usdt.bpf.h: its maps)
 *   perf_ctx.bpf.h     the perf:thread counter contexts' accounting at context switches
 *   samples.bpf.h      the profile source: a cpu-clock sample of a target as an event
 *   net.bpf.h          the net source: a TCP connection's event when it closes
 * All events are written in their final CTF layout (docs/FORMAT.md).  To add a source: a
 * header here, its maps in maps.bpf.h, its loader part in src/kernel/probes.c; each program
 * marked SCRY_LANE(n) beside its SEC (the lane that verifies it, src/kernel/lanes.c). */
#include "maps.bpf.h"
#include <bpf/usdt.bpf.h>
#include "lib/buffer.bpf.h"
#include "lib/ustack.bpf.h"
#include "lib/record.bpf.h"
#include "lib/target.bpf.h"
#include "lib/entry_slot.bpf.h"
#include "syscall_count.bpf.h"
#include "syscall_defer.bpf.h"
#include "syscall_args.bpf.h"
#include "syscall_ops.bpf.h"
#include "syscalls.bpf.h"
#include "tracepoints.bpf.h"
#include "lifecycle.bpf.h"
#include "signals.bpf.h"
#include "metrics.bpf.h"
#include "uprobes.bpf.h"
#include "statedump.bpf.h"
#include "perf_ctx.bpf.h"
#include "samples.bpf.h"
#include "net.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Run by the consumer on one CPU (BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU): hand
 * that CPU's staged events to its ring unless a writer there is mid-event. */
SEC("raw_tp") SCRY_LANE(0)
int scry_flush(void *ctx)
{
	stage_drain();
	return 0;
}
