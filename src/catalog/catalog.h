/* catalog.h — the event catalog: every event scry can record, described once.
 *
 * Sources: the generated syscall table (syscall_table.c) merged with the kernel's
 * events/syscalls/sys_{enter,exit}_* format files, every tracefs tracepoint (format
 * parsed on demand), and a few built-in events whose layout scry's own BPF programs
 * write (syscall_*_unknown, sched_process_fork in LTTng's layout).
 * Event and field names follow lttng-modules where LTTng defines them (lttng_names.c).
 * The CTF metadata (src/ctf/metadata.c) and the BPF descriptors (scry_abi.h) both come
 * from struct scry_event. */
#ifndef SCRY_CATALOG_H
#define SCRY_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "scry_abi.h"
#include "catalog/argspec.h"
#include "catalog/structs.h"

enum scry_ftype {
	SCRY_F_INT,      /* integer, `size` bytes */
	SCRY_F_STRING,   /* NUL-terminated UTF-8 string */
	SCRY_F_TEXT,     /* char[count]: fixed-size text array (e.g. comm) */
	SCRY_F_ARRAY,    /* integer[count], each `size` bytes */
	SCRY_F_SEQ,      /* integer[length_field], each `size` bytes; the length field comes before */
	SCRY_F_STRUCTSEQ,/* struct sdesc[length_field] */
	SCRY_F_STRSEQ,   /* string[length_field] */
};

/* Where a generic tracepoint field comes from in the raw trace record. */
enum scry_fsrc {
	SCRY_SRC_NONE,   /* written by a scry program (syscalls, built-ins) */
	SCRY_SRC_FIXED,  /* src_size bytes at src_off */
	SCRY_SRC_LOC,    /* __data_loc: u32 at src_off = (len << 16) | offset */
	SCRY_SRC_REL,    /* __rel_loc: same, offset relative to the end of the u32 */
	SCRY_SRC_LEN,    /* the element count of the following SEQ field (written by the BPF op) */
};

/* A generic tracepoint field LTTng records differently from the raw record. */
enum scry_fconv {
	SCRY_CONV_NONE,
	SCRY_CONV_RWBS,        /* block's rwbs text -> uint32 RWBS_FLAG_* (SCRY_OP_RWBS) */
	SCRY_CONV_TID,         /* not in the record: current's tid (SCRY_OP_TID) */
};

/* A syscall field that describes its argument beside the argument's own field. */
enum scry_faux {
	SCRY_AUX_NONE,
	SCRY_AUX_PTR,          /* the pointer the argument passed (a string array's) */
	SCRY_AUX_COUNT,        /* the elements of the user array (a string array's pointers) */
};

/* An enumerator of an INT field that is an enum (a CTF enum: uprobes typed from DWARF,
 * LTTng's ctf_enum such as the softirq vector names). */
struct scry_enumerator {
	char *name;
	int64_t value;
};

struct scry_field {
	char *name;            /* CTF field name (LTTng's where it defines one) */
	enum scry_ftype type;
	uint8_t size;          /* INT: bytes (1,2,4,8); TEXT/ARRAY/SEQ: element bytes */
	bool is_signed;
	uint8_t base;          /* display base: 10 or 16 */
	uint32_t count;        /* TEXT/ARRAY: element count */
	int length_field;      /* SEQ: index (in the same event) of its length field; else -1 */
	enum scry_fsrc src;
	uint16_t src_off;      /* raw record offset (FIXED, LOC, REL) */
	uint16_t src_size;     /* raw record size in bytes (FIXED) */
	int16_t adjust;        /* FIXED int32: added to the raw value (LTTng's prio - 100) */
	uint8_t conv;          /* tracepoints: enum scry_fconv, how the value is made */
	const struct scry_struct_desc *sdesc;   /* STRUCTSEQ: the element type */
	int arg;               /* syscall events: the argument this field holds, or -1 */
	int8_t ureg;           /* uprobe events: the register (SCRY_UREG_*) the value is, or the
	                        * string points to, at the probe; -1: the stack, a USDT operand */
	uint8_t ushift;        /* ... an integer from this byte of it (a member of a small struct) */
	uint16_t umax;         /* ... a string: at most these bytes read, with the NUL */
	enum scry_faux aux;    /* ... or describes */
	struct scry_enumerator *enums;   /* INT: a CTF enum of these (owned by the event), or NULL */
	unsigned nenums;
};

