// SPDX-License-Identifier: GPL-2.0
/* maps.bpf.h — every map and load-time setting of scry's BPF programs, in one documented
 * place (Falco's modern_bpf keeps the same rule): the session's switch, the per-CPU rings,
 * build areas and stages, the loss counters, the follow sets and trackers, the memo, the
 * syscall and tracepoint descriptor tables, the per-process event sets, the counting and deferred-entry task storage,
 * and the filter fronts' environments and prog arrays.  User space fills and reads them
 * through src/kernel/probes.c.  Included first by scry.bpf.c. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "scry_abi.h"

/* SCRY_LANE(n), beside each program's SEC: the lane that verifies it (src/kernel/lanes.c loads
 * the programs in two threads).  It expands to nothing; scripts/gen-lanes.sh reads the marks into
 * the table lanes.c uses, and fails the build when a program of the skeleton has none. */
#define SCRY_LANE(n)


/* Load-time settings (rodata): the verifier drops the code of disabled contexts. */
#define SCRY_HEAD_BASIC_BYTES (SCRY_EVENT_HEADER_SIZE + 24)   /* with SCRY_CTX_BASIC_MASK's */
#define SCRY_CTX_PIDTID_MASK ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID))   /* scry trace's */
const volatile __u64 ctx_mask = SCRY_CTX_BASIC_MASK;
const volatile __u32 head_bytes = SCRY_HEAD_BASIC_BYTES; /* header + contexts of ctx_mask */

/* The contexts as a program reads them.  shape: 0, or the context mask a program was made
 * for (a compile-time constant: the syscall dispatchers' copies for record's defaults,
 * SCRY_CTX_BASIC_MASK, and scry trace's, SCRY_CTX_PIDTID_MASK; syscalls.bpf.h), for which
 * the compiler keeps no code of the other contexts; else ctx_mask. */
static __always_inline __u64 ctx_mask_in(const __u64 shape)
{
	return shape ? shape : ctx_mask;
}
/* the enabled contexts from SCRY_CTX_VPPID on, in order (record.bpf.h's write_head_ext) */
const volatile __u8 ext_ctx[SCRY_CTX_NR] = {};
const volatile __u32 n_ext_ctx = 0;
const volatile __u32 ovf_uid = 65534;     /* /proc/sys/kernel/overflowuid: v*id of an unmapped id */
const volatile __u32 ovf_gid = 65534;
const volatile __s64 preempt_delta = 0;  /* per-CPU __preempt_count - runqueues (record.bpf.h) */
const volatile __u8 tif_need_resched = 3;
const volatile __u32 stack_max = SCRY_CALLSTACK_MAX;
const volatile __u32 perf_ncpus = 1;      /* perf_ctrs: counter k of CPU c at k * perf_ncpus + c */  /* frames a call stack context may get */ /* TIF_NEED_RESCHED's bit (x86: 3; generic TIF bits: 4) */
const volatile __u8 target_all = 0;        /* 1: system-wide; 0: only tgids in `tracked` */
const volatile __u8 follow_forks = 1;      /* the children of tracked tgids are tracked */
const volatile __u16 fork_event_id = SCRY_NO_EVENT;
const volatile __u16 signal_event_id = SCRY_NO_EVENT;   /* signals.bpf.h */
const volatile __u16 signal_gen_event_id = SCRY_NO_EVENT;
const volatile __u16 unknown_entry_id = SCRY_NO_EVENT;
const volatile __u16 unknown_exit_id = SCRY_NO_EVENT;
const volatile __u16 sd_ids[SCRY_SD_NR] = { [0 ... SCRY_SD_NR - 1] = SCRY_NO_EVENT };   /* statedump */
const volatile __u32 track_mask = 0;       /* SCRY_TRACK_* trackers in use */
const volatile __u32 n_track_cgroups = 0;
const volatile __u8 scry_clock = SCRY_CLOCK_MONOTONIC;   /* the trace clock (SCRY_CLOCK_*) */
const volatile __u8 prepare_exec_on = 0;   /* scry_prepare_exec writes deferred execve entries */

/* Now, on the trace clock: the verifier keeps only the chosen helper (the branches on the
 * frozen rodata are decided at load), so a kernel without bpf_ktime_get_tai_ns loads the
 * others; the default pays one test of scry_clock (a load and a branch) beside
 * bpf_ktime_get_ns(). */
