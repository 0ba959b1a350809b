/* structs_fmt.c — the structs of src/catalog/structs.c printed as strace prints them:
 * stat/statx abbreviated ({st_mode=S_IFREG|0644, st_size=123, ...}) unless verbose,
 * timestamps with their local-time comment, sigaction with its mask and flags, rlimits
 * as 8192*1024 / RLIM64_INFINITY, wait statuses as WIFEXITED(s) && ..., and so on.  A
 * described type without a printer of its own, or too few bytes for its printer, goes
 * through the generic {field=value, ...} printer driven by the description. */
#include <string.h>
#include "catalog/structs.h"
#include "format/format.h"
#include "format/fmt_internal.h"

#define U64(off) fmt_get(p + (off), 8)
#define S64(off) ((int64_t)fmt_get(p + (off), 8))
#define U32(off) fmt_get(p + (off), 4)
#define S32(off) fmt_gets(p + (off), 4)

static void field(struct outbuf *ob, bool *first, const char *name)
{
	if (!*first)
		OB_LIT(ob, ", ");
	*first = false;
	ob_puts(ob, name);
	ob_putc(ob, '=');
}

static void more_follows(struct outbuf *ob, bool *first)
{
	if (!*first)
		OB_LIT(ob, ", ");
	*first = false;
	OB_LIT(ob, "...");
}

/* ---- generic ---- */

static void put_scalar(struct outbuf *ob, const struct scry_struct_field *f, const uint8_t *p)
{
	if (f->base == 16)
		fmt_hex(ob, fmt_get(p, f->size));
	else if (f->is_signed)
		ob_i64(ob, fmt_gets(p, f->size));
	else
		ob_u64(ob, fmt_get(p, f->size));
}

static void put_field_value(struct outbuf *ob, const struct scry_struct_field *f, const uint8_t *p)
{
	if (f->is_text) {
		const uint8_t *nul = memchr(p, 0, f->count);
		size_t n = nul ? (size_t)(nul - p) : f->count;

		scry_fmt_str(ob, p, n, n, false);
		return;
	}
	if (!f->count) {
		put_scalar(ob, f, p);
		return;
	}
	ob_putc(ob, '[');
	for (unsigned i = 0; i < f->count; i++) {
		if (i)
			OB_LIT(ob, ", ");
		put_scalar(ob, f, p + (size_t)i * f->size);
	}
	ob_putc(ob, ']');
}

static void generic(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, size_t len)
{
	bool first = true;

	ob_putc(ob, '{');
	for (unsigned i = 0; i < d->nfields; i++) {
		const struct scry_struct_field *f = &d->fields[i];
		size_t end = f->offset + (size_t)f->size * (f->count ? f->count : 1);

		if (!strncmp(f->name, "__pad", 5))
			continue;
		if (end > len) {
			more_follows(ob, &first);
			break;
		}
		field(ob, &first, f->name);
		put_field_value(ob, f, p + f->offset);
	}
	ob_putc(ob, '}');
}

/* ---- time ---- */

static void put_tv(struct outbuf *ob, const uint8_t *p, bool usec)
{
	OB_LIT(ob, "{tv_sec=");
	ob_i64(ob, S64(0));
	ob_puts(ob, usec ? ", tv_usec=" : ", tv_nsec=");
	ob_i64(ob, S64(8));
	ob_putc(ob, '}');
}

static void put_itimer(struct outbuf *ob, const uint8_t *p, bool usec)
{
	OB_LIT(ob, "{it_interval=");
	put_tv(ob, p, usec);
	OB_LIT(ob, ", it_value=");
	put_tv(ob, p + 16, usec);
	ob_putc(ob, '}');
}

/* ---- stat family ---- */

