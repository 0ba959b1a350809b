/* test_format_structs.c — strace-style printing (src/format) of structs filled by real calls, struct and
 * array arguments, what strace leaves out or adds, the return column of whole calls, and the
 * spec table (syscall_specs.c) parsed against the generated syscall table.
 * Expected strings are strace 6.1's output for the same values (fmt_test_util.h has the
 * helpers the format tests share). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/futex.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "catalog/argspec.h"
#include "catalog/structs.h"
#include "catalog/syscall_table.h"
#include "format/format.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000   /* the kernel's; the C library does not export it */
#endif

#include "fmt_test_util.h"

/* ---------------------------------------------------------------- structs */

static void test_stat(void **state)
{
	struct stat st;
	char expect[256];

	/* a real call; the buffer as the kernel wrote it */
	assert_int_equal(syscall(SYS_newfstatat, AT_FDCWD, "/", &st, 0), 0);
	snprintf(expect, sizeof(expect), "{st_mode=S_IFDIR|%#o, st_size=%lld, ...}", st.st_mode & 0777,
		 (long long)st.st_size);
	STRUCT("stat", &st, &opts, expect);
	if (stat("/dev/null", &st) == 0 && st.st_rdev == makedev(1, 3) && (st.st_mode & 0777) == 0666)
		STRUCT("stat", &st, &opts, "{st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}");

	/* strace -v of "/" on its test machine */
	memset(&st, 0, sizeof(st));
	st.st_dev = makedev(0xfe, 0);
	st.st_ino = 2;
	st.st_mode = S_IFDIR | 0755;
	st.st_nlink = 21;
	st.st_blksize = 4096;
	st.st_blocks = 8;
	st.st_size = 4096;
	st.st_atim = (struct timespec){ 1795314832, 996331376 };
	st.st_mtim = (struct timespec){ 1795320332, 912073801 };
	st.st_ctim = st.st_mtim;
	STRUCT("stat", &st, &vopts,
	       "{st_dev=makedev(0xfe, 0), st_ino=2, st_mode=S_IFDIR|0755, st_nlink=21, st_uid=0, st_gid=0, "
	       "st_blksize=4096, st_blocks=8, st_size=4096, "
	       "st_atime=1795314832 /* 2026-11-22T02:33:52.996331376+0000 */, st_atime_nsec=996331376, "
	       "st_mtime=1795320332 /* 2026-11-22T04:05:32.912073801+0000 */, st_mtime_nsec=912073801, "
	       "st_ctime=1795320332 /* 2026-11-22T04:05:32.912073801+0000 */, st_ctime_nsec=912073801}");
	/* setuid binary, whole-second times; a device */
	st.st_mode = S_IFREG | S_ISUID | 0755;
	st.st_atim = (struct timespec){ 1744022326, 0 };
	STRUCT("stat", &st, &opts, "{st_mode=S_IFREG|S_ISUID|0755, st_size=4096, ...}");
	st.st_mode = S_IFBLK | 0660;
	st.st_rdev = 0x12345678;
	st.st_mtim = st.st_ctim = st.st_atim;
	STRUCT("stat", &st, &vopts,
	       "{st_dev=makedev(0xfe, 0), st_ino=2, st_mode=S_IFBLK|0660, st_nlink=21, st_uid=0, st_gid=0, "
	       "st_blksize=4096, st_blocks=8, st_rdev=makedev(0x456, 0x12378), "
	       "st_atime=1744022326 /* 2025-04-07T10:38:46+0000 */, st_atime_nsec=0, "
	       "st_mtime=1744022326 /* 2025-04-07T10:38:46+0000 */, st_mtime_nsec=0, "
	       "st_ctime=1744022326 /* 2025-04-07T10:38:46+0000 */, st_ctime_nsec=0}");
	/* fewer bytes than the struct: what there is */
	EXPECT(scry_fmt_struct(&ob, "stat", (const uint8_t *)&st, 20, &opts), "{st_dev=65024, st_ino=2, ...}");
}

