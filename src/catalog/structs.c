/* structs.c — the x86_64 layouts of the user-space structs scry captures from syscall
 * arguments (see structs.h).  Every byte of each struct is covered by a field, in offset
 * order; padding and reserved space are named "__padN".  Nested structs are flattened
 * (rusage's ru_utime becomes ru_utime_sec/ru_utime_usec) so that every field is a scalar
 * or an array of scalars.  A scalar element type ("int", "sigset") has one field named
 * like the type.  Types whose pointed-to data the BPF side captures too (iovec_data,
 * msghdr_iov, msghdr_data, dirent64, dirents) list it as tails appended after the fixed
 * bytes.
 * tests/unit/test_structs.c checks these against the system headers with offsetof/sizeof. */
#include <pthread.h>
#include <string.h>
#include "catalog/structs.h"
#include "util/hash.h"

/* name, offset, size, signed, base, count, text, big endian */
#define S(n, o, sz)        { n, o, sz, true, 10, 0, false, false }
#define U(n, o, sz)        { n, o, sz, false, 10, 0, false, false }
#define X(n, o, sz)        { n, o, sz, false, 16, 0, false, false }
#define UA(n, o, sz, c)    { n, o, sz, false, 10, c, false, false }
#define XA(n, o, sz, c)    { n, o, sz, false, 16, c, false, false }
#define PAD(n, o, sz, c)   { n, o, sz, false, 16, c, false, false }
#define TEXT(n, o, c)      { n, o, 1, false, 10, c, true, false }

#define N(a) ((uint8_t)(sizeof(a) / sizeof((a)[0])))
#define DESC(nm, sz, f) { nm, sz, N(f), f, 0, NULL }
#define DESCT(nm, sz, f, t) { nm, sz, N(f), f, N(t), t }

/* struct stat (arch/x86/include/uapi/asm/stat.h, 64-bit) */
static const struct scry_struct_field f_stat[] = {
	U("st_dev", 0, 8), U("st_ino", 8, 8), U("st_nlink", 16, 8),
	U("st_mode", 24, 4), U("st_uid", 28, 4), U("st_gid", 32, 4), PAD("__pad0", 36, 4, 0),
	U("st_rdev", 40, 8), S("st_size", 48, 8), S("st_blksize", 56, 8), S("st_blocks", 64, 8),
	S("st_atime", 72, 8), U("st_atime_nsec", 80, 8),
	S("st_mtime", 88, 8), U("st_mtime_nsec", 96, 8),
	S("st_ctime", 104, 8), U("st_ctime_nsec", 112, 8),
	PAD("__pad1", 120, 8, 3),
};

/* struct statx (include/uapi/linux/stat.h); statx_timestamp = {s64 sec, u32 nsec, s32 pad} */
static const struct scry_struct_field f_statx[] = {
	X("stx_mask", 0, 4), U("stx_blksize", 4, 4), X("stx_attributes", 8, 8),
	U("stx_nlink", 16, 4), U("stx_uid", 20, 4), U("stx_gid", 24, 4),
	U("stx_mode", 28, 2), PAD("__pad0", 30, 2, 0),
	U("stx_ino", 32, 8), U("stx_size", 40, 8), U("stx_blocks", 48, 8),
	X("stx_attributes_mask", 56, 8),
	S("stx_atime_sec", 64, 8), U("stx_atime_nsec", 72, 4), PAD("__pad1", 76, 4, 0),
	S("stx_btime_sec", 80, 8), U("stx_btime_nsec", 88, 4), PAD("__pad2", 92, 4, 0),
	S("stx_ctime_sec", 96, 8), U("stx_ctime_nsec", 104, 4), PAD("__pad3", 108, 4, 0),
	S("stx_mtime_sec", 112, 8), U("stx_mtime_nsec", 120, 4), PAD("__pad4", 124, 4, 0),
	U("stx_rdev_major", 128, 4), U("stx_rdev_minor", 132, 4),
	U("stx_dev_major", 136, 4), U("stx_dev_minor", 140, 4),
	X("stx_mnt_id", 144, 8), U("stx_dio_mem_align", 152, 4), U("stx_dio_offset_align", 156, 4),
	PAD("__pad5", 160, 8, 12),
};