static void put_stat(struct outbuf *ob, const uint8_t *p, bool verbose)
{
	uint64_t mode = U32(24);
	bool first = true;

	ob_putc(ob, '{');
	if (verbose) {
		field(ob, &first, "st_dev");
		fmt_dev(ob, U64(0));
		field(ob, &first, "st_ino");
		ob_u64(ob, U64(8));
		field(ob, &first, "st_mode");
		fmt_mode(ob, mode);
		field(ob, &first, "st_nlink");
		ob_u64(ob, U64(16));
		field(ob, &first, "st_uid");
		ob_u64(ob, U32(28));
		field(ob, &first, "st_gid");
		ob_u64(ob, U32(32));
		field(ob, &first, "st_blksize");
		ob_i64(ob, S64(56));
		field(ob, &first, "st_blocks");
		ob_i64(ob, S64(64));
	} else {
		field(ob, &first, "st_mode");
		fmt_mode(ob, mode);
	}
	if ((mode & 0170000) == 0020000 || (mode & 0170000) == 0060000) {
		field(ob, &first, "st_rdev");
		fmt_dev(ob, U64(40));
	} else {
		field(ob, &first, "st_size");
		ob_i64(ob, S64(48));
	}
	if (verbose) {
		static const char *const names[3][2] = {
			{ "st_atime", "st_atime_nsec" }, { "st_mtime", "st_mtime_nsec" },
			{ "st_ctime", "st_ctime_nsec" },
		};
		for (int i = 0; i < 3; i++) {
			field(ob, &first, names[i][0]);
			ob_i64(ob, S64(72 + 16 * i));
			fmt_time_comment(ob, S64(72 + 16 * i), U64(80 + 16 * i), 9);
			field(ob, &first, names[i][1]);
			ob_u64(ob, U64(80 + 16 * i));
		}
	} else {
		more_follows(ob, &first);
	}
	ob_putc(ob, '}');
}

static void put_statx_ts(struct outbuf *ob, const uint8_t *p)
{
	OB_LIT(ob, "{tv_sec=");
	ob_i64(ob, S64(0));
	OB_LIT(ob, ", tv_nsec=");
	ob_u64(ob, U32(8));
	ob_putc(ob, '}');
	fmt_time_comment(ob, S64(0), U32(8), 9);
}

static void put_statx(struct outbuf *ob, const uint8_t *p, bool verbose)
{
	uint64_t mask = U32(0);
	bool first = true;

	ob_putc(ob, '{');
	field(ob, &first, "stx_mask");
	fmt_named(ob, "statx_mask", mask);
	if (verbose) {
		field(ob, &first, "stx_blksize");
		ob_u64(ob, U32(4));
	}
	field(ob, &first, "stx_attributes");
	fmt_named(ob, "statx_attrs", U64(8));
	if (verbose) {
		field(ob, &first, "stx_nlink");
		ob_u64(ob, U32(16));
		field(ob, &first, "stx_uid");
		ob_u64(ob, U32(20));
		field(ob, &first, "stx_gid");
		ob_u64(ob, U32(24));
	}
	field(ob, &first, "stx_mode");
	fmt_mode(ob, fmt_get(p + 28, 2));
	if (verbose) {
		field(ob, &first, "stx_ino");
		ob_u64(ob, U64(32));
	}
	field(ob, &first, "stx_size");
	ob_u64(ob, U64(40));
	if (!verbose) {
		more_follows(ob, &first);
		ob_putc(ob, '}');
		return;
	}
	field(ob, &first, "stx_blocks");
	ob_u64(ob, U64(48));
	field(ob, &first, "stx_attributes_mask");
	fmt_named(ob, "statx_attrs", U64(56));
	field(ob, &first, "stx_atime");
	put_statx_ts(ob, p + 64);
	if (mask & 0x800) {          /* STATX_BTIME */
		field(ob, &first, "stx_btime");
		put_statx_ts(ob, p + 80);
	}
	field(ob, &first, "stx_ctime");
	put_statx_ts(ob, p + 96);
	field(ob, &first, "stx_mtime");
	put_statx_ts(ob, p + 112);
	field(ob, &first, "stx_rdev_major");
	ob_u64(ob, U32(128));
	field(ob, &first, "stx_rdev_minor");
	ob_u64(ob, U32(132));
	field(ob, &first, "stx_dev_major");
	ob_u64(ob, U32(136));
	field(ob, &first, "stx_dev_minor");
	ob_u64(ob, U32(140));
	if (mask & 0x1000) {         /* STATX_MNT_ID */
		field(ob, &first, "stx_mnt_id");
		fmt_hex(ob, U64(144));
	}
	if (mask & 0x2000) {         /* STATX_DIOALIGN */
		field(ob, &first, "stx_dio_mem_align");
		ob_u64(ob, U32(152));
		field(ob, &first, "stx_dio_offset_align");
		ob_u64(ob, U32(156));
	}
	ob_putc(ob, '}');
}