static void test_statx(void **state)
{
	struct statx sx;
	char expect[256];

	memset(&sx, 0, sizeof(sx));
	assert_int_equal(syscall(SYS_statx, AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx), 0);
	snprintf(expect, sizeof(expect), "stx_mode=S_IFDIR|%#o, stx_size=%llu, ...}", sx.stx_mode & 0777,
		 (unsigned long long)sx.stx_size);
	ob.n = 0;
	scry_fmt_struct(&ob, "statx", (const uint8_t *)&sx, sizeof(sx), &opts);
	const char *s = took();
	assert_true(!strncmp(s, "{stx_mask=STATX_BASIC_STATS", 27));
	assert_non_null(strstr(s, expect));

	/* strace -v of "/" on its test machine */
	memset(&sx, 0, sizeof(sx));
	sx.stx_mask = 0x1fff;
	sx.stx_blksize = 4096;
	sx.stx_attributes = STATX_ATTR_MOUNT_ROOT;
	sx.stx_nlink = 21;
	sx.stx_mode = S_IFDIR | 0755;
	sx.stx_ino = 2;
	sx.stx_size = 4096;
	sx.stx_blocks = 8;
	sx.stx_attributes_mask = 0x303874;
	sx.stx_atime.tv_sec = 1795314832;
	sx.stx_atime.tv_nsec = 996331376;
	sx.stx_ctime.tv_sec = sx.stx_mtime.tv_sec = 1795320332;
	sx.stx_ctime.tv_nsec = sx.stx_mtime.tv_nsec = 912073801;
	sx.stx_dev_major = 254;
	sx.stx_mnt_id = 0x1b;
	STRUCT("statx", &sx, &opts, "{stx_mask=STATX_ALL|STATX_MNT_ID, stx_attributes=STATX_ATTR_MOUNT_ROOT, "
				    "stx_mode=S_IFDIR|0755, stx_size=4096, ...}");
	STRUCT("statx", &sx, &vopts,
	       "{stx_mask=STATX_ALL|STATX_MNT_ID, stx_blksize=4096, stx_attributes=STATX_ATTR_MOUNT_ROOT, "
	       "stx_nlink=21, stx_uid=0, stx_gid=0, stx_mode=S_IFDIR|0755, stx_ino=2, stx_size=4096, "
	       "stx_blocks=8, stx_attributes_mask=STATX_ATTR_COMPRESSED|STATX_ATTR_IMMUTABLE|"
	       "STATX_ATTR_APPEND|STATX_ATTR_NODUMP|STATX_ATTR_ENCRYPTED|STATX_ATTR_AUTOMOUNT|"
	       "STATX_ATTR_MOUNT_ROOT|STATX_ATTR_VERITY|STATX_ATTR_DAX, "
	       "stx_atime={tv_sec=1795314832, tv_nsec=996331376} /* 2026-11-22T02:33:52.996331376+0000 */, "
	       "stx_btime={tv_sec=0, tv_nsec=0}, "
	       "stx_ctime={tv_sec=1795320332, tv_nsec=912073801} /* 2026-11-22T04:05:32.912073801+0000 */, "
	       "stx_mtime={tv_sec=1795320332, tv_nsec=912073801} /* 2026-11-22T04:05:32.912073801+0000 */, "
	       "stx_rdev_major=0, stx_rdev_minor=0, stx_dev_major=254, stx_dev_minor=0, stx_mnt_id=0x1b}");
	sx.stx_mask = 0x17ff;           /* no STATX_BTIME: no stx_btime */
	ob.n = 0;
	scry_fmt_struct(&ob, "statx", (const uint8_t *)&sx, sizeof(sx), &vopts);
	assert_null(strstr(took(), "stx_btime"));
}

static void test_statfs(void **state)
{
	struct statfs sf;

	if (statfs("/proc", &sf) == 0 && sf.f_type == 0x9fa0) {
		ob.n = 0;
		scry_fmt_struct(&ob, "statfs", (const uint8_t *)&sf, sizeof(sf), &opts);
		assert_true(!strncmp(took(), "{f_type=PROC_SUPER_MAGIC, f_bsize=", 34));
	}
	memset(&sf, 0, sizeof(sf));
	sf.f_type = 0xef53;
	sf.f_bsize = 4096;
	sf.f_blocks = 66053021;
	sf.f_bfree = 61521513;
	sf.f_bavail = 20552789;
	sf.f_files = 16777216;
	sf.f_ffree = 16361466;
	memcpy(&sf.f_fsid, (int[2]){ (int)0xbddb7415, 0x297668cc }, 8);
	sf.f_namelen = 255;
	sf.f_frsize = 4096;
	sf.f_flags = 0x1020;
	STRUCT("statfs", &sf, &opts,
	       "{f_type=EXT2_SUPER_MAGIC, f_bsize=4096, f_blocks=66053021, f_bfree=61521513, "
	       "f_bavail=20552789, f_files=16777216, f_ffree=16361466, f_fsid={val=[0xbddb7415, 0x297668cc]}, "
	       "f_namelen=255, f_frsize=4096, f_flags=ST_VALID|ST_RELATIME}");
	sf.f_type = 0x12345678;
	memset(&sf.f_fsid, 0, 8);
	ob.n = 0;
	scry_fmt_struct(&ob, "statfs", (const uint8_t *)&sf, sizeof(sf), &opts);
	assert_non_null(strstr(took(), "{f_type=0x12345678, "));
}

static void test_time_structs(void **state)
{
	struct timespec ts;
	struct timeval tv = { 1795320323, 379133 };
	struct timezone tz = { 0, 0 };
	struct itimerval itv = { { 0, 5 }, { 1, 0 } };
	struct itimerspec its = { { 0, 0 }, { 5, 0 } };
	char expect[128];

	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
	snprintf(expect, sizeof(expect), "{tv_sec=%lld, tv_nsec=%ld}", (long long)ts.tv_sec, ts.tv_nsec);
	STRUCT("timespec", &ts, &opts, expect);
	STRUCT("timeval", &tv, &opts, "{tv_sec=1795320323, tv_usec=379133}");
	STRUCT("timezone", &tz, &opts, "{tz_minuteswest=0, tz_dsttime=0}");
	STRUCT("itimerval", &itv, &opts, "{it_interval={tv_sec=0, tv_usec=5}, it_value={tv_sec=1, tv_usec=0}}");
	STRUCT("itimerspec", &its, &opts,
	       "{it_interval={tv_sec=0, tv_nsec=0}, it_value={tv_sec=5, tv_nsec=0}}");
}

