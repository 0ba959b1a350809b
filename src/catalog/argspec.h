/* argspec.h — what the kernel's format files do not say about syscall arguments: the
 * hand-kept per-syscall specification (syscall_specs.c, one spec string per syscall)
 * parsed by argspec.c into one struct scry_argspec per argument.
 *
 * Spec string: the arguments in order, comma-separated, each
 *     [DIR]KIND[:NAME][(LEN)]
 * Plain kinds (the register value, recorded in syscall_entry_*):
 *     int uint hex oct ptr fd dirfd pid sig mode
 *     flags:SET   or-ed symbolic flags of the named set (open, at, prot, mmap, clone, ...)
 *     enum:SET    one symbolic value of the named set (whence, af, sock_type, fcntl, ...)
 *     path        user string read on entry, always whole (strace: file names are not cut)
 *     str         user string read on entry, cut at -s
 *     strv        NULL-terminated array of user strings (execve argv/envp), read on entry
 * Capture kinds take a direction prefix: i = read on entry (syscall_entry_*), o = read on
 * exit from the same pointer (syscall_exit_*), io = both:
 *     buf(LEN)          data bytes (cut at --snaplen; LEN in bytes)
 *     hexbuf(LEN)       the same, shown as strace shows random or binary data: "\x3f\xb0..."
 *                       (set "hex")
 *     pathbuf(LEN)      a path the kernel writes (getcwd): read whole (PATH_MAX), never cut
 *                       at -s (set "path")
 *     struct:TYPE       one struct TYPE (structs.c)
 *     array:TYPE(LEN)   LEN elements of TYPE
 *     sockaddr(LEN)     a socket address of LEN bytes (at most 128 read)
 *     iovec(LEN)        LEN struct iovec, with (--snaplen) the bytes each points to; on
 *                       exit (o) the bytes together are at most the return value
 *     msghdr            a struct msghdr, with its address (msg_name) and its iovecs as
 *                       iovec(msg_iovlen); io: on entry the struct alone
 *     fdset(LEN)        an fd_set of LEN (an int argument) descriptors, as longs
 *     dirents(LEN)      the linux_dirent64 records of a buffer of LEN bytes
 * LEN: an argument name (its value), `ret` (the return value, exit only), `*NAME` (the
 * int the argument NAME points to: accept's *upeer_addrlen), or a decimal constant.
 * Examples: "fd, obuf(ret), uint" (read), "dirfd, path, flags:open, mode" (openat). */
#ifndef SCRY_CATALOG_ARGSPEC_H
#define SCRY_CATALOG_ARGSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "scry_abi.h"

enum scry_akind {
	SCRY_A_INT,       /* signed decimal */
	SCRY_A_UINT,      /* unsigned decimal */
	SCRY_A_HEX,       /* unsigned hexadecimal */
	SCRY_A_OCT,       /* octal (0644) */
	SCRY_A_PTR,       /* user pointer, not read: 0x7ffd..., NULL */
	SCRY_A_FD,        /* file descriptor (-y: with its path) */
	SCRY_A_DIRFD,     /* fd or AT_FDCWD */
	SCRY_A_PID,
	SCRY_A_SIG,       /* signal number: SIGTERM */
	SCRY_A_MODE,      /* file mode: S_IFREG|0644 or 0644 */
	SCRY_A_FLAGS,     /* set: or-ed flags */
	SCRY_A_ENUM,      /* set: one value */
	SCRY_A_PATH,      /* user string, whole */
	SCRY_A_STR,       /* user string, cut at -s */
	SCRY_A_STRV,      /* user string array */
	SCRY_A_BUF,       /* captured bytes */
	SCRY_A_STRUCT,    /* captured struct (one) */
	SCRY_A_ARRAY,     /* captured struct array */
	SCRY_A_SOCKADDR,  /* captured socket address bytes */
	SCRY_A_IOVEC,     /* captured iovec array, with data when --snaplen is set */
	SCRY_A_MSGHDR,    /* captured struct msghdr with its address and iovecs */
	SCRY_A_FDSET,     /* captured fd_set */
	SCRY_A_DIRENTS,   /* captured directory entries */
};

enum scry_adir {
	SCRY_DIR_NONE,    /* plain value (entry) */
	SCRY_DIR_IN,      /* content read on entry */
	SCRY_DIR_OUT,     /* content read on exit */
	SCRY_DIR_INOUT,   /* both */
};

enum scry_alen {
	SCRY_LEN_NONE,    /* no LEN */
	SCRY_LEN_ARG,     /* value of argument len_arg */
	SCRY_LEN_RET,     /* return value */
	SCRY_LEN_UPTR,    /* int pointed to by argument len_arg (read at the same time) */
	SCRY_LEN_CONST,   /* len_const */
};

struct scry_argspec {
	enum scry_akind kind;
	enum scry_adir dir;
	const char *set;        /* FLAGS/ENUM: set name; STRUCT/ARRAY: type name; else NULL */
	enum scry_alen len;
	uint8_t len_arg;        /* LEN_ARG / LEN_UPTR: argument index */
	uint32_t len_const;     /* LEN_CONST */
};

/* A syscall's specification as kept in syscall_specs.c. */
struct scry_sc_specrow {
	const char *name;       /* kernel name, as in the generated table ("newfstatat") */
	const char *spec;
};
extern const struct scry_sc_specrow scry_sc_specs[];
extern const size_t scry_sc_specs_len;

/* Parse spec for a syscall whose arguments are named argnames[0..nargs-1] (names used by
 * LEN references).  Set and type names point into spec_storage-free static strings of the
 * spec (the spec string must outlive out).  0, or -1 with a one-line reason in err. */
int scry_argspec_parse(const char *spec, const char *const *argnames, unsigned nargs,
		       struct scry_argspec *out, char *err, size_t errlen);

/* The spec row of a syscall (kernel name), or NULL: its arguments are then plain values
 * typed from the format file (int/uint, pointers ptr, `const char *` path). */
const char *scry_sc_spec_find(const char *name);

/* True when kind reads user memory (has a direction). */
static inline bool scry_akind_captures(enum scry_akind k)
{
	return k == SCRY_A_BUF || k == SCRY_A_STRUCT || k == SCRY_A_ARRAY || k == SCRY_A_SOCKADDR ||
	       k == SCRY_A_IOVEC || k == SCRY_A_MSGHDR || k == SCRY_A_FDSET || k == SCRY_A_DIRENTS;
}

/* The environment of execve and execveat: a strv argument right after another (argv). */
static inline bool scry_argspec_is_env(const struct scry_argspec *spec, unsigned i)
{
	return spec[i].kind == SCRY_A_STRV && i > 0 && spec[i - 1].kind == SCRY_A_STRV;
}

#endif /* SCRY_CATALOG_ARGSPEC_H */