static void put_statfs(struct outbuf *ob, const uint8_t *p)
{
	static const char *const counts[] = { "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree" };
	bool first = true;

	ob_putc(ob, '{');
	field(ob, &first, "f_type");
	fmt_named(ob, "fs_magic", U64(0));
	field(ob, &first, "f_bsize");
	ob_i64(ob, S64(8));
	for (int i = 0; i < 5; i++) {
		field(ob, &first, counts[i]);
		ob_u64(ob, U64(16 + 8 * i));
	}
	field(ob, &first, "f_fsid");
	OB_LIT(ob, "{val=[");
	fmt_hex(ob, U32(56));
	OB_LIT(ob, ", ");
	fmt_hex(ob, U32(60));
	OB_LIT(ob, "]}");
	field(ob, &first, "f_namelen");
	ob_i64(ob, S64(64));
	field(ob, &first, "f_frsize");
	ob_i64(ob, S64(72));
	field(ob, &first, "f_flags");
	fmt_named(ob, "statfs_flags", U64(80));
	ob_putc(ob, '}');
}

/* ---- resources ---- */

static void put_rlim(struct outbuf *ob, uint64_t v)
{
	if (fmt_xlat_style != SCRY_XLAT_ABBREV && (v == ~0ULL || (v > 1024 && v % 1024 == 0))) {
		int style = fmt_xlat_style;

		ob_u64(ob, v);        /* -X: 8388608 [/ * 8192*1024 * /] */
		if (style == SCRY_XLAT_RAW)
			return;
		OB_LIT(ob, " /* ");
		fmt_xlat_style = SCRY_XLAT_ABBREV;
		put_rlim(ob, v);
		fmt_xlat_style = style;
		OB_LIT(ob, " */");
		return;
	}
	if (v == ~0ULL) {
		OB_LIT(ob, "RLIM64_INFINITY");
	} else if (v > 1024 && v % 1024 == 0) {
		ob_u64(ob, v / 1024);
		OB_LIT(ob, "*1024");
	} else {
		ob_u64(ob, v);
	}
}

static void put_rusage(struct outbuf *ob, const uint8_t *p, bool verbose)
{
	static const char *const names[] = {
		"ru_maxrss", "ru_ixrss", "ru_idrss", "ru_isrss", "ru_minflt", "ru_majflt", "ru_nswap",
		"ru_inblock", "ru_oublock", "ru_msgsnd", "ru_msgrcv", "ru_nsignals", "ru_nvcsw",
		"ru_nivcsw",
	};

	OB_LIT(ob, "{ru_utime=");
	put_tv(ob, p, true);
	OB_LIT(ob, ", ru_stime=");
	put_tv(ob, p + 16, true);
	if (!verbose) {
		OB_LIT(ob, ", ...}");
		return;
	}
	for (int i = 0; i < 14; i++) {
		OB_LIT(ob, ", ");
		ob_puts(ob, names[i]);
		ob_putc(ob, '=');
		ob_i64(ob, S64(32 + 8 * i));
	}
	ob_putc(ob, '}');
}