enum scry_ekind {
	SCRY_EV_SYSCALL_ENTRY,
	SCRY_EV_SYSCALL_EXIT,
	SCRY_EV_TRACEPOINT,    /* generic: payload built from the raw record by scry_tp_desc ops */
	SCRY_EV_BUILTIN,       /* layout written by a dedicated scry BPF program */
	SCRY_EV_UPROBE,        /* a uprobe or uretprobe (uprobe.h): registers by scry_up_desc */
};

struct scry_event {
	char *name;            /* CTF event name: "syscall_entry_openat", "sched_switch" */
	char *system;          /* tracefs system: "sched"; "syscalls" for syscall events */
	char *tp;              /* tracefs event: "sched_switch"; the syscall name for syscalls */
	enum scry_ekind kind;
	int nr;                /* syscall number, -1 otherwise */
	unsigned nfields;
	struct scry_field *fields;
	/* syscall entry only: how the BPF side writes the arguments (see scry_sc_desc) */
	uint8_t nargs, str_mask, s32_mask, u32_mask;
	/* syscall events that capture user memory: the payload operations (nops > 0) */
	uint8_t nops;
	struct scry_sc_op ops[SCRY_MAX_SC_OPS];
	/* the probe it records, for its reader (CTF model.emf.uri: "uprobe:/bin/ls:main"), or NULL */
	char *emf_uri;
};

struct scry_syscall_arg {
	const char *name;      /* "filename" */
	const char *ctype;     /* "const char *" */
	uint8_t size;          /* size of the C type: 4 or 8 */
	bool is_signed;
	bool is_string;        /* user-space NUL-terminated string read on entry */
	bool is_pointer;
};

struct scry_syscall {
	const char *name;      /* "openat" */
	int nr;
	unsigned nargs;
	struct scry_syscall_arg args[SCRY_MAX_ARGS];
	struct scry_argspec spec[SCRY_MAX_ARGS];   /* syscall_specs.c, or plain from the types */
};

/* How much user memory syscall events capture (set before the first syscall event is
 * built: it decides their layouts). */
struct scry_capture_opts {
	unsigned strsize;      /* `str` arguments and strv strings: bytes kept (0: SCRY_STR_MAX) */
	unsigned snaplen;      /* data buffers: bytes kept (0: not captured, the pointer is) */
	unsigned max_elems;    /* struct arrays: elements kept */
	const char *fetch;     /* uprobes: members by path to record too, comma-separated
	                        * ("req->hdr.len,s.count": --fetch), or NULL */
	unsigned what;         /* SCRY_CAPTURE_*: sensitive payloads, recorded only when asked */
	bool dirents_count;    /* getdents64's records counted, none copied (what strace shows
	                        * without -v: "/ * 25 entries * /") */
};

/* --capture LIST: what is left out unless asked for. */
enum {
	SCRY_CAPTURE_ENV = 1 << 0,   /* execve's environment strings (else its pointer and count) */
	SCRY_CAPTURE_SOCK = 1 << 1,  /* the socket a call's descriptor is: sk_* fields (SCRY_SOP_SOCK) */
};
#define SCRY_CAPTURE_VALUES "env, sock"   /* the valid names of --capture, for messages */

/* LIST ("env", comma-separated) as SCRY_CAPTURE_* bits in *what; -1 with a one-line reason
 * naming the valid values in err. */
int scry_capture_opts_parse(const char *list, unsigned *what, char *err, size_t errlen);

struct scry_catalog;

/* Open the catalog over a tracefs mount (NULL: /sys/kernel/tracing, mounting it if needed,
 * then /sys/kernel/debug/tracing).  NULL with a one-line reason in err on failure. */
struct scry_catalog *scry_catalog_open(const char *tracefs, char *err, size_t errlen);
void scry_catalog_close(struct scry_catalog *cat);
/* Default: strings whole, no data buffers, 64 array elements.  -1 once events are built. */
int scry_catalog_set_capture(struct scry_catalog *cat, const struct scry_capture_opts *o);
const char *scry_catalog_tracefs(const struct scry_catalog *cat);

/* Every syscall of this kernel (number order). */
size_t scry_catalog_syscalls(struct scry_catalog *cat, const struct scry_syscall **list);
const struct scry_syscall *scry_catalog_syscall_by_name(struct scry_catalog *cat, const char *name);
/* The name users know (unistd.h, strace): "stat" for the kernel's "newstat". */
const char *scry_syscall_user_name(const char *kernel_name);
/* false when this kernel has no sys_enter format for sc (nargs is then 0, and its entry
 * event records six raw uint64 registers arg0..arg5). */
