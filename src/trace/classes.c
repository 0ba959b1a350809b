/* classes.c — strace's syscall classes on x86_64 (its syscallent tables' TD, TF, TN, ...
 * flags), keyed by the kernel's syscall names: strace's "stat", "fstat", "lstat", "uname",
 * "sendfile" and "umount2" are the kernel's newstat, newfstat, newlstat, newuname,
 * sendfile64 and umount.  Syscalls newer than the strace tables we read (listxattrat,
 * removexattrat, open_tree_attr, file_getattr, file_setattr) are classed like their
 * siblings (setxattrat: %desc and %file).  Syscalls in no class are not listed. */
#include <stdbool.h>
#include <string.h>
#include "trace/classes.h"

#define TD TRACE_DESC
#define TF TRACE_FILE
#define TI TRACE_IPC
#define TN TRACE_NETWORK
#define TP TRACE_PROCESS
#define TS TRACE_SIGNAL
#define TM TRACE_MEMORY
#define TST TRACE_STAT
#define TLST TRACE_LSTAT
#define TFST TRACE_FSTAT
#define TSTA TRACE_STAT_LIKE
#define TSF TRACE_STATFS
#define TFSF TRACE_FSTATFS
#define TSFA TRACE_STATFS_LIKE
#define PU TRACE_PURE
#define TC TRACE_CREDS
#define TCL TRACE_CLOCK
#define NF TRACE_NEVER_FAILS
#define RF TRACE_RET_FD

struct class_row {
	const char *name;
	unsigned mask;
};