/* struct statfs (64-bit: __statfs_word is long) */
static const struct scry_struct_field f_statfs[] = {
	X("f_type", 0, 8), S("f_bsize", 8, 8), U("f_blocks", 16, 8), U("f_bfree", 24, 8),
	U("f_bavail", 32, 8), U("f_files", 40, 8), U("f_ffree", 48, 8), XA("f_fsid", 56, 4, 2),
	S("f_namelen", 64, 8), S("f_frsize", 72, 8), X("f_flags", 80, 8), PAD("__pad0", 88, 8, 4),
};

static const struct scry_struct_field f_timespec[] = { S("tv_sec", 0, 8), S("tv_nsec", 8, 8) };
static const struct scry_struct_field f_timeval[] = { S("tv_sec", 0, 8), S("tv_usec", 8, 8) };
static const struct scry_struct_field f_timezone[] = {
	S("tz_minuteswest", 0, 4), S("tz_dsttime", 4, 4),
};
static const struct scry_struct_field f_itimerspec[] = {
	S("it_interval_sec", 0, 8), S("it_interval_nsec", 8, 8),
	S("it_value_sec", 16, 8), S("it_value_nsec", 24, 8),
};
static const struct scry_struct_field f_itimerval[] = {
	S("it_interval_sec", 0, 8), S("it_interval_usec", 8, 8),
	S("it_value_sec", 16, 8), S("it_value_usec", 24, 8),
};
static const struct scry_struct_field f_rlimit[] = { U("rlim_cur", 0, 8), U("rlim_max", 8, 8) };

static const struct scry_struct_field f_rusage[] = {
	S("ru_utime_sec", 0, 8), S("ru_utime_usec", 8, 8),
	S("ru_stime_sec", 16, 8), S("ru_stime_usec", 24, 8),
	S("ru_maxrss", 32, 8), S("ru_ixrss", 40, 8), S("ru_idrss", 48, 8), S("ru_isrss", 56, 8),
	S("ru_minflt", 64, 8), S("ru_majflt", 72, 8), S("ru_nswap", 80, 8), S("ru_inblock", 88, 8),
	S("ru_oublock", 96, 8), S("ru_msgsnd", 104, 8), S("ru_msgrcv", 112, 8),
	S("ru_nsignals", 120, 8), S("ru_nvcsw", 128, 8), S("ru_nivcsw", 136, 8),
};

/* the kernel's struct sigaction for rt_sigaction on x86_64 */
static const struct scry_struct_field f_sigaction[] = {
	X("sa_handler", 0, 8), X("sa_flags", 8, 8), X("sa_restorer", 16, 8), X("sa_mask", 24, 8),
};
static const struct scry_struct_field f_sigset[] = { X("sigset", 0, 8) };
/* the mask a signal handler's return restores: the ucontext's uc_sigmask in the signal
 * frame (rt_sigreturn's argument read from the user stack, src/catalog/syscalls.c) */
static const struct scry_struct_field f_sigframe_mask[] = { X("mask", 0, 8) };

static const struct scry_struct_field f_open_how[] = {
	X("flags", 0, 8), X("mode", 8, 8), X("resolve", 16, 8),
};

/* struct clone_args up to CLONE_ARGS_SIZE_VER2 (88 bytes) */
static const struct scry_struct_field f_clone_args[] = {
	X("flags", 0, 8), X("pidfd", 8, 8), X("child_tid", 16, 8), X("parent_tid", 24, 8),
	U("exit_signal", 32, 8), X("stack", 40, 8), X("stack_size", 48, 8), X("tls", 56, 8),
	X("set_tid", 64, 8), U("set_tid_size", 72, 8), U("cgroup", 80, 8),
};

