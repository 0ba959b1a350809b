/* arg.c — one syscall argument printed from what scry recorded, by its argspec kind:
 * numbers, fds (-y: 3</etc/passwd>), AT_FDCWD, signals, modes, flag/enum sets, strings cut
 * at -s, argv/envp, buffers, structs, arrays and socket addresses.
 *
 * Conventions (see format.h for struct scry_argval):
 *  - a capture read on exit (o...) of a failed call (have_ret && ret < 0) prints as its
 *    pointer, as strace does; so does a capture that was not recorded (have == false) or
 *    that holds no bytes (unreadable, or the capture was not configured).  The pointer is
 *    val->v; when it is 0 and not known (have_ptr false) it prints as NULL.  A plain
 *    argument that was not recorded prints as "?".
 *  - argv and envp are both STRV: a STRV argument preceded by another STRV argument
 *    (spec[-1], when val points into all[]) is the environment, shown as
 *    "0x7ffd... / * 25 vars * /" (the count of the whole array) unless verbose, and so
 *    even verbose when its strings were not recorded (p NULL: no --capture env).  A NULL
 *    array prints as NULL, one that could not be read as its pointer; a list of which not
 *    every string was recorded ends with "...".
 *  - some sets depend on another argument of the call and are resolved here: "sockproto"
 *    (socket's protocol, by the family in argument 0), "sockopt" (by the level in
 *    argument 1) and "fcntl_arg" (by the command in argument 1).
 *  - likewise "prctl_arg" (prctl's arguments, by the option in argument 0),
 *    "arch_prctl_arg", "ioctl_arg" (a pointer for requests that take one, by argument 1),
 *    "mknod_dev" (makedev(), after the mode), "futex_val3" (FUTEX_BITSET_MATCH_ANY), "pos_h"
 *    (preadv/pwritev's high offset word, left out), and
 *    clone's arguments, printed as strace names and orders them (child_stack=, flags=,
 *    parent_tid=, tls=, child_tidptr=; see put_set).
 *  - arguments strace leaves out (open's mode without O_CREAT, fcntl(F_GETFL)'s argument,
 *    futex's unused ones, ...) print as nothing: the caller drops them with their comma.
 *  - arrays and argv lists show at most -s elements unless verbose, then ", ...".
 *  - in-out captures show the value passed (val->entry) where strace does (see
 *    scry_fmt_at_entry) and when the call failed.
 *  - iovec arrays, msghdr, fd sets and directory entries have printers of their own
 *    (iov.c, select.c, dirent.c). */
#include <string.h>
#include "catalog/structs.h"
#include "format/format.h"
#include "format/fmt_internal.h"

static void put_pointer(struct outbuf *ob, const struct scry_argval *val)
{
	fmt_ptr(ob, val->v);
}

void scry_fmt_fd_path(struct outbuf *ob, const char *path)
{
	size_t n = strlen(path), d = sizeof(" (deleted)") - 1;
	bool deleted = n > d && !strcmp(path + n - d, " (deleted)");

	ob_putc(ob, '<');
	ob_write(ob, path, deleted ? n - d : n);
	ob_putc(ob, '>');
	if (deleted)
		OB_LIT(ob, "(deleted)");
}

void fmt_fd(struct outbuf *ob, int64_t fd, const struct scry_fmt_opts *o)
{
	const char *path;

	ob_i64(ob, fd);
	if (fd >= 0 && o && o->fd_path && (path = o->fd_path(o->fd_ctx, o->pid, (int)fd)))
		scry_fmt_fd_path(ob, path);
}

