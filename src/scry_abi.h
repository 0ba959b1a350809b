/* scry_abi.h — types and limits shared by the BPF programs (src/bpf) and user space.
 *
 * The BPF side writes every event in its final CTF byte layout (see docs/FORMAT.md):
 *   event header  : uint16 id, uint64 timestamp (CLOCK_MONOTONIC ns)       — 10 bytes, packed
 *   event context : the enabled contexts, in enum scry_ctx order, packed
 *   payload       : the event's fields, packed (every integer byte-aligned)
 * The consumer copies those bytes into CTF packets unchanged (it may only raise the
 * timestamp to keep a stream monotonic).  Everything here is little-endian, host order. */
#ifndef SCRY_ABI_H
#define SCRY_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "bpf/ustack.h"

#define SCRY_EVENT_HEADER_SIZE 10       /* u16 id + u64 timestamp */
#define SCRY_MAX_SYSCALLS      1024     /* syscall numbers 0..1023 */
#define SCRY_MAX_ARGS          6
#define SCRY_MAX_TP            4096     /* generic tracepoint slots (attach cookie = slot) */
/* The tracepoints written from their BTF tracepoints, their tracefs record rebuilt from the
 * arguments (src/bpf/tracepoints.bpf.h): a perf event on a tracepoint waits for RCU grace
 * periods when it is closed, a BTF tracepoint's link does not.  Index of btf_tp_slot. */
enum { SCRY_BTF_TP_EXIT, SCRY_BTF_TP_SWITCH, SCRY_BTF_TP_WAKEUP, SCRY_BTF_TP_WAKEUP_NEW, SCRY_BTF_TP_EXEC,
       SCRY_BTF_TP_NR };
#define SCRY_MAX_TP_OPS        24       /* copy operations per generic tracepoint */
#define SCRY_STR_MAX           4096     /* longest user/kernel string copied (incl. NUL) */
#define SCRY_SCRATCH_SIZE      32768    /* per-CPU event build area (must be a power of 2) */
#define SCRY_EVENT_MAX         (SCRY_SCRATCH_SIZE - SCRY_STR_MAX - 64)
#define SCRY_MAX_CPUS          1024
#define SCRY_AREAS_PER_CPU     5        /* event build areas per CPU (one per program kind) */
#define SCRY_COMM_LEN          16
#define SCRY_MAX_PIDNS_LEVEL   8        /* vtids recorded in sched_process_fork */

/* Context fields, in the order they are written after the event header.
 * Names and types (see src/catalog/contexts.c) follow LTTng: "_pid" int32, ... */
enum scry_ctx {
	SCRY_CTX_PID,        /* int32  tgid */
	SCRY_CTX_TID,        /* int32 */
	SCRY_CTX_PPID,       /* int32  real_parent->tgid */
	SCRY_CTX_VPID,       /* int32  tgid in the task's pid namespace */
	SCRY_CTX_VTID,       /* int32 */
	SCRY_CTX_PROCNAME,   /* char[16] */
	SCRY_CTX_CPU_ID,     /* int32 */
	SCRY_CTX_UID,        /* uint32 real uid */
	SCRY_CTX_GID,        /* uint32 real gid */
	SCRY_CTX_EUID,       /* uint32 */
	SCRY_CTX_PRIO,       /* int32  task->prio - 100, as LTTng */
	SCRY_CTX_NICE,       /* int32 */
	SCRY_CTX_CGROUP_NS,  /* uint32 inode numbers of the namespaces */
	SCRY_CTX_IPC_NS,
	SCRY_CTX_MNT_NS,
	SCRY_CTX_NET_NS,
	SCRY_CTX_PID_NS,
	SCRY_CTX_USER_NS,
	SCRY_CTX_UTS_NS,
	SCRY_CTX_VPPID,      /* int32  parent's tgid in the current task's pid namespace, 0 outside */
	SCRY_CTX_HOSTNAME,   /* char[65] the UTS namespace's nodename */
	SCRY_CTX_INTERRUPTIBLE,  /* int8   1: not in hard IRQ/NMI context (docs/FORMAT.md) */
	SCRY_CTX_PREEMPTIBLE,    /* uint8  1: preempt_count is the tracing probe's own */
	SCRY_CTX_NEED_RESCHEDULE,/* uint8  TIF_NEED_RESCHED */
	SCRY_CTX_MIGRATABLE,     /* uint8  !migrate_disable */
	SCRY_CTX_EGID,       /* uint32 credentials in the initial user namespace */
	SCRY_CTX_SGID,
	SCRY_CTX_SUID,
	SCRY_CTX_VUID,       /* uint32 credentials as the task's user namespace maps them */
	SCRY_CTX_VEUID,
	SCRY_CTX_VSUID,
	SCRY_CTX_VGID,
	SCRY_CTX_VEGID,
	SCRY_CTX_VSGID,
	SCRY_CTX_TIME_NS,    /* uint32 inode number */
	SCRY_CTX_CGROUP_ID,  /* uint64 bpf_get_current_cgroup_id(): the task's cgroup v2 (its
				container: scry view, util/cgroup.h) */
	/* call stacks, last: a uint32 word in the record the programs write (the frame count |
	 * the frames' byte offset in the record << 16), the frames (uint64, only those there
	 * are) after the payload, so that the payload keeps its constant place; the CTF stream
	 * holds LTTng's sequence, the count then the frames, in the context's place (the
	 * consumer moves them: scry_record_compact) */
	SCRY_CTX_PERF_CPU,   /* SCRY_PERF_NR uint64 perf:cpu:NAME counters (catalog/contexts.c) */
	SCRY_CTX_PERF_THREAD = SCRY_CTX_PERF_CPU + 13,   /* ... and perf:thread:NAME */
	SCRY_CTX_CALLSTACK_KERNEL = SCRY_CTX_PERF_THREAD + 13,
	SCRY_CTX_CALLSTACK_USER,
	SCRY_CTX_NR
};
/* record's and trace's default contexts (the syscall dispatchers have copies made for them) */
#define SCRY_CTX_BASIC_MASK ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME))
#define SCRY_PERF_NR           13       /* counters each of perf:cpu: and perf:thread: */
#define SCRY_CALLSTACK_MAX     128      /* frames, LTTng's MAX_ENTRIES */
#define SCRY_CALLSTACK_SLOTS   (SCRY_CALLSTACK_MAX + 1)   /* + LTTng's ULONG_MAX "cut here" mark */
#define SCRY_HOSTNAME_LEN      65       /* __NEW_UTS_LEN + 1, LTTng's hostname context */