static const struct class_row rows[] = {
	{ "read", TD }, { "write", TD }, { "open", TD | TF | RF }, { "close", TD },
	{ "newstat", TF | TST | TSTA }, { "newfstat", TD | TFST | TSTA },
	{ "newlstat", TF | TLST | TSTA }, { "poll", TD }, { "lseek", TD },
	{ "mmap", TD | TM }, { "mprotect", TM }, { "munmap", TM }, { "brk", TM },
	{ "rt_sigaction", TS }, { "rt_sigprocmask", TS }, { "rt_sigreturn", TS },
	{ "ioctl", TD }, { "pread64", TD }, { "pwrite64", TD }, { "readv", TD }, { "writev", TD },
	{ "access", TF }, { "pipe", TD }, { "select", TD }, { "mremap", TM }, { "msync", TM },
	{ "mincore", TM }, { "madvise", TM }, { "shmget", TI }, { "shmat", TI | TM },
	{ "shmctl", TI }, { "dup", TD | RF }, { "dup2", TD | RF }, { "pause", TS },
	{ "getpid", PU | NF }, { "sendfile64", TD | TN }, { "socket", TN | RF },
	{ "connect", TN }, { "accept", TN | RF }, { "sendto", TN }, { "recvfrom", TN },
	{ "sendmsg", TN }, { "recvmsg", TN }, { "shutdown", TN }, { "bind", TN },
	{ "listen", TN }, { "getsockname", TN }, { "getpeername", TN }, { "socketpair", TN },
	{ "setsockopt", TN }, { "getsockopt", TN }, { "clone", TP }, { "fork", TP },
	{ "vfork", TP }, { "execve", TF | TP }, { "exit", TP }, { "wait4", TP },
	{ "kill", TS | TP }, { "semget", TI }, { "semop", TI }, { "semctl", TI },
	{ "shmdt", TI | TM }, { "msgget", TI }, { "msgsnd", TI }, { "msgrcv", TI },
	{ "msgctl", TI }, { "fcntl", TD }, { "flock", TD }, { "fsync", TD }, { "fdatasync", TD },
	{ "truncate", TF }, { "ftruncate", TD }, { "getdents", TD }, { "getcwd", TF },
	{ "chdir", TF }, { "fchdir", TD }, { "rename", TF }, { "mkdir", TF }, { "rmdir", TF },
	{ "creat", TD | TF | RF }, { "link", TF }, { "unlink", TF }, { "symlink", TF },
	{ "readlink", TF }, { "chmod", TF }, { "fchmod", TD }, { "chown", TF }, { "fchown", TD },
	{ "lchown", TF }, { "umask", NF }, { "gettimeofday", TCL },
	{ "getuid", TC | PU | NF }, { "getgid", TC | PU | NF }, { "setuid", TC }, { "setgid", TC },
	{ "geteuid", TC | PU | NF }, { "getegid", TC | PU | NF }, { "getppid", PU | NF },
	{ "getpgrp", PU | NF }, { "setreuid", TC }, { "setregid", TC }, { "getgroups", TC },
	{ "setgroups", TC }, { "setresuid", TC }, { "getresuid", TC }, { "setresgid", TC },
	{ "getresgid", TC }, { "setfsuid", TC | NF }, { "setfsgid", TC | NF }, { "capget", TC },
	{ "capset", TC }, { "rt_sigpending", TS }, { "rt_sigtimedwait", TS },
	{ "rt_sigqueueinfo", TS | TP }, { "rt_sigsuspend", TS }, { "sigaltstack", TS },
	{ "utime", TF }, { "mknod", TF }, { "uselib", TF }, { "personality", NF },
	{ "ustat", TSFA }, { "statfs", TF | TSF | TSFA }, { "fstatfs", TD | TFSF | TSFA },
	{ "mlock", TM }, { "munlock", TM }, { "mlockall", TM }, { "munlockall", TM },
	{ "pivot_root", TF }, { "prctl", TC }, { "adjtimex", TCL }, { "chroot", TF },
	{ "acct", TF }, { "settimeofday", TCL }, { "mount", TF }, { "umount", TF },
	{ "swapon", TF }, { "swapoff", TF }, { "quotactl", TF }, { "getpmsg", TN },
	{ "putpmsg", TN }, { "gettid", PU | NF }, { "readahead", TD }, { "setxattr", TF },
	{ "lsetxattr", TF }, { "fsetxattr", TD }, { "getxattr", TF }, { "lgetxattr", TF },
	{ "fgetxattr", TD }, { "listxattr", TF }, { "llistxattr", TF }, { "flistxattr", TD },
	{ "removexattr", TF }, { "lremovexattr", TF }, { "fremovexattr", TD },
	{ "tkill", TS | TP }, { "time", TCL }, { "io_setup", TM }, { "io_destroy", TM },
	{ "epoll_create", TD | RF }, { "remap_file_pages", TM }, { "getdents64", TD },
	{ "semtimedop", TI }, { "fadvise64", TD }, { "clock_settime", TCL },
	{ "clock_gettime", TCL }, { "clock_getres", TCL }, { "exit_group", TP },
	{ "epoll_wait", TD }, { "epoll_ctl", TD }, { "tgkill", TS | TP }, { "utimes", TF },
	{ "mbind", TM }, { "set_mempolicy", TM }, { "get_mempolicy", TM },
	{ "mq_open", TD | RF }, { "mq_timedsend", TD }, { "mq_timedreceive", TD },
	{ "mq_notify", TD }, { "mq_getsetattr", TD }, { "waitid", TP },
	{ "inotify_init", TD | RF }, { "inotify_add_watch", TD | TF }, { "inotify_rm_watch", TD },
	{ "migrate_pages", TM }, { "openat", TD | TF | RF }, { "mkdirat", TD | TF },
	{ "mknodat", TD | TF }, { "fchownat", TD | TF }, { "futimesat", TD | TF },
	{ "newfstatat", TD | TF | TFST | TSTA }, { "unlinkat", TD | TF }, { "renameat", TD | TF },
	{ "linkat", TD | TF }, { "symlinkat", TD | TF }, { "readlinkat", TD | TF },
	{ "fchmodat", TD | TF }, { "faccessat", TD | TF }, { "pselect6", TD }, { "ppoll", TD },
	{ "splice", TD }, { "tee", TD }, { "sync_file_range", TD }, { "vmsplice", TD },
	{ "move_pages", TM }, { "utimensat", TD | TF }, { "epoll_pwait", TD },
	{ "signalfd", TD | TS | RF }, { "timerfd_create", TD | RF }, { "eventfd", TD | RF },
	{ "fallocate", TD }, { "timerfd_settime", TD }, { "timerfd_gettime", TD },
	{ "accept4", TN | RF }, { "signalfd4", TD | TS | RF }, { "eventfd2", TD | RF },
	{ "epoll_create1", TD | RF }, { "dup3", TD | RF }, { "pipe2", TD },
	{ "inotify_init1", TD | RF }, { "preadv", TD }, { "pwritev", TD },
	{ "rt_tgsigqueueinfo", TP | TS }, { "perf_event_open", TD | RF }, { "recvmmsg", TN },
	{ "fanotify_init", TD | RF }, { "fanotify_mark", TD | TF },
	{ "name_to_handle_at", TD | TF }, { "open_by_handle_at", TD | RF },
	{ "clock_adjtime", TCL }, { "syncfs", TD }, { "sendmmsg", TN }, { "setns", TD },
	{ "finit_module", TD }, { "renameat2", TD | TF }, { "memfd_create", TD | RF },
	{ "kexec_file_load", TD }, { "bpf", TD }, { "execveat", TD | TF | TP },
	{ "userfaultfd", TD | RF }, { "mlock2", TM }, { "copy_file_range", TD },
	{ "preadv2", TD }, { "pwritev2", TD }, { "pkey_mprotect", TM },
	{ "statx", TD | TF | TFST | TSTA }, { "pidfd_send_signal", TD | TS | TP },
	{ "io_uring_setup", TD | RF }, { "io_uring_enter", TD | TS }, { "io_uring_register", TD | TM },
	{ "open_tree", TD | TF | RF }, { "move_mount", TD | TF }, { "fsopen", TD | RF },
	{ "fsconfig", TD | TF }, { "fsmount", TD | RF }, { "fspick", TD | TF | RF },
	{ "pidfd_open", TD | RF }, { "clone3", TP }, { "openat2", TD | TF | RF },
	{ "pidfd_getfd", TD | RF }, { "faccessat2", TD | TF }, { "process_madvise", TD },
	{ "epoll_pwait2", TD }, { "mount_setattr", TD | TF }, { "quotactl_fd", TD },
	{ "landlock_create_ruleset", TD | RF }, { "landlock_add_rule", TD },
	{ "landlock_restrict_self", TD }, { "memfd_secret", TD | RF }, { "process_mrelease", TD },
	{ "set_mempolicy_home_node", TM }, { "cachestat", TD }, { "fchmodat2", TD | TF },
	{ "map_shadow_stack", TM }, { "mseal", TM }, { "setxattrat", TD | TF },
	{ "getxattrat", TD | TF }, { "listxattrat", TD | TF }, { "removexattrat", TD | TF },
	{ "open_tree_attr", TD | TF | RF }, { "file_getattr", TD | TF }, { "file_setattr", TD | TF },
};