static void test_resource_structs(void **state)
{
	struct rlimit rl = { 8192 * 1024, RLIM_INFINITY };
	struct rusage ru = { 0 };
	struct utsname u;
	struct sysinfo si = { 0 };
	char expect[1024];

	STRUCT("rlimit", &rl, &opts, "{rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}");
	rl = (struct rlimit){ 1000, 4194305 };
	STRUCT("rlimit", &rl, &opts, "{rlim_cur=1000, rlim_max=4194305}");
	rl = (struct rlimit){ 2048, 1024 };
	STRUCT("rlimit", &rl, &opts, "{rlim_cur=2*1024, rlim_max=1024}");
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur <= 1024 && rl.rlim_max <= 1024) {
		snprintf(expect, sizeof(expect), "{rlim_cur=%llu, rlim_max=%llu}",
			 (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
		STRUCT("rlimit", &rl, &opts, expect);
	}

	ru.ru_stime.tv_usec = 4150;
	STRUCT("rusage", &ru, &opts, "{ru_utime={tv_sec=0, tv_usec=0}, ru_stime={tv_sec=0, tv_usec=4150}, ...}");
	ru.ru_maxrss = 1096;
	ru.ru_minflt = 61;
	ru.ru_nvcsw = 196;
	STRUCT("rusage", &ru, &vopts,
	       "{ru_utime={tv_sec=0, tv_usec=0}, ru_stime={tv_sec=0, tv_usec=4150}, ru_maxrss=1096, "
	       "ru_ixrss=0, ru_idrss=0, ru_isrss=0, ru_minflt=61, ru_majflt=0, ru_nswap=0, ru_inblock=0, "
	       "ru_oublock=0, ru_msgsnd=0, ru_msgrcv=0, ru_nsignals=0, ru_nvcsw=196, ru_nivcsw=0}");

	assert_int_equal(uname(&u), 0);
	snprintf(expect, sizeof(expect), "{sysname=\"%s\", nodename=\"%s\", ...}", u.sysname, u.nodename);
	STRUCT("utsname", &u, &opts, expect);
	snprintf(expect, sizeof(expect),
		 "{sysname=\"%s\", nodename=\"%s\", release=\"%s\", version=\"%s\", machine=\"%s\", "
		 "domainname=\"%s\"}", u.sysname, u.nodename, u.release, u.version, u.machine, u.domainname);
	STRUCT("utsname", &u, &vopts, expect);

	si.uptime = 5547;
	si.loads[0] = 2560;
	si.loads[1] = 13024;
	si.loads[2] = 28864;
	si.totalram = 25276510208UL;
	si.freeram = 24972795904UL;
	si.sharedram = 9068544;
	si.bufferram = 2318336;
	si.procs = 85;
	si.mem_unit = 1;
	STRUCT("sysinfo", &si, &opts,
	       "{uptime=5547, loads=[2560, 13024, 28864], totalram=25276510208, freeram=24972795904, "
	       "sharedram=9068544, bufferram=2318336, totalswap=0, freeswap=0, procs=85, totalhigh=0, "
	       "freehigh=0, mem_unit=1}");
}

static void test_signal_structs(void **state)
{
	struct { uint64_t handler, flags, restorer, mask; } ksa = { 0 }, old;
	stack_t st = { (void *)0x1000, 0, 8192 };
	siginfo_t si;
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	sigaddset(&s, 40);
	ksa.handler = 0x55c6f9819289;
	ksa.flags = SA_RESTORER | SA_ONSTACK | SA_RESTART | SA_SIGINFO;
	ksa.restorer = 0x7f26a20e7050;
	ksa.mask = ksigset(&s);
	STRUCT("sigaction", &ksa, &opts,
	       "{sa_handler=0x55c6f9819289, sa_mask=[INT TERM RT_8], "
	       "sa_flags=SA_RESTORER|SA_ONSTACK|SA_RESTART|SA_SIGINFO, sa_restorer=0x7f26a20e7050}");
	ksa.handler = (uintptr_t)SIG_IGN;
	ksa.flags = SA_RESTORER;
	STRUCT("sigaction", &ksa, &opts,
	       "{sa_handler=SIG_IGN, sa_mask=[INT TERM RT_8], sa_flags=SA_RESTORER, sa_restorer=0x7f26a20e7050}");
	/* the kernel's own bytes: install a disposition, read it back with rt_sigaction */
	ksa = (typeof(ksa)){ .handler = (uintptr_t)SIG_IGN, .flags = 0, .mask = 1ULL << (SIGHUP - 1) };
	assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR2, &ksa, NULL, 8), 0);
	assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 8), 0);
	STRUCT("sigaction", &old, &opts, "{sa_handler=SIG_IGN, sa_mask=[HUP], sa_flags=0}");
	ksa = (typeof(ksa)){ 0 };
	assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR2, &ksa, NULL, 8), 0);
	assert_int_equal(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 8), 0);
	STRUCT("sigaction", &old, &opts, "{sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}");

	STRUCT("stack_t", &st, &opts, "{ss_sp=0x1000, ss_flags=0, ss_size=8192}");
	st.ss_flags = SS_DISABLE;
	st.ss_sp = NULL;
	STRUCT("stack_t", &st, &opts, "{ss_sp=NULL, ss_flags=SS_DISABLE, ss_size=8192}");

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGCHLD;
	si.si_code = CLD_EXITED;
	si.si_pid = 11153;
	si.si_status = 3;
	STRUCT("siginfo", &si, &opts,
	       "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=11153, si_uid=0, si_status=3, si_utime=0, si_stime=0}");
	si.si_code = CLD_KILLED;
	si.si_status = SIGKILL;
	STRUCT("siginfo", &si, &opts,
	       "{si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=11153, si_uid=0, si_status=SIGKILL, si_utime=0, "
	       "si_stime=0}");
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR1;
	si.si_code = SI_USER;
	si.si_pid = 11152;
	STRUCT("siginfo", &si, &opts, "{si_signo=SIGUSR1, si_code=SI_USER, si_pid=11152, si_uid=0}");
}

