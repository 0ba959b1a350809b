/* test_structs.c — the struct descriptions of src/catalog/structs.c: every description
 * covers its size exactly with valid fields, and the layouts match the system headers
 * (offsetof/sizeof of the real x86_64 structs); the tails of the variable-size captures
 * (iovec data, msghdr address and iovecs, directory entry names) and their spans. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <utime.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <linux/stat.h>
#include <cmocka.h>
#include "catalog/structs.h"

/* The kernel's struct sigaction for rt_sigaction on x86_64 (arch/x86/include/asm/signal.h;
 * not in the C library's headers, whose struct sigaction has a 128-byte sigset_t). */
struct kernel_sigaction {
	unsigned long handler;
	unsigned long flags;
	unsigned long restorer;
	unsigned long mask;
};

static const struct scry_struct_field *fld(const struct scry_struct_desc *d, const char *name)
{
	for (unsigned i = 0; i < d->nfields; i++)
		if (!strcmp(d->fields[i].name, name))
			return &d->fields[i];
	fail_msg("struct %s has no field %s", d->name, name);
	return NULL;
}

static const struct scry_struct_desc *desc(const char *name)
{
	const struct scry_struct_desc *d = scry_struct_find(name);

	if (!d)
		fail_msg("no description of struct %s", name);
	return d;
}

/* field NAME of description D is at OFF with SIZE bytes per element (and COUNT elements) */
#define AT(...) AT_(__VA_ARGS__)
#define AT_(d, name, off, sz) do { \
	const struct scry_struct_field *f_ = fld(d, name); \
	assert_int_equal(f_->offset, (off)); \
	assert_int_equal(f_->size, (sz)); \
} while (0)
#define ARR(d, name, off, sz, cnt) do { \
	AT_(d, name, off, sz); \
	assert_int_equal(fld(d, name)->count, (cnt)); \
} while (0)
#define MEMBER(type, m) offsetof(type, m), sizeof(((type *)0)->m)