static void put_sysinfo(struct outbuf *ob, const uint8_t *p)
{
	static const char *const names[] = {
		"totalram", "freeram", "sharedram", "bufferram", "totalswap", "freeswap",
	};

	OB_LIT(ob, "{uptime=");
	ob_i64(ob, S64(0));
	OB_LIT(ob, ", loads=[");
	for (int i = 0; i < 3; i++) {
		if (i)
			OB_LIT(ob, ", ");
		ob_u64(ob, U64(8 + 8 * i));
	}
	ob_putc(ob, ']');
	for (int i = 0; i < 6; i++) {
		OB_LIT(ob, ", ");
		ob_puts(ob, names[i]);
		ob_putc(ob, '=');
		ob_u64(ob, U64(32 + 8 * i));
	}
	OB_LIT(ob, ", procs=");
	ob_u64(ob, fmt_get(p + 80, 2));
	OB_LIT(ob, ", totalhigh=");
	ob_u64(ob, U64(88));
	OB_LIT(ob, ", freehigh=");
	ob_u64(ob, U64(96));
	OB_LIT(ob, ", mem_unit=");
	ob_u64(ob, U32(104));
	ob_putc(ob, '}');
}

static void put_utsname(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, bool verbose)
{
	unsigned n = verbose ? d->nfields : 2;

	ob_putc(ob, '{');
	for (unsigned i = 0; i < n; i++) {
		if (i)
			OB_LIT(ob, ", ");
		ob_puts(ob, d->fields[i].name);
		ob_putc(ob, '=');
		put_field_value(ob, &d->fields[i], p + d->fields[i].offset);
	}
	if (!verbose)
		OB_LIT(ob, ", ...");
	ob_putc(ob, '}');
}

/* ---- signals ---- */

static void put_sigaction(struct outbuf *ob, const uint8_t *p)
{
	uint64_t handler = U64(0), flags = U64(8);

	OB_LIT(ob, "{sa_handler=");
	if (handler <= 1 && fmt_xlat_style != SCRY_XLAT_ABBREV) {   /* -X: 0x1 [/ * SIG_IGN * /] */
		fmt_hex(ob, handler);
		if (fmt_xlat_style == SCRY_XLAT_VERBOSE)
			ob_puts(ob, handler ? " /* SIG_IGN */" : " /* SIG_DFL */");
	} else if (handler == 0)
		OB_LIT(ob, "SIG_DFL");
	else if (handler == 1)
		OB_LIT(ob, "SIG_IGN");
	else
		fmt_hex(ob, handler);
	OB_LIT(ob, ", sa_mask=");
	fmt_sigset(ob, p + 24, 8);
	OB_LIT(ob, ", sa_flags=");
	fmt_named(ob, "sa_flags", flags);
	if (flags & 0x04000000) {    /* SA_RESTORER */
		OB_LIT(ob, ", sa_restorer=");
		fmt_ptr(ob, U64(16));
	}
	ob_putc(ob, '}');
}

static void put_stack_t(struct outbuf *ob, const uint8_t *p)
{
	OB_LIT(ob, "{ss_sp=");
	fmt_ptr(ob, U64(0));
	OB_LIT(ob, ", ss_flags=");
	fmt_named(ob, "ss_flags", U32(8));
	OB_LIT(ob, ", ss_size=");
	ob_u64(ob, U64(16));
	ob_putc(ob, '}');
}

static void put_wstatus(struct outbuf *ob, uint32_t s)
{
	OB_LIT(ob, "[{");
	if ((s & 0x7f) == 0) {
		OB_LIT(ob, "WIFEXITED(s) && WEXITSTATUS(s) == ");
		ob_u64(ob, (s >> 8) & 0xff);
	} else if ((s & 0xff) == 0x7f) {
		OB_LIT(ob, "WIFSTOPPED(s) && WSTOPSIG(s) == ");
		fmt_signame(ob, (s >> 8) & 0xff);
	} else if (s == 0xffff) {
		OB_LIT(ob, "WIFCONTINUED(s)");
	} else {
		OB_LIT(ob, "WIFSIGNALED(s) && WTERMSIG(s) == ");
		fmt_signame(ob, s & 0x7f);
		if (s & 0x80)
			OB_LIT(ob, " && WCOREDUMP(s)");
	}
	ob_putc(ob, '}');
	if (s >> 16) {
		OB_LIT(ob, " | ");
		fmt_hex(ob, s & 0xffff0000);
	}
	ob_putc(ob, ']');
}