/* Per-CPU staging (LTTng's sub-buffer idea): events are appended to a small per-CPU
 * buffer that stays in cache (fixed-size ones written there in place, those built in a
 * build area copied in up to 1 KiB), and handed to the ring buffer in one copy when it
 * fills, before any other event of that CPU, or when the consumer asks (flush program run
 * on that CPU).  Such a ring record starts with the u16 SCRY_STAGE_MARK (never an
 * event id) and holds [u16 length][event] entries. */
#define SCRY_STAGE_SIZE        (16384 - 16)   /* the whole struct: 16 KiB */
#define SCRY_STAGE_MARK        0xffff
#define SCRY_NO_EVENT          0xffff   /* an event id: none (disabled, not recorded) */

/* The trace clock events are stamped with (rodata scry_clock; create --clock). */
enum { SCRY_CLOCK_MONOTONIC, SCRY_CLOCK_BOOT, SCRY_CLOCK_TAI, SCRY_CLOCK_NR };

struct scry_stage {
	__u32 len;            /* bytes used in data (0: empty; else starts with the mark) */
	__u32 busy;           /* a writer of this CPU is between its first and last store */
	__u32 nevents;        /* events in data (counted lost if the ring refuses them) */
	__u32 wpos;           /* the busy writer's position, when it keeps it here (a uprobe's
	                       * operations, a bpf_loop walk: src/bpf/uprobes.bpf.h) */
	__u8 data[SCRY_STAGE_SIZE];
};

/* Per syscall number: what to record (map "syscalls", index = syscall number). */
enum {
	SCRY_SC_ENTRY     = 1 << 0,   /* record syscall_entry_* */
	SCRY_SC_EXIT      = 1 << 1,   /* record syscall_exit_* */
	SCRY_SC_UNKNOWN   = 1 << 2,   /* no name known: write syscall_{entry,exit}_unknown layout */
	SCRY_SC_ENTRY_OPS = 1 << 3,   /* entry payload written by entry_ops (user memory captured) */
	SCRY_SC_EXIT_OPS  = 1 << 4,   /* exit payload written by exit_ops */
	SCRY_SC_COUNT     = 1 << 5,   /* count calls, errors and time in "sc_counts" (no events) */
	SCRY_SC_DEFER     = 1 << 6,   /* the entry reads user strings: when one cannot be read (its
	                               * page not mapped yet) the entry is written at the exit */
	SCRY_SC_EXEC      = 1 << 7,   /* execve, execveat: a deferred entry is written before the
	                               * old image goes (sched_prepare_exec) */
	SCRY_SC_PIDSET    = 1 << 8,   /* entry and exit recorded only for the processes whose
	                               * per-process set has this number (struct scry_pid_set);
	                               * never with SCRY_SC_ENTRY or SCRY_SC_EXIT */
};

/* Per syscall number and CPU (map "sc_counts"): `scry trace -c` aggregates in the kernel. */
struct scry_sc_count {
	__u64 calls;          /* calls that returned */
	__u64 errors;         /* ... with a return value in [-4095, -1] */
	__u64 ns;             /* time from entry to exit, summed */
};

/* Payload operations of syscall events that capture user memory (the others use the fixed
 * layouts below).  Each writes one CTF field: */