/* The value LEN refers to, when known. */
bool fmt_resolve_len(const struct scry_argspec *spec, const struct scry_argval *all, int64_t ret,
		     bool have_ret, uint64_t *out)
{
	const struct scry_argval *a;

	switch (spec->len) {
	case SCRY_LEN_ARG:
		if (!all || spec->len_arg >= SCRY_MAX_ARGS || !all[spec->len_arg].have)
			return false;
		*out = all[spec->len_arg].v;
		return true;
	case SCRY_LEN_RET:
		if (!have_ret || ret < 0)
			return false;
		*out = (uint64_t)ret;
		return true;
	case SCRY_LEN_UPTR:
		if (!all || spec->len_arg >= SCRY_MAX_ARGS)
			return false;
		a = &all[spec->len_arg];
		if (!a->have || !a->p || a->len < 4)
			return false;
		*out = (uint64_t)(fmt_gets(a->p, 4) < 0 ? 0 : fmt_gets(a->p, 4));
		return true;
	case SCRY_LEN_CONST:
		*out = spec->len_const;
		return true;
	default:
		return false;
	}
}

static const char *sockopt_set(uint64_t level)
{
	switch (level & 0xffffffff) {
	case 0: return "sockopt_ip";
	case 1: return "sockopt_socket";
	case 6: return "sockopt_tcp";
	case 17: return "sockopt_udp";
	case 41: return "sockopt_ipv6";
	case 263: return "sockopt_packet";
	case 270: return "sockopt_netlink";
	default: return NULL;
	}
}

static void put_sockproto(struct outbuf *ob, uint64_t family, uint64_t v)
{
	v &= 0xffffffff;
	switch (family & 0xffffffff) {
	case 2:
	case 10:
		fmt_named(ob, "ipproto", v);
		return;
	case 16:
		fmt_named(ob, "netlink_proto", v);
		return;
	case 17:
		OB_LIT(ob, "htons(");
		fmt_named(ob, "ethp", ((v & 0xff) << 8) | ((v >> 8) & 0xff));
		ob_putc(ob, ')');
		return;
	default:
		ob_u64(ob, v);
	}
}

static void put_fcntl_arg(struct outbuf *ob, uint64_t cmd, uint64_t v)
{
	switch (cmd & 0xffffffff) {
	case 2: fmt_named(ob, "fdflags", v); return;             /* F_SETFD */
	case 4: fmt_named(ob, "open", v); return;                /* F_SETFL */
	case 1024: fmt_named(ob, "lease", v); return;            /* F_SETLEASE */
	case 1026: fmt_named(ob, "dnotify", v); return;          /* F_NOTIFY */
	case 1033: fmt_named(ob, "seals", v); return;            /* F_ADD_SEALS */
	case 10: fmt_signame(ob, (int32_t)v); return;            /* F_SETSIG */
	case 0: case 8: case 1030: case 1031:                    /* F_DUPFD, F_SETOWN, ... */
		ob_i64(ob, (int32_t)v);
		return;
	case 5: case 6: case 7: case 12: case 13: case 14:      /* locks: struct flock * */
	case 15: case 16: case 36: case 37: case 38:
		fmt_ptr(ob, v);
		return;
	default:
		fmt_hex(ob, v);
	}
}

/* prctl's arguments by option (all[0]): the second one decoded for the common options */
static void put_prctl_arg(struct outbuf *ob, uint64_t option, int i, uint64_t v)
{
	if (i != 1) {
		fmt_hex(ob, v);
		return;
	}
	switch (option & 0xffffffff) {
	case 1:                                             /* PR_SET_PDEATHSIG */
		fmt_signame(ob, (int32_t)v);
		return;
	case 4:                                             /* PR_SET_DUMPABLE */
		fmt_named(ob, "suid_dump", v);
		return;
	case 22:                                            /* PR_SET_SECCOMP */
		fmt_named(ob, "seccomp_mode", v);
		return;
	case 2: case 5: case 9: case 11: case 15: case 16: case 19: case 25: case 37: case 40:
		fmt_ptr(ob, v);                             /* PR_GET_*: int *, PR_SET_NAME: char * */
		return;
	case 6: case 8: case 10: case 12: case 14: case 20: case 28: case 29: case 36: case 45:
	case 50: case 63:
		ob_u64(ob, v);
		return;
	default:
		fmt_hex(ob, v);
	}
}

