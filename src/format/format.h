/* format.h — strace-style printing of syscall arguments and return values from what scry
 * recorded (src/format): symbolic flag sets and enums, errno and signal names, file modes,
 * strings with strace's escaping and `...` truncation, socket addresses, and the structs
 * of src/catalog/structs.c.  Used by `scry trace` (live) and usable by `scry view`. */
#ifndef SCRY_FORMAT_H
#define SCRY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "catalog/argspec.h"
#include "util/outbuf.h"

/* One argument as recorded.  Plain kinds: v.  PATH/STR: p/len (bytes without the NUL),
 * truncated when the capture was cut.  BUF/SOCKADDR: p/len bytes.  STRUCT/ARRAY: p holds
 * n packed elements of the type's size (n == 0 for STRUCT: NULL pointer or unreadable).
 * STRV: p holds n NUL-terminated strings back to back, the first n of count (when
 * have_count; SCRY_STRV_UNREADABLE: the array could not be read).  have: the field was
 * recorded (an OUT capture of a failed call, or of an unfinished call, is not). */
struct scry_argval {
	bool have;
	uint64_t v;             /* register value (for captures: the pointer, when known) */
	bool have_ptr;          /* v holds the pointer of a capture kind */
	const uint8_t *p;
	uint32_t len;           /* bytes at p */
	uint32_t n;             /* elements (STRUCT/ARRAY/STRV) */
	bool truncated;         /* the kernel side cut it (string longer than its capture) */
	/* At exit, an in-out capture's value recorded on entry (NULL: none): strace shows it
	 * for the kinds shown on entry (scry_fmt_at_entry), for a failed call, and as
	 * recvmsg's "msg_namelen=128 => 16". */
	const struct scry_argval *entry;
	bool have_count;        /* STRV: count is known */
	uint32_t count;         /* STRV: strings in the user array */
};

struct scry_fmt_opts {
	unsigned strsize;       /* -s: longest string/buffer shown (default 32) */
	bool verbose;           /* -v: structs in full, envp listed */
	/* -y: the path of fd in process pid, or NULL; NULL callback: fds as numbers */
	const char *(*fd_path)(void *ctx, int pid, int fd);
	void *fd_ctx;
	int pid;
	/* -Y: the command name of process pid, or NULL; NULL callback: pids as numbers */
	const char *(*pid_comm)(void *ctx, int pid);
};

/* strace's -x/-xx (xflag 1: a string with a non-ASCII byte wholly in hex; 2: every string
 * in hex) and -X (SCRY_XLAT_*: named constants as names, numbers, or both) for every
 * formatting after the call (process-wide, as strace's own). */
enum { SCRY_XLAT_ABBREV, SCRY_XLAT_RAW, SCRY_XLAT_VERBOSE };
void scry_fmt_style(unsigned xflag, int xlat);

/* Print one argument the way strace prints it.  ret: the call's return value, for
 * LEN_RET lengths (buffers read: the bytes read) and to show OUT captures of failed
 * calls as their pointer. */
void scry_fmt_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		  const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o);

/* Whether strace prints this argument when the call enters (plain values, captures read
 * on entry, and the in-out ones it shows as passed: poll's fds, select's sets and
 * timeouts) rather than when it returns (out captures, other in-out ones). */
bool scry_fmt_at_entry(const struct scry_argspec *spec);

/* "= 3", "= -1 ENOENT (No such file or directory)", "= 0x7f12...": strace's return
 * column for syscall name (kernel name) with return value ret. */
void scry_fmt_ret(struct outbuf *ob, const char *syscall, int64_t ret);

/* The return column with what strace adds from the call's arguments at exit (all:
 * argument values by index, nargs of them; NULL: as scry_fmt_ret):
 *   fcntl(F_GETFL)        = 0x8002 (flags O_RDWR|O_LARGEFILE)
 *   fcntl(F_GETFD)        = 0x1 (flags FD_CLOEXEC)
 *   poll, ppoll           = 1 ([{fd=3, revents=POLLIN}])   (ppoll: , left {tv_sec=...})
 *   select, pselect6      = 2 (in [0 3], out [4], left {tv_sec=0, tv_usec=999996})
 *   poll, select, ...     = 0 (Timeout)
 *   rt_sigtimedwait       = 10 (SIGUSR1)
 *   personality           = 0 (PER_LINUX)
 *   prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)
 * specs: the call's argument specs, or NULL (not needed by the decoders so far). */