enum scry_sop_kind {
	SCRY_SOP_INT = 1,     /* int64/uint64: argument `arg` (SCRY_SOPF_S32/U32: extend) */
	SCRY_SOP_RET,         /* int64: the return value */
	SCRY_SOP_STR,         /* string: user string at argument `arg`, at most `max` bytes with
	                       * the NUL; "(null)" / "(fault)" when it cannot be read */
	SCRY_SOP_SEQ,         /* uint32 n, then n elements of `elem` bytes read from argument
	                       * `arg`; n = min(length, max), 0 if the pointer is NULL/unreadable */
	SCRY_SOP_STRV,        /* the NULL-terminated user array of strings at argument `arg`:
	                       * uint64 the pointer, uint32 its count of pointers (at most
	                       * SCRY_STRV_COUNT_MAX counted; SCRY_STRV_UNREADABLE when the array
	                       * cannot be read), uint32 n, then its first n strings (n <= max,
	                       * each at most `elem` bytes with the NUL); SCRY_SOPF_COUNT:
	                       * the pointer and the count alone, no string read */
	SCRY_SOP_IOV,         /* uint32 n, then n iovecs of the array at argument `arg` (length as
	                       * SEQ, n <= max), each {u64 iov_base, u64 iov_len, uint32 dn, dn
	                       * bytes read from iov_base}: dn <= iov_len and `elem`, all the dn
	                       * together <= SCRY_SEQ_MAX (SCRY_SOPF_RETDATA: <= the return value) */
	SCRY_SOP_DIRENTS,     /* the linux_dirent64 records of the buffer at argument `arg` (its
	                       * length in bytes as SEQ): uint32 n (1, or 0 when the call failed),
	                       * then {uint32 nentries (all the records), uint32 k, k entries of
	                       * those within the first `max` bytes, each {u64 d_ino, s64 d_off,
	                       * u16 d_reclen, u8 d_type, string d_name}} */
	SCRY_SOP_FILE,        /* the open file the returned descriptor refers to (nothing read
	                       * when the call failed): uint32 its inode's mode, uint64 its inode
	                       * number, then SCRY_FILE_NAME bytes of its dentry's name, NUL-padded
	                       * ("[eventpoll]" for an anonymous inode); with SCRY_SOPF_PAIR, the
	                       * same for each of the two descriptors of the int[2] at argument
	                       * `arg` (pipe, pipe2, socketpair) */
	SCRY_SOP_SOCK,        /* the socket descriptor argument `arg` is (SCRY_SOPF_RETFD: the
	                       * returned one) as the kernel has it then: a struct scry_sock_rec,
	                       * all zero when it is not a socket (`scry trace -yy`, --capture sock) */
};

#define SCRY_FILE_NAME    32

/* SCRY_SOP_SOCK's record: from the fd's file->private_data (struct socket) and its struct
 * sock (skc_* of sock_common, unix_sock's peer and address), read with CO-RE. */
#define SCRY_SOCK_PATH    64
struct scry_sock_rec {
	__u16 family;         /* AF_*, 0: not a socket */
	__u16 type;           /* SOCK_STREAM, SOCK_DGRAM, ... */
	__u16 protocol;       /* IPPROTO_TCP, IPPROTO_UDP, ... */
	__u8  state;          /* skc_state (TCP_LISTEN 10, TCP_CLOSE 7, ...) */
	__u8  path_len;       /* AF_UNIX: the bytes of path (sun_path, abstract: leading NUL) */
	__u16 lport, rport;   /* host order */
	__u32 pad;
	__u64 ino;            /* the socket's inode */
	__u64 peer_ino;       /* AF_UNIX: the peer socket's inode, 0 if none */
	__u8  laddr[16];      /* AF_INET: 4 bytes; AF_INET6: 16 */
	__u8  raddr[16];
	__u8  path[SCRY_SOCK_PATH];
};

/* The kinds an entry's operations use (sys_enter's BPF program verifies these alone), and
 * an exec's (sched_prepare_exec's); src/session/src_syscalls.c refuses a table that
 * breaks this. */
#define SCRY_SOP_BIT(k)          (1u << (k))
#define SCRY_SOP_EXEC_KINDS      (SCRY_SOP_BIT(SCRY_SOP_INT) | SCRY_SOP_BIT(SCRY_SOP_STR) | SCRY_SOP_BIT(SCRY_SOP_STRV))
#define SCRY_SOP_ENTRY_KINDS     (SCRY_SOP_EXEC_KINDS | SCRY_SOP_BIT(SCRY_SOP_SEQ) | SCRY_SOP_BIT(SCRY_SOP_IOV) | \
				  SCRY_SOP_BIT(SCRY_SOP_SOCK))
#define SCRY_SOP_ALL_KINDS       0xffffffffu

enum scry_sop_len {          /* SEQ: where its length comes from */
	SCRY_SLEN_CONST,      /* max */
	SCRY_SLEN_ARG,        /* the value of argument len_arg */
	SCRY_SLEN_RET,        /* the return value (0 if negative) */
	SCRY_SLEN_UPTR,       /* the u32 that argument len_arg points to */
	SCRY_SLEN_ARG_BITS,   /* elements of `elem` bytes holding (int) argument len_arg bits
	                       * (select's fd sets: 0 when negative) */
	SCRY_SLEN_FIELD32,    /* SCRY_SOPF_NESTED: the u32 at offset len_arg of the parent */
	SCRY_SLEN_FIELD64,    /* SCRY_SOPF_NESTED: the u64 at offset len_arg of the parent */
	SCRY_SLEN_FIXED,      /* an array: `max` elements and no count written, all zero when
	                       * they cannot be read (or the call failed: SCRY_SOPF_OK_ONLY);
	                       * max * elem <= 8 (lttng-modules' int[2] of pipe, socketpair) */
};

#define SCRY_SOPF_S32     0x01
#define SCRY_SOPF_U32     0x02
#define SCRY_SOPF_OK_ONLY 0x04   /* exit: read nothing (n = 0) when the call failed */
/* SEQ, IOV: the pointer is the u64 at offset ptr_off of the parent, the first element the
 * last SEQ without this flag read (a msghdr's msg_name, msg_iov); when that SEQ read
 * nothing, the operation writes nothing at all (its field is part of the element). */
#define SCRY_SOPF_NESTED  0x08
#define SCRY_SOPF_PAIR    0x20   /* FILE: the two fds of the int[2] at argument `arg` */
#define SCRY_SOPF_RETFD   0x80   /* SOCK: the descriptor returned (accept) */
#define SCRY_SOPF_RETDATA 0x10   /* IOV: the data bytes together <= the return value (0 if < 0) */
#define SCRY_SOPF_COUNT   0x40   /* STRV: uint64 pointer, uint32 count; no string is read
				  * (execve's envp without --capture env: LTTng's layout) */