/* ioctl requests whose argument is an integer (or absent); the others take a pointer */
static bool ioctl_int_arg(uint64_t req)
{
	switch (req & 0xffffffff) {
	case 0x5409: case 0x540a: case 0x540b: case 0x540e: case 0x541c: case 0x541e: case 0x541f:
	case 0x5425: case 0x5427: case 0x5428: case 0x5441: case 0x5460: case 0x1261:
	case 0x2400: case 0x2401: case 0x2403:
		return true;
	default:
		return (req & 0xff00) == 0x5600 || (req & 0xff00) == 0x4b00 ||   /* VT_*, KD* */
		       !fmt_xlookup_set("ioctl", req & 0xffffffff);
	}
}

/* Position of val in all[] (and so of spec in the call's specs), or -1. */
static int arg_index(const struct scry_argval *val, const struct scry_argval *all)
{
	if (!all || val < all || val >= all + SCRY_MAX_ARGS)
		return -1;
	return (int)(val - all);
}

static bool is_set(const struct scry_argspec *s, const char *set)
{
	return (s->kind == SCRY_A_FLAGS || s->kind == SCRY_A_ENUM) && s->set && s->set[0] == set[0] && !strcmp(s->set, set);
}

static bool open_creates(uint64_t flags)
{
	return flags & (0100 | 020000000);                  /* O_CREAT, __O_TMPFILE */
}

/* strace leaves out the arguments a call does not use: open's mode without O_CREAT or
 * O_TMPFILE, mknod's device for other than devices, fcntl's and ioctl's argument for
 * commands without one, futex's arguments by operation, prctl's by option.  scry_fmt_arg
 * prints nothing for them (the caller drops the argument and its comma).
 * Other arguments' specs (spec[-k]) are only looked at for kinds that only appear in a
 * call's spec array, never for the bare hex spec of a call without one. */
static bool omitted(const struct scry_argspec *spec, const struct scry_argval *val, const struct scry_argval *all)
{
	int i = arg_index(val, all);
	uint64_t v0 = all && all[0].have ? all[0].v & 0xffffffff : ~0ULL;
	uint64_t v1 = all && all[1].have ? all[1].v & 0xffffffff : ~0ULL;

	if (i < 1)
		return false;
	/* open, openat, mq_open: the mode after the flags (and mq_open's attributes after it) */
	if (spec->kind == SCRY_A_OCT)
		return is_set(&spec[-1], "open") && all[i - 1].have && !open_creates(all[i - 1].v);
	if (spec->kind == SCRY_A_PTR && i >= 2 && spec[-1].kind == SCRY_A_OCT && is_set(&spec[-2], "open"))
		return all[i - 2].have && !open_creates(all[i - 2].v);
	if (spec->kind != SCRY_A_ENUM && spec->kind != SCRY_A_UINT && spec->kind != SCRY_A_STRUCT &&
	    spec->kind != SCRY_A_PTR)
		return false;
	if (is_set(spec, "mknod_dev"))
		return all[i - 1].have && (all[i - 1].v & 0170000) != 0020000 && (all[i - 1].v & 0170000) != 0060000;
	if (is_set(spec, "fcntl_arg")) {
		switch (v1) {
		case 1: case 3: case 9: case 11: case 1025: case 1032: case 1034:
			return true;                             /* F_GETFD, F_GETFL, F_GETOWN, ... */
		default:
			return false;
		}
	}
	if (is_set(spec, "ioctl_arg")) {
		switch (v1) {
		case 0x540c: case 0x540d: case 0x541d: case 0x5422: case 0x5437: case 0x5450: case 0x5451:
			return true;                             /* TIOCEXCL, ..., FIONCLEX, FIOCLEX */
		default:
			return false;
		}
	}
	if (is_set(spec, "prctl_arg")) {
		switch (v0) {
		case 3: case 7: case 13: case 21: case 27: case 30: case 31: case 32: case 46: case 51:
		case 64:
			return true;                             /* PR_GET_DUMPABLE, ...: no argument */
		case 1: case 2: case 4: case 5: case 6: case 8: case 9: case 10: case 11: case 12:
		case 14: case 15: case 16: case 19: case 20: case 23: case 24: case 25: case 26:
		case 28: case 29: case 36: case 37: case 40: case 45: case 50: case 52: case 63:
			return i > 1;                            /* one argument */
		case 53:
			return i > 2;                            /* PR_SET_SPECULATION_CTRL */
		default:
			return false;
		}
	}
	if (is_set(spec, "pos_h"))
		return true;                                     /* preadv, pwritev: folded into pos_l */
	if (is_set(spec, "arch_prctl_arg"))
		return v0 == 0x1011;                             /* ARCH_GET_CPUID */
	/* clone: child_stack is printed with the flags, tls with child_tidptr */
	if (is_set(spec, "clone_stack") || is_set(spec, "clone_tls"))
		return all[0].have;
	if (is_set(spec, "clone_ptid"))
		return all[0].have && !(all[0].v & 0x100000);            /* CLONE_PARENT_SETTID */
	if (is_set(spec, "clone_ctid"))
		return all[0].have && !(all[0].v & (0x1000000 | 0x200000 | 0x80000));
	if (i >= 2 && (is_set(spec, "futex_val3") || is_set(&spec[-i + 1], "futex_op"))) {
		/* arguments shown per command: uaddr, op, val, timeout/val2, uaddr2, val3 */
		static const uint8_t shown[14] = {
			0x0f, 0x07, 0x07, 0x1f, 0x3f, 0x3f, 0x0b, 0x03, 0x03, 0x2f, 0x27, 0x1f, 0x3f, 0x0b,
		};
		uint64_t cmd = v1 & ~(uint64_t)(128 | 256);

		return cmd < 14 && !(shown[cmd] >> i & 1);
	}
	return false;
}

