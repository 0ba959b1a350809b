/* sets_proc.c — process, signal, time and event flag/enum sets: clone, wait, idtype,
 * sigprocmask, sigaction and sigaltstack flags, clocks and timers, eventfd/timerfd/
 * signalfd/epoll/poll, rlimits, scheduling, futex, prctl, arch_prctl, getrandom,
 * personality (names and order as strace 6 prints them). */
#include "format/fmt_internal.h"

static const struct fmt_xval v_clone[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
	{ 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x800000, "CLONE_UNTRACED" }, { 0x1000000, "CLONE_CHILD_SETTID" },
	{ 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" }, { 0x40000000, "CLONE_NEWNET" },
	{ 0x80000000, "CLONE_IO" },
};

/* clone3's flags: clone's and the two that only fit in 64 bits */
static const struct fmt_xval v_clone3[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" }, { 0x2000, "CLONE_PTRACE" },
	{ 0x4000, "CLONE_VFORK" }, { 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" }, { 0x80000, "CLONE_SETTLS" },
	{ 0x100000, "CLONE_PARENT_SETTID" }, { 0x200000, "CLONE_CHILD_CLEARTID" },
	{ 0x800000, "CLONE_UNTRACED" }, { 0x1000000, "CLONE_CHILD_SETTID" },
	{ 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" }, { 0x40000000, "CLONE_NEWNET" },
	{ 0x80000000, "CLONE_IO" }, { 0x100000000, "CLONE_CLEAR_SIGHAND" },
	{ 0x200000000, "CLONE_INTO_CGROUP" },
};

static const struct fmt_xval v_unshare[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x10000, "CLONE_THREAD" }, { 0x20000, "CLONE_NEWNS" },
	{ 0x40000, "CLONE_SYSVSEM" }, { 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" },
	{ 0x8000000, "CLONE_NEWIPC" }, { 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" },
};

static const struct fmt_xval v_setns[] = {
	{ 0x20000, "CLONE_NEWNS" }, { 0x2000000, "CLONE_NEWCGROUP" }, { 0x4000000, "CLONE_NEWUTS" },
	{ 0x8000000, "CLONE_NEWIPC" }, { 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" },
};

static const struct fmt_xval v_wait[] = {
	{ 0x1, "WNOHANG" }, { 0x4, "WEXITED" }, { 0x2, "WSTOPPED" }, { 0x8, "WCONTINUED" },
	{ 0x1000000, "WNOWAIT" }, { 0x80000000, "__WCLONE" }, { 0x40000000, "__WALL" },
	{ 0x20000000, "__WNOTHREAD" },
};

static const struct fmt_xval v_idtype[] = { { 0, "P_ALL" }, { 1, "P_PID" }, { 2, "P_PGID" }, { 3, "P_PIDFD" } };

static const struct fmt_xval v_sigprocmask[] = { { 0, "SIG_BLOCK" }, { 1, "SIG_UNBLOCK" }, { 2, "SIG_SETMASK" } };

static const struct fmt_xval v_sa_flags[] = {
	{ 0x04000000, "SA_RESTORER" }, { 0x08000000, "SA_ONSTACK" }, { 0x10000000, "SA_RESTART" },
	{ 0x20000000, "SA_INTERRUPT" }, { 0x40000000, "SA_NODEFER" }, { 0x80000000, "SA_RESETHAND" },
	{ 0x4, "SA_SIGINFO" }, { 0x1, "SA_NOCLDSTOP" }, { 0x2, "SA_NOCLDWAIT" },
};

static const struct fmt_xval v_ss_flags[] = { { 1, "SS_ONSTACK" }, { 2, "SS_DISABLE" }, { 0x80000000, "SS_AUTODISARM" } };

static const struct fmt_xval v_clock[] = {
	{ 0, "CLOCK_REALTIME" }, { 1, "CLOCK_MONOTONIC" }, { 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" }, { 4, "CLOCK_MONOTONIC_RAW" },
	{ 5, "CLOCK_REALTIME_COARSE" }, { 6, "CLOCK_MONOTONIC_COARSE" }, { 7, "CLOCK_BOOTTIME" },
	{ 8, "CLOCK_REALTIME_ALARM" }, { 9, "CLOCK_BOOTTIME_ALARM" }, { 10, "CLOCK_SGI_CYCLE" },
	{ 11, "CLOCK_TAI" },
};

static const struct fmt_xval v_timer_flags[] = { { 1, "TIMER_ABSTIME" } };

static const struct fmt_xval v_timerfd[] = {
	{ 1, "TFD_TIMER_ABSTIME" }, { 2, "TFD_TIMER_CANCEL_ON_SET" }, { 02000000, "TFD_CLOEXEC" },
	{ 04000, "TFD_NONBLOCK" },
};

static const struct fmt_xval v_eventfd[] = { { 1, "EFD_SEMAPHORE" }, { 02000000, "EFD_CLOEXEC" }, { 04000, "EFD_NONBLOCK" } };

static const struct fmt_xval v_signalfd[] = { { 02000000, "SFD_CLOEXEC" }, { 04000, "SFD_NONBLOCK" } };

static const struct fmt_xval v_epoll_create[] = { { 02000000, "EPOLL_CLOEXEC" } };

static const struct fmt_xval v_epoll_ctl[] = { { 1, "EPOLL_CTL_ADD" }, { 2, "EPOLL_CTL_DEL" }, { 3, "EPOLL_CTL_MOD" } };

static const struct fmt_xval v_epoll_events[] = {
	{ 0x1, "EPOLLIN" }, { 0x2, "EPOLLPRI" }, { 0x4, "EPOLLOUT" }, { 0x8, "EPOLLERR" },
	{ 0x10, "EPOLLHUP" }, { 0x20, "EPOLLNVAL" }, { 0x40, "EPOLLRDNORM" }, { 0x80, "EPOLLRDBAND" },
	{ 0x100, "EPOLLWRNORM" }, { 0x200, "EPOLLWRBAND" }, { 0x400, "EPOLLMSG" },
	{ 0x2000, "EPOLLRDHUP" }, { 0x10000000, "EPOLLEXCLUSIVE" }, { 0x20000000, "EPOLLWAKEUP" },
	{ 0x40000000, "EPOLLONESHOT" }, { 0x80000000, "EPOLLET" },
};

static const struct fmt_xval v_poll_events[] = {
	{ 0x1, "POLLIN" }, { 0x2, "POLLPRI" }, { 0x4, "POLLOUT" }, { 0x8, "POLLERR" },
	{ 0x10, "POLLHUP" }, { 0x20, "POLLNVAL" }, { 0x40, "POLLRDNORM" }, { 0x80, "POLLRDBAND" },
	{ 0x100, "POLLWRNORM" }, { 0x200, "POLLWRBAND" }, { 0x400, "POLLMSG" },
	{ 0x1000, "POLLREMOVE" }, { 0x2000, "POLLRDHUP" }, { 0x8000, "POLL_BUSY_LOOP" },
};

static const struct fmt_xval v_rlimit[] = {
	{ 0, "RLIMIT_CPU" }, { 1, "RLIMIT_FSIZE" }, { 2, "RLIMIT_DATA" }, { 3, "RLIMIT_STACK" },
	{ 4, "RLIMIT_CORE" }, { 5, "RLIMIT_RSS" }, { 6, "RLIMIT_NPROC" }, { 7, "RLIMIT_NOFILE" },
	{ 8, "RLIMIT_MEMLOCK" }, { 9, "RLIMIT_AS" }, { 10, "RLIMIT_LOCKS" },
	{ 11, "RLIMIT_SIGPENDING" }, { 12, "RLIMIT_MSGQUEUE" }, { 13, "RLIMIT_NICE" },
	{ 14, "RLIMIT_RTPRIO" }, { 15, "RLIMIT_RTTIME" },
};

static const struct fmt_xval v_rusage_who[] = {
	{ 0, "RUSAGE_SELF" }, { 0xffffffff, "RUSAGE_CHILDREN" }, { 1, "RUSAGE_THREAD" },
};

static const struct fmt_xval v_prio_which[] = { { 0, "PRIO_PROCESS" }, { 1, "PRIO_PGRP" }, { 2, "PRIO_USER" } };

static const struct fmt_xval v_itimer_which[] = { { 0, "ITIMER_REAL" }, { 1, "ITIMER_VIRTUAL" }, { 2, "ITIMER_PROF" } };

static const struct fmt_xval v_sched_policy[] = {
	{ 0, "SCHED_OTHER" }, { 1, "SCHED_FIFO" }, { 2, "SCHED_RR" }, { 3, "SCHED_BATCH" },
	{ 4, "SCHED_ISO" }, { 5, "SCHED_IDLE" }, { 6, "SCHED_DEADLINE" },
};

static const struct fmt_xval v_prctl[] = {
	{ 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" }, { 3, "PR_GET_DUMPABLE" },
	{ 4, "PR_SET_DUMPABLE" }, { 5, "PR_GET_UNALIGN" }, { 6, "PR_SET_UNALIGN" },
	{ 7, "PR_GET_KEEPCAPS" }, { 8, "PR_SET_KEEPCAPS" }, { 9, "PR_GET_FPEMU" },
	{ 10, "PR_SET_FPEMU" }, { 11, "PR_GET_FPEXC" }, { 12, "PR_SET_FPEXC" },
	{ 13, "PR_GET_TIMING" }, { 14, "PR_SET_TIMING" }, { 15, "PR_SET_NAME" },
	{ 16, "PR_GET_NAME" }, { 19, "PR_GET_ENDIAN" }, { 20, "PR_SET_ENDIAN" },
	{ 21, "PR_GET_SECCOMP" }, { 22, "PR_SET_SECCOMP" }, { 23, "PR_CAPBSET_READ" },
	{ 24, "PR_CAPBSET_DROP" }, { 25, "PR_GET_TSC" }, { 26, "PR_SET_TSC" },
	{ 27, "PR_GET_SECUREBITS" }, { 28, "PR_SET_SECUREBITS" }, { 29, "PR_SET_TIMERSLACK" },
	{ 30, "PR_GET_TIMERSLACK" }, { 31, "PR_TASK_PERF_EVENTS_DISABLE" },
	{ 32, "PR_TASK_PERF_EVENTS_ENABLE" }, { 33, "PR_MCE_KILL" }, { 34, "PR_MCE_KILL_GET" },
	{ 35, "PR_SET_MM" }, { 36, "PR_SET_CHILD_SUBREAPER" }, { 37, "PR_GET_CHILD_SUBREAPER" },
	{ 38, "PR_SET_NO_NEW_PRIVS" }, { 39, "PR_GET_NO_NEW_PRIVS" }, { 40, "PR_GET_TID_ADDRESS" },
	{ 41, "PR_SET_THP_DISABLE" }, { 42, "PR_GET_THP_DISABLE" },
	{ 43, "PR_MPX_ENABLE_MANAGEMENT" }, { 44, "PR_MPX_DISABLE_MANAGEMENT" },
	{ 45, "PR_SET_FP_MODE" }, { 46, "PR_GET_FP_MODE" }, { 47, "PR_CAP_AMBIENT" },
	{ 50, "PR_SVE_SET_VL" }, { 51, "PR_SVE_GET_VL" }, { 52, "PR_GET_SPECULATION_CTRL" },
	{ 53, "PR_SET_SPECULATION_CTRL" }, { 54, "PR_PAC_RESET_KEYS" },
	{ 55, "PR_SET_TAGGED_ADDR_CTRL" }, { 56, "PR_GET_TAGGED_ADDR_CTRL" },
	{ 57, "PR_SET_IO_FLUSHER" }, { 58, "PR_GET_IO_FLUSHER" },
	{ 59, "PR_SET_SYSCALL_USER_DISPATCH" }, { 60, "PR_PAC_SET_ENABLED_KEYS" },
	{ 61, "PR_PAC_GET_ENABLED_KEYS" }, { 62, "PR_SCHED_CORE" }, { 63, "PR_SME_SET_VL" },
	{ 64, "PR_SME_GET_VL" },
};

static const struct fmt_xval v_arch_prctl[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" }, { 0x1003, "ARCH_GET_FS" },
	{ 0x1004, "ARCH_GET_GS" }, { 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" },
	{ 0x2001, "ARCH_MAP_VDSO_X32" }, { 0x2002, "ARCH_MAP_VDSO_32" }, { 0x2003, "ARCH_MAP_VDSO_64" },
};

static const struct fmt_xval v_getrandom[] = { { 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" } };

static const struct fmt_xval v_per_type[] = {
	{ 0x00, "PER_LINUX" }, { 0x01, "PER_SVR4" }, { 0x02, "PER_SVR3" }, { 0x03, "PER_OSR5" },
	{ 0x04, "PER_WYSEV386" }, { 0x05, "PER_ISCR4" }, { 0x06, "PER_BSD" }, { 0x07, "PER_XENIX" },
	{ 0x08, "PER_LINUX32" }, { 0x09, "PER_IRIX32" }, { 0x0a, "PER_IRIXN32" },
	{ 0x0b, "PER_IRIX64" }, { 0x0c, "PER_RISCOS" }, { 0x0d, "PER_SOLARIS" }, { 0x0e, "PER_UW7" },
	{ 0x0f, "PER_OSF4" }, { 0x10, "PER_HPUX" }, { 0xff, "PER_MASK" },
};

static const struct fmt_xval v_per_flags[] = {
	{ 0x0020000, "UNAME26" }, { 0x0040000, "ADDR_NO_RANDOMIZE" }, { 0x0080000, "FDPIC_FUNCPTRS" },
	{ 0x0100000, "MMAP_PAGE_ZERO" }, { 0x0200000, "ADDR_COMPAT_LAYOUT" },
	{ 0x0400000, "READ_IMPLIES_EXEC" }, { 0x0800000, "ADDR_LIMIT_32BIT" },
	{ 0x1000000, "SHORT_INODE" }, { 0x2000000, "WHOLE_SECONDS" }, { 0x4000000, "STICKY_TIMEOUTS" },
	{ 0x8000000, "ADDR_LIMIT_3GB" },
};

static const struct fmt_xval v_ioprio_who[] = {
	{ 1, "IOPRIO_WHO_PROCESS" }, { 2, "IOPRIO_WHO_PGRP" }, { 3, "IOPRIO_WHO_USER" },
};

static const struct fmt_xval v_seccomp[] = {
	{ 0, "SECCOMP_SET_MODE_STRICT" }, { 1, "SECCOMP_SET_MODE_FILTER" },
	{ 2, "SECCOMP_GET_ACTION_AVAIL" }, { 3, "SECCOMP_GET_NOTIF_SIZES" },
};

static const struct fmt_xval v_ptrace[] = {
	{ 0, "PTRACE_TRACEME" }, { 1, "PTRACE_PEEKTEXT" }, { 2, "PTRACE_PEEKDATA" },
	{ 3, "PTRACE_PEEKUSER" }, { 4, "PTRACE_POKETEXT" }, { 5, "PTRACE_POKEDATA" },
	{ 6, "PTRACE_POKEUSER" }, { 7, "PTRACE_CONT" }, { 8, "PTRACE_KILL" },
	{ 9, "PTRACE_SINGLESTEP" }, { 12, "PTRACE_GETREGS" }, { 13, "PTRACE_SETREGS" },
	{ 14, "PTRACE_GETFPREGS" }, { 15, "PTRACE_SETFPREGS" }, { 16, "PTRACE_ATTACH" },
	{ 17, "PTRACE_DETACH" }, { 24, "PTRACE_SYSCALL" }, { 0x4200, "PTRACE_SETOPTIONS" },
	{ 0x4201, "PTRACE_GETEVENTMSG" }, { 0x4202, "PTRACE_GETSIGINFO" },
	{ 0x4203, "PTRACE_SETSIGINFO" }, { 0x4204, "PTRACE_GETREGSET" },
	{ 0x4205, "PTRACE_SETREGSET" }, { 0x4206, "PTRACE_SEIZE" }, { 0x4207, "PTRACE_INTERRUPT" },
	{ 0x4208, "PTRACE_LISTEN" }, { 0x4209, "PTRACE_PEEKSIGINFO" },
};

static const struct fmt_xval v_pidfd_open[] = { { 04000, "PIDFD_NONBLOCK" } };

static const struct fmt_xval v_syslog[] = {
	{ 0, "SYSLOG_ACTION_CLOSE" }, { 1, "SYSLOG_ACTION_OPEN" }, { 2, "SYSLOG_ACTION_READ" },
	{ 3, "SYSLOG_ACTION_READ_ALL" }, { 4, "SYSLOG_ACTION_READ_CLEAR" },
	{ 5, "SYSLOG_ACTION_CLEAR" }, { 6, "SYSLOG_ACTION_CONSOLE_OFF" },
	{ 7, "SYSLOG_ACTION_CONSOLE_ON" }, { 8, "SYSLOG_ACTION_CONSOLE_LEVEL" },
	{ 9, "SYSLOG_ACTION_SIZE_UNREAD" }, { 10, "SYSLOG_ACTION_SIZE_BUFFER" },
};

#define ENUM(n, t, u) { .name = n, .is_enum = true, .vals = XV(t), .unknown = u }
#define FLAGS(n, t, u) { .name = n, .vals = XV(t), .unknown = u }

const struct fmt_set fmt_sets_proc[] = {
	{ .name = "clone", .width = 64, .vals = XV(v_clone), .unknown = "CLONE_???", .special = SP_CLONE },
	{ .name = "clone3", .width = 64, .vals = XV(v_clone3), .unknown = "CLONE_???" },
	{ .name = "unshare", .width = 64, .vals = XV(v_unshare), .unknown = "CLONE_???" },
	FLAGS("setns", v_setns, "CLONE_???"),
	FLAGS("wait", v_wait, "W???"),
	ENUM("idtype", v_idtype, "P_???"),
	ENUM("sigprocmask_how", v_sigprocmask, "SIG_???"),
	{ .name = "sa_flags", .width = 64, .vals = XV(v_sa_flags), .unknown = "SA_???" },
	FLAGS("ss_flags", v_ss_flags, "SS_???"),
	ENUM("clockid", v_clock, "CLOCK_???"),
	FLAGS("timer_flags", v_timer_flags, "TIMER_???"),
	FLAGS("timerfd", v_timerfd, "TFD_???"),
	FLAGS("eventfd", v_eventfd, "EFD_???"),
	FLAGS("signalfd", v_signalfd, "SFD_???"),
	FLAGS("epoll_create", v_epoll_create, "EPOLL_???"),
	ENUM("epoll_ctl", v_epoll_ctl, "EPOLL_CTL_???"),
	FLAGS("epoll_events", v_epoll_events, "EPOLL???"),
	{ .name = "poll_events", .width = 16, .vals = XV(v_poll_events), .unknown = "POLL???" },
	ENUM("rlimit_resource", v_rlimit, "RLIMIT_???"),
	ENUM("rusage_who", v_rusage_who, "RUSAGE_???"),
	ENUM("prio_which", v_prio_which, "PRIO_???"),
	ENUM("itimer_which", v_itimer_which, "ITIMER_???"),
	ENUM("sched_policy", v_sched_policy, "SCHED_???"),
	{ .name = "futex_op", .is_enum = true, .unknown = "FUTEX_???", .special = SP_FUTEX },
	ENUM("prctl", v_prctl, "PR_???"),
	ENUM("arch_prctl", v_arch_prctl, "ARCH_???"),
	FLAGS("getrandom", v_getrandom, "GRND_???"),
	{ .name = "personality", .vals = XV(v_per_flags), .unknown = "PER_???", .field = FLD_ENUM,
	  .field_mask = 0xff, .fvals = XV(v_per_type), .special = SP_PERSONALITY },
	ENUM("ioprio_who", v_ioprio_who, "IOPRIO_WHO_???"),
	ENUM("seccomp_op", v_seccomp, "SECCOMP_SET_MODE_???"),
	{ .name = "ptrace", .is_enum = true, .width = 64, .vals = XV(v_ptrace), .unknown = "PTRACE_???" },
	FLAGS("pidfd_open", v_pidfd_open, "PIDFD_???"),
	ENUM("syslog", v_syslog, "SYSLOG_ACTION_???"),
};
const size_t fmt_sets_proc_len = sizeof(fmt_sets_proc) / sizeof(fmt_sets_proc[0]);