static void test_wait_status(void **state)
{
	uint32_t st;
	int s;
	pid_t p;

	p = fork();
	if (p == 0)
		_exit(3);
	assert_int_equal(waitpid(p, &s, 0), p);
	st = (uint32_t)s;
	STRUCT("wstatus", &st, &opts, "[{WIFEXITED(s) && WEXITSTATUS(s) == 3}]");
	p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	kill(p, SIGKILL);
	assert_int_equal(waitpid(p, &s, 0), p);
	st = (uint32_t)s;
	STRUCT("wstatus", &st, &opts, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]");
	st = 0x137f;
	STRUCT("wstatus", &st, &opts, "[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGSTOP}]");
	st = 0xffff;
	STRUCT("wstatus", &st, &opts, "[{WIFCONTINUED(s)}]");
	st = 0x86;
	STRUCT("wstatus", &st, &opts, "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGABRT && WCOREDUMP(s)}]");
}

static void test_misc_structs(void **state)
{
	struct epoll_event ee = { .events = EPOLLIN | EPOLLET | EPOLLONESHOT | EPOLLRDHUP | EPOLLEXCLUSIVE,
				  .data.u64 = 0x100000005ULL };
	struct open_how how = { .flags = O_CREAT | O_WRONLY, .mode = 0644,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS |
					   RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_CACHED | 0x100 };
	struct { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid,
		 set_tid_size, cgroup; } ca = {
		.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
			 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID,
		.child_tid = 0x7f4c66abf990, .parent_tid = 0x7f4c66abf990, .stack = 0x7f4c662bf000,
		.stack_size = 0x7fff80, .tls = 0x7f4c66abf6c0 };
	struct { uint64_t a, b, c, d; } tms = { 1, 2, 3, 4 };
	int one = 1;

	STRUCT("epoll_event", &ee, &opts,
	       "{events=EPOLLIN|EPOLLRDHUP|EPOLLEXCLUSIVE|EPOLLONESHOT|EPOLLET, data={u32=5, u64=4294967301}}");
	STRUCT("open_how", &how, &opts,
	       "{flags=O_WRONLY|O_CREAT, mode=0644, resolve=RESOLVE_NO_XDEV|RESOLVE_NO_MAGICLINKS|"
	       "RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH|RESOLVE_IN_ROOT|RESOLVE_CACHED|0x100}");
	how = (struct open_how){ .flags = O_RDONLY };
	STRUCT("open_how", &how, &opts, "{flags=O_RDONLY, resolve=0}");
	how.mode = 0644;
	STRUCT("open_how", &how, &opts, "{flags=O_RDONLY, mode=0644, resolve=0}");
	STRUCT("clone_args", &ca, &opts,
	       "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
	       "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f4c66abf990, parent_tid=0x7f4c66abf990, "
	       "exit_signal=0, stack=0x7f4c662bf000, stack_size=0x7fff80, tls=0x7f4c66abf6c0}");
	ca = (typeof(ca)){ .exit_signal = SIGCHLD };
	STRUCT("clone_args", &ca, &opts, "{flags=0, exit_signal=SIGCHLD, stack=NULL, stack_size=0}");
	STRUCT("int", &one, &opts, "[1]");
	STRUCT("sched_param", &one, &opts, "[1]");
	/* no printer of its own: the generic one from the description */
	STRUCT("tms", &tms, &opts, "{tms_utime=1, tms_stime=2, tms_cutime=3, tms_cstime=4}");
	EXPECT(scry_fmt_struct(&ob, "tms", (const uint8_t *)&tms, 12, &opts), "{tms_utime=1, ...}");
	EXPECT(scry_fmt_struct(&ob, "nosuchstruct", (const uint8_t *)&tms, 8, &opts), "{...}");
}

/* ---------------------------------------------------------------- struct and array args */


static void test_struct_args(void **state)
{
	static const char *const fs[] = { "dfd", "filename", "statbuf", "flag" };
	const struct scry_argspec *st = parse1("dirfd, path, ostruct:stat, flags:at", fs, 4, 2);
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	struct stat sb = { .st_mode = S_IFREG | 0644, .st_size = 41871 };

	all[2] = capture(&sb, sizeof(sb), 1, 0x7ffe9d9f6350);
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, 0, true, &opts), "{st_mode=S_IFREG|0644, st_size=41871, ...}");
	/* failed: the pointer, whatever was captured */
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, -ENOENT, true, &opts), "0x7ffe9d9f6350");
	/* nothing read (NULL or unreadable) */
	all[2] = capture(NULL, 0, 0, 0);
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, -EFAULT, true, &opts), "NULL");
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, 0, true, &opts), "NULL");
	all[2] = capture(NULL, 0, 0, 0x8);
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, 0, true, &opts), "0x8");
	/* unfinished call: the exit capture does not exist yet */
	all[2].have = false;
	EXPECT(scry_fmt_arg(&ob, st, &all[2], all, 0, false, &opts), "0x8");
}