static void put_set(struct outbuf *ob, const struct scry_argspec *spec, uint64_t v, const struct scry_argval *all,
		    int i)
{
	const char *set = spec->set;
	bool have0 = all && all[0].have, have1 = all && all[1].have;

	if (set && all) {
		if (FMT_STREQ(set, "sockproto") && have0) {
			put_sockproto(ob, all[0].v, v);
			return;
		}
		if (FMT_STREQ(set, "sockopt") && have1) {
			const char *s = sockopt_set(all[1].v);

			if (s)
				fmt_named(ob, s, v);
			else
				ob_u64(ob, v & 0xffffffff);
			return;
		}
		if (FMT_STREQ(set, "fcntl_arg") && have1) {
			put_fcntl_arg(ob, all[1].v, v);
			return;
		}
		if (FMT_STREQ(set, "prctl_arg") && have0) {
			put_prctl_arg(ob, all[0].v, i, v);
			return;
		}
		if (FMT_STREQ(set, "ioctl_arg") && have1) {
			if (ioctl_int_arg(all[1].v))
				fmt_hex(ob, v);
			else
				fmt_ptr(ob, v);
			return;
		}
		if (FMT_STREQ(set, "mknod_dev") && i > 0) {
			fmt_dev(ob, v);
			return;
		}
		/* clone(child_stack=NULL, flags=...|SIGCHLD, parent_tid=..., tls=..., child_tidptr=...),
		 * strace's order and names for x86_64's (flags, stack, ptid, ctid, tls) */
		if (FMT_STREQ(set, "clone") && i == 0 && have1) {
			OB_LIT(ob, "child_stack=");
			fmt_ptr(ob, all[1].v);
			OB_LIT(ob, ", flags=");
			fmt_named(ob, "clone", v);
			return;
		}
		if (FMT_STREQ(set, "clone_ptid")) {
			OB_LIT(ob, "parent_tid=");
			fmt_ptr(ob, v);
			return;
		}
		if (FMT_STREQ(set, "clone_ctid") && have0) {
			bool tls = all[0].v & 0x80000 && all[4].have;           /* CLONE_SETTLS */

			if (tls) {
				OB_LIT(ob, "tls=");
				fmt_ptr(ob, all[4].v);
			}
			if (all[0].v & (0x1000000 | 0x200000)) {             /* CLONE_CHILD_*TID */
				ob_puts(ob, tls ? ", child_tidptr=" : "child_tidptr=");
				fmt_ptr(ob, v);
			}
			return;
		}
		if (FMT_STREQ(set, "futex_val3") && have1) {
			uint64_t cmd = all[1].v & 0x7f;

			if ((cmd == 9 || cmd == 10) && (v & 0xffffffff) == 0xffffffff)
				OB_LIT(ob, "FUTEX_BITSET_MATCH_ANY");
			else
				fmt_hex(ob, v & 0xffffffff);
			return;
		}
	}
	if (!scry_fmt_flags(ob, set, v))
		fmt_hex(ob, v);
}