bool scry_catalog_syscall_args_known(struct scry_catalog *cat, const struct scry_syscall *sc);

/* Every tracepoint "system:event" in tracefs except syscalls:*, sorted. */
size_t scry_catalog_tracepoints(struct scry_catalog *cat, const char *const **names);
/* The CTF (lttng-modules) name of tracefs event system:event ("cpu_frequency" ->
 * "power_cpu_frequency"), or event itself. */
const char *scry_catalog_lttng_name(const char *system, const char *event);

/* Events, built on first use and owned by the catalog (valid until close).
 * NULL with a reason in err when the tracepoint does not exist or its format cannot be used. */
const struct scry_event *scry_catalog_tracepoint(struct scry_catalog *cat, const char *system,
						 const char *name, char *err, size_t errlen);
const struct scry_event *scry_catalog_syscall_entry(struct scry_catalog *cat, const struct scry_syscall *sc);
const struct scry_event *scry_catalog_syscall_exit(struct scry_catalog *cat, const struct scry_syscall *sc);
/* Built-ins: "syscall_entry_unknown", "syscall_exit_unknown", "sched_process_fork". */
const struct scry_event *scry_catalog_builtin(struct scry_catalog *cat, const char *name);

/* One decoded payload field (scry_event_decode): INT: v; STRING: p, len (without the NUL);
 * TEXT/ARRAY/SEQ/STRUCTSEQ: p, len bytes, n elements; STRSEQ: n NUL-terminated strings at
 * p, len bytes in all. */
struct scry_fieldval {
	uint64_t v;
	const uint8_t *p;
	uint32_t len, n;
};
/* Decode the payload of ev (the bytes after header and contexts) into vals[ev->nfields].
 * Returns the bytes used, or -1 if the payload does not match ev's layout. */
int scry_event_decode(const struct scry_event *ev, const uint8_t *p, size_t size, struct scry_fieldval *vals);

/* Tracefs id of a tracepoint (events/SYS/NAME/id), -1 if none. */
int scry_catalog_tracepoint_id(struct scry_catalog *cat, const char *system, const char *name);

/* Does the syscall entry event read user strings (paths, names, argv)?  Such an entry may
 * be deferred to the call's exit (SCRY_SC_DEFER). */
bool scry_event_reads_strings(const struct scry_event *ev);

/* Generic tracepoint: the BPF copy operations that write ev's payload from the raw record.
 * Adjacent FIXED fields are merged into one COPY.  -1 if it needs more than SCRY_MAX_TP_OPS. */
int scry_event_tp_ops(const struct scry_event *ev, struct scry_tp_desc *out);

/* Closest names to a misspelt one (edit distance), for error messages: writes up to
 * max names into out, returns the count.  candidates: n strings. */
size_t scry_closest(const char *name, const char *const *candidates, size_t n, const char **out, size_t max);

/* Contexts (-c): LTTng names without the underscore ("pid", "procname"). */
struct scry_context_desc {
	const char *name;      /* "pid" */
	enum scry_ftype type;  /* INT, TEXT, or SEQ (call stacks: uint32 length, uint64 hex entries) */
	uint8_t size;          /* INT: 4 or 1; TEXT: element size 1 */
	bool is_signed;
	uint32_t count;        /* TEXT: 16 (procname), 65 (hostname) */
	const char *ctf;       /* CTF field name when not name ("perf_cpu_cpu_cycles"), else NULL */
	uint32_t perf_type, perf_config;   /* perf counters: perf_event_attr's type and config */
};
/* A context's CTF field name (without the leading underscore). */
#define SCRY_CONTEXT_FIELD(d) ((d)->ctf ? (d)->ctf : (d)->name)
/* The perf counter contexts (scope 0: perf:cpu, 1: perf:thread). */
#define SCRY_CTX_IS_PERF(c) ((c) >= SCRY_CTX_PERF_CPU && (c) < SCRY_CTX_PERF_THREAD + SCRY_PERF_NR)
const struct scry_context_desc *scry_context(enum scry_ctx c);
int scry_context_by_name(const char *name);   /* enum scry_ctx or -1 */
/* The one-line error for an unknown context name, with the closest known one. */
size_t scry_context_unknown(const char *name, char *err, size_t errlen);
/* Bytes the enabled contexts add to each event as the programs write it (a call stack
 * with all its slots; scry_record_compact gives the CTF form). */
size_t scry_context_size(uint64_t mask);

#endif /* SCRY_CATALOG_H */