#define SCRY_MAX_SC_OPS   12     /* lttng-modules' pointer and scry's capture of six arguments */
#define SCRY_SEQ_MAX      4096   /* bytes one SEQ operation copies at most (--snaplen bound) */
#define SCRY_STRV_MAX     1024   /* strings one STRV operation copies at most (a bpf_loop bound;
				  * the event's size bounds them first: SCRY_EVENT_MAX) */
#define SCRY_DIRENTS_MAX  32768  /* bytes of a getdents64 buffer whose entries DIRENTS copies (and
				  * the event holds: SCRY_EVENT_MAX) */
#define SCRY_DIRENTS_COUNT 65536  /* records DIRENTS counts at most */
#define SCRY_NAME_MAX     256    /* bytes of a d_name read (with the NUL) */
#define SCRY_STRV_COUNT_MAX  (1u << 17)  /* pointers one STRV operation counts at most */
#define SCRY_STRV_UNREADABLE 0xffffffffu

struct scry_sc_op {
	__u8  kind;           /* enum scry_sop_kind */
	__u8  arg;            /* argument index 0..5 */
	__u8  len_src;        /* enum scry_sop_len */
	__u8  len_arg;
	__u8  flags;          /* SCRY_SOPF_* */
	__u8  ptr_off;        /* SCRY_SOPF_NESTED: offset of the pointer in the parent */
	__u16 elem;           /* SEQ: element bytes; STRV: bytes per string; IOV: data bytes per iovec */
	__u16 max;            /* STR: bytes; SEQ, IOV: elements; STRV: strings; DIRENTS: bytes */
	__u16 pad2;
};

struct scry_sc_desc {
	__u16 entry_id;      /* CTF event id of syscall_entry_NAME */
	__u16 exit_id;       /* CTF event id of syscall_exit_NAME */
	__u16 flags;         /* SCRY_SC_* */
	__u8  nargs;         /* arguments written on entry, each 8 bytes unless a string */
	__u8  str_mask;      /* bit i: argument i is a NUL-terminated user string */
	__u8  s32_mask;      /* bit i: argument i is a 32-bit signed C type: sign-extend */
	__u8  u32_mask;      /* bit i: argument i is a 32-bit unsigned C type: zero-extend */
	__u8  n_entry_ops;
	__u8  n_exit_ops;
	__u8  exit_args;     /* without exit ops: bit i, argument i follows ret as a uint64 */
	struct scry_sc_op entry_ops[SCRY_MAX_SC_OPS];
	struct scry_sc_op exit_ops[SCRY_MAX_SC_OPS];
};
/* Entry payload without ops: for each argument i < nargs, either a string (str_mask) or an
 * int64/uint64.  Unknown-syscall entry payload: int64 id, uint64 args[6].  Exit payload
 * without ops: int64 ret, then each argument of exit_args in order (lttng-modules' read
 * exit: ret, buf); unknown-syscall exit payload: int64 id, int64 ret. */

/* Generic tracepoint: the payload is built from the raw trace record by these operations. */
enum scry_tp_op_kind {
	SCRY_OP_COPY = 1,     /* copy len bytes at src_off (adjacent fixed fields, merged) */
	SCRY_OP_STR_LOC,      /* __data_loc char[]: NUL-terminated string */
	SCRY_OP_STR_REL,      /* __rel_loc char[]: offset relative to the end of the loc field */
	SCRY_OP_SEQ_LOC,      /* __data_loc T[]: uint32 element count, then the bytes */
	SCRY_OP_SEQ_REL,      /* __rel_loc T[] */
	SCRY_OP_ADD32,        /* add (__s16)elem to the int32 copied from src_off by the last COPY */
	SCRY_OP_RWBS,         /* the char[len] rwbs text at src_off as LTTng's uint32 RWBS_FLAG_* */
	SCRY_OP_TID,          /* int32: current's tid (LTTng's block events' tid field) */
};

struct scry_tp_op {
	__u16 kind;           /* enum scry_tp_op_kind */
	__u16 src_off;        /* offset in the raw record */
	__u16 len;            /* COPY: byte count; *_LOC/REL: maximum bytes copied */
	__u16 elem;           /* SEQ: element size in bytes */
};


/* scry_tp_desc.flags.  SCRY_TP_NEXT_TASK: the event is also recorded when current is not
 * followed but the task switched in is (sched_switch: current is prev; next_tid at
 * task_off, checked against the CPU's rq->curr, which the scheduler set to next before the
 * tracepoint), so that a targeted trace shows its tasks switched in. */
#define SCRY_TP_NEXT_TASK 1
/* SCRY_TP_PIDSET: recorded only for the processes whose per-process set has its slot. */
#define SCRY_TP_PIDSET 2
/* SCRY_TP_ANY_TASK: recorded whatever task is current (a command's or -p's trace: the
 * scheduler's switches and wake-ups of every task, so that CPU analyses see each task
 * switched in and out; the target's trackers decide its other events). */
#define SCRY_TP_ANY_TASK 4

/* Per-process event sets (maps pid_set_of and pid_set_hits in src/bpf/maps.bpf.h;
 * src/session/pid_sets.c): a process (tgid) given a set records, besides the channel's
 * events, the syscalls and tracepoints its set has (bit = syscall number, tracepoint slot)
 * whose descriptors say SCRY_SC_PIDSET / SCRY_TP_PIDSET; slot: the set's counter in
 * pid_set_hits.  At most SCRY_PID_SETS_MAX sets per channel (the maps are sized to the
 * session's bound). */