static bool is_envp(const struct scry_argspec *spec, const struct scry_argval *val, const struct scry_argval *all)
{
	if (!all || val <= all || val >= all + SCRY_MAX_ARGS)
		return false;
	return spec[-1].kind == SCRY_A_STRV;
}

/* strace 6's environment without -v: 0x7ffd... / * 25 vars * /; without the pointer,
 * strace 4's form. */
static void put_env_count(struct outbuf *ob, const struct scry_argval *val, uint32_t count)
{
	bool ptr = val->have_ptr || val->v;

	if (ptr)
		put_pointer(ob, val);
	ob_puts(ob, ptr ? " /* " : "[/* ");
	ob_u64(ob, count);
	ob_puts(ob, count == 1 ? " var */" : " vars */");
	if (!ptr)
		ob_putc(ob, ']');
}

static void put_strv(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		     const struct scry_argval *all, const struct scry_fmt_opts *o)
{
	unsigned strsize = o ? o->strsize : 32;
	bool verbose = o && o->verbose;
	bool env = is_envp(spec, val, all);
	const uint8_t *s = val->p, *end;
	uint32_t count = val->have_count ? val->count : val->n;

	/* an environment recorded without its strings (no --capture env): its count alone */
	if ((!val->p && !(env && val->have_count)) || (val->have_ptr && !val->v) ||
	    count == SCRY_STRV_UNREADABLE) {
		put_pointer(ob, val);
		return;
	}
	if (env && (!verbose || !val->p)) {
		put_env_count(ob, val, count);
		return;
	}
	end = val->p + val->len;
	ob_putc(ob, '[');
	for (uint32_t i = 0; i < val->n && s < end; i++) {
		const uint8_t *nul = memchr(s, 0, (size_t)(end - s));
		size_t n = nul ? (size_t)(nul - s) : (size_t)(end - s);

		if (i)
			OB_LIT(ob, ", ");
		if (!verbose && i >= strsize) {
			OB_LIT(ob, "...");
			ob_putc(ob, ']');
			return;
		}
		scry_fmt_str(ob, s, n, strsize, false);
		s += n + 1;
	}
	if (val->truncated || count > val->n)
		ob_puts(ob, val->n ? ", ..." : "...");
	ob_putc(ob, ']');
}

static void put_buf(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		    const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	int i = arg_index(val, all);
	unsigned strsize = o ? o->strsize : 32;
	bool more;
	uint64_t total = 0;
	bool known = fmt_resolve_len(spec, all, ret, have_ret, &total);
	size_t n = val->len;

	if (!val->p) {
		if (known && total == 0 && val->v)
			OB_LIT(ob, "\"\"");
		else
			put_pointer(ob, val);
		return;
	}
	if (!n && !val->truncated && known && total > 0) {
		put_pointer(ob, val);            /* unreadable: nothing was captured */
		return;
	}
	if (known && total < n)
		n = (size_t)total;
	/* [gs]etsockopt's value: an int option as [1] */
	if (i > 0 && is_set(&spec[-1], "sockopt") && known && total == 4 && n == 4) {
		ob_putc(ob, '[');
		ob_i64(ob, fmt_gets(val->p, 4));
		ob_putc(ob, ']');
		return;
	}
	more = val->truncated || (known && total > n);
	/* getcwd's path: the length returned counts the NUL */
	if (spec->set && FMT_STREQ(spec->set, "path")) {   /* getcwd: a path, whole, without its NUL */
		if (n && !val->p[n - 1])
			n--;
		strsize = (unsigned)n;
	}
	if (spec->set && FMT_STREQ(spec->set, "hex"))
		scry_fmt_str_hex(ob, val->p, n, strsize, more);
	else
		scry_fmt_str(ob, val->p, n, strsize, more);
}