static __always_inline __u64 scry_now(void)
{
	if (__builtin_expect(scry_clock != SCRY_CLOCK_MONOTONIC, 0))
		return scry_clock == SCRY_CLOCK_BOOT ? bpf_ktime_get_boot_ns() : bpf_ktime_get_tai_ns();
	return bpf_ktime_get_ns();
}

/* The session's switch: every event starts and stops being written at one instant, when
 * user space flips it through the mmapped .bss (scry_probes_set_recording).  The programs
 * are attached before it is turned on and detached after it is turned off, so attaching
 * and detaching one tracepoint after another does not show in the trace.  Fork tracking
 * does not wait for it: a child forked before the start is followed all the same. */
volatile __u32 scry_recording = 0;

/* scry itself (its tgid: never recorded), set through the mmapped .bss by the process that
 * attaches the programs before it attaches them: not a load-time setting, so that a loaded
 * object may be handed to another process (scryd's warm object, kernel/warm.c). */
__u32 self_tgid = 0;

/* The statedump's items of the current run: sd_items[0..sd_nitems), written when the task
 * iterator reaches scry's thread sd_tid (statedump.bpf.h). */
volatile __u32 sd_nitems = 0;
volatile __s32 sd_tid = 0;

static __always_inline bool recording(void)
{
	return scry_recording;
}

struct ring_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);         /* resized by user space before load */
};

/* One ring buffer per CPU (index = CPU), created and inserted by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);               /* resized to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct ring_inner);
} rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_cpu_stats);
} stats SEC(".maps");

/* The follow sets (tgid -> 1): a process leaves when its last thread exits (scry_exit), so
 * that a reused pid is never followed by mistake; allocated as entries come (a set holds the
 * live ones).
 *   tracked        followed processes when not system-wide; fork tracking adds children;
 *                  without fork following (follow_forks 0) followed threads (tid -> 1)
 *   vpid_followed  the vpid tracker's followers: processes forked by a process it passes
 *                  (pid in the initial namespace; not their vpids, which mean other
 *                  processes in other namespaces) */
struct follow_set {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCRY_FOLLOW_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u8);
};
struct follow_set tracked SEC(".maps"), vpid_followed SEC(".maps");

/* The wait(2) status of each process whose last thread exited (tgid -> status), written by
 * scry_exit: `scry trace`'s "+++ exited with N +++" from the process's exit, whatever
 * syscalls are traced (read and deleted by user space at sched_process_exit's event). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SCRY_EXIT_CODES_MAX);
	__type(key, __u32);
	__type(value, __u32);
} exit_codes SEC(".maps");

/* Trackers (SCRY_TRACK_*): an event passes when its task is in every tracker in use. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} track_vpid SEC(".maps"), track_uid SEC(".maps"), track_gid SEC(".maps"), track_vuid SEC(".maps"),
  track_vgid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, SCRY_MAX_TRACK_CGROUPS);
	__type(key, __u32);
	__type(value, __u32);
} track_cgroup SEC(".maps");

/* Event build areas, one per CPU and program kind (index cpu * AREA_NR + kind) so that an
 * interrupt-context program never writes over the area of the program it interrupted.
 * A plain array: per-CPU map values are limited to 32 KiB. */
enum { AREA_SYS_ENTER, AREA_SYS_EXIT, AREA_TP, AREA_FORK, AREA_UPROBE, AREA_NR };
_Static_assert(AREA_NR == SCRY_AREAS_PER_CPU, "scry_abi.h SCRY_AREAS_PER_CPU");