void scry_fmt_ret_call(struct outbuf *ob, const char *syscall, int64_t ret, const struct scry_argspec *specs,
		       const struct scry_argval *all, unsigned nargs, const struct scry_fmt_opts *o);
/* What the syscall's name decides of that column, for a caller that keeps it per
 * syscall (the name's compares done once), and scry_fmt_ret_call with it. */
unsigned scry_fmt_ret_class(const char *syscall);
void scry_fmt_ret_call_k(struct outbuf *ob, unsigned ret_class, int64_t ret, const struct scry_argspec *specs,
			 const struct scry_argval *all, unsigned nargs, const struct scry_fmt_opts *o);

/* Symbolic names; NULL when unknown. */
const char *scry_errno_name(int err);              /* "ENOENT" */
const char *scry_errno_text(int err);              /* "No such file or directory" */
const char *scry_signal_name(int sig);             /* "SIGTERM" */
int scry_signal_by_name(const char *name);         /* -1 if unknown */

/* Flags / enum values of a named set: "O_RDONLY|O_CLOEXEC", unknown bits as 0x..;
 * false when the set does not exist. */
bool scry_fmt_flags(struct outbuf *ob, const char *set, uint64_t v);
bool scry_fmt_enum(struct outbuf *ob, const char *set, uint64_t v);
bool scry_fmt_set_exists(const char *set, bool is_enum);

/* A string or byte buffer as strace shows it: "abc\n"..., cut at max bytes. */
void scry_fmt_str(struct outbuf *ob, const uint8_t *p, size_t len, size_t max, bool more);

/* The same with every byte as \xNN (strace's QUOTE_FORCE_HEX: getrandom's bytes). */
void scry_fmt_str_hex(struct outbuf *ob, const uint8_t *p, size_t len, size_t max, bool more);

/* What -y shows after a descriptor: "</etc/passwd>", an unlinked file's as strace shows
 * it: "</tmp/f>(deleted)" (path as readlink gives it: "/tmp/f (deleted)"). */
void scry_fmt_fd_path(struct outbuf *ob, const char *path);

/* A socket address: {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("1.2.3.4")} */
void scry_fmt_sockaddr(struct outbuf *ob, const uint8_t *p, size_t len);

/* A siginfo_t (its first 48 bytes: signo, errno, code, then the union) as strace prints
 * it: {si_signo=SIGUSR1, si_code=SI_USER, si_pid=12, si_uid=0} (siginfo.c). */
void scry_fmt_siginfo(struct outbuf *ob, const uint8_t *p);
/* "SI_USER", "CLD_EXITED", "SEGV_MAPERR"...; NULL when unknown.  The generic codes are
 * looked up first, then those of the signal (as strace does). */
const char *scry_si_code_name(int sig, int code);
/* The members of the union (and si_errno) a signal and code carry, in strace's order:
 * the number of them (up to max filled). */
enum scry_si_kind { SCRY_SI_INT, SCRY_SI_UINT, SCRY_SI_HEX, SCRY_SI_PTR, SCRY_SI_SIGNAL, SCRY_SI_ERRNO };
struct scry_si_field {
	const char *name;
	enum scry_si_kind kind;
	int64_t v;
};
size_t scry_siginfo_fields(const uint8_t *p, struct scry_si_field *f, size_t max);

/* One struct of a described type: {st_mode=S_IFREG|0644, st_size=123, ...} */
void scry_fmt_struct(struct outbuf *ob, const char *type, const uint8_t *p, size_t len,
		     const struct scry_fmt_opts *o);

#endif /* SCRY_FORMAT_H */