static int is_ident(const char *s)
{
	if (!s || !*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return 0;
	return 1;
}

static void test_descriptions_cover_their_size(void **state)
{
	const struct scry_struct_desc *const *list;
	size_t n = scry_structs(&list);

	assert_true(n >= 30);
	for (size_t i = 0; i < n; i++) {
		const struct scry_struct_desc *d = list[i];
		unsigned off = 0;

		assert_non_null(d->name);
		assert_ptr_equal(scry_struct_find(d->name), d);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(list[j]->name, d->name);
		assert_true(d->size > 0);
		assert_true(d->nfields > 0);
		for (unsigned k = 0; k < d->nfields; k++) {
			const struct scry_struct_field *f = &d->fields[k];

			if (!is_ident(f->name))
				fail_msg("struct %s: field name '%s'", d->name, f->name);
			if (f->offset != off)
				fail_msg("struct %s: field %s at %u, expected %u", d->name, f->name, f->offset, off);
			assert_true(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
			assert_true(f->base == 10 || f->base == 16);
			if (f->is_text)
				assert_true(f->size == 1 && f->count > 0);
			for (unsigned j = 0; j < k; j++)
				assert_string_not_equal(d->fields[j].name, f->name);
			off += f->size * (f->count ? f->count : 1);
		}
		if (off != d->size)
			fail_msg("struct %s: fields cover %u of %u bytes", d->name, off, d->size);
	}
	assert_null(scry_struct_find("sockaddr"));
	assert_null(scry_struct_find("nosuchstruct"));
	assert_null(scry_struct_find(NULL));
}

static void test_scalar_types(void **state)
{
	static const struct { const char *name; unsigned size; bool is_signed; } scalars[] = {
		{ "int", 4, true }, { "uint", 4, false }, { "long", 8, true }, { "ulong", 8, false },
		{ "sigset", 8, false }, { "wstatus", 4, false },
	};

	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
		const struct scry_struct_desc *d = desc(scalars[i].name);

		assert_int_equal(d->size, scalars[i].size);
		assert_int_equal(d->nfields, 1);
		assert_string_equal(d->fields[0].name, scalars[i].name);
		assert_int_equal(d->fields[0].count, 0);
		assert_int_equal(d->fields[0].is_signed, scalars[i].is_signed);
	}
}

static void test_file_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("stat");

	assert_int_equal(d->size, sizeof(struct stat));
	AT(d, "st_dev", MEMBER(struct stat, st_dev));
	AT(d, "st_ino", MEMBER(struct stat, st_ino));
	AT(d, "st_nlink", MEMBER(struct stat, st_nlink));
	AT(d, "st_mode", MEMBER(struct stat, st_mode));
	AT(d, "st_uid", MEMBER(struct stat, st_uid));
	AT(d, "st_gid", MEMBER(struct stat, st_gid));
	AT(d, "st_rdev", MEMBER(struct stat, st_rdev));
	AT(d, "st_size", MEMBER(struct stat, st_size));
	AT(d, "st_blksize", MEMBER(struct stat, st_blksize));
	AT(d, "st_blocks", MEMBER(struct stat, st_blocks));
	AT(d, "st_atime", MEMBER(struct stat, st_atim.tv_sec));
	AT(d, "st_atime_nsec", MEMBER(struct stat, st_atim.tv_nsec));
	AT(d, "st_mtime", MEMBER(struct stat, st_mtim.tv_sec));
	AT(d, "st_mtime_nsec", MEMBER(struct stat, st_mtim.tv_nsec));
	AT(d, "st_ctime", MEMBER(struct stat, st_ctim.tv_sec));
	AT(d, "st_ctime_nsec", MEMBER(struct stat, st_ctim.tv_nsec));

	d = desc("statx");
	assert_int_equal(d->size, sizeof(struct statx));
	AT(d, "stx_mask", MEMBER(struct statx, stx_mask));
	AT(d, "stx_blksize", MEMBER(struct statx, stx_blksize));
	AT(d, "stx_attributes", MEMBER(struct statx, stx_attributes));
	AT(d, "stx_nlink", MEMBER(struct statx, stx_nlink));
	AT(d, "stx_uid", MEMBER(struct statx, stx_uid));
	AT(d, "stx_gid", MEMBER(struct statx, stx_gid));
	AT(d, "stx_mode", MEMBER(struct statx, stx_mode));
	AT(d, "stx_ino", MEMBER(struct statx, stx_ino));
	AT(d, "stx_size", MEMBER(struct statx, stx_size));
	AT(d, "stx_blocks", MEMBER(struct statx, stx_blocks));
	AT(d, "stx_attributes_mask", MEMBER(struct statx, stx_attributes_mask));
	AT(d, "stx_atime_sec", MEMBER(struct statx, stx_atime.tv_sec));
	AT(d, "stx_atime_nsec", MEMBER(struct statx, stx_atime.tv_nsec));
	AT(d, "stx_btime_sec", MEMBER(struct statx, stx_btime.tv_sec));
	AT(d, "stx_btime_nsec", MEMBER(struct statx, stx_btime.tv_nsec));
	AT(d, "stx_ctime_sec", MEMBER(struct statx, stx_ctime.tv_sec));
	AT(d, "stx_ctime_nsec", MEMBER(struct statx, stx_ctime.tv_nsec));
	AT(d, "stx_mtime_sec", MEMBER(struct statx, stx_mtime.tv_sec));
	AT(d, "stx_mtime_nsec", MEMBER(struct statx, stx_mtime.tv_nsec));
	AT(d, "stx_rdev_major", MEMBER(struct statx, stx_rdev_major));
	AT(d, "stx_rdev_minor", MEMBER(struct statx, stx_rdev_minor));
	AT(d, "stx_dev_major", MEMBER(struct statx, stx_dev_major));
	AT(d, "stx_dev_minor", MEMBER(struct statx, stx_dev_minor));
	AT(d, "stx_mnt_id", MEMBER(struct statx, stx_mnt_id));
	AT(d, "stx_dio_mem_align", MEMBER(struct statx, stx_dio_mem_align));
	AT(d, "stx_dio_offset_align", MEMBER(struct statx, stx_dio_offset_align));

	d = desc("statfs");
	assert_int_equal(d->size, sizeof(struct statfs));
	AT(d, "f_type", MEMBER(struct statfs, f_type));
	AT(d, "f_bsize", MEMBER(struct statfs, f_bsize));
	AT(d, "f_blocks", MEMBER(struct statfs, f_blocks));
	AT(d, "f_bfree", MEMBER(struct statfs, f_bfree));
	AT(d, "f_bavail", MEMBER(struct statfs, f_bavail));
	AT(d, "f_files", MEMBER(struct statfs, f_files));
	AT(d, "f_ffree", MEMBER(struct statfs, f_ffree));
	ARR(d, "f_fsid", offsetof(struct statfs, f_fsid), 4, 2);
	assert_int_equal(sizeof(fsid_t), 8);
	AT(d, "f_namelen", MEMBER(struct statfs, f_namelen));
	AT(d, "f_frsize", MEMBER(struct statfs, f_frsize));
	AT(d, "f_flags", MEMBER(struct statfs, f_flags));

	d = desc("open_how");
	assert_int_equal(d->size, sizeof(struct open_how));
	AT(d, "flags", MEMBER(struct open_how, flags));
	AT(d, "mode", MEMBER(struct open_how, mode));
	AT(d, "resolve", MEMBER(struct open_how, resolve));

	d = desc("utimbuf");
	assert_int_equal(d->size, sizeof(struct utimbuf));
	AT(d, "actime", MEMBER(struct utimbuf, actime));
	AT(d, "modtime", MEMBER(struct utimbuf, modtime));

	d = desc("iovec");
	assert_int_equal(d->size, sizeof(struct iovec));
	AT(d, "iov_base", MEMBER(struct iovec, iov_base));
	AT(d, "iov_len", MEMBER(struct iovec, iov_len));
}

