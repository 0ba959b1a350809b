/* sets_misc.c — ioctl requests (a useful set; unknown ones print as _IOC(...)), fcntl
 * commands, prctl arguments, and System V IPC flags and commands (names as strace 6 prints
 * them). */
#include "format/fmt_internal.h"

static const struct fmt_xval v_ioctl[] = {
	{ 0x5401, "TCGETS" }, { 0x5402, "SNDCTL_TMR_START or TCSETS" },
	{ 0x5403, "SNDCTL_TMR_STOP or TCSETSW" }, { 0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF" },
	{ 0x5405, "TCGETA" }, { 0x5406, "TCSETA" }, { 0x5407, "TCSETAW" }, { 0x5408, "TCSETAF" },
	{ 0x5409, "TCSBRK" }, { 0x540a, "TCXONC" }, { 0x540b, "TCFLSH" }, { 0x540c, "TIOCEXCL" },
	{ 0x540d, "TIOCNXCL" }, { 0x540e, "TIOCSCTTY" }, { 0x540f, "TIOCGPGRP" },
	{ 0x5410, "TIOCSPGRP" }, { 0x5411, "TIOCOUTQ" }, { 0x5412, "TIOCSTI" },
	{ 0x5413, "TIOCGWINSZ" }, { 0x5414, "TIOCSWINSZ" }, { 0x5415, "TIOCMGET" },
	{ 0x5416, "TIOCMBIS" }, { 0x5417, "TIOCMBIC" }, { 0x5418, "TIOCMSET" },
	{ 0x5419, "TIOCGSOFTCAR" }, { 0x541a, "TIOCSSOFTCAR" }, { 0x541b, "FIONREAD" },
	{ 0x541c, "TIOCLINUX" }, { 0x541d, "TIOCCONS" }, { 0x541e, "TIOCGSERIAL" },
	{ 0x541f, "TIOCSSERIAL" }, { 0x5420, "TIOCPKT" }, { 0x5421, "FIONBIO" },
	{ 0x5422, "TIOCNOTTY" }, { 0x5423, "TIOCSETD" }, { 0x5424, "TIOCGETD" },
	{ 0x5425, "TCSBRKP" }, { 0x5427, "TIOCSBRK" }, { 0x5428, "TIOCCBRK" }, { 0x5429, "TIOCGSID" },
	{ 0x802c542a, "TCGETS2" }, { 0x402c542b, "TCSETS2" }, { 0x402c542c, "TCSETSW2" },
	{ 0x402c542d, "TCSETSF2" }, { 0x80045430, "TIOCGPTN" }, { 0x40045431, "TIOCSPTLCK" },
	{ 0x80045432, "TIOCGDEV" }, { 0x40045436, "TIOCSIG" }, { 0x5437, "TIOCVHANGUP" },
	{ 0x80045438, "TIOCGPKT" }, { 0x80045439, "TIOCGPTLCK" }, { 0x80045440, "TIOCGEXCL" },
	{ 0x5441, "TIOCGPTPEER" }, { 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" },
	{ 0x5452, "FIOASYNC" }, { 0x5453, "TIOCSERCONFIG" }, { 0x5456, "TIOCGLCKTRMIOS" },
	{ 0x5457, "TIOCSLCKTRMIOS" }, { 0x545c, "TIOCMIWAIT" }, { 0x545d, "TIOCGICOUNT" },
	{ 0x5460, "FIOQSIZE" }, { 0x8901, "FIOSETOWN" }, { 0x8902, "SIOCSPGRP" },
	{ 0x8903, "FIOGETOWN" }, { 0x8904, "SIOCGPGRP" }, { 0x8905, "SIOCATMARK" },
	{ 0x8910, "SIOCGIFNAME" }, { 0x8912, "SIOCGIFCONF" }, { 0x8913, "SIOCGIFFLAGS" },
	{ 0x8914, "SIOCSIFFLAGS" }, { 0x8915, "SIOCGIFADDR" }, { 0x8921, "SIOCGIFMTU" },
	{ 0x8927, "SIOCGIFHWADDR" }, { 0x8933, "SIOCGIFINDEX" }, { 0x125d, "BLKROSET" },
	{ 0x125e, "BLKROGET" }, { 0x1260, "BLKGETSIZE" }, { 0x1261, "BLKFLSBUF" },
	{ 0x1268, "BLKSSZGET" }, { 0x80081272, "BLKGETSIZE64" }, { 0xc0185879, "FITRIM" },
	{ 0x80086601, "FS_IOC_GETFLAGS" }, { 0x40086602, "FS_IOC_SETFLAGS" },
	{ 0x40049409, "FICLONE" }, { 0x4b3a, "KDSETMODE" }, { 0x4b44, "KDGKBMODE" },
	{ 0x4b45, "KDSKBMODE" }, { 0x5600, "VT_OPENQRY" }, { 0x5603, "VT_GETSTATE" },
	{ 0x5606, "VT_ACTIVATE" }, { 0x5607, "VT_WAITACTIVE" }, { 0x2400, "PERF_EVENT_IOC_ENABLE" },
	{ 0x2401, "PERF_EVENT_IOC_DISABLE" }, { 0x2403, "PERF_EVENT_IOC_RESET" },
	{ 0x400454ca, "TUNSETIFF" }, { 0x80045200, "RNDGETENTCNT" },
};

static const struct fmt_xval v_fcntl[] = {
	{ 0, "F_DUPFD" }, { 1, "F_GETFD" }, { 2, "F_SETFD" }, { 3, "F_GETFL" }, { 4, "F_SETFL" },
	{ 5, "F_GETLK" }, { 6, "F_SETLK" }, { 7, "F_SETLKW" }, { 8, "F_SETOWN" }, { 9, "F_GETOWN" },
	{ 10, "F_SETSIG" }, { 11, "F_GETSIG" }, { 12, "F_GETLK64" }, { 13, "F_SETLK64" },
	{ 14, "F_SETLKW64" }, { 15, "F_SETOWN_EX" }, { 16, "F_GETOWN_EX" }, { 17, "F_GETOWNER_UIDS" },
	{ 36, "F_OFD_GETLK" }, { 37, "F_OFD_SETLK" }, { 38, "F_OFD_SETLKW" }, { 1024, "F_SETLEASE" },
	{ 1025, "F_GETLEASE" }, { 1026, "F_NOTIFY" }, { 1029, "F_CANCELLK" },
	{ 1030, "F_DUPFD_CLOEXEC" }, { 1031, "F_SETPIPE_SZ" }, { 1032, "F_GETPIPE_SZ" },
	{ 1033, "F_ADD_SEALS" }, { 1034, "F_GET_SEALS" },
};

static const struct fmt_xval v_ipc_get[] = {
	{ 01000, "IPC_CREAT" }, { 02000, "IPC_EXCL" }, { 04000, "SHM_HUGETLB" }, { 010000, "SHM_NORESERVE" },
};

static const struct fmt_xval v_ipc_key[] = { { 0, "IPC_PRIVATE" } };

static const struct fmt_xval v_shmctl[] = {
	{ 0, "IPC_RMID" }, { 1, "IPC_SET" }, { 2, "IPC_STAT" }, { 3, "IPC_INFO" }, { 11, "SHM_LOCK" },
	{ 12, "SHM_UNLOCK" }, { 13, "SHM_STAT" }, { 14, "SHM_INFO" }, { 15, "SHM_STAT_ANY" },
};

static const struct fmt_xval v_semctl[] = {
	{ 0, "IPC_RMID" }, { 1, "IPC_SET" }, { 2, "IPC_STAT" }, { 3, "IPC_INFO" }, { 11, "GETPID" },
	{ 12, "GETVAL" }, { 13, "GETALL" }, { 14, "GETNCNT" }, { 15, "GETZCNT" }, { 16, "SETVAL" },
	{ 17, "SETALL" }, { 18, "SEM_STAT" }, { 19, "SEM_INFO" }, { 20, "SEM_STAT_ANY" },
};

static const struct fmt_xval v_msgctl[] = {
	{ 0, "IPC_RMID" }, { 1, "IPC_SET" }, { 2, "IPC_STAT" }, { 3, "IPC_INFO" }, { 11, "MSG_STAT" },
	{ 12, "MSG_INFO" }, { 13, "MSG_STAT_ANY" },
};

static const struct fmt_xval v_ipc_msg[] = {
	{ 04000, "IPC_NOWAIT" }, { 010000, "MSG_NOERROR" }, { 020000, "MSG_EXCEPT" }, { 040000, "MSG_COPY" },
};

static const struct fmt_xval v_suid_dump[] = {
	{ 0, "SUID_DUMP_DISABLE" }, { 1, "SUID_DUMP_USER" }, { 2, "SUID_DUMP_ROOT" },
};

static const struct fmt_xval v_seccomp_mode[] = {
	{ 0, "SECCOMP_MODE_DISABLED" }, { 1, "SECCOMP_MODE_STRICT" }, { 2, "SECCOMP_MODE_FILTER" },
};

#define ENUM(n, t, u) { .name = n, .is_enum = true, .vals = XV(t), .unknown = u }
#define FLAGS(n, t, u) { .name = n, .vals = XV(t), .unknown = u }

const struct fmt_set fmt_sets_misc[] = {
	{ .name = "ioctl", .is_enum = true, .vals = XV(v_ioctl), .special = SP_IOCTL },
	ENUM("fcntl", v_fcntl, "F_???"),
	/* fcntl's third argument: resolved against the command by scry_fmt_arg (arg.c) */
	{ .name = "fcntl_arg", .is_enum = true, .width = 64, .unknown = "" },
	/* resolved against another argument by scry_fmt_arg (arg.c); alone: hex */
	{ .name = "prctl_arg", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "arch_prctl_arg", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "ioctl_arg", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "mknod_dev", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "futex_val3", .is_enum = true, .unknown = "" },
	{ .name = "clone_stack", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "clone_ptid", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "clone_ctid", .is_enum = true, .width = 64, .unknown = "" },
	{ .name = "clone_tls", .is_enum = true, .width = 64, .unknown = "" },
	/* preadv/pwritev's high offset word: 64-bit kernels ignore it, strace leaves it out */
	{ .name = "pos_h", .is_enum = true, .width = 64, .unknown = "" },
	ENUM("suid_dump", v_suid_dump, "SUID_DUMP_???"),
	ENUM("seccomp_mode", v_seccomp_mode, "SECCOMP_MODE_???"),
	{ .name = "ipc_get", .vals = XV(v_ipc_get), .unknown = "IPC_???", .special = SP_IPC_MODE },
	ENUM("ipc_key", v_ipc_key, ""),
	ENUM("shmctl", v_shmctl, "SHM_???"),
	ENUM("semctl", v_semctl, "SEM_???"),
	ENUM("msgctl", v_msgctl, "MSG_???"),
	FLAGS("ipc_msg", v_ipc_msg, "MSG_???"),
};
const size_t fmt_sets_misc_len = sizeof(fmt_sets_misc) / sizeof(fmt_sets_misc[0]);
