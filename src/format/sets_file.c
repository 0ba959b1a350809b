/* sets_file.c — file and I/O flag/enum sets: open flags (access mode first), *at flags,
 * access modes, statx masks and attributes, seek origins, locks, renames, xattrs, splice,
 * fallocate, inotify, mounts, statfs, directory entry types (names and order as strace 6
 * prints them). */
#include "format/fmt_internal.h"

static const struct fmt_xval v_accmode[] = {
	{ 0, "O_RDONLY" }, { 1, "O_WRONLY" }, { 2, "O_RDWR" }, { 3, "O_ACCMODE" },
};

/* O_SYNC and O_TMPFILE include O_DSYNC and O_DIRECTORY: they come first. */
static const struct fmt_xval v_open[] = {
	{ 0100, "O_CREAT" }, { 0200, "O_EXCL" }, { 0400, "O_NOCTTY" }, { 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" }, { 04000, "O_NONBLOCK" }, { 04010000, "O_SYNC" },
	{ 010000, "O_DSYNC" }, { 040000, "O_DIRECT" }, { 0100000, "O_LARGEFILE" },
	{ 0400000, "O_NOFOLLOW" }, { 01000000, "O_NOATIME" }, { 02000000, "O_CLOEXEC" },
	{ 010000000, "O_PATH" }, { 020200000, "O_TMPFILE" }, { 0200000, "O_DIRECTORY" },
	{ 020000, "FASYNC" },
};

static const struct fmt_xval v_at[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_REMOVEDIR" }, { 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" }, { 0x1000, "AT_EMPTY_PATH" }, { 0x8000, "AT_RECURSIVE" },
};

static const struct fmt_xval v_faccessat[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" }, { 0x200, "AT_EACCESS" }, { 0x1000, "AT_EMPTY_PATH" },
};

static const struct fmt_xval v_statx_sync[] = {
	{ 0, "AT_STATX_SYNC_AS_STAT" }, { 0x2000, "AT_STATX_FORCE_SYNC" }, { 0x4000, "AT_STATX_DONT_SYNC" },
};