#define SCRY_PID_SETS_MAX 1024
/* pid_set_bloom (maps.bpf.h): bit tgid % SCRY_PID_BLOOM_BITS is set when some process with
 * a set has it: a process whose bit is clear has none, known without a hash lookup. */
#define SCRY_PID_BLOOM_BITS 4096

struct scry_pid_set {
	__u32 slot;
	__u32 pad;
	__u64 sc[SCRY_MAX_SYSCALLS / 64];
	__u64 tp[SCRY_MAX_TP / 64];
};

struct scry_tp_desc {
	__u16 event_id;
	__u16 nops;
	__u16 flags;          /* SCRY_TP_* */
	__u16 task_off;       /* SCRY_TP_NEXT_TASK: the raw record's offset of the int32 tid */
	struct scry_tp_op ops[SCRY_MAX_TP_OPS];
};

/* ---- filters (src/filter/bpf_gen.c writes the programs) -------------------------------
 * A filter front is attached to a hook in place of its dispatcher (sys_enter, sys_exit:
 * one front for every filtered call; a filtered tracepoint: its own front, with the same
 * cookie).  It reads the event's values where the hook has them and either returns (the
 * event is rejected: nothing else runs) or tail-calls the dispatcher (prog arrays
 * back_enter/back_exit/back_tp, index 0), which writes the event as usual.  An exit whose
 * call deferred its entry (SCRY_SC_DEFER) still runs back_exit[1], which writes the
 * deferred entry when it was accepted.  A uprobe's front (on the probe, in place of
 * scry_uprobe, with the same cookie) reaches scry_uprobe through back_uprobe[0].  The fork event's front (flt_fork[0]) is tried by
 * scry_fork after its fork tracking and tail-calls scry_fork_write (back_fork[0]).  The
 * filter environment of each kind is the fronts' scratch (strings, unaligned record
 * reads); tests fill it with an event's values. */
enum { SCRY_FENV_ENTER, SCRY_FENV_EXIT, SCRY_FENV_TP, SCRY_FENV_FORK, SCRY_FENV_UPROBE, SCRY_FENV_NR };

#define SCRY_FILTER_SEG_MAX 256            /* a glob segment copied for bpf_strnstr, with NUL */
#define SCRY_FILTER_STR_ROOM (SCRY_STR_MAX + 256)   /* string buffer: value + compare slack */

struct scry_filter_env {
	__u32 owner;          /* 1 while a front uses it; 0: free */
	__u32 pad;
	__u64 base;           /* tracepoints: address of the raw record */
	__u64 args[SCRY_MAX_ARGS];   /* tests: raw argument registers */
	__s64 ret;            /* tests: return value */
	__s64 nr;             /* tests: syscall number */
	__s64 ctx[SCRY_CTX_NR];      /* tests: integer contexts */
	char comm[SCRY_COMM_LEN];    /* tests: procname */
	__u64 comm_nul;       /* zero: ends comm when it has no NUL */
	__u64 tmp;            /* scratch for unaligned record reads */
	__u8 seg[SCRY_FILTER_SEG_MAX];
	__u8 str[SCRY_FILTER_STR_ROOM];
};

/* The per-CPU memo of the current task (map "memo"; src/bpf/lib/target.bpf.h, memo_current and
 * target_ok): syscall programs and their filter fronts find who is current without the
 * helper call (the largest part of a rejected event's cost).  The saved user registers a
 * syscall tracepoint is given lie on the task's kernel stack, and a live task's stack is
 * its own: the memo holds the registers' address, the task (an untrusted kernel pointer:
 * reads through it are checked), the generation (tracked_gen) and the task's stack when
 * filled.  With memo_by_gen (rodata) every task's exit bumps the generation
 * (scry_memo_exit), so a hit is proved by the registers and task_gen alone: no task that
 * lived at the fill has exited since, so no stack has changed hands.  Without it
 * (kernels without the BTF tracepoint) a hit is proved when that task still owns that
 * stack and has not exited (a freed task's memory says exit_state != 0, or belongs to a
 * task with another stack).  The rest is the last
 * answer of the target check for that task, valid for generation gen (the trackers' maps
 * bump it too).  A filter front fills the identity alone: the answer voided. */
#if defined(__bpf__)
#define SCRY_KPTR_TASK struct task_struct __attribute__((btf_type_tag("kptr_untrusted"))) *
#else
#define SCRY_KPTR_TASK __u64
#endif
struct scry_memo {
	__u64 regs;           /* the task's saved user registers; 0: none */
	SCRY_KPTR_TASK task;
	__u64 stack;          /* task->stack when filled */
	__u64 gen;            /* tracked_gen of the answer; SCRY_MEMO_NO_GEN: no answer */
	__u64 task_gen;       /* ... of regs and task (memo_by_gen); SCRY_MEMO_NO_GEN: none */
	__u64 ug;             /* real gid << 32 | uid (uid/gid trackers) */
	__u64 cgroups;        /* the css_set (cgroup tracker) */
	__u32 tgid;           /* the answer's key: tgid, or the thread's pid (follow_key) */
	__u32 ok;             /* the answer: is the task a target */
};
#define SCRY_MEMO_NO_GEN (~0ULL)

