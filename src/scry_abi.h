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

#define SCRY_EVENT_HEADER_SIZE 10       /* u16 id + u64 timestamp */
#define SCRY_MAX_SYSCALLS      1024     /* syscall numbers 0..1023 */
#define SCRY_MAX_ARGS          6
#define SCRY_MAX_TP            4096     /* generic tracepoint slots (attach cookie = slot) */
#define SCRY_MAX_TP_OPS        24       /* copy operations per generic tracepoint */
#define SCRY_STR_MAX           4096     /* longest user/kernel string copied (incl. NUL) */
#define SCRY_SCRATCH_SIZE      32768    /* per-CPU event build area (must be a power of 2) */
#define SCRY_EVENT_MAX         (SCRY_SCRATCH_SIZE - SCRY_STR_MAX - 64)
#define SCRY_MAX_CPUS          1024
#define SCRY_AREAS_PER_CPU     4        /* event build areas per CPU (one per program kind) */
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
	SCRY_CTX_NR
};

/* Per-CPU staging (LTTng's sub-buffer idea): fixed-size syscall events are appended to a
 * small per-CPU buffer that stays in cache, and handed to the ring buffer in one copy when
 * it fills, before any other event of that CPU, or when the consumer asks (flush program
 * run on that CPU).  Such a ring record starts with the u16 SCRY_STAGE_MARK (never an
 * event id) and holds [u16 length][event] entries. */
#define SCRY_STAGE_SIZE        (16384 - 16)   /* the whole struct: 16 KiB */
#define SCRY_STAGE_MARK        0xffff

struct scry_stage {
	__u32 len;            /* bytes used in data (0: empty; else starts with the mark) */
	__u32 busy;           /* a writer of this CPU is between its first and last store */
	__u32 nevents;        /* events in data (counted lost if the ring refuses them) */
	__u32 pad;
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
	                       * each at most `elem` bytes with the NUL) */
};

enum scry_sop_len {          /* SEQ: where its length comes from */
	SCRY_SLEN_CONST,      /* max */
	SCRY_SLEN_ARG,        /* the value of argument len_arg */
	SCRY_SLEN_RET,        /* the return value (0 if negative) */
	SCRY_SLEN_UPTR,       /* the u32 that argument len_arg points to */
};

#define SCRY_SOPF_S32     0x01
#define SCRY_SOPF_U32     0x02
#define SCRY_SOPF_OK_ONLY 0x04   /* exit: read nothing (n = 0) when the call failed */

#define SCRY_MAX_SC_OPS   8
#define SCRY_SEQ_MAX      4096   /* bytes one SEQ operation copies at most (--snaplen bound) */
#define SCRY_STRV_MAX     32     /* strings one STRV operation copies at most */
#define SCRY_STRV_COUNT_MAX  (1u << 17)  /* pointers one STRV operation counts at most */
#define SCRY_STRV_UNREADABLE 0xffffffffu

struct scry_sc_op {
	__u8  kind;           /* enum scry_sop_kind */
	__u8  arg;            /* argument index 0..5 */
	__u8  len_src;        /* enum scry_sop_len */
	__u8  len_arg;
	__u8  flags;          /* SCRY_SOPF_* */
	__u8  pad;
	__u16 elem;           /* SEQ: element bytes; STRV: bytes per string */
	__u16 max;            /* STR: bytes; SEQ: elements; STRV: strings */
	__u16 pad2;
};

struct scry_sc_desc {
	__u16 entry_id;      /* CTF event id of syscall_entry_NAME */
	__u16 exit_id;       /* CTF event id of syscall_exit_NAME */
	__u8  flags;         /* SCRY_SC_* */
	__u8  nargs;         /* arguments written on entry, each 8 bytes unless a string */
	__u8  str_mask;      /* bit i: argument i is a NUL-terminated user string */
	__u8  s32_mask;      /* bit i: argument i is a 32-bit signed C type: sign-extend */
	__u8  u32_mask;      /* bit i: argument i is a 32-bit unsigned C type: zero-extend */
	__u8  n_entry_ops;
	__u8  n_exit_ops;
	__u8  pad;
	struct scry_sc_op entry_ops[SCRY_MAX_SC_OPS];
	struct scry_sc_op exit_ops[SCRY_MAX_SC_OPS];
};
/* Entry payload without ops: for each argument i < nargs, either a string (str_mask) or an
 * int64/uint64.  Unknown-syscall entry payload: int64 id, uint64 args[6].  Exit payload
 * without ops: int64 ret; unknown-syscall exit payload: int64 id, int64 ret. */

/* Generic tracepoint: the payload is built from the raw trace record by these operations. */
enum scry_tp_op_kind {
	SCRY_OP_COPY = 1,     /* copy len bytes at src_off (adjacent fixed fields, merged) */
	SCRY_OP_STR_LOC,      /* __data_loc char[]: NUL-terminated string */
	SCRY_OP_STR_REL,      /* __rel_loc char[]: offset relative to the end of the loc field */
	SCRY_OP_SEQ_LOC,      /* __data_loc T[]: uint32 element count, then the bytes */
	SCRY_OP_SEQ_REL,      /* __rel_loc T[] */
	SCRY_OP_ADD32,        /* add (__s16)elem to the int32 copied from src_off by the last COPY */
};

struct scry_tp_op {
	__u16 kind;           /* enum scry_tp_op_kind */
	__u16 src_off;        /* offset in the raw record */
	__u16 len;            /* COPY: byte count; *_LOC/REL: maximum bytes copied */
	__u16 elem;           /* SEQ: element size in bytes */
};

struct scry_tp_desc {
	__u16 event_id;
	__u16 nops;
	__u32 pad;
	struct scry_tp_op ops[SCRY_MAX_TP_OPS];
};

/* Per-CPU loss counters (map "stats"). */
struct scry_cpu_stats {
	__u64 discarded;      /* ring buffer full: event dropped */
	__u64 nested;         /* build area busy (nested/preempted program): event dropped */
	__u64 truncated;      /* event larger than SCRY_EVENT_MAX: strings or captures cut */
};

#endif /* SCRY_ABI_H */