static void test_event_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("pollfd");

	assert_int_equal(d->size, sizeof(struct pollfd));
	AT(d, "fd", MEMBER(struct pollfd, fd));
	AT(d, "events", MEMBER(struct pollfd, events));
	AT(d, "revents", MEMBER(struct pollfd, revents));

	d = desc("epoll_event");
	assert_int_equal(d->size, sizeof(struct epoll_event));
	assert_int_equal(d->size, 12);          /* packed on x86_64 */
	AT(d, "events", MEMBER(struct epoll_event, events));
	AT(d, "data", MEMBER(struct epoll_event, data));

	d = desc("sembuf");
	assert_int_equal(d->size, sizeof(struct sembuf));
	AT(d, "sem_num", MEMBER(struct sembuf, sem_num));
	AT(d, "sem_op", MEMBER(struct sembuf, sem_op));
	AT(d, "sem_flg", MEMBER(struct sembuf, sem_flg));
}

static void test_time_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("timespec");

	assert_int_equal(d->size, sizeof(struct timespec));
	AT(d, "tv_sec", MEMBER(struct timespec, tv_sec));
	AT(d, "tv_nsec", MEMBER(struct timespec, tv_nsec));

	d = desc("timeval");
	assert_int_equal(d->size, sizeof(struct timeval));
	AT(d, "tv_sec", MEMBER(struct timeval, tv_sec));
	AT(d, "tv_usec", MEMBER(struct timeval, tv_usec));

	d = desc("timezone");
	assert_int_equal(d->size, sizeof(struct timezone));
	AT(d, "tz_minuteswest", MEMBER(struct timezone, tz_minuteswest));
	AT(d, "tz_dsttime", MEMBER(struct timezone, tz_dsttime));

	d = desc("itimerspec");
	assert_int_equal(d->size, sizeof(struct itimerspec));
	AT(d, "it_interval_sec", MEMBER(struct itimerspec, it_interval.tv_sec));
	AT(d, "it_interval_nsec", MEMBER(struct itimerspec, it_interval.tv_nsec));
	AT(d, "it_value_sec", MEMBER(struct itimerspec, it_value.tv_sec));
	AT(d, "it_value_nsec", MEMBER(struct itimerspec, it_value.tv_nsec));

	d = desc("itimerval");
	assert_int_equal(d->size, sizeof(struct itimerval));
	AT(d, "it_interval_sec", MEMBER(struct itimerval, it_interval.tv_sec));
	AT(d, "it_interval_usec", MEMBER(struct itimerval, it_interval.tv_usec));
	AT(d, "it_value_sec", MEMBER(struct itimerval, it_value.tv_sec));
	AT(d, "it_value_usec", MEMBER(struct itimerval, it_value.tv_usec));

	d = desc("tms");
	assert_int_equal(d->size, sizeof(struct tms));
	AT(d, "tms_utime", MEMBER(struct tms, tms_utime));
	AT(d, "tms_stime", MEMBER(struct tms, tms_stime));
	AT(d, "tms_cutime", MEMBER(struct tms, tms_cutime));
	AT(d, "tms_cstime", MEMBER(struct tms, tms_cstime));
}

