/* test_format_sets.c — strace-style printing (src/format), its tables: flag and enum sets, errnos and the
 * return column, signals and signal masks.
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

/* ---------------------------------------------------------------- flag sets */

static void test_open_flags(void **state)
{
	FLAGS("open", O_RDONLY | 0100000, "O_RDONLY|O_LARGEFILE");
	FLAGS("open", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY | O_SYNC,
	      "O_WRONLY|O_CREAT|O_TRUNC|O_SYNC|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY");
	FLAGS("open", O_RDWR | O_TMPFILE | 0x40000000, "O_RDWR|O_TMPFILE|0x40000000");
	FLAGS("open", 3 | O_APPEND | O_NONBLOCK | O_DSYNC | O_ASYNC | O_DIRECT | O_NOATIME | O_PATH |
		      O_NOCTTY | O_EXCL,
	      "O_ACCMODE|O_EXCL|O_NOCTTY|O_APPEND|O_NONBLOCK|O_DSYNC|O_DIRECT|O_NOATIME|O_PATH|FASYNC");
	FLAGS("open", O_DIRECTORY | O_ASYNC | O_PATH | O_DSYNC, "O_RDONLY|O_DSYNC|O_PATH|O_DIRECTORY|FASYNC");
	FLAGS("open", 0xfffffffc,
	      "O_RDONLY|O_CREAT|O_EXCL|O_NOCTTY|O_TRUNC|O_APPEND|O_NONBLOCK|O_SYNC|O_DIRECT|O_LARGEFILE|"
	      "O_NOFOLLOW|O_NOATIME|O_CLOEXEC|O_PATH|O_TMPFILE|FASYNC|0xff80003c");
	/* an int argument sign-extended to 64 bits is cut back to its 32 bits */
	FLAGS("open", (uint64_t)(int64_t)(int32_t)0x80000000 | O_RDONLY, "O_RDONLY|0x80000000");
	FLAGS("pipe", 0, "0");
	FLAGS("pipe", O_NONBLOCK | O_CLOEXEC, "O_NONBLOCK|O_CLOEXEC");
	FLAGS("at", 0, "0");
	FLAGS("at", AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW");
	FLAGS("at", 0xffffffff,
	      "AT_SYMLINK_NOFOLLOW|AT_REMOVEDIR|AT_SYMLINK_FOLLOW|AT_NO_AUTOMOUNT|AT_EMPTY_PATH|"
	      "AT_RECURSIVE|0xffff60ff");
	FLAGS("faccessat", AT_EACCESS, "AT_EACCESS");
	FLAGS("statx_at", 0, "AT_STATX_SYNC_AS_STAT");
	FLAGS("statx_at", AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, "AT_STATX_DONT_SYNC|AT_SYMLINK_NOFOLLOW");
	FLAGS("statx_at", AT_EMPTY_PATH | AT_NO_AUTOMOUNT, "AT_STATX_SYNC_AS_STAT|AT_NO_AUTOMOUNT|AT_EMPTY_PATH");
	FLAGS("statx_at", 0x6000, "AT_STATX_FORCE_SYNC|AT_STATX_DONT_SYNC");
	FLAGS("statx_mask", 0xfff, "STATX_ALL");
	FLAGS("statx_mask", 0x17ff, "STATX_BASIC_STATS|STATX_MNT_ID");
	FLAGS("statx_mask", 0x801, "STATX_TYPE|STATX_BTIME");
	FLAGS("statx_mask", 0x4000, "0x4000 /* STATX_??? */");
	FLAGS("statx_mask", 0x80000202, "STATX_MODE|STATX_SIZE|0x80000000");
	FLAGS("access", F_OK, "F_OK");
	FLAGS("access", R_OK | W_OK, "R_OK|W_OK");
	FLAGS("access", X_OK | 8, "X_OK|0x8");
	FLAGS("rename", 0xffffffff, "RENAME_NOREPLACE|RENAME_EXCHANGE|RENAME_WHITEOUT|0xfffffff8");
	FLAGS("close_range", 6, "CLOSE_RANGE_UNSHARE|CLOSE_RANGE_CLOEXEC");
	FLAGS("inotify_mask", 0xffffffff,
	      "IN_ACCESS|IN_MODIFY|IN_ATTRIB|IN_CLOSE_WRITE|IN_CLOSE_NOWRITE|IN_OPEN|IN_MOVED_FROM|"
	      "IN_MOVED_TO|IN_CREATE|IN_DELETE|IN_DELETE_SELF|IN_MOVE_SELF|IN_UNMOUNT|IN_Q_OVERFLOW|"
	      "IN_IGNORED|IN_ONLYDIR|IN_DONT_FOLLOW|IN_EXCL_UNLINK|IN_MASK_CREATE|IN_MASK_ADD|IN_ISDIR|"
	      "IN_ONESHOT|0x8ff1000");
	FLAGS("flock", LOCK_EX | LOCK_NB, "LOCK_EX|LOCK_NB");
	FLAGS("fallocate", 0, "0");
}

static void test_memory_flags(void **state)
{
	FLAGS("prot", PROT_NONE, "PROT_NONE");
	FLAGS("prot", PROT_READ | PROT_WRITE, "PROT_READ|PROT_WRITE");
	FLAGS("prot", 0x10, "0x10 /* PROT_??? */");
	FLAGS("prot", PROT_READ | PROT_WRITE | PROT_EXEC | 0x100, "PROT_READ|PROT_WRITE|PROT_EXEC|0x100");
	FLAGS("mmap", MAP_PRIVATE | MAP_ANONYMOUS, "MAP_PRIVATE|MAP_ANONYMOUS");
	FLAGS("mmap", MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE");
	FLAGS("mmap", 0, "MAP_FILE");
	FLAGS("mmap", 0xf, "0xf /* MAP_??? */");
	FLAGS("mmap", 2 | 0xf0, "MAP_PRIVATE|MAP_FIXED|MAP_ANONYMOUS|MAP_32BIT|0x80");
	FLAGS("mmap", MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE | MAP_POPULATE | MAP_STACK | MAP_DENYWRITE |
		      MAP_FIXED_NOREPLACE | (21 << 26) | MAP_HUGETLB,
	      "MAP_SHARED|MAP_ANONYMOUS|MAP_NORESERVE|MAP_POPULATE|MAP_DENYWRITE|MAP_STACK|MAP_HUGETLB|"
	      "MAP_FIXED_NOREPLACE|21<<MAP_HUGE_SHIFT");
	FLAGS("mmap", MAP_SHARED_VALIDATE | MAP_SYNC | MAP_GROWSDOWN | MAP_EXECUTABLE | MAP_LOCKED | MAP_NONBLOCK |
		      0x8000000,
	      "MAP_SHARED_VALIDATE|MAP_NONBLOCK|MAP_GROWSDOWN|MAP_EXECUTABLE|MAP_LOCKED|MAP_SYNC|"
	      "2<<MAP_HUGE_SHIFT");
	FLAGS("mremap", MREMAP_MAYMOVE | MREMAP_FIXED, "MREMAP_MAYMOVE|MREMAP_FIXED");
	FLAGS("memfd", 0, "0");
	FLAGS("memfd", MFD_CLOEXEC | MFD_ALLOW_SEALING, "MFD_CLOEXEC|MFD_ALLOW_SEALING");
	FLAGS("memfd", 0xffffffff, "MFD_CLOEXEC|MFD_ALLOW_SEALING|MFD_HUGETLB|0x3fffff8|63<<MFD_HUGE_SHIFT");
	FLAGS("msync", 0xffffffff, "MS_SYNC|MS_ASYNC|MS_INVALIDATE|0xfffffff8");
	FLAGS("mlockall", MCL_CURRENT | MCL_FUTURE, "MCL_CURRENT|MCL_FUTURE");
	ENUM("madvise", MADV_DONTNEED, "MADV_DONTNEED");
	ENUM("madvise", 999, "0x3e7 /* MADV_??? */");
}

static void test_process_flags(void **state)
{
	FLAGS("clone", CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD,
	      "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
	FLAGS("clone", CLONE_VM | CLONE_VFORK | SIGCHLD | 0x100000000ULL, "CLONE_VM|CLONE_VFORK|0x100000000|SIGCHLD");
	FLAGS("clone", SIGCHLD, "SIGCHLD");
	FLAGS("clone", 0, "0");
	FLAGS("clone", CLONE_NEWNS | CLONE_NEWPID, "CLONE_NEWNS|CLONE_NEWPID");
	FLAGS("unshare", 0xffffff00,
	      "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_NEWNS|CLONE_SYSVSEM|"
	      "CLONE_NEWCGROUP|CLONE_NEWUTS|CLONE_NEWIPC|CLONE_NEWUSER|CLONE_NEWPID|CLONE_NEWNET|0x81f8f000");
	FLAGS("wait", 0, "0");
	FLAGS("wait", WNOHANG | __WALL, "WNOHANG|__WALL");
	FLAGS("wait", WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE, "WSTOPPED|WCONTINUED|__WCLONE|__WNOTHREAD");
	FLAGS("sa_flags", 0, "0");
	FLAGS("sa_flags", 0xffffff07,
	      "SA_RESTORER|SA_ONSTACK|SA_RESTART|SA_INTERRUPT|SA_NODEFER|SA_RESETHAND|SA_SIGINFO|"
	      "SA_NOCLDSTOP|SA_NOCLDWAIT|0x3ffff00");
	FLAGS("ss_flags", SS_ONSTACK, "SS_ONSTACK");
	FLAGS("getrandom", 0, "0");
	FLAGS("getrandom", 0x16, "GRND_RANDOM|GRND_INSECURE|0x10");
	FLAGS("eventfd", 0x80801, "EFD_SEMAPHORE|EFD_CLOEXEC|EFD_NONBLOCK");
	FLAGS("timerfd", 0x80800, "TFD_CLOEXEC|TFD_NONBLOCK");
	FLAGS("epoll_create", 0x80000, "EPOLL_CLOEXEC");
	FLAGS("epoll_events", EPOLLIN | EPOLLET | EPOLLONESHOT | EPOLLRDHUP | EPOLLEXCLUSIVE,
	      "EPOLLIN|EPOLLRDHUP|EPOLLEXCLUSIVE|EPOLLONESHOT|EPOLLET");
	FLAGS("poll_events", 0xffff,
	      "POLLIN|POLLPRI|POLLOUT|POLLERR|POLLHUP|POLLNVAL|POLLRDNORM|POLLRDBAND|POLLWRNORM|"
	      "POLLWRBAND|POLLMSG|POLLREMOVE|POLLRDHUP|POLL_BUSY_LOOP|0x4800");
	FLAGS("personality", 0xffffffff, "0xffffffff");
	FLAGS("personality", 0x0200008, "PER_LINUX32|ADDR_COMPAT_LAYOUT");
	FLAGS("personality", 0xffff, "PER_MASK|0xff00");
	FLAGS("timer_flags", TIMER_ABSTIME, "TIMER_ABSTIME");
}

static void test_net_flags(void **state)
{
	FLAGS("sock_type", SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, "SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK");
	FLAGS("sock_type", SOCK_DGRAM, "SOCK_DGRAM");
	FLAGS("sock_type", SOCK_SEQPACKET | 0x1000000, "SOCK_SEQPACKET|0x1000000 /* SOCK_??? */");
	FLAGS("sock_type", 0xc, "0xc /* SOCK_??? */");
	FLAGS("sock_type", 0xfffffff0, "SOCK_CLOEXEC|SOCK_NONBLOCK|0xfff7f7f0");
	FLAGS("sock_flags", 0, "0");
	FLAGS("msg", MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE, "MSG_DONTWAIT|MSG_NOSIGNAL|MSG_MORE");
	FLAGS("msg", 0xffffffff,
	      "MSG_OOB|MSG_PEEK|MSG_DONTROUTE|MSG_CTRUNC|MSG_PROBE|MSG_TRUNC|MSG_DONTWAIT|MSG_EOR|"
	      "MSG_WAITALL|MSG_FIN|MSG_SYN|MSG_CONFIRM|MSG_RST|MSG_ERRQUEUE|MSG_NOSIGNAL|MSG_MORE|"
	      "MSG_WAITFORONE|MSG_SENDPAGE_NOTLAST|MSG_BATCH|MSG_NO_SHARED_FRAGS|MSG_ZEROCOPY|"
	      "MSG_FASTOPEN|MSG_CMSG_CLOEXEC|MSG_CMSG_COMPAT|0x1bf00000");
	ENUM("af", AF_UNIX, "AF_UNIX");
	ENUM("af", AF_INET6, "AF_INET6");
	ENUM("af", AF_DECnet, "AF_DECnet");
	ENUM("af", 99, "0x63 /* AF_??? */");
	ENUM("ipproto", IPPROTO_TCP, "IPPROTO_TCP");
	ENUM("shutdown", SHUT_RDWR, "SHUT_RDWR");
	ENUM("sol", SOL_SOCKET, "SOL_SOCKET");
	ENUM("sol", 1000, "0x3e8 /* SOL_?? */");
	ENUM("sockopt_socket", SO_REUSEADDR, "SO_REUSEADDR");
	ENUM("sockopt_socket", 54, "0x36 /* SO_??? */");
	ENUM("sockopt_tcp", 1, "TCP_NODELAY");
	ENUM("sockopt_ipv6", 26, "IPV6_V6ONLY");
}

static void test_enums(void **state)
{
	ENUM("whence", SEEK_DATA, "SEEK_DATA");
	ENUM("whence", 9, "0x9 /* SEEK_??? */");
	ENUM("fcntl", F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC");
	ENUM("fcntl", 1234, "0x4d2 /* F_??? */");
	ENUM("sigprocmask_how", SIG_UNBLOCK, "SIG_UNBLOCK");
	ENUM("sigprocmask_how", 7, "0x7 /* SIG_??? */");
	ENUM("clockid", CLOCK_TAI, "CLOCK_TAI");
	ENUM("clockid", (uint64_t)(int64_t)-6, "0xfffffffa /* CLOCK_??? */");
	ENUM("epoll_ctl", EPOLL_CTL_MOD, "EPOLL_CTL_MOD");
	ENUM("epoll_ctl", 0, "0 /* EPOLL_CTL_??? */");
	ENUM("futex_op", FUTEX_WAKE_PRIVATE, "FUTEX_WAKE_PRIVATE");
	ENUM("futex_op", FUTEX_WAIT, "FUTEX_WAIT");
	ENUM("futex_op", FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME,
	     "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME");
	ENUM("futex_op", FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME");
	ENUM("futex_op", FUTEX_FD | FUTEX_PRIVATE_FLAG, "FUTEX_FD|FUTEX_PRIVATE_FLAG");
	ENUM("futex_op", 99, "0x63 /* FUTEX_??? */");
	ENUM("prctl", 15, "PR_SET_NAME");
	ENUM("prctl", 0x270f, "0x270f /* PR_??? */");
	ENUM("arch_prctl", 0x1002, "ARCH_SET_FS");
	ENUM("arch_prctl", 0x9999, "0x9999 /* ARCH_??? */");
	ENUM("rlimit_resource", RLIMIT_NOFILE, "RLIMIT_NOFILE");
	ENUM("rlimit_resource", 99, "0x63 /* RLIMIT_??? */");
	ENUM("rusage_who", (uint64_t)(int64_t)RUSAGE_CHILDREN, "RUSAGE_CHILDREN");
	ENUM("itimer_which", ITIMER_PROF, "ITIMER_PROF");
	ENUM("prio_which", 3, "0x3 /* PRIO_??? */");
	ENUM("idtype", P_PIDFD, "P_PIDFD");
	ENUM("sched_policy", 0x40000001, "0x40000001 /* SCHED_??? */");
	ENUM("fadvise", 6, "0x6 /* POSIX_FADV_??? */");
	ENUM("ioctl", 0x5401, "TCGETS");
	ENUM("ioctl", 0x5402, "SNDCTL_TMR_START or TCSETS");
	ENUM("ioctl", 0x5413, "TIOCGWINSZ");
	ENUM("ioctl", 0x541b, "FIONREAD");
	ENUM("ioctl", 0x5451, "FIOCLEX");
	ENUM("ioctl", 0xdeadbeef, "_IOC(_IOC_READ|_IOC_WRITE, 0xbe, 0xef, 0x1ead)");
	ENUM("ioctl", 0x5499, "_IOC(_IOC_NONE, 0x54, 0x99, 0)");
	ENUM("ioctl", 0x80045499, "_IOC(_IOC_READ, 0x54, 0x99, 0x4)");
	/* sets resolved against another argument print as numbers on their own */
	ENUM("sockproto", 6, "6");
	/* set lookups */
	assert_true(scry_fmt_set_exists("open", false));
	assert_false(scry_fmt_set_exists("open", true));
	assert_true(scry_fmt_set_exists("whence", true));
	assert_false(scry_fmt_set_exists("whence", false));
	assert_false(scry_fmt_set_exists("nosuchset", false));
	assert_false(scry_fmt_set_exists(NULL, true));
	ob.n = 0;
	assert_false(scry_fmt_flags(&ob, "nosuchset", 1));
	assert_false(scry_fmt_enum(&ob, "nosuchset", 1));
	assert_int_equal(ob.n, 0);
}

/* ---------------------------------------------------------------- errno, return values */

static void test_errno(void **state)
{
	for (int e = 1; e < 134; e++) {
		const char *name = strerrorname_np(e);

		if (!name) {
			assert_null(scry_errno_name(e));
			continue;
		}
		assert_string_equal(scry_errno_name(e), name);
		assert_string_equal(scry_errno_text(e), strerror(e));
	}
	assert_string_equal(scry_errno_name(EAGAIN), "EAGAIN");
	assert_string_equal(scry_errno_name(512), "ERESTARTSYS");
	assert_string_equal(scry_errno_text(512), "To be restarted if SA_RESTART is set");
	assert_string_equal(scry_errno_name(524), "ENOTSUPP");
	assert_null(scry_errno_name(0));
	assert_null(scry_errno_name(-1));
	assert_null(scry_errno_name(520));
	assert_null(scry_errno_name(4000));
	assert_null(scry_errno_text(4000));
}

static void test_ret(void **state)
{
	RET("openat", -ENOENT, "= -1 ENOENT (No such file or directory)");
	RET("read", -EBADF, "= -1 EBADF (Bad file descriptor)");
	RET("futex", -EAGAIN, "= -1 EAGAIN (Resource temporarily unavailable)");
	RET("read", -512, "= ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
	RET("fork", -513, "= ? ERESTARTNOINTR (To be restarted)");
	RET("pause", -514, "= ? ERESTARTNOHAND (To be restarted if no handler)");
	RET("nanosleep", -516, "= ? ERESTART_RESTARTBLOCK (Interrupted by signal)");
	RET("ioctl", -524, "= -1 ENOTSUPP (Unknown error 524)");
	RET("ioctl", -600, "= -1 ERRNO_600 (Unknown error 600)");
	RET("read", 3, "= 3");
	RET("read", 0, "= 0");
	RET("lseek", -4096, "= -4096");
	RET("mmap", 0x7f1234560000, "= 0x7f1234560000");
	RET("mmap", 0, "= 0");
	RET("brk", 0x560d6d685000, "= 0x560d6d685000");
	RET("mmap", -ENOMEM, "= -1 ENOMEM (Cannot allocate memory)");
	RET("umask", 022, "= 022");
	RET("umask", 0, "= 000");
	RET("execve", 0, "= 0");
	RET("exit_group", 0, "= ?");
	RET("exit", 3, "= ?");
	RET(NULL, 7, "= 7");
}

/* ---------------------------------------------------------------- signals */

static void test_signals(void **state)
{
	assert_string_equal(scry_signal_name(SIGHUP), "SIGHUP");
	assert_string_equal(scry_signal_name(SIGKILL), "SIGKILL");
	assert_string_equal(scry_signal_name(SIGCHLD), "SIGCHLD");
	assert_string_equal(scry_signal_name(SIGSYS), "SIGSYS");
	assert_string_equal(scry_signal_name(32), "SIGRTMIN");
	assert_string_equal(scry_signal_name(33), "SIGRT_1");
	assert_string_equal(scry_signal_name(64), "SIGRT_32");
	assert_null(scry_signal_name(0));
	assert_null(scry_signal_name(65));
	assert_null(scry_signal_name(-1));
	for (int s = 1; s < 32; s++) {
		const char *abbrev = sigabbrev_np(s);

		assert_non_null(scry_signal_name(s));
		if (abbrev && s != SIGIO)      /* glibc calls 29 POLL, strace IO */
			assert_string_equal(scry_signal_name(s) + 3, abbrev);
		assert_int_equal(scry_signal_by_name(scry_signal_name(s)), s);
	}
	assert_int_equal(scry_signal_by_name("SIGTERM"), SIGTERM);
	assert_int_equal(scry_signal_by_name("term"), SIGTERM);
	assert_int_equal(scry_signal_by_name("RTMIN"), 32);
	assert_int_equal(scry_signal_by_name("SIGRT_3"), 35);
	assert_int_equal(scry_signal_by_name("RTMIN+3"), 35);
	assert_int_equal(scry_signal_by_name("SIGRTMAX"), 64);
	assert_int_equal(scry_signal_by_name("SIGIOT"), SIGABRT);
	assert_int_equal(scry_signal_by_name("9"), 9);
	assert_int_equal(scry_signal_by_name("SIGNOPE"), -1);
	assert_int_equal(scry_signal_by_name("RTMIN+40"), -1);
	assert_int_equal(scry_signal_by_name("99"), -1);
	assert_int_equal(scry_signal_by_name(""), -1);
	assert_int_equal(scry_signal_by_name(NULL), -1);
}


static void test_sigsets(void **state)
{
	sigset_t s;
	uint64_t v;

	sigemptyset(&s);
	v = ksigset(&s);
	STRUCT("sigset", &v, &opts, "[]");
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGTERM);
	v = ksigset(&s);
	STRUCT("sigset", &v, &opts, "[INT TERM]");
	sigaddset(&s, 40);
	v = ksigset(&s);
	STRUCT("sigset", &v, &opts, "[INT TERM RT_8]");
	sigfillset(&s);             /* the C library leaves out 32 and 33 */
	v = ksigset(&s);
	STRUCT("sigset", &v, &opts, "~[RTMIN RT_1]");
	sigdelset(&s, SIGKILL);
	v = ksigset(&s);
	STRUCT("sigset", &v, &opts, "~[KILL RTMIN RT_1]");
	v = ~0ULL;
	STRUCT("sigset", &v, &opts, "~[]");
	v = (1ULL << 41) - 1;       /* 41 of 64: listed */
	STRUCT("sigset", &v, &opts,
	       "[HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT "
	       "STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS RTMIN RT_1 RT_2 RT_3 RT_4 "
	       "RT_5 RT_6 RT_7 RT_8 RT_9]");
	v = (1ULL << 42) - 1;       /* 42: two thirds, shown as the complement */
	STRUCT("sigset", &v, &opts,
	       "~[RT_11 RT_12 RT_13 RT_14 RT_15 RT_16 RT_17 RT_18 RT_19 RT_20 RT_21 RT_22 RT_23 RT_24 "
	       "RT_25 RT_26 RT_27 RT_28 RT_29 RT_30 RT_31 RT_32]");
	/* as an argument array element and a struct field */
	v = 1ULL << (SIGUSR1 - 1);
	STRUCT("sigset", &v, &opts, "[USR1]");
}

/* The same set and value printed again come from the memo of the last texts: still the
 * style's own text after a style change, and whole after a text the buffer's flush cut. */
static void test_set_memo(void **state)
{
	const uint64_t v = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY;

	for (int round = 0; round < 2; round++) {
		FLAGS("open", v, "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
		scry_fmt_style(0, SCRY_XLAT_RAW);
		FLAGS("open", v, "0x90800");
		scry_fmt_style(0, SCRY_XLAT_VERBOSE);
		FLAGS("open", v, "0x90800 /* O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY */");
		scry_fmt_style(0, SCRY_XLAT_ABBREV);
		ENUM("fcntl", 1030, "F_DUPFD_CLOEXEC");
		ENUM("fcntl", 0x7ff, "0x7ff /* F_??? */");
	}
	/* printed across a flush (the buffer near full): not kept, and right the next time */
	ob.n = OUTBUF_SIZE - OUTBUF_SLACK - 4;
	memset(ob.buf, 'x', ob.n);
	assert_true(scry_fmt_flags(&ob, "mmap", MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK));
	ob.n = 0;
	FLAGS("mmap", MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, "MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_flags),
		cmocka_unit_test(test_memory_flags),
		cmocka_unit_test(test_process_flags),
		cmocka_unit_test(test_net_flags),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_errno),
		cmocka_unit_test(test_ret),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_sigsets),
		cmocka_unit_test(test_set_memo),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