struct area {
	__u32 busy;
	__u32 pos;          /* generic tracepoints: write position, kept here (not on the */
	__u32 copy_dst;     /* stack) so the verifier checks the bpf_loop callback once  */
	__u32 copy_src;
	__u32 nest;         /* syscall ops: where the parent element of nested ops starts */
	__u32 nest_n;       /* ... and whether it was read (0: nested ops write nothing) */
	__u32 faults;       /* syscall ops: user strings or string arrays that could not be read */
	__u32 pad;
	__u64 regs[8];      /* syscall ops: arguments 0..5, [6] the return value */
	__u64 src[8];       /* syscall ops: where the strings of argument i are read (regs[i],
			     * except for an execve entry rebuilt from the new image) */
	/* syscall ops' bpf_loop walks (IOV, STRV, DIRENTS): their running counts, kept here
	 * as pos is: on the caller's stack the verifier tracks each value and checks the
	 * callback again until they settle (~7 times each: ~2k instructions of sys_enter, of
	 * sys_exit) */
	__u64 walk_left;    /* IOV with SCRY_SOPF_RETDATA: bytes of the return value not yet placed */
	__u64 walk_off;     /* DIRENTS: offset of the next record in the user buffer */
	__u32 walk_n;       /* iovecs, strings, directory records written */
	__u32 walk_room;    /* IOV: data bytes left for the whole operation */
	__u32 walk_count;   /* STRV: pointers before the NULL; DIRENTS: records counted */
	__u32 walk_flags;   /* WALK_* (syscall_ops.bpf.h) */
	__u8 buf[SCRY_SCRATCH_SIZE];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, AREA_NR);        /* resized to possible CPUs * AREA_NR */
	__type(key, __u32);
	__type(value, struct area);
} areas SEC(".maps");

/* The statedump's build area (statedump.bpf.h): its iterator programs are run one after
 * the other by scry's thread alone, so one area serves them all. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct area);
} sd_area SEC(".maps");

/* The statedump's events read by user space (struct scry_sd_item), written by the
 * iterator over this map.  One slot unless the statedump is recorded (then SCRY_SD_ITEMS). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_sd_item);
} sd_items SEC(".maps");

/* The net source (net.bpf.h): each TCP connection opened while recording, by its struct
 * sock, from SYN_SENT (active) or the child socket's SYN_RECV (passive) until TCP_CLOSE,
 * when its net_connection event is written.  The owner is the connecting task, or the
 * accepting one once accept returns the socket.  One slot unless the source is recorded
 * (then SCRY_NET_CONNS); a connection that finds it full is
 * counted lost. */
const volatile __u16 net_conn_event_id = SCRY_NO_EVENT;

struct net_conn {
	__u64 start;          /* scry_now() at SYN_SENT / SYN_RECV */
	__s32 pid, tid;       /* the owner (0: not known yet) */
	char comm[SCRY_COMM_LEN];
	__u8 active;          /* 1: connect(); 0: accepted from a listener */
	__u8 owned;           /* the owner is known and recorded */
	__u8 pad[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* entries allocated as connections come */
	__uint(max_entries, 1);               /* SCRY_NET_CONNS when net:connections is recorded */
	__type(key, __u64);                   /* the struct sock's address */
	__type(value, struct net_conn);
} net_conns SEC(".maps");

/* Per-CPU staging buffers (index = CPU), see scry_abi.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);               /* resized to the number of possible CPUs */
	__uint(map_flags, BPF_F_MMAPABLE);    /* the consumer reads len to know when to flush */
	__type(key, __u32);
	__type(value, struct scry_stage);
} stages SEC(".maps");

/* Generation of `tracked` and of the tasks: bumped whenever a tgid is added (by user space:
 * + 1 << 32), so that the per-CPU memo below never keeps a stale "not followed" answer, and
 * with memo_by_gen at every task's exit (scry_memo_exit), so that a memo filled before
 * proves nothing about a task that may have been freed since.  A global of .bss, not a
 * map: one load where the memo is checked (an array lookup was nine instructions). */
volatile __u64 tracked_gen = 0;

/* Set by user space when scry_memo_exit is attached before any program that reads the memo
 * (src/kernel/trackers.c): a memo hit is then proved by its registers and generation alone
 * (target.bpf.h, memo_current). */
const volatile __u8 memo_by_gen = 0;

/* memo_by_gen, system-wide and no tracker (record -a's and the metrics' mode), in one flag:
 * the syscall programs' target check tests it first and alone (target.bpf.h,
 * target_ok_all).  The verifier knows a rodata value but drops a test only where one of
 * its two ways is reached from nowhere else: the five flags that path tested before were
 * a load, a test and a jump each (one flag instead: -1.6 ns an event of record -a,
 * bench/progpair.sh; the programs compiled for the mode, syscalls.bpf.h, take more). */