/* Trackers (session-wide, all combined with AND): rodata track_mask bits. */
enum {
	SCRY_TRACK_VPID   = 1 << 0,   /* map track_vpid: vpid -> 1 (children: vpid_followed) */
	SCRY_TRACK_UID    = 1 << 1,   /* map track_uid: real uid -> 1 */
	SCRY_TRACK_GID    = 1 << 2,   /* map track_gid: real gid -> 1 */
	SCRY_TRACK_CGROUP = 1 << 3,   /* cgroup array track_cgroup[0..n_track_cgroups) */
	SCRY_TRACK_VUID   = 1 << 4,   /* map track_vuid: real uid as the task's user ns maps it -> 1 */
	SCRY_TRACK_VGID   = 1 << 5,   /* map track_vgid: real gid likewise -> 1 */
};
#define SCRY_MAX_TRACK_CGROUPS 16

/* Per-CPU loss counters (map "stats"). */
struct scry_cpu_stats {
	__u64 discarded;      /* ring buffer full: event dropped */
	__u64 nested;         /* build area busy (nested/preempted program): event dropped */
	__u64 truncated;      /* event larger than SCRY_EVENT_MAX: strings or captures cut */
	__u64 unfollowed;     /* child of a followed process not followed: the follow set full */
};

/* ---- scry trace -k: user stacks unwound in user space (bpf/ustack.h) -------------------
 * With ustack_window > 0 (rodata), an event whose id has its bit in ustack_ids (rodata: the
 * syscall exits) sends its thread's user registers and the bytes of its stack from the
 * stack pointer up (at most ustack_window) to the ring "ustacks", before the event itself
 * is committed; user space finds it by the event's thread and timestamp.  No call stack
 * context is needed (the event keeps its size: ~50 bytes, not the context's 1 KB). */
#define SCRY_USTACK_IDS 65536         /* event ids 0..65535 (a u16) */
#define SCRY_USTACK_WINDOW 32768      /* scry trace -k's default window */

struct scry_ustack_rec {
	__u32 tid, tgid;
	__u64 ts;                 /* the event's timestamp */
	__u64 regs[SCRY_DWREGS_N];
	__u16 id;                 /* the event's id */
	__u16 pad;
	__u32 size;               /* bytes of data */
	__u8 data[];
};

/* Per CPU: what became of the copies. */
struct scry_ustack_stats {
	__u64 sent;               /* copies in the ring */
	__u64 ring_full;          /* no room in the ring: the call shown without its frames */
	__u64 busy;               /* this CPU's copy area held by the program this run interrupted */
};

/* One program's recursion misses on one CPU, as the misses iterator (misses.bpf.c) writes
 * them: the kernel skipped the program there because a tracing program already ran. */
struct scry_miss {
	__u32 id;             /* the program's id */
	__u32 cpu;
	__u64 misses;
};

/* Processes followed at once (the command's or -p's descendants, --track-vpid's): a process
 * leaves the set when its last thread exits, so this bounds the live ones only. */
#define SCRY_FOLLOW_MAX   131072

/* Exit statuses kept for user space to read (map "exit_codes", tgid -> wait(2) status): the
 * processes that exited and whose sched_process_exit event is not read yet. */
#define SCRY_EXIT_CODES_MAX 4096

/* ---- in-kernel metrics (a channel of kind SCRY_CHANNEL_METRICS: src/bpf/metrics.bpf.h,
 * docs/METRICS.md) ----------------------------------------------------------------------
 * Up to SCRY_METRICS_MAX metrics, each a counter or a histogram of syscall exits, keyed by
 * the labels it asks for (struct scry_metric_key: the fields of other labels are zero), in
 * a per-CPU hash of its own (inner map metric_id of metric_counters or metric_hists) whose
 * max_entries bounds its series; an update refused because it is full is counted
 * (scry_metric_stats.overflow).  Map "metric_sc" (index: syscall number) holds the mask of
 * the metrics a syscall feeds. */
#define SCRY_METRICS_MAX       16
#define SCRY_HIST_BUCKETS      64

enum scry_metric_kind {
	SCRY_METRIC_COUNTER = 1, SCRY_METRIC_HISTOGRAM,
	SCRY_METRIC_SPAN,     /* not a metric: each observation of at least span_min_ns is
	                       * written to the ring buffer "span_rb" (struct scry_span_rec) */
};
enum scry_metric_value {
	SCRY_MV_COUNT = 1,    /* 1 per call */
	SCRY_MV_RET,          /* the return value (bytes moved by read/write...), when >= 0 */
	SCRY_MV_LATENCY,      /* ns from the call's entry to its exit (entry seen by scry) */
};
enum scry_metric_when { SCRY_MW_ANY, SCRY_MW_ERROR, SCRY_MW_SUCCESS };   /* error: ret in [-4095, -1] */
enum scry_metric_label_src {    /* bits of scry_metric_desc.labels: what the key holds */
	SCRY_ML_SYSCALL = 1 << 0,   /* nr */
	SCRY_ML_ERRNO   = 1 << 1,   /* err: -ret for an error, else 0 */
	SCRY_ML_COMM    = 1 << 2,   /* comm at the exit */
	SCRY_ML_PID     = 1 << 3,   /* tgid */
	SCRY_ML_TID     = 1 << 4,
	SCRY_ML_UID     = 1 << 5,   /* real uid */
	SCRY_ML_DEV     = 1 << 6,   /* block_io: the disk (dev_t: major << 20 | minor) */
	SCRY_ML_CGROUP  = 1 << 7,   /* cgroup: the task's cgroup v2 id */
	SCRY_ML_ADDR    = 1 << 8,   /* syscalls: the IP address of the call's sockaddr argument
	                             * (metric_sc_addr_arg): addr (IPv4 mapped to ::ffff:a.b.c.d),
	                             * its family in dev (AF_INET, AF_INET6; 0: none) */
	SCRY_ML_WCHAN   = 1 << 9,   /* offcpu: where the task blocked, the first kernel return
	                             * address outside the scheduler and locking functions (as
	                             * /proc/PID/wchan), in addr's first 8 bytes */
};
/* What a metric observes (scry_metric_desc.event).  Syscall exits; run-queue latency
 * (sched_wakeup/sched_wakeup_new, or a preemption, to the task's sched_switch in); off-CPU
 * time (a task's sched_switch out blocked, not runnable, to its switch in); block I/O (block_rq_issue to
 * block_rq_complete of a request).  Their labels: the task's (comm, pid, tid, uid) and, for
 * block I/O, the disk and the task that issued the request. */