static void test_array_args(void **state)
{
	static const char *const pn[] = { "ufds", "nfds", "timeout_msecs" };
	static const char *const ew[] = { "epfd", "events", "maxevents", "timeout" };
	static const char *const p2[] = { "fildes", "flags" };
	static const char *const gg[] = { "gidsetsize", "grouplist" };
	static const char *const wv[] = { "fd", "vec", "vlen" };
	const struct scry_argspec *poll_s = parse1("ioarray:pollfd(nfds), uint, int", pn, 3, 0);
	const struct scry_argspec *ew_s = parse1("fd, oarray:epoll_event(ret), int, int", ew, 4, 1);
	const struct scry_argspec *pipe_s = parse1("oarray:int(2), flags:pipe", p2, 2, 0);
	const struct scry_argspec *gg_s = parse1("int, oarray:uint(ret)", gg, 2, 1);
	const struct scry_argspec *wv_s = parse1("fd, iarray:iovec(vlen), int", wv, 3, 1);
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	struct pollfd pf[3] = { { 8, POLLIN | POLLPRI, 0 }, { 9, POLLOUT | POLLRDNORM | POLLWRBAND | 0x4000, 0 },
				{ -1, POLLIN, 0 } };
	struct epoll_event ev[2] = { { .events = EPOLLIN, .data.u64 = 8 }, { .events = EPOLLOUT, .data.u64 = 9 } };
	struct iovec iov[2] = { { (void *)0x1000, 2 }, { (void *)0x2000, 3 } };
	int fds[2], ints[40];
	char expect[512];

	all[0] = capture(pf, sizeof(pf), 3, 0x7ffe00001000);
	all[1] = val(2);
	EXPECT(scry_fmt_arg(&ob, poll_s, &all[0], all, 1, true, &opts),
	       "[{fd=8, events=POLLIN|POLLPRI}, {fd=9, events=POLLOUT|POLLRDNORM|POLLWRBAND|0x4000}]");
	all[1] = val(3);
	pf[1].revents = POLLOUT;
	/* revents go after the return value (scry_fmt_ret_call) */
	EXPECT(scry_fmt_arg(&ob, poll_s, &all[0], all, 1, true, &opts),
	       "[{fd=8, events=POLLIN|POLLPRI}, {fd=9, events=POLLOUT|POLLRDNORM|POLLWRBAND|0x4000}, {fd=-1}]");
	/* more elements than captured */
	all[1] = val(5);
	EXPECT(scry_fmt_arg(&ob, poll_s, &all[0], all, 1, true, &opts),
	       "[{fd=8, events=POLLIN|POLLPRI}, {fd=9, events=POLLOUT|POLLRDNORM|POLLWRBAND|0x4000}, {fd=-1}, "
	       "...]");

	all[1] = capture(ev, sizeof(ev), 2, 0x7ffe00002000);
	EXPECT(scry_fmt_arg(&ob, ew_s, &all[1], all, 2, true, &opts),
	       "[{events=EPOLLIN, data={u32=8, u64=8}}, {events=EPOLLOUT, data={u32=9, u64=9}}]");
	all[1] = capture(ev, 0, 0, 0x7ffe00002000);
	EXPECT(scry_fmt_arg(&ob, ew_s, &all[1], all, 0, true, &opts), "[]");
	EXPECT(scry_fmt_arg(&ob, ew_s, &all[1], all, -EINTR, true, &opts), "0x7ffe00002000");

	/* pipe2([6, 7], O_CLOEXEC) from a real call */
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	snprintf(expect, sizeof(expect), "[%d, %d]", fds[0], fds[1]);
	all[0] = capture(fds, sizeof(fds), 2, 0x7ffe00003000);
	EXPECT(scry_fmt_arg(&ob, pipe_s, &all[0], all, 0, true, &opts), expect);
	close(fds[0]);
	close(fds[1]);

	/* getgroups(0, NULL) = 0 and getgroups(8, []) = 0 */
	all[0] = val(0);
	all[1] = capture(NULL, 0, 0, 0);
	EXPECT(scry_fmt_arg(&ob, gg_s, &all[1], all, 0, true, &opts), "NULL");
	all[1] = capture(ints, 0, 0, 0x7ffe00004000);
	EXPECT(scry_fmt_arg(&ob, gg_s, &all[1], all, 0, true, &opts), "[]");
	/* at most -s elements unless verbose */
	for (int i = 0; i < 40; i++)
		ints[i] = i;
	all[1] = capture(ints, sizeof(ints), 40, 0x7ffe00004000);
	strcpy(expect, "[");
	for (int i = 0; i < 32; i++)
		snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect), "%d, ", i);
	strcat(expect, "...]");
	EXPECT(scry_fmt_arg(&ob, gg_s, &all[1], all, 40, true, &opts), expect);

	all[2] = val(2);
	all[1] = capture(iov, sizeof(iov), 2, 0x7ffe00005000);
	EXPECT(scry_fmt_arg(&ob, wv_s, &all[1], all, 5, true, &opts),
	       "[{iov_base=0x1000, iov_len=2}, {iov_base=0x2000, iov_len=3}]");
}