/* ---- processes and files ---- */

static void put_open_how(struct outbuf *ob, const uint8_t *p)
{
	uint64_t flags = U64(0), mode = U64(8);

	OB_LIT(ob, "{flags=");
	fmt_named(ob, "open", flags);
	if (mode || flags & (0100 | 020000000)) {    /* O_CREAT, __O_TMPFILE */
		OB_LIT(ob, ", mode=");
		fmt_oct(ob, mode);
	}
	OB_LIT(ob, ", resolve=");
	fmt_named(ob, "resolve", U64(16));
	ob_putc(ob, '}');
}

static void put_clone_args(struct outbuf *ob, const uint8_t *p)
{
	uint64_t flags = U64(0);

	OB_LIT(ob, "{flags=");
	fmt_named(ob, "clone3", flags);
	if (flags & 0x1000) {                        /* CLONE_PIDFD */
		OB_LIT(ob, ", pidfd=");
		fmt_ptr(ob, U64(8));
	}
	if (flags & (0x1000000 | 0x200000)) {        /* CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID */
		OB_LIT(ob, ", child_tid=");
		fmt_ptr(ob, U64(16));
	}
	if (flags & 0x100000) {                      /* CLONE_PARENT_SETTID */
		OB_LIT(ob, ", parent_tid=");
		fmt_ptr(ob, U64(24));
	}
	OB_LIT(ob, ", exit_signal=");
	fmt_signame(ob, S64(32));
	OB_LIT(ob, ", stack=");
	fmt_ptr(ob, U64(40));
	OB_LIT(ob, ", stack_size=");
	fmt_hex(ob, U64(48));
	if (flags & 0x80000) {                       /* CLONE_SETTLS */
		OB_LIT(ob, ", tls=");
		fmt_ptr(ob, U64(56));
	}
	if (U64(72)) {
		OB_LIT(ob, ", set_tid=");
		fmt_ptr(ob, U64(64));
		OB_LIT(ob, ", set_tid_size=");
		ob_u64(ob, U64(72));
	}
	if (flags & 0x200000000ULL) {                /* CLONE_INTO_CGROUP */
		OB_LIT(ob, ", cgroup=");
		ob_u64(ob, U64(80));
	}
	ob_putc(ob, '}');
}

/* strace shows events among the arguments and revents after the return value
 * (scry_fmt_ret_call) */
static void put_pollfd(struct outbuf *ob, const uint8_t *p)
{
	int64_t fd = S32(0);

	OB_LIT(ob, "{fd=");
	ob_i64(ob, fd);
	if (fd >= 0) {
		OB_LIT(ob, ", events=");
		fmt_named(ob, "poll_events", fmt_get(p + 4, 2));
	}
	ob_putc(ob, '}');
}

static void put_epoll_event(struct outbuf *ob, const uint8_t *p)
{
	OB_LIT(ob, "{events=");
	fmt_named(ob, "epoll_events", U32(0));
	OB_LIT(ob, ", data={u32=");
	ob_u64(ob, U32(4));
	OB_LIT(ob, ", u64=");
	ob_u64(ob, U64(4));
	OB_LIT(ob, "}}");
}

static void put_iovec(struct outbuf *ob, const uint8_t *p)
{
	OB_LIT(ob, "{iov_base=");
	fmt_ptr(ob, U64(0));
	OB_LIT(ob, ", iov_len=");
	ob_u64(ob, U64(8));
	ob_putc(ob, '}');
}

static void put_utimbuf(struct outbuf *ob, const uint8_t *p)
{
	OB_LIT(ob, "{actime=");
	ob_i64(ob, S64(0));
	fmt_time_comment(ob, S64(0), 0, 9);
	OB_LIT(ob, ", modtime=");
	ob_i64(ob, S64(8));
	fmt_time_comment(ob, S64(8), 0, 9);
	ob_putc(ob, '}');
}