static void put_array(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		      const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	const struct scry_struct_desc *d = scry_struct_find(spec->set);
	uint64_t total = 0;
	bool known = fmt_resolve_len(spec, all, ret, have_ret, &total);
	bool verbose = o && o->verbose;
	unsigned strsize = o ? o->strsize : 32;
	uint32_t n = val->n, i;

	if (!d || !d->size) {
		put_pointer(ob, val);
		return;
	}
	if ((uint64_t)n * d->size > val->len)
		n = val->len / d->size;
	if (!val->p || !n) {
		if ((val->have_ptr && !val->v) || !val->p || !known || total > 0)
			put_pointer(ob, val);
		else
			OB_LIT(ob, "[]");
		return;
	}
	if (known && total < n)
		n = (uint32_t)total;
	ob_putc(ob, '[');
	for (i = 0; i < n; i++) {
		if (i)
			OB_LIT(ob, ", ");
		if (!verbose && i >= strsize) {
			OB_LIT(ob, "...");
			ob_putc(ob, ']');
			return;
		}
		fmt_struct_one(ob, d, val->p + (size_t)i * d->size, d->size, o, true);
	}
	if (val->truncated || (known && total > n))
		OB_LIT(ob, ", ...");
	ob_putc(ob, ']');
}

static void put_sockaddr(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
			 const struct scry_argval *all, int64_t ret, bool have_ret)
{
	uint64_t total = 0;
	size_t n = val->len;

	if (fmt_resolve_len(spec, all, ret, have_ret, &total) && total < n)
		n = (size_t)total;
	if (!val->p || n < 2) {
		put_pointer(ob, val);
		return;
	}
	scry_fmt_sockaddr(ob, val->p, n);
}

bool scry_fmt_at_entry(const struct scry_argspec *spec)
{
	if (spec->dir == SCRY_DIR_OUT)
		return false;
	/* clone's parent_tid, child_tidptr and tls: strace shows them when the call returns */
	if (spec->set && spec->kind == SCRY_A_ENUM && !strncmp(spec->set, "clone_", 6) && strcmp(spec->set, "clone_stack"))
		return false;
	if (spec->dir != SCRY_DIR_INOUT)
		return true;
	switch (spec->kind) {
	case SCRY_A_FDSET:
		return true;
	case SCRY_A_ARRAY:
		return spec->set && FMT_STREQ(spec->set, "pollfd");
	case SCRY_A_STRUCT:
		return spec->set && (FMT_STREQ(spec->set, "timespec") || FMT_STREQ(spec->set, "timeval"));
	default:
		return false;
	}
}