/* ---------------------------------------------------------------- what strace leaves out or adds */

static void test_omitted_args(void **state)
{
	static const char *const oa[] = { "dfd", "filename", "flags", "mode" };
	static const char *const fc[] = { "fd", "cmd", "arg" };
	static const char *const fx[] = { "uaddr", "op", "val", "utime", "uaddr2", "val3" };
	static const char *const pr[] = { "option", "arg2", "arg3", "arg4", "arg5" };
	struct scry_argspec oas[4], fcs[3], fxs[6], prs[5], ios[3];
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	char err[128];

	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("openat"), oa, 4, oas, err, sizeof(err)), 0);
	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("fcntl"), fc, 3, fcs, err, sizeof(err)), 0);
	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("ioctl"), fc, 3, ios, err, sizeof(err)), 0);
	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("futex"), fx, 6, fxs, err, sizeof(err)), 0);
	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("prctl"), pr, 5, prs, err, sizeof(err)), 0);
#define AT_(specs, i, str) EXPECT(scry_fmt_arg(&ob, &(specs)[i], &all[i], all, 0, true, &opts), str)
	/* openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC): no mode */
	all[0] = val((uint64_t)-100);
	all[2] = val(O_RDONLY | O_CLOEXEC);
	all[3] = val(0);
	AT_(oas, 3, "");
	all[2] = val(O_WRONLY | O_CREAT);
	all[3] = val(0644);
	AT_(oas, 3, "0644");
	all[2] = val(O_RDWR | O_TMPFILE);
	AT_(oas, 3, "0644");
	/* fcntl(8, F_GETFD) / fcntl(8, F_SETFD, FD_CLOEXEC) */
	all[1] = val(F_GETFD);
	all[2] = val(0xffffffffffffff80);
	AT_(fcs, 2, "");
	all[1] = val(F_SETFD);
	all[2] = val(FD_CLOEXEC);
	AT_(fcs, 2, "FD_CLOEXEC");
	/* ioctl(1000, FIOCLEX) / ioctl(1000, TCGETS, 0x7ffe...) */
	all[1] = val(0x5451);
	AT_(ios, 2, "");
	all[1] = val(0x5401);
	all[2] = val(0x7ffe0000);
	AT_(ios, 2, "0x7ffe0000");
	all[2] = val(0);
	AT_(ios, 2, "NULL");             /* ioctl(1000, TCGETS, NULL) */
	all[1] = val(0x5409);
	AT_(ios, 2, "0");                /* ioctl(1000, TCSBRK, 0) */
	all[1] = val(0xdeadbeef);
	AT_(ios, 2, "0");                /* unknown request: a number */
	/* mknodat(AT_FDCWD, "/x", S_IFCHR|0666, makedev(0x1, 0x3)); no device for a fifo */
	struct scry_argspec mks[4];
	static const char *const mk[] = { "dfd", "filename", "mode", "dev" };

	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("mknodat"), mk, 4, mks, err, sizeof(err)), 0);
	all[2] = val(S_IFCHR | 0666);
	all[3] = val(0x103);
	AT_(mks, 3, "makedev(0x1, 0x3)");
	all[2] = val(S_IFIFO | 0644);
	AT_(mks, 3, "");
	/* futex(0x7ffc8ae826b8, FUTEX_WAKE_PRIVATE, 1) */
	all[0] = val(0x7ffc8ae826b8);
	all[1] = val(FUTEX_WAKE_PRIVATE);
	all[2] = val(1);
	all[3] = val(0);
	all[4] = val(0);
	all[5] = val(0);
	AT_(fxs, 2, "1");
	AT_(fxs, 3, "");
	AT_(fxs, 4, "");
	AT_(fxs, 5, "");
	/* futex(uaddr, FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME, 1, NULL, FUTEX_BITSET_MATCH_ANY) */
	all[1] = val(FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	all[3].have_ptr = true;
	all[5] = val(0xffffffff);
	AT_(fxs, 3, "NULL");
	AT_(fxs, 4, "");
	AT_(fxs, 5, "FUTEX_BITSET_MATCH_ANY");
	/* futex(NULL, FUTEX_LOCK_PI, NULL): uaddr, op, timeout */
	all[1] = val(FUTEX_LOCK_PI);
	AT_(fxs, 2, "");
	AT_(fxs, 3, "NULL");
	all[1] = val(99);
	AT_(fxs, 5, "0xffffffff");
	/* prctl(PR_SET_PDEATHSIG, SIGKILL), prctl(PR_GET_DUMPABLE), prctl(0x270f, 0, 0, 0, 0) */
	all[0] = val(1);            /* PR_SET_PDEATHSIG */
	all[1] = val(SIGKILL);
	all[2] = val(0);
	AT_(prs, 1, "SIGKILL");
	AT_(prs, 2, "");
	all[0] = val(15);           /* PR_SET_NAME */
	all[1] = val(0x55f4ac4710c2);
	AT_(prs, 1, "0x55f4ac4710c2");
	all[0] = val(3);            /* PR_GET_DUMPABLE */
	AT_(prs, 1, "");
	all[0] = val(4);            /* PR_SET_DUMPABLE */
	all[1] = val(0);
	AT_(prs, 1, "SUID_DUMP_DISABLE");
	all[0] = val(0x270f);
	AT_(prs, 1, "0");
	AT_(prs, 4, "0");
	/* arch_prctl(ARCH_GET_CPUID) */
	struct scry_argspec aps[2];
	static const char *const ap[] = { "option", "arg2" };

	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("arch_prctl"), ap, 2, aps, err, sizeof(err)), 0);
	all[0] = val(0x1011);
	AT_(aps, 1, "");
	all[0] = val(0x1002);
	all[1] = val(0x7f4c66ac0740);
	AT_(aps, 1, "0x7f4c66ac0740");
	/* clone: strace's names and order */
	struct scry_argspec cls[5];
	static const char *const cl[] = { "clone_flags", "newsp", "parent_tidptr", "child_tidptr", "tls" };
	char line[512];

	assert_int_equal(scry_argspec_parse(scry_sc_spec_find("clone"), cl, 5, cls, err, sizeof(err)), 0);
	all[0] = val(CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD);
	all[1] = val(0);
	all[2] = val(0);
	all[3] = val(0x7f4c66ac0a10);
	all[4] = val(0);
	AT_(cls, 0, "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	AT_(cls, 1, "");
	AT_(cls, 2, "");
	AT_(cls, 3, "child_tidptr=0x7f4c66ac0a10");
	AT_(cls, 4, "");
	all[0] = val(CLONE_VM | CLONE_VFORK | SIGCHLD);
	AT_(cls, 3, "");
	all[0] = val(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
		     CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID);
	all[1] = val(0x7f4c662beff0);
	all[2] = val(0x7f4c66abf990);
	all[3] = val(0x7f4c66abf990);
	all[4] = val(0x7f4c66abf6c0);
	line[0] = 0;
	for (int k = 0; k < 5; k++) {
		ob.n = 0;
		scry_fmt_arg(&ob, &cls[k], &all[k], all, 0, true, &opts);
		if (ob.n && line[0])
			strcat(line, ", ");
		strcat(line, took());
	}
	assert_string_equal(line, "child_stack=0x7f4c662beff0, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|"
				  "CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, "
				  "parent_tid=0x7f4c66abf990, tls=0x7f4c66abf6c0, child_tidptr=0x7f4c66abf990");
#undef AT_
}