static const struct fmt_xval v_statx_mask[] = {
	{ 0xfff, "STATX_ALL" }, { 0x7ff, "STATX_BASIC_STATS" }, { 0x1, "STATX_TYPE" },
	{ 0x2, "STATX_MODE" }, { 0x4, "STATX_NLINK" }, { 0x8, "STATX_UID" }, { 0x10, "STATX_GID" },
	{ 0x20, "STATX_ATIME" }, { 0x40, "STATX_MTIME" }, { 0x80, "STATX_CTIME" },
	{ 0x100, "STATX_INO" }, { 0x200, "STATX_SIZE" }, { 0x400, "STATX_BLOCKS" },
	{ 0x800, "STATX_BTIME" }, { 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" },
};

static const struct fmt_xval v_statx_attrs[] = {
	{ 0x4, "STATX_ATTR_COMPRESSED" }, { 0x10, "STATX_ATTR_IMMUTABLE" },
	{ 0x20, "STATX_ATTR_APPEND" }, { 0x40, "STATX_ATTR_NODUMP" },
	{ 0x800, "STATX_ATTR_ENCRYPTED" }, { 0x1000, "STATX_ATTR_AUTOMOUNT" },
	{ 0x2000, "STATX_ATTR_MOUNT_ROOT" }, { 0x100000, "STATX_ATTR_VERITY" },
	{ 0x200000, "STATX_ATTR_DAX" },
};

static const struct fmt_xval v_access[] = {
	{ 0, "F_OK" }, { 4, "R_OK" }, { 2, "W_OK" }, { 1, "X_OK" },
};

static const struct fmt_xval v_whence[] = {
	{ 0, "SEEK_SET" }, { 1, "SEEK_CUR" }, { 2, "SEEK_END" }, { 3, "SEEK_DATA" }, { 4, "SEEK_HOLE" },
};

static const struct fmt_xval v_rename[] = {
	{ 1, "RENAME_NOREPLACE" }, { 2, "RENAME_EXCHANGE" }, { 4, "RENAME_WHITEOUT" },
};

static const struct fmt_xval v_fallocate[] = {
	{ 0x01, "FALLOC_FL_KEEP_SIZE" }, { 0x02, "FALLOC_FL_PUNCH_HOLE" },
	{ 0x04, "FALLOC_FL_NO_HIDE_STALE" }, { 0x08, "FALLOC_FL_COLLAPSE_RANGE" },
	{ 0x10, "FALLOC_FL_ZERO_RANGE" }, { 0x20, "FALLOC_FL_INSERT_RANGE" },
	{ 0x40, "FALLOC_FL_UNSHARE_RANGE" },
};

static const struct fmt_xval v_fadvise[] = {
	{ 0, "POSIX_FADV_NORMAL" }, { 1, "POSIX_FADV_RANDOM" }, { 2, "POSIX_FADV_SEQUENTIAL" },
	{ 3, "POSIX_FADV_WILLNEED" }, { 4, "POSIX_FADV_DONTNEED" }, { 5, "POSIX_FADV_NOREUSE" },
};

static const struct fmt_xval v_xattr[] = { { 1, "XATTR_CREATE" }, { 2, "XATTR_REPLACE" } };

static const struct fmt_xval v_splice[] = {
	{ 1, "SPLICE_F_MOVE" }, { 2, "SPLICE_F_NONBLOCK" }, { 4, "SPLICE_F_MORE" }, { 8, "SPLICE_F_GIFT" },
};

static const struct fmt_xval v_flock[] = {
	{ 1, "LOCK_SH" }, { 2, "LOCK_EX" }, { 4, "LOCK_NB" }, { 8, "LOCK_UN" }, { 0x20, "LOCK_MAND" },
	{ 0xc0, "LOCK_RW" }, { 0x40, "LOCK_READ" }, { 0x80, "LOCK_WRITE" },
};

static const struct fmt_xval v_fdflags[] = { { 1, "FD_CLOEXEC" } };

static const struct fmt_xval v_lease[] = { { 0, "F_RDLCK" }, { 1, "F_WRLCK" }, { 2, "F_UNLCK" } };

static const struct fmt_xval v_dnotify[] = {
	{ 0x1, "DN_ACCESS" }, { 0x2, "DN_MODIFY" }, { 0x4, "DN_CREATE" }, { 0x8, "DN_DELETE" },
	{ 0x10, "DN_RENAME" }, { 0x20, "DN_ATTRIB" }, { 0x80000000, "DN_MULTISHOT" },
};

static const struct fmt_xval v_seals[] = {
	{ 1, "F_SEAL_SEAL" }, { 2, "F_SEAL_SHRINK" }, { 4, "F_SEAL_GROW" }, { 8, "F_SEAL_WRITE" },
	{ 0x10, "F_SEAL_FUTURE_WRITE" },
};

static const struct fmt_xval v_inotify_init[] = { { 04000, "IN_NONBLOCK" }, { 02000000, "IN_CLOEXEC" } };

static const struct fmt_xval v_inotify_mask[] = {
	{ 0x1, "IN_ACCESS" }, { 0x2, "IN_MODIFY" }, { 0x4, "IN_ATTRIB" }, { 0x8, "IN_CLOSE_WRITE" },
	{ 0x10, "IN_CLOSE_NOWRITE" }, { 0x20, "IN_OPEN" }, { 0x40, "IN_MOVED_FROM" },
	{ 0x80, "IN_MOVED_TO" }, { 0x100, "IN_CREATE" }, { 0x200, "IN_DELETE" },
	{ 0x400, "IN_DELETE_SELF" }, { 0x800, "IN_MOVE_SELF" }, { 0x2000, "IN_UNMOUNT" },
	{ 0x4000, "IN_Q_OVERFLOW" }, { 0x8000, "IN_IGNORED" }, { 0x1000000, "IN_ONLYDIR" },
	{ 0x2000000, "IN_DONT_FOLLOW" }, { 0x4000000, "IN_EXCL_UNLINK" },
	{ 0x10000000, "IN_MASK_CREATE" }, { 0x20000000, "IN_MASK_ADD" }, { 0x40000000, "IN_ISDIR" },
	{ 0x80000000, "IN_ONESHOT" },
};

static const struct fmt_xval v_close_range[] = { { 2, "CLOSE_RANGE_UNSHARE" }, { 4, "CLOSE_RANGE_CLOEXEC" } };

static const struct fmt_xval v_rwf[] = {
	{ 1, "RWF_HIPRI" }, { 2, "RWF_DSYNC" }, { 4, "RWF_SYNC" }, { 8, "RWF_NOWAIT" }, { 0x10, "RWF_APPEND" },
};

static const struct fmt_xval v_umount[] = {
	{ 1, "MNT_FORCE" }, { 2, "MNT_DETACH" }, { 4, "MNT_EXPIRE" }, { 8, "UMOUNT_NOFOLLOW" },
};

static const struct fmt_xval v_mount[] = {
	{ 0x1, "MS_RDONLY" }, { 0x2, "MS_NOSUID" }, { 0x4, "MS_NODEV" }, { 0x8, "MS_NOEXEC" },
	{ 0x10, "MS_SYNCHRONOUS" }, { 0x20, "MS_REMOUNT" }, { 0x40, "MS_MANDLOCK" },
	{ 0x80, "MS_DIRSYNC" }, { 0x100, "MS_NOSYMFOLLOW" }, { 0x400, "MS_NOATIME" },
	{ 0x800, "MS_NODIRATIME" }, { 0x1000, "MS_BIND" }, { 0x2000, "MS_MOVE" }, { 0x4000, "MS_REC" },
	{ 0x8000, "MS_SILENT" }, { 0x10000, "MS_POSIXACL" }, { 0x20000, "MS_UNBINDABLE" },
	{ 0x40000, "MS_PRIVATE" }, { 0x80000, "MS_SLAVE" }, { 0x100000, "MS_SHARED" },
	{ 0x200000, "MS_RELATIME" }, { 0x400000, "MS_KERNMOUNT" }, { 0x800000, "MS_I_VERSION" },
	{ 0x1000000, "MS_STRICTATIME" }, { 0x2000000, "MS_LAZYTIME" }, { 0x4000000, "MS_SUBMOUNT" },
	{ 0x8000000, "MS_NOREMOTELOCK" }, { 0x10000000, "MS_NOSEC" }, { 0x20000000, "MS_BORN" },
	{ 0x40000000, "MS_ACTIVE" }, { 0x80000000, "MS_NOUSER" },
};

static const struct fmt_xval v_sync_file_range[] = {
	{ 1, "SYNC_FILE_RANGE_WAIT_BEFORE" }, { 2, "SYNC_FILE_RANGE_WRITE" },
	{ 4, "SYNC_FILE_RANGE_WAIT_AFTER" },
};

static const struct fmt_xval v_resolve[] = {
	{ 0x01, "RESOLVE_NO_XDEV" }, { 0x02, "RESOLVE_NO_MAGICLINKS" }, { 0x04, "RESOLVE_NO_SYMLINKS" },
	{ 0x08, "RESOLVE_BENEATH" }, { 0x10, "RESOLVE_IN_ROOT" }, { 0x20, "RESOLVE_CACHED" },
};

static const struct fmt_xval v_fs_magic[] = {
	{ 0xef53, "EXT2_SUPER_MAGIC" }, { 0x01021994, "TMPFS_MAGIC" }, { 0x9fa0, "PROC_SUPER_MAGIC" },
	{ 0x62656572, "SYSFS_MAGIC" }, { 0x9123683e, "BTRFS_SUPER_MAGIC" },
	{ 0x58465342, "XFS_SUPER_MAGIC" }, { 0x794c7630, "OVERLAYFS_SUPER_MAGIC" },
	{ 0x63677270, "CGROUP2_SUPER_MAGIC" }, { 0x27e0eb, "CGROUP_SUPER_MAGIC" },
	{ 0x1cd1, "DEVPTS_SUPER_MAGIC" }, { 0x6969, "NFS_SUPER_MAGIC" },
	{ 0x73717368, "SQUASHFS_MAGIC" }, { 0x4d44, "MSDOS_SUPER_MAGIC" },
	{ 0x65735546, "FUSE_SUPER_MAGIC" }, { 0x64626720, "DEBUGFS_MAGIC" },
	{ 0x74726163, "TRACEFS_MAGIC" }, { 0xcafe4a11, "BPF_FS_MAGIC" },
	{ 0x73636673, "SECURITYFS_MAGIC" }, { 0x9660, "ISOFS_SUPER_MAGIC" },
	{ 0x858458f6, "RAMFS_MAGIC" }, { 0x534f434b, "SOCKFS_MAGIC" }, { 0x50495045, "PIPEFS_MAGIC" },
	{ 0x6e736673, "NSFS_MAGIC" }, { 0x958458f6, "HUGETLBFS_MAGIC" },
	{ 0x09041934, "ANON_INODE_FS_MAGIC" }, { 0xf2f52010, "F2FS_SUPER_MAGIC" },
	{ 0x2011bab0, "EXFAT_SUPER_MAGIC" }, { 0x5346544e, "NTFS_SB_MAGIC" },
	{ 0xff534d42, "CIFS_SUPER_MAGIC" }, { 0xfe534d42, "SMB2_SUPER_MAGIC" },
	{ 0x01021997, "V9FS_MAGIC" }, { 0x42494e4d, "BINFMTFS_MAGIC" },
	{ 0x6165676c, "PSTOREFS_MAGIC" }, { 0x19800202, "MQUEUE_MAGIC" },
	{ 0xde5e81e4, "EFIVARFS_MAGIC" }, { 0x67596969, "RPC_PIPEFS_MAGIC" },
	{ 0x2fc12fc1, "ZFS_SUPER_MAGIC" },
};

static const struct fmt_xval v_statfs_flags[] = {
	{ 0x0001, "ST_RDONLY" }, { 0x0002, "ST_NOSUID" }, { 0x0004, "ST_NODEV" }, { 0x0008, "ST_NOEXEC" },
	{ 0x0010, "ST_SYNCHRONOUS" }, { 0x0020, "ST_VALID" }, { 0x0040, "ST_MANDLOCK" },
	{ 0x0400, "ST_NOATIME" }, { 0x0800, "ST_NODIRATIME" }, { 0x1000, "ST_RELATIME" },
	{ 0x2000, "ST_NOSYMFOLLOW" },
};

static const struct fmt_xval v_dirent_type[] = {
	{ 0, "DT_UNKNOWN" }, { 1, "DT_FIFO" }, { 2, "DT_CHR" }, { 4, "DT_DIR" }, { 6, "DT_BLK" },
	{ 8, "DT_REG" }, { 10, "DT_LNK" }, { 12, "DT_SOCK" }, { 14, "DT_WHT" },
};

#define ENUM(n, t, u) { .name = n, .is_enum = true, .vals = XV(t), .unknown = u }
#define FLAGS(n, t, u) { .name = n, .vals = XV(t), .unknown = u }

const struct fmt_set fmt_sets_file[] = {
	{ .name = "open", .vals = XV(v_open), .unknown = "O_???", .field = FLD_ENUM, .field_mask = 3,
	  .fvals = XV(v_accmode) },
	/* open flags without an access mode (pipe2, dup3) */
	FLAGS("pipe", v_open, "O_???"),
	FLAGS("at", v_at, "AT_???"),
	FLAGS("faccessat", v_faccessat, "AT_???"),
	{ .name = "statx_at", .vals = XV(v_at), .unknown = "AT_???", .field = FLD_FLAGS,
	  .field_mask = 0x6000, .fvals = XV(v_statx_sync) },
	FLAGS("statx_mask", v_statx_mask, "STATX_???"),
	{ .name = "statx_attrs", .width = 64, .vals = XV(v_statx_attrs), .unknown = "STATX_ATTR_???" },
	FLAGS("access", v_access, "?_OK"),
	ENUM("whence", v_whence, "SEEK_???"),
	FLAGS("rename", v_rename, "RENAME_???"),
	FLAGS("fallocate", v_fallocate, "FALLOC_FL_???"),
	ENUM("fadvise", v_fadvise, "POSIX_FADV_???"),
	FLAGS("xattr", v_xattr, "XATTR_???"),
	FLAGS("splice", v_splice, "SPLICE_F_???"),
	FLAGS("flock", v_flock, "LOCK_???"),
	FLAGS("fdflags", v_fdflags, "FD_???"),
	ENUM("lease", v_lease, "F_???"),
	FLAGS("dnotify", v_dnotify, "DN_???"),
	FLAGS("seals", v_seals, "F_SEAL_???"),
	FLAGS("inotify_init", v_inotify_init, "IN_???"),
	FLAGS("inotify_mask", v_inotify_mask, "IN_???"),
	FLAGS("close_range", v_close_range, "CLOSE_RANGE_???"),
	FLAGS("rwf", v_rwf, "RWF_???"),
	FLAGS("umount", v_umount, "MNT_???"),
	{ .name = "mount", .width = 64, .vals = XV(v_mount), .unknown = "MS_???" },
	FLAGS("sync_file_range", v_sync_file_range, "SYNC_FILE_RANGE_???"),
	{ .name = "resolve", .width = 64, .vals = XV(v_resolve), .unknown = "RESOLVE_???" },
	{ .name = "fs_magic", .is_enum = true, .width = 64, .vals = XV(v_fs_magic), .unknown = "" },
	ENUM("dirent_type", v_dirent_type, "DT_???"),
	{ .name = "statfs_flags", .width = 64, .vals = XV(v_statfs_flags), .unknown = "ST_???" },
};
const size_t fmt_sets_file_len = sizeof(fmt_sets_file) / sizeof(fmt_sets_file[0]);