static const struct scry_struct_field f_pollfd[] = {
	S("fd", 0, 4), X("events", 4, 2), X("revents", 6, 2),
};
/* packed on x86_64 */
static const struct scry_struct_field f_epoll_event[] = { X("events", 0, 4), X("data", 4, 8) };
static const struct scry_struct_field f_iovec[] = { X("iov_base", 0, 8), U("iov_len", 8, 8) };

/* struct user_msghdr; msg_namelen is an int */
static const struct scry_struct_field f_msghdr[] = {
	X("msg_name", 0, 8), S("msg_namelen", 8, 4), PAD("__pad0", 12, 4, 0), X("msg_iov", 16, 8),
	U("msg_iovlen", 24, 8), X("msg_control", 32, 8), U("msg_controllen", 40, 8),
	X("msg_flags", 48, 4), PAD("__pad1", 52, 4, 0),
};

/* struct linux_dirent64 up to d_name (its name follows as a string) */
static const struct scry_struct_field f_dirent64[] = {
	U("d_ino", 0, 8), S("d_off", 8, 8), U("d_reclen", 16, 2), U("d_type", 18, 1),
};

static const struct scry_struct_field f_utsname[] = {
	TEXT("sysname", 0, 65), TEXT("nodename", 65, 65), TEXT("release", 130, 65),
	TEXT("version", 195, 65), TEXT("machine", 260, 65), TEXT("domainname", 325, 65),
};

static const struct scry_struct_field f_sysinfo[] = {
	S("uptime", 0, 8), UA("loads", 8, 8, 3), U("totalram", 32, 8), U("freeram", 40, 8),
	U("sharedram", 48, 8), U("bufferram", 56, 8), U("totalswap", 64, 8), U("freeswap", 72, 8),
	U("procs", 80, 2), PAD("__pad0", 82, 2, 0), PAD("__pad1", 84, 4, 0),
	U("totalhigh", 88, 8), U("freehigh", 96, 8), U("mem_unit", 104, 4), PAD("__pad2", 108, 4, 0),
};

static const struct scry_struct_field f_int[] = { S("int", 0, 4) };
/* a file descriptor in an array (pipe's two): -y names it */
static const struct scry_struct_field f_fd[] = { S("fd", 0, 4) };
/* a socket address's length, in and out (accept, getsockname...): [110 => 2] when changed */
static const struct scry_struct_field f_socklen[] = { S("socklen", 0, 4) };
static const struct scry_struct_field f_uint[] = { U("uint", 0, 4) };
static const struct scry_struct_field f_long[] = { S("long", 0, 8) };
static const struct scry_struct_field f_ulong[] = { X("ulong", 0, 8) };
/* wait status (wait4): printed as strace's WIFEXITED(s) && ... */
static const struct scry_struct_field f_wstatus[] = { X("wstatus", 0, 4) };

static const struct scry_struct_field f_stack_t[] = {
	X("ss_sp", 0, 8), X("ss_flags", 8, 4), PAD("__pad0", 12, 4, 0), U("ss_size", 16, 8),
};
static const struct scry_struct_field f_sched_param[] = { S("sched_priority", 0, 4) };
static const struct scry_struct_field f_tms[] = {
	S("tms_utime", 0, 8), S("tms_stime", 8, 8), S("tms_cutime", 16, 8), S("tms_cstime", 24, 8),
};
static const struct scry_struct_field f_utimbuf[] = { S("actime", 0, 8), S("modtime", 8, 8) };

/* siginfo_t: the common header and the SIGCHLD / kill() view of the union */
static const struct scry_struct_field f_siginfo[] = {
	S("si_signo", 0, 4), S("si_errno", 4, 4), S("si_code", 8, 4), PAD("__pad0", 12, 4, 0),
	S("si_pid", 16, 4), U("si_uid", 20, 4), S("si_status", 24, 4), PAD("__pad1", 28, 4, 0),
	S("si_utime", 32, 8), S("si_stime", 40, 8), PAD("__pad2", 48, 8, 10),
};