const volatile __u8 memo_all_gen = 0;

/* System-wide without trackers, current from bpf_get_current_task_btf() rather than the
 * memo (target.bpf.h, target_ok_all): where a helper's return is not thunked
 * (src/kernel/features.c, scry_feature_ret_thunk), the call and its return cost less than
 * the memo's chain of loads (bench/progpair.sh, Intel host: -4.9 ns an event of record -a,
 * -5.3 one a filter front rejects; on an SRSO Safe RET host the memo saved ~7). */
const volatile __u8 current_by_helper = 0;

/* The uid and gid trackers' ids as bloom bits, one word each (bit id % 64), set at load with
 * the maps track_uid and track_gid, which stay the answer for a set bit (target.bpf.h,
 * uid_tracked).  With ug_prefilter (SCRY_TRACK_UID and SCRY_TRACK_GID of track_mask where
 * current comes cheaper from the helper, as above; else 0) the target check tests them
 * first: a process whose ids are not tracked is rejected by current's credentials and a bit
 * of each word, before the memo.  One word, not more: its load does not wait for the id,
 * and the chain the clock waits for at the program's end (current, its cred, the id, a
 * test) is the whole cost of a rejection (a word indexed by the id is one more load in the
 * chain: +2.9 ns against this word's +1.9, bench/progpair.sh, docs/ENGINE.md). */
const volatile __u64 track_uid_bloom = 0;
const volatile __u64 track_gid_bloom = 0;
const volatile __u8 ug_prefilter = 0;

/* The current task's memo on this CPU (struct scry_memo in scry_abi.h): consecutive events
 * mostly come from the same task, and a per-CPU array read is far cheaper than a helper
 * call and hash lookups.  Created by user space without the kptr when the kernel has no
 * untrusted kptrs (Linux < 6.4): memo_by_regs = 0 then, and only the answer part is used,
 * keyed by tgid. */
const volatile __u8 memo_by_regs = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_memo);
} memo SEC(".maps");

/* ---- descriptor tables (filled by user space) ---------------------------------------- */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct scry_sc_desc);
} syscalls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_MAX_TP);
	__type(key, __u32);
	__type(value, struct scry_tp_desc);
} tps SEC(".maps");

/* Per-process event sets (scry_abi.h, src/session/pid_sets.c): the set of a process (tgid
 * -> its syscalls and tracepoints, and its slot), and the events each slot let through (read
 * by user space to evict the least recently used set).  Looked up only for an event whose
 * descriptor says SCRY_SC_PIDSET / SCRY_TP_PIDSET (enabled for per-process sets alone):
 * every other event, and every event of a channel without sets, costs what it did.  No
 * entry: the channel's own events only (the default).  The bits are the hash's value (not
 * a slot's in an array of their own): one map page fewer for the event to touch.  In front
 * of it, pid_set_bloom (the end of this file). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);               /* resized to the session's bound on sets */
	__type(key, __u32);
	__type(value, struct scry_pid_set);
} pid_set_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);               /* resized likewise */
	__type(key, __u32);
	__type(value, __u64);
} pid_set_hits SEC(".maps");

/* Uprobes: one descriptor per attached probe (its attach cookie), uprobes.bpf.h. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_MAX_UPROBES);
	__type(key, __u32);
	__type(value, struct scry_up_desc);
} uprobes SEC(".maps");

/* A syscall's entry (time, number) kept for its exit: latency metrics and counting mode
 * (metric_slot, metric_entry below). */
struct task_entry {
	__u64 ts;
	__s64 nr;
};

/* Counting mode (SCRY_SC_COUNT): totals per syscall and CPU (the entries: metric_slot). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct scry_sc_count);
} sc_counts SEC(".maps");

/* Deferred entries.  bpf_probe_read_user_str() cannot fault a page in: a string in a page
 * the process has not touched yet (a child's rodata right after fork, glibc's "" for
 * fstat) reads as a fault at sys_enter.  The syscall itself faults it in, so such an entry
 * is kept here and written at sys_exit (or, for execve, at sched_prepare_exec, before the
 * old image goes) with its entry time and its strings read again. */