enum scry_metric_event { SCRY_ME_SYSCALL, SCRY_ME_RUNQUEUE, SCRY_ME_OFFCPU, SCRY_ME_BLOCK_IO };
enum scry_bucket_type {
	SCRY_HB_EXP2 = 1,     /* bucket k (min <= k <= max): values <= 2^k */
	SCRY_HB_LINEAR,       /* bucket k: values <= k * width */
	SCRY_HB_FIXED,        /* bucket k (0 <= k <= max): values <= bounds[k] (map "metric_bounds") */
};

/* Per metric (map "metric_bounds"): the upper bounds of SCRY_HB_FIXED buckets, ascending, the
 * unused ones ~0. */
struct scry_metric_bounds {
	__u64 b[SCRY_HIST_BUCKETS];
};

struct scry_metric_desc {
	__u8  kind;           /* enum scry_metric_kind */
	__u8  value;          /* enum scry_metric_value */
	__u8  when;           /* enum scry_metric_when */
	__u8  bucket_type;    /* histograms: enum scry_bucket_type */
	__u32 labels;         /* SCRY_ML_* */
	__u32 bucket_min;     /* histograms: the first bucket's k; values below it fall in it */
	__u32 bucket_max;     /* the last (max - min < SCRY_HIST_BUCKETS); values above it are
	                       * in the count and sum only (the +Inf bucket) */
	__u64 bucket_width;   /* SCRY_HB_LINEAR */
	__u8  event;          /* enum scry_metric_event */
	__u8  dense;          /* keyed by the syscall number alone (or nothing): per CPU,
	                       * SCRY_MAX_SYSCALLS slots instead of a hash (counters: their row
	                       * of metric_dense_counters, at the metric's index; histograms: a
	                       * per-CPU array of their own, metric_hist_arrays) */
	__u8  wide;           /* keyed by cgroup, addr or wchan: the whole scry_metric_key
	                       * (metric_*_wide); else its first SCRY_METRIC_KEY_NARROW bytes,
	                       * which the others' hashes cost */
	__u8  pad[5];
	__u64 span_min_ns;    /* SCRY_METRIC_SPAN: the shortest observation written */
};

/* An application's span a thread works for (tracing: parent:), as the application marks the
 * thread with it: its trace id (high, low 64 bits: the W3C id's first and last 8 bytes read
 * big-endian) and span id; all zero: none. */
struct scry_span_parent {
	__u64 trace_hi, trace_lo, span;
};
#define SCRY_BLK_MARKS_MAX 16384   /* marked block requests in flight (map blk_mark) */

/* An observation long enough to be a span (SCRY_METRIC_SPAN), in "span_rb". */
struct scry_span_rec {
	__u64 start_ns, end_ns;   /* CLOCK_MONOTONIC */
	__s64 ret;                /* syscalls: the return value */
	__u32 event;              /* enum scry_metric_event */
	__u32 nr;                 /* syscalls: the number */
	__u32 pid, tid, dev;
	__u32 metric;             /* the descriptor's index */
	char  comm[SCRY_COMM_LEN];
	struct scry_span_parent parent;   /* the thread's mark at the start, zero: none */
};

struct scry_metric_key {
	__u32 nr;
	__s32 err;
	__u32 pid;
	__u32 tid;
	__u32 uid;
	__u32 dev;            /* block_io: the disk; SCRY_ML_ADDR: the address's family */
	char  comm[SCRY_COMM_LEN];
	__u64 cgroup;         /* from here: wide metrics only */
	__u8  addr[16];       /* SCRY_ML_ADDR, SCRY_ML_WCHAN */
};
#define SCRY_METRIC_KEY_NARROW 40   /* offsetof(struct scry_metric_key, cgroup) */

struct scry_metric_hist {
	__u64 count;
	__u64 sum;
	__u64 buckets[SCRY_HIST_BUCKETS];    /* index k - bucket_min, not cumulative */
};

/* Per CPU (map "metric_stats"). */
struct scry_metric_stats {
	__u64 events;                        /* syscall exits that fed at least one metric */
	__u64 no_entry;                      /* latency unknown (entry before the start): not counted */
	__u64 overflow[SCRY_METRICS_MAX];    /* updates lost: the metric's map was full, a new
	                                      * series refused (-E2BIG) (spans: their ring was) */
	/* updates lost for another reason, the map not full (a new series' insertion failed): */
	__u64 no_memory[SCRY_METRICS_MAX];   /* -ENOMEM: no memory for the series (a map without
	                                      * preallocation takes it from the CPU's cache of the
	                                      * kernel's BPF allocator, refilled after the program:
	                                      * a burst of new series empties it) */
	__u64 busy[SCRY_METRICS_MAX];        /* -EBUSY: the map's bucket lock was held on this CPU
	                                      * (this program interrupted one updating the map) */
	__u64 failed[SCRY_METRICS_MAX];      /* any other error */
	__u64 marks_lost;                    /* application span marks not kept (tracing: parent:
	                                      * a thread's storage, a request's in blk_mark) */
};