static const struct scry_struct_field f_cap_header[] = { X("version", 0, 4), S("pid", 4, 4) };
static const struct scry_struct_field f_cap_data[] = {
	X("effective", 0, 4), X("permitted", 4, 4), X("inheritable", 8, 4),
};
static const struct scry_struct_field f_sembuf[] = {
	U("sem_num", 0, 2), S("sem_op", 2, 2), X("sem_flg", 4, 2),
};

static const struct scry_struct_desc d_iovec = DESC("iovec", 16, f_iovec);
static const struct scry_struct_tail t_iovec_data[] = { { "data", SCRY_TAIL_BYTES, NULL } };
static const struct scry_struct_desc d_iovec_data = DESCT("iovec_data", 16, f_iovec, t_iovec_data);
static const struct scry_struct_tail t_msghdr_iov[] = {
	{ "name", SCRY_TAIL_BYTES, NULL }, { "iov", SCRY_TAIL_STRUCTS, &d_iovec },
};
static const struct scry_struct_tail t_msghdr_data[] = {
	{ "name", SCRY_TAIL_BYTES, NULL }, { "iov", SCRY_TAIL_STRUCTS, &d_iovec_data },
};
static const struct scry_struct_tail t_dirent64[] = { { "d_name", SCRY_TAIL_STRING, NULL } };
static const struct scry_struct_desc d_dirent64 = DESCT("dirent64", 19, f_dirent64, t_dirent64);
/* getdents64's buffer: how many records it holds, then those captured */
static const struct scry_struct_field f_dirents[] = { U("nentries", 0, 4) };
static const struct scry_struct_tail t_dirents[] = { { "entries", SCRY_TAIL_STRUCTS, &d_dirent64 } };

static const struct scry_struct_desc descs[] = {
	DESC("stat", 144, f_stat),
	DESC("statx", 256, f_statx),
	DESC("statfs", 120, f_statfs),
	DESC("timespec", 16, f_timespec),
	DESC("timeval", 16, f_timeval),
	DESC("timezone", 8, f_timezone),
	DESC("itimerspec", 32, f_itimerspec),
	DESC("itimerval", 32, f_itimerval),
	DESC("rlimit", 16, f_rlimit),
	DESC("rusage", 144, f_rusage),
	DESC("sigaction", 32, f_sigaction),
	DESC("sigset", 8, f_sigset),
	DESC("sigframe_mask", 8, f_sigframe_mask),
	DESC("open_how", 24, f_open_how),
	DESC("clone_args", 88, f_clone_args),
	DESC("pollfd", 8, f_pollfd),
	DESC("epoll_event", 12, f_epoll_event),
	DESC("iovec", 16, f_iovec),
	DESCT("iovec_data", 16, f_iovec, t_iovec_data),
	DESC("msghdr", 56, f_msghdr),
	DESCT("msghdr_iov", 56, f_msghdr, t_msghdr_iov),
	DESCT("msghdr_data", 56, f_msghdr, t_msghdr_data),
	DESCT("dirent64", 19, f_dirent64, t_dirent64),
	DESCT("dirents", 4, f_dirents, t_dirents),
	DESC("utsname", 390, f_utsname),
	DESC("sysinfo", 112, f_sysinfo),
	DESC("int", 4, f_int),
	DESC("socklen", 4, f_socklen),
	DESC("fd", 4, f_fd),
	DESC("uint", 4, f_uint),
	DESC("long", 8, f_long),
	DESC("ulong", 8, f_ulong),
	DESC("wstatus", 4, f_wstatus),
	DESC("stack_t", 24, f_stack_t),
	DESC("sched_param", 4, f_sched_param),
	DESC("tms", 32, f_tms),
	DESC("utimbuf", 16, f_utimbuf),
	DESC("siginfo", 128, f_siginfo),
	DESC("cap_header", 8, f_cap_header),
	DESC("cap_data", 12, f_cap_data),
	DESC("sembuf", 6, f_sembuf),
};