static const struct {
	const char *name;
	unsigned mask;
	bool bare;      /* strace also accepts it without '%' (deprecated spelling) */
} class_names[] = {
	{ "%file", TF, true }, { "%process", TP, true }, { "%network", TN, true },
	{ "%net", TN, false }, { "%signal", TS, true }, { "%ipc", TI, true }, { "%desc", TD, true },
	{ "%memory", TM, true }, { "%creds", TC, false }, { "%clock", TCL, false },
	{ "%pure", PU, false }, { "%stat", TST, false }, { "%lstat", TLST, false },
	{ "%fstat", TFST, false }, { "%%stat", TSTA, false }, { "%statfs", TSF, false },
	{ "%fstatfs", TFSF, false }, { "%%statfs", TSFA, false },
};

unsigned trace_syscall_classes(const char *kname)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!strcmp(rows[i].name, kname))
			return rows[i].mask;
	return 0;
}

unsigned trace_class_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++) {
		if (!strcmp(class_names[i].name, name))
			return class_names[i].mask;
		if (class_names[i].bare && !strcmp(class_names[i].name + 1, name))
			return class_names[i].mask;
	}
	return 0;
}

const char *trace_class_next(unsigned mask, size_t *it)
{
	while (*it < sizeof(rows) / sizeof(rows[0])) {
		const struct class_row *r = &rows[(*it)++];

		if (r->mask & mask)
			return r->name;
	}
	return NULL;
}

const char *trace_class_list(void)
{
	return "%file %process %network %net %signal %ipc %desc %memory %creds %clock %pure "
	       "%stat %lstat %fstat %%stat %statfs %fstatfs %%statfs";
}