struct deferred {
	__u64 ts;             /* entry time */
	__u64 args[SCRY_MAX_ARGS];
	__u64 comm[2];        /* the task's name at entry (exec changes it) */
	__s32 nr;
	__u32 pending;        /* 1: an entry waits for its syscall's exit */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct deferred);
} deferred SEC(".maps");

/* Entries kept and not written yet, over all tasks: those still waiting when recording
 * stops (a call blocked at the end) are reported lost by user space. */
__u64 deferred_waiting = 0;

/* The writing of a fixed-layout entry with strings (write_args): its position and the
 * strings that could not be read, kept in map memory, not on the stack, so that the
 * verifier sees one unknown position after each argument instead of following every
 * combination of string lengths. */
struct args_walk {
	__u32 pos;
	__u32 faults;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct args_walk);
} args_walk SEC(".maps");

/* ---- filter fronts: a front generated at run time (src/filter/bpf_gen.c) runs first on
 * the hook and, once it accepted an event, reaches its dispatcher through these prog arrays
 * (scry_abi.h); the fronts are not compiled with this object. */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_FENV_NR);
	__type(key, __u32);
	__type(value, struct scry_filter_env);
} filter_env SEC(".maps");

/* Index 0: the dispatcher; back_exit index 1: the resume program (deferred entries).  A
 * prog array only takes programs of its owner's type and hook. */
struct back_array {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
};
/* The perf counter contexts (record.bpf.h): one perf event per counter in use and CPU
 * (perf_event_open by src/kernel/perf_ctx.c), and per thread the counts of perf:thread
 * counters accumulated while it ran (at sched_switch). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 1);
} perf_ctrs SEC(".maps");

struct thread_ctrs {
	__u64 acc[SCRY_PERF_NR];     /* counted while it ran, before start */
	__u64 start[SCRY_PERF_NR];   /* the CPU counter when it last went on (or was first seen) */
	__u32 on;                    /* 1: on a CPU since start */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_ctrs);
} thread_perf SEC(".maps");

/* A task's namespace-relative user and group ids (the vuid ... vsgid contexts) as last
 * computed, with what they were computed from: its user namespace (pointer and inode) and
 * its six kernel ids.  The same inputs give the same outputs (a namespace's id maps are
 * written once), so an event whose inputs are unchanged reads them here instead of walking
 * the maps six times (~75 ns each). */
struct vid_memo {
	__u64 ns;                    /* the user_namespace's address; 0: never computed */
	__u32 inum;
	__u32 kid[6];                /* uid, euid, suid, gid, egid, sgid */
	__u32 vid[8];                /* as the namespace shows them (6; 8: a bounded index) */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct vid_memo);
} vid_memos SEC(".maps");

/* The last vid_memo read on this CPU, in front of vid_memos: consecutive events on a CPU
 * mostly come from tasks with the same credentials, and a per-CPU array lookup is inlined by
 * the verifier where bpf_task_storage_get is a helper call.  seq is odd while it is written
 * (a program nested in this one, an NMI's, may write it: the reader checks seq around). */
struct vid_cpu_memo {
	__u32 seq;
	__u32 pad;
	struct vid_memo m;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vid_cpu_memo);
} vid_cpu SEC(".maps");

struct back_array back_enter SEC(".maps"), back_exit SEC(".maps"), back_tp SEC(".maps"), back_fork SEC(".maps"),
	back_uprobe SEC(".maps");

/* The fork event's front (index 0), which scry_fork tries before writing the event. */
struct back_array flt_fork SEC(".maps");

/* Event rules changed on a started session (a daemon's events channel, doors_on): the
 * syscall hooks get the dispatchers' copies that open with a door (syscalls.bpf.h: *_door):
 * door_sel 0, the dispatcher goes on; 1 or 2, it tail-calls index 0 or 1 of these (the
 * current filter front, or the plain dispatcher, without the door).  User space fills the other index, then stores
 * door_sel once: every entry and exit from that store on is decided by the new programs,
 * none by both. */
struct back_array door_enter SEC(".maps"), door_exit SEC(".maps");
volatile __u32 door_sel = 0;
const volatile bool doors_on = false;