#define NDESCS (sizeof(descs) / sizeof(descs[0]))

static const struct scry_struct_desc *const desc_list[NDESCS] = {
	&descs[0], &descs[1], &descs[2], &descs[3], &descs[4], &descs[5], &descs[6], &descs[7],
	&descs[8], &descs[9], &descs[10], &descs[11], &descs[12], &descs[13], &descs[14],
	&descs[15], &descs[16], &descs[17], &descs[18], &descs[19], &descs[20], &descs[21],
	&descs[22], &descs[23], &descs[24], &descs[25], &descs[26], &descs[27], &descs[28],
	&descs[29], &descs[30], &descs[31], &descs[32], &descs[33], &descs[34], &descs[35],
	&descs[36], &descs[37], &descs[38], &descs[39], &descs[40],
};

_Static_assert(NDESCS == 41, "desc_list must list every description");

/* The descriptions by name: an open-addressed table built once (every struct argument
 * printed looks its type up by name; the walk over the 41 with strcmp was ~240
 * instructions a lookup). */
#define DESC_SLOTS 128
_Static_assert(NDESCS <= DESC_SLOTS / 2, "DESC_SLOTS too small");
static const struct scry_struct_desc *desc_index[DESC_SLOTS];
static pthread_once_t desc_index_once = PTHREAD_ONCE_INIT;

static unsigned desc_hash(const char *name)
{
	return scry_hash_str(name) & (DESC_SLOTS - 1);
}

static void desc_index_build(void)
{
	for (size_t i = 0; i < NDESCS; i++) {
		unsigned h = desc_hash(descs[i].name);

		while (desc_index[h] && strcmp(desc_index[h]->name, descs[i].name))
			h = (h + 1) & (DESC_SLOTS - 1);
		if (!desc_index[h])   /* the first of a name wins, as the walk had it */
			desc_index[h] = &descs[i];
	}
}

const struct scry_struct_desc *scry_struct_find(const char *name)
{
	if (!name)
		return NULL;
	pthread_once(&desc_index_once, desc_index_build);
	for (unsigned h = desc_hash(name); desc_index[h]; h = (h + 1) & (DESC_SLOTS - 1))
		if (desc_index[h]->name[0] == name[0] && !strcmp(desc_index[h]->name, name))
			return desc_index[h];
	return NULL;
}

static size_t span(const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
		   struct scry_tail_val *tails, int depth)
{
	size_t pos = d->size;

	if (avail < pos || depth > 4)
		return 0;
	for (unsigned k = 0; k < d->ntails; k++) {
		const struct scry_struct_tail *t = &d->tails[k];
		struct scry_tail_val tv = { 0 };
		const uint8_t *nul;
		uint32_t n;

		if (t->kind == SCRY_TAIL_STRING) {
			if (!(nul = memchr(p + pos, 0, avail - pos)))
				return 0;
			tv.p = p + pos;
			tv.len = (uint32_t)(nul - tv.p);
			pos += tv.len + 1;
		} else {
			if (avail - pos < 4)
				return 0;
			memcpy(&n, p + pos, 4);
			pos += 4;
			tv.p = p + pos;
			tv.n = n;
			if (t->kind == SCRY_TAIL_BYTES) {
				if (avail - pos < n)
					return 0;
				pos += n;
			} else {
				for (uint32_t i = 0; i < n; i++) {
					size_t e = span(t->elem, p + pos, avail - pos, NULL, depth + 1);

					if (!e)
						return 0;
					pos += e;
				}
			}
			tv.len = (uint32_t)(p + pos - tv.p);
		}
		if (tails)
			tails[k] = tv;
	}
	return pos;
}

size_t scry_struct_span(const struct scry_struct_desc *d, const uint8_t *p, size_t avail,
			struct scry_tail_val *tails)
{
	return d ? span(d, p, avail, tails, 0) : 0;
}

size_t scry_structs(const struct scry_struct_desc *const **list)
{
	*list = desc_list;
	return NDESCS;
}
