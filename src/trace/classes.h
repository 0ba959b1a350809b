/* classes.h — strace's syscall classes for `-e trace=%file,%network,...` (x86_64), by
 * kernel syscall name (src/trace/classes.c), plus two properties the printer needs. */
#ifndef SCRY_TRACE_CLASSES_H
#define SCRY_TRACE_CLASSES_H

#include <stddef.h>

enum trace_class {
	TRACE_FILE        = 1u << 0,   /* %file: takes a file name */
	TRACE_IPC         = 1u << 1,   /* %ipc: SysV IPC */
	TRACE_NETWORK     = 1u << 2,   /* %network, %net */
	TRACE_PROCESS     = 1u << 3,   /* %process: creation, exec, termination */
	TRACE_SIGNAL      = 1u << 4,   /* %signal */
	TRACE_DESC        = 1u << 5,   /* %desc: file descriptor related */
	TRACE_MEMORY      = 1u << 6,   /* %memory: memory mapping */
	TRACE_STAT_LIKE   = 1u << 7,   /* %%stat */
	TRACE_STAT        = 1u << 8,   /* %stat */
	TRACE_LSTAT       = 1u << 9,   /* %lstat */
	TRACE_FSTAT       = 1u << 10,  /* %fstat */
	TRACE_STATFS_LIKE = 1u << 11,  /* %%statfs */
	TRACE_STATFS      = 1u << 12,  /* %statfs */
	TRACE_FSTATFS     = 1u << 13,  /* %fstatfs */
	TRACE_PURE        = 1u << 14,  /* %pure: no arguments, never fail */
	TRACE_CREDS       = 1u << 15,  /* %creds: user/group ids, capabilities */
	TRACE_CLOCK       = 1u << 16,  /* %clock: read or set system clocks */
	/* not classes a user names: */
	TRACE_NEVER_FAILS = 1u << 24,  /* strace's NF: no "<unfinished ...>" when a task dies in it */
	TRACE_RET_FD      = 1u << 25,  /* returns a new file descriptor (-y decorates it) */
};

/* Classes of a syscall by kernel name ("newstat", "openat"); 0 when none. */
unsigned trace_syscall_classes(const char *kname);

/* A class as the user writes it: "%file", "%net", "%%stat"; also strace's deprecated bare
 * spellings ("file", "network", ...).  0 when unknown. */
unsigned trace_class_by_name(const char *name);

/* The kernel names of the syscalls in any of the classes of mask, one at a time:
 * *it starts at 0; NULL at the end. */
const char *trace_class_next(unsigned mask, size_t *it);

/* "%file %network %net ..." — every class name, for error messages. */
const char *trace_class_list(void);

#endif /* SCRY_TRACE_CLASSES_H */
