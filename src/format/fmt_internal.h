/* fmt_internal.h — what the files of src/format share: the named flag/enum sets (the
 * tables live in sets_*.c, the printing engine in flagsets.c), number and mode printers,
 * signal masks and the time comments strace appends to timestamps. */
#ifndef SCRY_FORMAT_INTERNAL_H
#define SCRY_FORMAT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/outbuf.h"

struct fmt_xval {
	uint64_t v;
	const char *name;
};

/* How a set's low "field" (the bits of field_mask) is printed before the flags. */
enum fmt_field {
	FLD_NONE,
	FLD_ENUM,        /* one value (open's access mode, mmap's type): printed when named,
			  * unnamed bits stay with the flags */
	FLD_ENUM_FRESH,  /* socket type: a nonzero value printed as an enum (unknown: with a
			  * comment), then the flags as if alone */
	FLD_FLAGS,       /* or-ed flags of its own with a zero name (statx's sync type) */
};

enum fmt_special {
	SP_NONE,
	SP_CLONE,        /* low byte: exit signal, appended as |SIGCHLD */
	SP_HUGE_SHIFT,   /* bits 26..31: page size, appended as N<<shift_name */
	SP_FUTEX,        /* FUTEX_*_PRIVATE, |FUTEX_CLOCK_REALTIME */
	SP_IOCTL,        /* unknown request as _IOC(dir, type, nr, size) */
	SP_PERSONALITY,  /* 0xffffffff (a query) printed as is */
	SP_IPC_MODE,     /* low 9 bits: permissions, appended as |0600 */
};

struct fmt_set {
	const char *name;
	bool is_enum;
	uint8_t width;                  /* value bits: 16, 32 or 64 (0: 32) */
	const struct fmt_xval *vals;
	uint16_t nvals;
	const char *unknown;            /* comment of an unnamed value ("MAP_???"); "" plain
					 * hex; NULL: unsigned decimal */
	uint8_t field;                  /* enum fmt_field */
	uint64_t field_mask;
	const struct fmt_xval *fvals;
	uint16_t nfvals;
	uint8_t special;                /* enum fmt_special */
	const char *shift_name;         /* SP_HUGE_SHIFT: "MAP_HUGE_SHIFT" */
};

#define XV(a) (a), (uint16_t)(sizeof(a) / sizeof((a)[0]))
/* a equals the literal lit: the first characters compared inline, strcmp only when they
 * match (the formatters test call and set names against literals on every argument). */
#define FMT_STREQ(a, lit) ((a)[0] == (lit)[0] && !strcmp((a), (lit)))

/* Set tables (sets_*.c). */
extern const struct fmt_set fmt_sets_file[], fmt_sets_mem[], fmt_sets_proc[], fmt_sets_net[],
	fmt_sets_misc[];
extern const size_t fmt_sets_file_len, fmt_sets_mem_len, fmt_sets_proc_len, fmt_sets_net_len,
	fmt_sets_misc_len;

/* scry_fmt_style's settings (flagsets.c, str.c) */
extern int fmt_xlat_style;
extern unsigned fmt_xflag;

const struct fmt_set *fmt_set_find(const char *name);
void fmt_set_print(struct outbuf *ob, const struct fmt_set *s, uint64_t v);
/* Flags of a bare table (strace's order: first match wins, its bits are consumed). */
void fmt_flags_vals(struct outbuf *ob, const struct fmt_xval *vals, size_t n, uint64_t v,
		    const char *unknown);
/* A named set by name, or plain hex when the set does not exist. */
void fmt_named(struct outbuf *ob, const char *set, uint64_t v);
const char *fmt_xlookup(const struct fmt_xval *vals, size_t n, uint64_t v);
/* The name of value v in the named set's table, or NULL. */
const char *fmt_xlookup_set(const char *set, uint64_t v);

/* Numbers. */
void fmt_hex(struct outbuf *ob, uint64_t v);        /* 0x1f, 0 as "0" */
void fmt_ptr(struct outbuf *ob, uint64_t v);        /* 0x7ffd..., 0 as NULL */
void fmt_oct(struct outbuf *ob, uint64_t v);        /* %#03o: 000, 022, 0644 */
void fmt_mode(struct outbuf *ob, uint64_t v);       /* S_IFREG|S_ISUID|0755 */
void fmt_dev(struct outbuf *ob, uint64_t dev);      /* makedev(0x8, 0x1) */
void fmt_signame(struct outbuf *ob, int64_t sig);   /* SIGTERM, SIGRT_3, or the number */
void fmt_sigset(struct outbuf *ob, const uint8_t *p, size_t bytes);   /* [INT TERM], ~[] */
/* " / * 2024-01-02T03:04:05.123456789+0000 * /" after a timestamp (nothing for 0 or an
 * invalid part); frac_digits 9 (ns) or 6 (us). */
void fmt_time_comment(struct outbuf *ob, int64_t sec, uint64_t frac, unsigned frac_digits);

struct scry_struct_desc;
struct scry_fmt_opts;
/* One struct (structs_fmt.c); in_array: an element of an array, where a scalar element
 * type prints bare ("3") instead of strace's pointed-to form ("[3]"). */
void fmt_struct_one(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, size_t len,
		    const struct scry_fmt_opts *o, bool in_array);

struct scry_argspec;
struct scry_argval;
/* Shared by the argument printers (arg.c): the value LEN refers to, when known; a file
 * descriptor (-y: with its path). */
bool fmt_resolve_len(const struct scry_argspec *spec, const struct scry_argval *all, int64_t ret,
		     bool have_ret, uint64_t *out);
void fmt_fd(struct outbuf *ob, int64_t fd, const struct scry_fmt_opts *o);

/* Captures with printers of their own (iov.c, select.c, dirent.c), called by
 * scry_fmt_arg with its arguments. */
void fmt_iovec_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		   const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o);
void fmt_msghdr_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		    int64_t ret, bool have_ret, const struct scry_fmt_opts *o);
void fmt_fdset_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		   const struct scry_argval *all, const struct scry_fmt_opts *o);
void fmt_dirents_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		     const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o);
/* select/pselect6's return extras: " (in [3], out [4], left {...})" (ret > 0). */
void fmt_select_ready(struct outbuf *ob, int64_t ret, const struct scry_argval *all, unsigned nargs,
		      bool timespec, const struct scry_fmt_opts *o);

/* Little-endian reads of captured bytes. */
static inline uint64_t fmt_get(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline int64_t fmt_gets(const uint8_t *p, unsigned size)
{
	uint64_t v = fmt_get(p, size);

	if (size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	return (int64_t)v;
}

#endif /* SCRY_FORMAT_INTERNAL_H */