/* ---- in-kernel metrics (metrics.bpf.h; scry_abi.h describes them) ---------------------
 * The metrics channel's own maps: each metric's series in an inner per-CPU hash created by
 * user space with the metric's max_entries (index = metric id); a counter's value a u64, a
 * histogram's a struct scry_metric_hist.  The templates' size is not the inner maps'. */
const volatile __u32 n_metrics = 0;            /* metrics 0..n-1 in metric_desc */
const volatile __u32 metrics_label_union = 0;  /* SCRY_ML_* some metric uses */
const volatile __u32 metrics_latency_mask = 0; /* syscall metrics whose value is the latency */
const volatile __u8 metrics_dense_only = 0;    /* every syscall metric is a dense counter or
						* histogram: metrics_exit_dense */
const volatile __u32 metrics_event_mask = 0;   /* 1 << SCRY_ME_*: events some metric observes */
/* The metrics themselves, load-time settings too: the verifier reads each one's fields as
 * constants (metrics.bpf.h unrolls the metrics) and drops the code of the others' kinds,
 * labels and buckets; and a syscall's mask is read from the page the other settings are in
 * rather than from maps of their own (every page an event touches costs a TLB miss after
 * the flush of each kernel entry under PTI). */
const volatile struct scry_metric_desc metric_desc[SCRY_METRICS_MAX] = {};
/* A dense histogram's first entry in metric_dense_hists. */
const volatile __u32 metric_hist_base[SCRY_METRICS_MAX] = {};
/* Per syscall number: the mask of the metrics it feeds (bit = metric id). */
const volatile __u32 metric_sc_mask[SCRY_MAX_SYSCALLS] = {};
/* SCRY_ML_ADDR: per syscall, 1 + the argument that points to its struct sockaddr (0: none) */
const volatile __u8 metric_sc_addr_arg[SCRY_MAX_SYSCALLS] = {};
/* SCRY_ML_WCHAN: the scheduler's and the locking functions' text ([start, end) twice) */
const volatile __u64 metric_sched_text[4] = {};

/* Keyed by the first SCRY_METRIC_KEY_NARROW bytes of struct scry_metric_key; the *_wide
 * maps (metrics with a cgroup, addr or wchan label) by all of it. */
struct metric_counter_inner {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(key_size, SCRY_METRIC_KEY_NARROW);
	__type(value, __u64);
};

struct metric_hist_inner {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(key_size, SCRY_METRIC_KEY_NARROW);
	__type(value, struct scry_metric_hist);
};

struct metric_counter_wide_inner {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct scry_metric_key);
	__type(value, __u64);
};

struct metric_hist_wide_inner {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct scry_metric_key);
	__type(value, struct scry_metric_hist);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SCRY_METRICS_MAX);
	__type(key, __u32);
	__array(values, struct metric_counter_wide_inner);
} metric_counters_wide SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SCRY_METRICS_MAX);
	__type(key, __u32);
	__array(values, struct metric_hist_wide_inner);
} metric_hists_wide SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SCRY_METRICS_MAX);
	__type(key, __u32);
	__array(values, struct metric_counter_inner);
} metric_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, SCRY_METRICS_MAX);
	__type(key, __u32);
	__array(values, struct metric_hist_inner);
} metric_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SCRY_METRICS_MAX);
	__type(key, __u32);
	__type(value, struct scry_metric_bounds);
} metric_bounds SEC(".maps");

/* Dense metrics (scry_metric_desc.dense): slots indexed by the syscall number (0 without
 * labels): no key to hash nor compare, one inlined lookup (no map-in-map: an array of maps
 * costs a lookup and a cache line more per update).  A counter's slots are its row of the
 * per-CPU table metric_dense_counters, at the metric's index; a histogram's (~0.5 KiB each,
 * too many for a per-CPU value) SCRY_MAX_SYSCALLS entries of metric_dense_hists from
 * metric_hist_base[its index] (the dense histograms numbered in the metrics' order). */
struct metric_dense_row {
	__u64 slot[SCRY_MAX_SYSCALLS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_METRICS_MAX);   /* the last dense counter's index + 1 (1 without) */
	__type(key, __u32);
	__type(value, struct metric_dense_row);
} metric_dense_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRY_MAX_SYSCALLS);   /* SCRY_MAX_SYSCALLS a dense histogram (1 without) */
	__type(key, __u32);
	__type(value, struct scry_metric_hist);
} metric_dense_hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_metric_stats);
} metric_stats SEC(".maps");