static void test_process_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("rlimit");

	assert_int_equal(d->size, sizeof(struct rlimit));
	AT(d, "rlim_cur", MEMBER(struct rlimit, rlim_cur));
	AT(d, "rlim_max", MEMBER(struct rlimit, rlim_max));

	d = desc("rusage");
	assert_int_equal(d->size, sizeof(struct rusage));
	AT(d, "ru_utime_sec", MEMBER(struct rusage, ru_utime.tv_sec));
	AT(d, "ru_utime_usec", MEMBER(struct rusage, ru_utime.tv_usec));
	AT(d, "ru_stime_sec", MEMBER(struct rusage, ru_stime.tv_sec));
	AT(d, "ru_stime_usec", MEMBER(struct rusage, ru_stime.tv_usec));
	AT(d, "ru_maxrss", MEMBER(struct rusage, ru_maxrss));
	AT(d, "ru_ixrss", MEMBER(struct rusage, ru_ixrss));
	AT(d, "ru_idrss", MEMBER(struct rusage, ru_idrss));
	AT(d, "ru_isrss", MEMBER(struct rusage, ru_isrss));
	AT(d, "ru_minflt", MEMBER(struct rusage, ru_minflt));
	AT(d, "ru_majflt", MEMBER(struct rusage, ru_majflt));
	AT(d, "ru_nswap", MEMBER(struct rusage, ru_nswap));
	AT(d, "ru_inblock", MEMBER(struct rusage, ru_inblock));
	AT(d, "ru_oublock", MEMBER(struct rusage, ru_oublock));
	AT(d, "ru_msgsnd", MEMBER(struct rusage, ru_msgsnd));
	AT(d, "ru_msgrcv", MEMBER(struct rusage, ru_msgrcv));
	AT(d, "ru_nsignals", MEMBER(struct rusage, ru_nsignals));
	AT(d, "ru_nvcsw", MEMBER(struct rusage, ru_nvcsw));
	AT(d, "ru_nivcsw", MEMBER(struct rusage, ru_nivcsw));

	d = desc("utsname");
	assert_int_equal(d->size, sizeof(struct utsname));
	ARR(d, "sysname", offsetof(struct utsname, sysname), 1, sizeof(((struct utsname *)0)->sysname));
	ARR(d, "nodename", offsetof(struct utsname, nodename), 1, 65);
	ARR(d, "release", offsetof(struct utsname, release), 1, 65);
	ARR(d, "version", offsetof(struct utsname, version), 1, 65);
	ARR(d, "machine", offsetof(struct utsname, machine), 1, 65);
	ARR(d, "domainname", offsetof(struct utsname, domainname), 1, 65);
	assert_true(fld(d, "nodename")->is_text);

	d = desc("sysinfo");
	assert_int_equal(d->size, sizeof(struct sysinfo));
	AT(d, "uptime", MEMBER(struct sysinfo, uptime));
	ARR(d, "loads", offsetof(struct sysinfo, loads), 8, 3);
	AT(d, "totalram", MEMBER(struct sysinfo, totalram));
	AT(d, "freeram", MEMBER(struct sysinfo, freeram));
	AT(d, "sharedram", MEMBER(struct sysinfo, sharedram));
	AT(d, "bufferram", MEMBER(struct sysinfo, bufferram));
	AT(d, "totalswap", MEMBER(struct sysinfo, totalswap));
	AT(d, "freeswap", MEMBER(struct sysinfo, freeswap));
	AT(d, "procs", MEMBER(struct sysinfo, procs));
	AT(d, "totalhigh", MEMBER(struct sysinfo, totalhigh));
	AT(d, "freehigh", MEMBER(struct sysinfo, freehigh));
	AT(d, "mem_unit", MEMBER(struct sysinfo, mem_unit));

	/* up to cgroup: the headers may define newer fields */
	d = desc("clone_args");
	assert_int_equal(d->size, CLONE_ARGS_SIZE_VER2);
	assert_int_equal(offsetof(struct clone_args, cgroup) + 8, CLONE_ARGS_SIZE_VER2);
	AT(d, "flags", MEMBER(struct clone_args, flags));
	AT(d, "pidfd", MEMBER(struct clone_args, pidfd));
	AT(d, "child_tid", MEMBER(struct clone_args, child_tid));
	AT(d, "parent_tid", MEMBER(struct clone_args, parent_tid));
	AT(d, "exit_signal", MEMBER(struct clone_args, exit_signal));
	AT(d, "stack", MEMBER(struct clone_args, stack));
	AT(d, "stack_size", MEMBER(struct clone_args, stack_size));
	AT(d, "tls", MEMBER(struct clone_args, tls));
	AT(d, "set_tid", MEMBER(struct clone_args, set_tid));
	AT(d, "set_tid_size", MEMBER(struct clone_args, set_tid_size));
	AT(d, "cgroup", MEMBER(struct clone_args, cgroup));

	d = desc("sched_param");
	assert_int_equal(d->size, sizeof(struct sched_param));
	AT(d, "sched_priority", MEMBER(struct sched_param, sched_priority));

	d = desc("cap_header");
	assert_int_equal(d->size, sizeof(struct __user_cap_header_struct));
	AT(d, "version", MEMBER(struct __user_cap_header_struct, version));
	AT(d, "pid", MEMBER(struct __user_cap_header_struct, pid));
	d = desc("cap_data");
	assert_int_equal(d->size, sizeof(struct __user_cap_data_struct));
	AT(d, "effective", MEMBER(struct __user_cap_data_struct, effective));
	AT(d, "permitted", MEMBER(struct __user_cap_data_struct, permitted));
	AT(d, "inheritable", MEMBER(struct __user_cap_data_struct, inheritable));
}