/* Uprobes (src/bpf/uprobes.bpf.h): per attached probe (map "uprobes", index = attach
 * cookie), the event and how its payload is written, one CTF field per operation. */
#define SCRY_MAX_UPROBES  1024
#define SCRY_MAX_UP_OPS   12
enum scry_uop_kind {
	SCRY_UOP_REG = 1,     /* integer: the low `size` bytes of register `reg` */
	SCRY_UOP_USTR,        /* string: the user string register `reg` points to, at most
	                       * `max` bytes with the NUL; "(null)" / "(fault)" */
	SCRY_UOP_USDT,        /* integer: the low `size` bytes of USDT argument `reg`
	                       * (bpf_usdt_arg: the note's operand, sign- or zero-extended) */
	SCRY_UOP_STACK,       /* integer: `size` bytes of the argument at `off` bytes above the
	                       * return address (an argument passed on the stack, at entry) */
	SCRY_UOP_STACK_STR,   /* string: the user string that stack argument points to */
	SCRY_UOP_MEM,         /* integer: `size` bytes at register `reg` + (signed) `off`, from
	                       * byte `shift` (a statement probe's variable in memory) */
	SCRY_UOP_MEM_STR,     /* string: the user string the pointer stored there points to */
};
/* Registers (x86-64 System V): the six integer argument registers, then the return value;
 * a statement probe's variables may be in any general register, or in memory at an offset
 * from one (the frame's): the others follow. */
enum { SCRY_UREG_ARG0, SCRY_UREG_ARG5 = 5, SCRY_UREG_RET, SCRY_UREG_NR,
       SCRY_UREG_SP = 8, SCRY_UREG_BX, SCRY_UREG_BP, SCRY_UREG_R10, SCRY_UREG_R11, SCRY_UREG_R12,
       SCRY_UREG_R13, SCRY_UREG_R14, SCRY_UREG_R15, SCRY_UREG_ALL };
struct scry_up_op {
	__u8 kind;            /* enum scry_uop_kind */
	__u8 reg;             /* SCRY_UREG_* */
	__u8 size;            /* REG: 1, 2, 4 or 8 */
	__u8 shift;           /* REG: from byte `shift` of the register (a member of a small
	                       * struct passed by value: its eightbyte's register) */
	__u16 max;            /* USTR, STACK_STR: bytes with the NUL */
	__u16 off;            /* STACK, STACK_STR: offset above the return address */
};
enum {
	SCRY_UPD_ALL_REGS = 1,   /* an operation reads a register past SCRY_UREG_SP */
	SCRY_UPD_STRINGS = 2,    /* more than one string: built in the area, not the stage */
};
struct scry_up_desc {
	__u16 event_id;       /* SCRY_NO_EVENT: disabled */
	__u8 nops;
	__u8 flags;           /* SCRY_UPD_*, from the operations (src/catalog/uprobe.c) */
	__u8 pad[4];
	struct scry_up_op ops[SCRY_MAX_UP_OPS];
};

/* ---- statedump (src/bpf/statedump.bpf.h, src/session/src_statedump.c) ------------------
 * lttng-modules' statedump events: their ids are load-time settings (sd_ids[], rodata),
 * SCRY_NO_EVENT for those not recorded.  The iterator programs write the events of the
 * kernel's objects (tasks, their namespaces, files, memory maps); the events user space
 * reads from /proc and /sys (start, end, interfaces, block devices, interrupts, CPU
 * topology) are handed over as items (struct scry_sd_item in the sd_items map), which an
 * iterator over that map writes the same way, with the same header and contexts. */
enum scry_sd {
	SCRY_SD_START, SCRY_SD_END, SCRY_SD_PROCESS_STATE,
	SCRY_SD_PID_NS, SCRY_SD_USER_NS, SCRY_SD_CGROUP_NS, SCRY_SD_IPC_NS, SCRY_SD_MNT_NS,
	SCRY_SD_NET_NS, SCRY_SD_UTS_NS, SCRY_SD_TIME_NS,
	SCRY_SD_FILE_DESCRIPTOR, SCRY_SD_VM_MAP, SCRY_SD_NETWORK_INTERFACE, SCRY_SD_BLOCK_DEVICE,
	SCRY_SD_INTERRUPT, SCRY_SD_CPU_TOPOLOGY,
	SCRY_SD_NR
};

#define SCRY_SD_ITEM_MAX   496       /* payload bytes of one user-space item */
#define SCRY_SD_ITEMS      4096      /* items per run */
#define SCRY_SD_PATH_MAX   4096      /* a file descriptor's path (bpf_d_path) */

struct scry_sd_item {
	__u16 event_id;      /* SCRY_NO_EVENT: an unused slot */
	__u16 len;           /* payload bytes */
	__u8 data[SCRY_SD_ITEM_MAX];   /* the payload, in its CTF layout */
};

/* The net source's net_connection event (src/bpf/net.bpf.h; its fields: src/catalog/
 * event_net.c): a TCP connection's addresses as text (INET6_ADDRSTRLEN, with the NUL), its
 * direction, and how many connections are followed at once (the net_conns map). */
#define SCRY_NET_ADDR_LEN  46
#define SCRY_NET_CONNS     65536
enum scry_net_dir { SCRY_NET_PASSIVE, SCRY_NET_ACTIVE };

#endif /* SCRY_ABI_H */