/* Latency metrics of syscalls and counting mode (scry trace -c; a channel has one or the
 * other, never both): the entry (time, number) of the syscall the task running on
 * this CPU is in, kept per CPU rather than in the task's storage (two helper calls an entry
 * and an exit less); scry_metrics_lat_switch moves it to the task's storage (metric_entry)
 * when the task leaves the CPU, so that its exit finds it there, on whatever CPU.  gen counts
 * the switches on this CPU: a program that sees it change between its reads and writes of
 * the slot was preempted (a preemptible kernel) and trusts none of them. */
struct metric_slot {
	__u64 task;           /* the task whose entry this is (its address); 0: none */
	__u64 ts;
	__s64 nr;
	__u64 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct metric_slot);
} metric_slot SEC(".maps");

/* The entry of a syscall whose task left the CPU before its exit (metric_slot). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_entry);
} metric_entry SEC(".maps");

/* Scheduler metrics, per task: when it was queued on a run queue (woken, or preempted) and
 * when it left the CPU; 0: not known. */
struct sched_ts {
	__u64 queued;
	__u64 off;
	__u64 wchan;          /* SCRY_ML_WCHAN: where it blocked (with off) */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sched_ts);
} task_sched SEC(".maps");

/* Block I/O metrics: the requests in flight, by address (issue time, disk, issuer). */
struct blk_start {
	__u64 ts;
	__u64 cgroup;
	__u32 dev, pid, tid, uid;
	char comm[SCRY_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct blk_start);
} blk_start SEC(".maps");

/* Kernel spans inside an application's trace (tracing: parent:, metrics.bpf.h): the span each
 * thread works for, as the application's probe marks it (removed with the task); a block
 * request's, taken from its issuer at the issue. */
const volatile __u8 span_marks = 0;    /* a mark probe is attached: spans read the marks */

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scry_span_parent);
} span_mark SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SCRY_BLK_MARKS_MAX);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct scry_span_parent);
} blk_mark SEC(".maps");

/* The mark of the block request completing on this CPU (put there by scry_span_mark_rq_complete
 * before scry_metrics_rq_complete runs), with the request's issue time and issuer: a span
 * takes it only if they are its own. */
struct span_cur {
	__u64 start;
	__u32 tid, pad;
	struct scry_span_parent p;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct span_cur);
} span_cur SEC(".maps");

/* Spans (SCRY_METRIC_SPAN descriptors): the observations long enough, read by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} span_rb SEC(".maps");

/* A new series' first value (hash updates copy it; too large for the stack). */
struct scry_metric_hist metric_zero;
/* (a global of the key's type, so that its BTF is complete for the inner map templates) */
struct scry_metric_key metric_zero_key;

/* scry trace -k's user stack copies (scry_abi.h: struct scry_ustack_rec): the events that
 * send one (rodata, a bit per event id; ustack_window 0: none), the ring they go to
 * (resized by user space), each CPU's area they are made in, and what became of them. */
const volatile __u32 ustack_window = 0;
const volatile __u64 ustack_ids[SCRY_USTACK_IDS / 64] = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);            /* resized by user space before load */
} ustacks SEC(".maps");

struct ustack_area {
	__u32 busy;
	__u32 pad;
	__u8 rec[sizeof(struct scry_ustack_rec) + SCRY_USTACK_MAX];   /* a record, its data */
};

/* index: the CPU (a per-CPU array's value is at most 32 KiB) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);               /* resized to the possible CPUs when copies are made */
	__type(key, __u32);
	__type(value, struct ustack_area);
} ustack_areas SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scry_ustack_stats);
} ustack_stats SEC(".maps");

/* Per-process event sets (above): in front of pid_set_of, written by user space through the
 * mmapped .bss, bit tgid % 4096 of every process with a set (SCRY_PID_BLOOM_BITS): a clear
 * bit answers "no set" with a load instead of a hash lookup.  Last in the .bss, so that the
 * variables before it keep their places (and cache lines). */
volatile __u64 pid_set_bloom[SCRY_PID_BLOOM_BITS / 64] = {};