void scry_fmt_arg(struct outbuf *ob, const struct scry_argspec *spec, const struct scry_argval *val,
		  const struct scry_argval *all, int64_t ret, bool have_ret, const struct scry_fmt_opts *o)
{
	bool capture = scry_akind_captures(spec->kind);
	unsigned strsize = o ? o->strsize : 32;

	/* an in-out capture as passed: where strace shows it so, and when the call failed */
	if (spec->dir == SCRY_DIR_INOUT && val->entry && val->entry->have &&
	    (scry_fmt_at_entry(spec) || (have_ret && ret < 0 && spec->kind != SCRY_A_MSGHDR)))
		val = val->entry;
	/* readv's vector is shown when it failed, with the buffers' addresses */
	if (capture && spec->dir == SCRY_DIR_OUT && have_ret && ret < 0 && spec->kind != SCRY_A_IOVEC) {
		put_pointer(ob, val);
		return;
	}
	if (!val->have) {
		if (capture || val->have_ptr)
			put_pointer(ob, val);
		else
			ob_putc(ob, '?');
		return;
	}
	if (omitted(spec, val, all))
		return;
	switch (spec->kind) {
	case SCRY_A_INT:
		ob_i64(ob, (int64_t)val->v);
		break;
	case SCRY_A_UINT:
		ob_u64(ob, val->v);
		break;
	case SCRY_A_HEX:
		fmt_hex(ob, val->v);
		break;
	case SCRY_A_OCT:
		fmt_oct(ob, val->v);
		break;
	case SCRY_A_PTR:
		fmt_ptr(ob, val->v);
		break;
	case SCRY_A_FD:
		fmt_fd(ob, (int32_t)val->v, o);
		break;
	case SCRY_A_DIRFD:
		if ((int32_t)val->v == -100) {
			const char *cwd = o && o->fd_path ? o->fd_path(o->fd_ctx, o->pid, -100) : NULL;

			if (fmt_xlat_style == SCRY_XLAT_ABBREV)
				OB_LIT(ob, "AT_FDCWD");
			else if (fmt_xlat_style == SCRY_XLAT_RAW)
				OB_LIT(ob, "-100");
			else
				OB_LIT(ob, "-100 /* AT_FDCWD */");
			if (cwd)
				scry_fmt_fd_path(ob, cwd);   /* -y: AT_FDCWD</home/u> */
		} else
			fmt_fd(ob, (int32_t)val->v, o);
		break;
	case SCRY_A_PID: {
		const char *comm;

		ob_i64(ob, (int32_t)val->v);
		if (o && o->pid_comm && (int32_t)val->v > 0 && (comm = o->pid_comm(o->fd_ctx, (int32_t)val->v))) {
			ob_putc(ob, '<');   /* -Y: 1234<sh> */
			ob_puts(ob, comm);
			ob_putc(ob, '>');
		}
		break;
	}
	case SCRY_A_SIG:
		fmt_signame(ob, (int32_t)val->v);
		break;
	case SCRY_A_MODE:
		fmt_mode(ob, val->v & 0xffffffff);
		break;
	case SCRY_A_FLAGS:
	case SCRY_A_ENUM:
		put_set(ob, spec, val->v, all, arg_index(val, all));
		break;
	case SCRY_A_PATH:
		if (val->p)
			scry_fmt_str(ob, val->p, val->len, val->len, val->truncated);
		else
			put_pointer(ob, val);
		break;
	case SCRY_A_STR:
		if (val->p)
			scry_fmt_str(ob, val->p, val->len, strsize, val->truncated);
		else
			put_pointer(ob, val);
		break;
	case SCRY_A_STRV:
		put_strv(ob, spec, val, all, o);
		break;
	case SCRY_A_BUF:
		put_buf(ob, spec, val, all, ret, have_ret, o);
		break;
	case SCRY_A_STRUCT:
		if (val->p && val->n && val->len >= 4 && spec->set && FMT_STREQ(spec->set, "socklen") && val->entry &&
		    val->entry->have && val->entry->p && val->entry->len >= 4 &&
		    fmt_get(val->entry->p, 4) != fmt_get(val->p, 4)) {
			/* a socket address's length the kernel changed: [110 => 2] */
			ob_putc(ob, '[');
			ob_i64(ob, fmt_gets(val->entry->p, 4));
			OB_LIT(ob, " => ");
			ob_i64(ob, fmt_gets(val->p, 4));
			ob_putc(ob, ']');
		} else if (val->p && val->n) {
			scry_fmt_struct(ob, spec->set, val->p, val->len, o);
		} else {
			put_pointer(ob, val);
		}
		break;
	case SCRY_A_ARRAY:
		put_array(ob, spec, val, all, ret, have_ret, o);
		break;
	case SCRY_A_SOCKADDR:
		put_sockaddr(ob, spec, val, all, ret, have_ret);
		break;
	case SCRY_A_IOVEC:
		fmt_iovec_arg(ob, spec, val, all, ret, have_ret, o);
		break;
	case SCRY_A_MSGHDR:
		fmt_msghdr_arg(ob, spec, val, ret, have_ret, o);
		break;
	case SCRY_A_FDSET:
		fmt_fdset_arg(ob, spec, val, all, o);
		break;
	case SCRY_A_DIRENTS:
		fmt_dirents_arg(ob, spec, val, all, ret, have_ret, o);
		break;
	default:
		fmt_hex(ob, val->v);
		break;
	}
}