void fmt_struct_one(struct outbuf *ob, const struct scry_struct_desc *d, const uint8_t *p, size_t len,
		    const struct scry_fmt_opts *o, bool in_array)
{
	const char *t = d->name;
	bool verbose = o && o->verbose;

	if (!p || len < d->size) {
		generic(ob, d, p, p ? len : 0);
		return;
	}
	/* scalar element types: [3] when pointed to, 3 in an array */
	if (d->nfields == 1 && !d->fields[0].count && !strcmp(d->fields[0].name, t)) {
		if (FMT_STREQ(t, "wstatus")) {
			put_wstatus(ob, (uint32_t)U32(0));
			return;
		}
		if (FMT_STREQ(t, "sigset")) {      /* a mask is a list already: [INT TERM] */
			fmt_sigset(ob, p, 8);
			return;
		}
		if (FMT_STREQ(t, "fd") && in_array) {   /* pipe's: 3</path> with -y */
			fmt_fd(ob, S32(0), o);
			return;
		}
		if (!in_array)
			ob_putc(ob, '[');
		put_scalar(ob, &d->fields[0], p);
		if (!in_array)
			ob_putc(ob, ']');
		return;
	}
	if (FMT_STREQ(t, "stat"))
		put_stat(ob, p, verbose);
	else if (FMT_STREQ(t, "statx"))
		put_statx(ob, p, verbose);
	else if (FMT_STREQ(t, "statfs"))
		put_statfs(ob, p);
	else if (FMT_STREQ(t, "timespec"))
		put_tv(ob, p, false);
	else if (FMT_STREQ(t, "timeval"))
		put_tv(ob, p, true);
	else if (FMT_STREQ(t, "itimerspec"))
		put_itimer(ob, p, false);
	else if (FMT_STREQ(t, "itimerval"))
		put_itimer(ob, p, true);
	else if (FMT_STREQ(t, "rlimit")) {
		OB_LIT(ob, "{rlim_cur=");
		put_rlim(ob, U64(0));
		OB_LIT(ob, ", rlim_max=");
		put_rlim(ob, U64(8));
		ob_putc(ob, '}');
	} else if (FMT_STREQ(t, "rusage"))
		put_rusage(ob, p, verbose);
	else if (FMT_STREQ(t, "sysinfo"))
		put_sysinfo(ob, p);
	else if (FMT_STREQ(t, "utsname"))
		put_utsname(ob, d, p, verbose);
	else if (FMT_STREQ(t, "sigaction"))
		put_sigaction(ob, p);
	else if (FMT_STREQ(t, "stack_t"))
		put_stack_t(ob, p);
	else if (FMT_STREQ(t, "sigframe_mask")) {     /* rt_sigreturn({mask=[INT]}) */
		OB_LIT(ob, "{mask=");
		fmt_sigset(ob, p, 8);
		ob_putc(ob, '}');
	}
	else if (FMT_STREQ(t, "siginfo"))
		scry_fmt_siginfo(ob, p);
	else if (FMT_STREQ(t, "open_how"))
		put_open_how(ob, p);
	else if (FMT_STREQ(t, "clone_args"))
		put_clone_args(ob, p);
	else if (FMT_STREQ(t, "pollfd"))
		put_pollfd(ob, p);
	else if (FMT_STREQ(t, "epoll_event"))
		put_epoll_event(ob, p);
	else if (FMT_STREQ(t, "iovec"))
		put_iovec(ob, p);
	else if (FMT_STREQ(t, "utimbuf"))
		put_utimbuf(ob, p);
	else if (FMT_STREQ(t, "sched_param")) {
		ob_putc(ob, '[');
		ob_i64(ob, S32(0));
		ob_putc(ob, ']');
	} else
		generic(ob, d, p, len);
}

void scry_fmt_struct(struct outbuf *ob, const char *type, const uint8_t *p, size_t len,
		     const struct scry_fmt_opts *o)
{
	const struct scry_struct_desc *d = scry_struct_find(type);

	if (!d) {
		OB_LIT(ob, "{...}");
		return;
	}
	fmt_struct_one(ob, d, p, len, o, false);
}
