/* printer_int.h — the printer's state, shared by printer.c (call matching),
 * printer_text.c (the text of a line) and printer_json.c (--json). */
#ifndef SCRY_TRACE_PRINTER_INT_H
#define SCRY_TRACE_PRINTER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "trace/fdtrack.h"
#include "trace/imap.h"
#include "trace/stackname.h"
#include "trace/printer.h"
#include "util/outbuf.h"

#define TRACE_RET_COLUMN 40     /* strace's default -a: where " = " goes */
/* A call's name is the literal lit: first characters compared inline (names are tested
 * against literals several times per call). */
#define TRACE_NAME_IS(name, lit) ((name)[0] == (lit)[0] && !strcmp((name), (lit)))

/* A call that entered and has not returned: the entry event's values, copied. */
struct pend {
	struct trace_call c;
	uint8_t *blob;              /* the bytes c.in[] point to */
	size_t blobcap;             /* its size (a spare keeps its blob) */
	unsigned k;                 /* first argument printed at exit (first OUT/INOUT) */
	bool shown;                 /* its entry part was written */
	bool path_ok;               /* -P: shown (its entry touched a path of -P, or none given) */
	unsigned in_n;              /* c.in[] past it are zero */
	unsigned out_n;             /* c.out[] past it are zero (its exit made c the whole call) */
};

#define RET_K_SET 0x8000        /* ret_k[]: the class is known */
#define TASK_SIGQ 4
#define PEND_SPARES 64          /* pending calls kept for reuse */
#define FRAME_SLOTS 4096

/* -k: a frame's line as named (a process's stacks repeat: naming is the printer's cost). */
struct frame_slot {
	int tgid;                   /* 0: empty */
	bool ret_addr;
	uint64_t addr;
	char *text;
};

struct task {
	int tid, pid;
	int scno;                        /* -n: its last syscall's number */
	uint64_t ip;                     /* -i: its instruction pointer at its last call */
	char comm[17];                   /* -Y: its command name as last seen */
	FILE *out;                       /* -ff: its file, FILE.TID */
	struct pend *pend;
	unsigned nsigq;                  /* ignored signals shown when pend returns */
	uint8_t sigq[TASK_SIGQ][48];
};

struct trace_printer {
	struct trace_opts o;        /* copy; o.pids not owned (NULL) */
	FILE *out;
	struct outbuf ob;
	bool tty;                   /* flush at each line end and batch end */
	bool quiet;                 /* -c: count, print nothing */
	bool deferred;              /* whole calls printed when they return (status filter, JSON) */
	bool numeric_pfx;           /* -o: "%-5d " prefix on every line */
	char sockname[PATH_MAX + 64]; /* -yy: the last socket or device named (fd_path_cb) */
	bool announce;              /* -f to stderr: "scry: Process N attached" (trace_printer_task) */
	struct trace_summary *sum;
	struct imap tasks;          /* tid -> struct task *, the tasks alive */
	int open_tid;               /* task whose line is open (entry part written), 0: none */
	size_t col, mark;           /* column of the current line; ob.n when col was synced */
	bool have_last;
	int64_t last_ts;            /* -r: start of the previous line */
	struct tod_cache tod;
	struct fdtrack fds;
	struct scry_fmt_opts fo;
	/* --json: each argument is formatted here first, then escaped */
	struct outbuf scratch;
	FILE *ms;
	char *ms_buf;
	size_t ms_len;
	struct trace_flow *flow;    /* --flow */
	bool track_fds;             /* -y or -P: the fd table kept */
	bool exit_line;             /* -i: the line being started is a +++ line (no ip) */
	bool per_file;              /* -ff: each task's lines in its own file (whole calls) */
	int first_exec_pid;         /* -b execve: the command's own first execve is not left */
	struct imap detached;       /* -b execve: pids left at their execve (value: non-NULL) */
	struct imap accepted;       /* -a --filter: pids with a call the filter accepted: only
				     * their signal and exit lines are shown (value: non-NULL) */
	char comm[32];              /* -Y: a name read from /proc (trace_printer_pid_comm) */
	char **paths;               /* -P: the paths (and what they resolved into), malloc'd */
	struct scry_syms *syms;     /* -k: the mappings (the live merger's), names of frames */
	struct trace_stacknames *names;
	struct trace_stackmaps *maps;
	struct frame_slot *frames;  /* -k: named frames by (tgid, address), FRAME_SLOTS of them */
	size_t npaths;
	struct pend *spare[PEND_SPARES];   /* pend_free's, for pend_new */
	unsigned nspare;
	uint8_t entry_k[SCRY_MAX_SYSCALLS];   /* entry_args of each syscall, plus 1 (0: not yet) */
	uint16_t ret_k[SCRY_MAX_SYSCALLS];    /* scry_fmt_ret_class of each, | RET_K_SET (0: not yet) */
};

/* -P (pathtrace.c): does the call touch one of the paths, by a path argument or by a
 * descriptor that refers to one?  True when no -P was given. */
bool trace_printer_path_match(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all);
/* -e read=/write= (dump.c): strace's hex dump of the data a returned call read or wrote on
 * a descriptor of the sets, after its line. */