static void test_ret_call(void **state)
{
	struct scry_argval all[SCRY_MAX_ARGS] = { { 0 } };
	struct pollfd pf[3] = { { 8, POLLIN, POLLIN }, { 9, POLLOUT, POLLOUT }, { 10, POLLIN, 0 } };
	struct timespec left = { 0, 0 };

#define RC(name, r, n, str) EXPECT(scry_fmt_ret_call(&ob, name, (r), NULL, all, n, &opts), str)
	all[0] = val(8);
	all[1] = val(F_GETFL);
	RC("fcntl", 0x8002, 3, "= 0x8002 (flags O_RDWR|O_LARGEFILE)");
	RC("fcntl", 0, 3, "= 0 (flags O_RDONLY)");
	RC("fcntl", -EBADF, 3, "= -1 EBADF (Bad file descriptor)");
	all[1] = val(F_GETFD);
	RC("fcntl", 1, 3, "= 0x1 (flags FD_CLOEXEC)");
	RC("fcntl", 0, 3, "= 0");
	all[1] = val(F_DUPFD_CLOEXEC);
	RC("fcntl", 12, 3, "= 12");
	all[0] = capture(pf, sizeof(pf), 3, 0x7ffe00001000);
	all[1] = val(3);
	RC("poll", 2, 3, "= 2 ([{fd=8, revents=POLLIN}, {fd=9, revents=POLLOUT}])");
	RC("poll", 0, 3, "= 0 (Timeout)");
	RC("pselect6", 0, 6, "= 0 (Timeout)");
	RC("poll", -EINTR, 3, "= -1 EINTR (Interrupted system call)");
	pf[0].revents = 0;
	pf[1].revents = 0;
	pf[2] = (struct pollfd){ 7, POLLIN, POLLHUP };
	all[2] = capture(&left, sizeof(left), 1, 0x7ffe00002000);
	RC("ppoll", 1, 5, "= 1 ([{fd=7, revents=POLLHUP}], left {tv_sec=0, tv_nsec=0})");
	RC("rt_sigtimedwait", SIGUSR1, 4, "= 10 (SIGUSR1)");
	RC("personality", 0, 1, "= 0 (PER_LINUX)");
	RC("read", 3, 3, "= 3");
	RC("mmap", 0x7f1234560000, 6, "= 0x7f1234560000");
	EXPECT(scry_fmt_ret_call(&ob, "fcntl", 1, NULL, NULL, 0, &opts), "= 1");
#undef RC
}

/* ---------------------------------------------------------------- the spec table */

static const struct scry_syscall_row *table_row(const char *name)
{
	for (size_t i = 0; i < scry_syscall_table_len; i++)
		if (!strcmp(scry_syscall_table[i].name, name))
			return &scry_syscall_table[i];
	return NULL;
}