static void test_signal_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("sigaction");

	assert_int_equal(d->size, sizeof(struct kernel_sigaction));
	assert_int_equal(d->size, 32);
	AT(d, "sa_handler", MEMBER(struct kernel_sigaction, handler));
	AT(d, "sa_flags", MEMBER(struct kernel_sigaction, flags));
	AT(d, "sa_restorer", MEMBER(struct kernel_sigaction, restorer));
	AT(d, "sa_mask", MEMBER(struct kernel_sigaction, mask));
	assert_int_equal(desc("sigset")->size, 64 / 8);   /* the kernel's _NSIG bits */

	d = desc("stack_t");
	assert_int_equal(d->size, sizeof(stack_t));
	AT(d, "ss_sp", MEMBER(stack_t, ss_sp));
	AT(d, "ss_flags", MEMBER(stack_t, ss_flags));
	AT(d, "ss_size", MEMBER(stack_t, ss_size));

	d = desc("siginfo");
	assert_int_equal(d->size, sizeof(siginfo_t));
	AT(d, "si_signo", MEMBER(siginfo_t, si_signo));
	AT(d, "si_errno", MEMBER(siginfo_t, si_errno));
	AT(d, "si_code", MEMBER(siginfo_t, si_code));
	AT(d, "si_pid", MEMBER(siginfo_t, si_pid));
	AT(d, "si_uid", MEMBER(siginfo_t, si_uid));
	AT(d, "si_status", MEMBER(siginfo_t, si_status));
	AT(d, "si_utime", MEMBER(siginfo_t, si_utime));
	AT(d, "si_stime", MEMBER(siginfo_t, si_stime));
}

static void test_io_layouts(void **state)
{
	const struct scry_struct_desc *d = desc("msghdr");

	assert_int_equal(d->size, sizeof(struct msghdr));
	AT(d, "msg_name", MEMBER(struct msghdr, msg_name));
	AT(d, "msg_namelen", MEMBER(struct msghdr, msg_namelen));
	AT(d, "msg_iov", MEMBER(struct msghdr, msg_iov));
	AT(d, "msg_iovlen", MEMBER(struct msghdr, msg_iovlen));
	AT(d, "msg_control", MEMBER(struct msghdr, msg_control));
	AT(d, "msg_controllen", MEMBER(struct msghdr, msg_controllen));
	AT(d, "msg_flags", MEMBER(struct msghdr, msg_flags));
	assert_int_equal(d->ntails, 0);
	assert_int_equal(desc("msghdr_iov")->size, sizeof(struct msghdr));
	assert_int_equal(desc("msghdr_data")->size, sizeof(struct msghdr));

	d = desc("dirent64");
	assert_int_equal(d->size, offsetof(struct dirent64, d_name));
	AT(d, "d_ino", MEMBER(struct dirent64, d_ino));
	AT(d, "d_off", MEMBER(struct dirent64, d_off));
	AT(d, "d_reclen", MEMBER(struct dirent64, d_reclen));
	AT(d, "d_type", MEMBER(struct dirent64, d_type));
	assert_int_equal(d->ntails, 1);
	assert_string_equal(d->tails[0].name, "d_name");
	assert_int_equal(d->tails[0].kind, SCRY_TAIL_STRING);

	d = desc("dirents");                        /* the record count, then the records */
	AT(d, "nentries", 0, 4);
	assert_int_equal(d->ntails, 1);
	assert_string_equal(d->tails[0].name, "entries");
	assert_int_equal(d->tails[0].kind, SCRY_TAIL_STRUCTS);
	assert_string_equal(d->tails[0].elem->name, "dirent64");

	d = desc("iovec_data");
	assert_int_equal(d->size, sizeof(struct iovec));
	assert_int_equal(d->ntails, 1);
	assert_string_equal(d->tails[0].name, "data");
	assert_int_equal(d->tails[0].kind, SCRY_TAIL_BYTES);

	d = desc("msghdr_data");
	assert_int_equal(d->ntails, 2);
	assert_string_equal(d->tails[0].name, "name");
	assert_int_equal(d->tails[0].kind, SCRY_TAIL_BYTES);
	assert_string_equal(d->tails[1].name, "iov");
	assert_int_equal(d->tails[1].kind, SCRY_TAIL_STRUCTS);
	assert_string_equal(d->tails[1].elem->name, "iovec_data");
	assert_string_equal(desc("msghdr_iov")->tails[1].elem->name, "iovec");
}