void trace_printer_dump(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all);

/* Whole-call JSON objects (printer_json.c). */
void trace_json_call(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all,
		     bool unfinished, bool detached);
void trace_json_signal(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si);
void trace_json_exit(struct trace_printer *p, int pid, int tid, int64_t ts, int status);
void trace_json_probe(struct trace_printer *p, int pid, int tid, int64_t ts, const char *label,
		      const struct scry_event *ev, const struct scry_fieldval *vals);
/* A probe event's field value as text (strings bounded by -s, hex for base 16). */
void trace_probe_value(struct trace_printer *p, const struct scry_field *f, const struct scry_fieldval *v);
/* A probe's arguments, strace-style: (name=value, ...). */
void trace_probe_args(struct trace_printer *p, const struct scry_event *ev, const struct scry_fieldval *vals);
/* A return event's value: its one field, or {x=..., y=...} for a struct's members. */
void trace_probe_ret(struct trace_printer *p, const struct scry_event *ev, const struct scry_fieldval *vals);
/* --flow (flow.c): per-thread call trees; trace_flow_probe prints one probe hit. */
struct trace_flow;
struct trace_flow *trace_flow_new(void);
void trace_flow_free(struct trace_flow *f);
void trace_flow_probe(struct trace_printer *p, struct trace_flow *f, int pid, int tid, int64_t ts,
		      const struct scry_event *ev, const struct scry_fieldval *vals);
/* A line's start as every line has it: the open line ended, the pid prefix, -t stamps. */
void trace_printer_leader(struct trace_printer *p, int pid, int tid, int64_t ts);
/* "uprobe:BINARY:FUNC" of a probe event (its model.emf.uri with the binary's base name). */
void trace_probe_label(const struct scry_event *ev, char *buf, size_t len);
/* A JSON string of n bytes: quotes, escapes, and invalid UTF-8 bytes as \u00XX. */
/* json_args.c: an argument's kind name ("fd", "flags"...), and its typed value as
 * ,"value":... (with ,"ptr":... for a capture; ,"truncated":true when the value is cut:
 * by the kernel side, or as the text shows with "..." when cut is set). */
const char *trace_json_kind(enum scry_akind k);
void trace_json_arg_value(struct outbuf *ob, const struct trace_call *c, unsigned i, const struct scry_argval *v,
			  bool cut);

/* Shared helpers (printer.c). */
bool trace_call_failed(int64_t ret);

/* The text of a line (printer_text.c). */
/* -y: the descriptor's path; -yy: a socket by protocol and addresses, a device with its
 * numbers (the formatter's fd_path callback; ctx is the printer). */
const char *trace_printer_fd_path(void *ctx, int pid, int fd);
/* -Y: the command name of process pid (the formatter's pid_comm callback; ctx is the
 * printer), or NULL. */
const char *trace_printer_pid_comm(void *ctx, int pid);
/* The column of the current line brought up to what the buffer holds. */
void trace_printer_col_sync(struct trace_printer *p);
/* The buffer written out and out flushed (an error kept in ob.error). */
void trace_printer_flush(struct trace_printer *p);
void trace_printer_line_end(struct trace_printer *p);
/* fmt with two numbers, written to the buffer. */
void trace_printer_put_num(struct trace_printer *p, const char *fmt, long long a, long long b);
/* The line of the open task ends here, with why (" <unfinished ...>"). */
void trace_printer_close_open(struct trace_printer *p, const char *why);
/* strace's printleader: end the open line, then the pid prefix and the timestamps
 * (trace_printer_leader without registering the task). */
void trace_printer_line_start(struct trace_printer *p, int tid, int64_t ts);
void trace_printer_fmt_arg(struct trace_printer *p, struct outbuf *ob, const struct trace_call *c, unsigned i,
			   const struct scry_argval *all, bool have_ret);
/* Arguments from..to-1, separated by ", " (also before the first printed when lead); an
 * argument that prints nothing is left out with its separator.  True when something was
 * printed (or lead). */
bool trace_printer_put_args_lead(struct trace_printer *p, const struct trace_call *c, unsigned from, unsigned to,
				 const struct scry_argval *all, bool have_ret, bool lead);
bool trace_printer_put_args(struct trace_printer *p, const struct trace_call *c, unsigned from, unsigned to,
			    const struct scry_argval *all, bool have_ret);
/* Does the part printed at exit, from argument k, begin with the separator (clone's)? */
bool trace_printer_sep_at_exit(const struct trace_call *c, unsigned k);
/* clone3 with CLONE_PARENT_SETTID: " => {parent_tid=[RET]}". */
void trace_printer_put_clone3_out(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all);
/* "NAME(arg, arg, " — what strace prints when the call enters. */
void trace_printer_put_entry_part(struct trace_printer *p, const struct pend *pd);
/* ") = RET<path> <0.000012>" and the line's end. */
void trace_printer_put_ret(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all);
/* ") = ?" of a call that will not return, and the line's end. */
void trace_printer_put_noret(struct trace_printer *p);

#endif /* SCRY_TRACE_PRINTER_INT_H */