static void test_spec_table(void **state)
{
	size_t sets = 0, types = 0;

	assert_true(scry_sc_specs_len >= 250);
	for (size_t i = 0; i < scry_sc_specs_len; i++) {
		const struct scry_sc_specrow *r = &scry_sc_specs[i];
		const struct scry_syscall_row *t = table_row(r->name);
		const char *names[SCRY_MAX_ARGS];
		struct scry_argspec out[SCRY_MAX_ARGS];
		char err[160];

		if (!t)
			fail_msg("spec row \"%s\": no such syscall in syscall_table.c", r->name);
		if (!t->args_known)
			fail_msg("spec row \"%s\": the syscall has no known arguments", r->name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(scry_sc_specs[j].name, r->name))
				fail_msg("spec row \"%s\" appears twice", r->name);
		for (unsigned a = 0; a < t->nargs; a++)
			names[a] = t->args[a].name;
		if (scry_argspec_parse(r->spec, names, t->nargs, out, err, sizeof(err)))
			fail_msg("spec row \"%s\" (\"%s\"): %s", r->name, r->spec, err);
		for (unsigned a = 0; a < t->nargs; a++) {
			const struct scry_argspec *s = &out[a];

			if (s->kind == SCRY_A_FLAGS || s->kind == SCRY_A_ENUM) {
				if (!scry_fmt_set_exists(s->set, s->kind == SCRY_A_ENUM))
					fail_msg("spec row \"%s\": argument %u: no %s set \"%s\"", r->name, a + 1,
						 s->kind == SCRY_A_ENUM ? "enum" : "flags", s->set);
				sets++;
			}
			if (s->kind == SCRY_A_STRUCT || s->kind == SCRY_A_ARRAY) {
				if (!scry_struct_find(s->set))
					fail_msg("spec row \"%s\": argument %u: no struct \"%s\"", r->name, a + 1, s->set);
				types++;
			}
			/* a capture's length of `ret` is only known on exit, and the struct must be
			 * small enough for one capture */
			if (scry_akind_captures(s->kind))
				assert_int_not_equal(s->dir, SCRY_DIR_NONE);
		}
		assert_string_equal(scry_sc_spec_find(r->name), r->spec);
	}
	assert_true(sets > 100);
	assert_true(types > 50);
	assert_null(scry_sc_spec_find("nosuchsyscall"));
	/* a few rows the decoders rely on */
	assert_string_equal(scry_sc_spec_find("newfstatat"), "dirfd, path, ostruct:stat, flags:at");
	assert_string_equal(scry_sc_spec_find("read"), "fd, obuf(ret), uint");
	assert_string_equal(scry_sc_spec_find("execve"), "path, strv, strv");
}

/* every set prints something for a few values, and set names are unique */
static void test_all_sets_print(void **state)
{
	static const char *const names[] = {
		"open", "pipe", "at", "faccessat", "statx_at", "statx_mask", "statx_attrs", "access", "whence",
		"rename", "fallocate", "fadvise", "xattr", "splice", "flock", "fdflags", "lease", "dnotify",
		"seals", "inotify_init", "inotify_mask", "close_range", "rwf", "umount", "mount",
		"sync_file_range", "resolve", "fs_magic", "statfs_flags", "prot", "mmap", "mremap", "madvise",
		"msync", "mlockall", "mlock2", "memfd", "shmat", "clone", "clone3", "unshare", "setns", "wait",
		"idtype", "sigprocmask_how", "sa_flags", "ss_flags", "clockid", "timer_flags", "timerfd",
		"eventfd", "signalfd", "epoll_create", "epoll_ctl", "epoll_events", "poll_events",
		"rlimit_resource", "rusage_who", "prio_which", "itimer_which", "sched_policy", "futex_op",
		"prctl", "arch_prctl", "getrandom", "personality", "ioprio_who", "seccomp_op", "ptrace",
		"pidfd_open", "syslog", "af", "sock_type", "sock_flags", "ipproto", "netlink_proto", "ethp",
		"msg", "shutdown", "sol", "sockopt_socket", "sockopt_tcp", "sockopt_ip", "sockopt_ipv6",
		"sockopt_udp", "sockopt_netlink", "sockopt_packet", "sockproto", "sockopt", "ioctl", "fcntl",
		"fcntl_arg", "ipc_get", "ipc_key", "shmctl", "semctl", "msgctl", "ipc_msg",
	};
	static const uint64_t vals[] = { 0, 1, 2, 0x80, 0xffffffff, ~0ULL };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		bool is_enum = scry_fmt_set_exists(names[i], true);

		if (!is_enum && !scry_fmt_set_exists(names[i], false))
			fail_msg("set \"%s\" does not exist", names[i]);
		for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
			ob.n = 0;
			assert_true(scry_fmt_flags(&ob, names[i], vals[k]));
			assert_true(ob.n > 0);
		}
	}
	ob.n = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_statx),
		cmocka_unit_test(test_statfs),
		cmocka_unit_test(test_time_structs),
		cmocka_unit_test(test_resource_structs),
		cmocka_unit_test(test_signal_structs),
		cmocka_unit_test(test_wait_status),
		cmocka_unit_test(test_misc_structs),
		cmocka_unit_test(test_struct_args),
		cmocka_unit_test(test_array_args),
		cmocka_unit_test(test_omitted_args),
		cmocka_unit_test(test_ret_call),
		cmocka_unit_test(test_spec_table),
		cmocka_unit_test(test_all_sets_print),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