/* Spans of captured elements: fixed bytes, then each tail. */
static void test_spans(void **state)
{
	uint8_t b[256] = { 0 };
	struct scry_tail_val t[2];
	size_t pos = 56;
	uint32_t v;

	/* msghdr_data: 56 bytes, name (2 bytes), 2 iovecs with 3 and 0 data bytes */
	v = 2, memcpy(b + pos, &v, 4), pos += 4;
	b[pos++] = 1, b[pos++] = 0;                 /* AF_UNIX */
	v = 2, memcpy(b + pos, &v, 4), pos += 4;
	pos += 16;                                  /* iov_base, iov_len */
	v = 3, memcpy(b + pos, &v, 4), pos += 4;
	memcpy(b + pos, "abc", 3), pos += 3;
	pos += 16;
	v = 0, memcpy(b + pos, &v, 4), pos += 4;
	assert_int_equal(pos, 56 + 4 + 2 + 4 + 20 + 3 + 20);
	assert_int_equal(scry_struct_span(desc("msghdr_data"), b, sizeof(b), t), pos);
	assert_ptr_equal(t[0].p, b + 60);
	assert_int_equal(t[0].n, 2);
	assert_int_equal(t[0].len, 2);
	assert_ptr_equal(t[1].p, b + 66);
	assert_int_equal(t[1].n, 2);
	assert_int_equal(t[1].len, 43);
	/* cut anywhere: not a whole element */
	for (size_t cut = 0; cut < pos; cut++)
		assert_int_equal(scry_struct_span(desc("msghdr_data"), b, cut, NULL), 0);
	/* fixed size */
	assert_int_equal(scry_struct_span(desc("msghdr"), b, sizeof(b), NULL), 56);
	assert_int_equal(scry_struct_span(desc("iovec"), b, 15, NULL), 0);
	/* dirent64: 19 bytes and a NUL-terminated name */
	memset(b, 0, sizeof(b));
	memcpy(b + 19, "sub", 4);
	assert_int_equal(scry_struct_span(desc("dirent64"), b, 23, t), 23);
	assert_ptr_equal(t[0].p, b + 19);
	assert_int_equal(t[0].len, 3);
	b[22] = 'x';
	assert_int_equal(scry_struct_span(desc("dirent64"), b, 23, NULL), 0);
	assert_int_equal(scry_struct_span(NULL, b, 23, NULL), 0);
	/* dirents: 7 records, 1 copied */
	memset(b, 0, sizeof(b));
	v = 7, memcpy(b, &v, 4);
	v = 1, memcpy(b + 4, &v, 4);
	memcpy(b + 8 + 19, "sub", 4);
	assert_int_equal(scry_struct_span(desc("dirents"), b, sizeof(b), t), 8 + 23);
	assert_ptr_equal(t[0].p, b + 8);
	assert_int_equal(t[0].n, 1);
	assert_int_equal(t[0].len, 23);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptions_cover_their_size),
		cmocka_unit_test(test_scalar_types),
		cmocka_unit_test(test_file_layouts),
		cmocka_unit_test(test_event_layouts),
		cmocka_unit_test(test_time_layouts),
		cmocka_unit_test(test_process_layouts),
		cmocka_unit_test(test_signal_layouts),
		cmocka_unit_test(test_io_layouts),
		cmocka_unit_test(test_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
