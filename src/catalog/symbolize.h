/* symbolize.h — addresses of the call stack contexts to "function+0xoffset": kernel ones
 * from /proc/kallsyms, user ones from the ELF files the process mapped (elfsyms.c) and its
 * vDSO (vdso.h).  The mappings are captured while recording (/proc/TGID/maps, when the
 * consumer first meets an address of that process that it cannot place) and kept in the
 * trace directory (file SCRY_MAPS_FILE: "tgid start end pgoff build-id path" lines), so
 * that a process that has exited is still symbolized; a file whose build id changed since
 * is not used: the copy of the file that was mapped, kept in scry's cache by build id
 * while recording (util/cache.h: /var/cache/scry/elf-BUILDID), is used instead. */
#ifndef SCRY_CATALOG_SYMBOLIZE_H
#define SCRY_CATALOG_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCRY_MAPS_FILE "scry-maps"

struct scry_syms;

struct scry_syms *scry_syms_new(void);
void scry_syms_free(struct scry_syms *s);
/* Mappings read back from a SCRY_MAPS_FILE (missing: none).  0 or -1. */
int scry_syms_load_maps(struct scry_syms *s, const char *path);
/* While recording: make sure addr of process tgid is placed, reading /proc/tgid/maps when
 * it is not (a miss re-reads them at most every 100 ms; addr 0, every mapping, always does);
 * new mappings are appended to out (when non-NULL).  0, or -1 when the process is gone or
 * addr is in no file mapping. */
int scry_syms_capture(struct scry_syms *s, int tgid, uint64_t addr, FILE *out);
/* A mapping learnt otherwise than from /proc (scry trace -k: from the process's mmap and
 * execve calls, so that a process gone before its maps could be read is named too); its
 * build id read from path.  0, or -1 when out of memory. */
int scry_syms_add_map(struct scry_syms *s, int tgid, uint64_t start, uint64_t end, uint64_t pgoff, const char *path);
/* Does a known mapping of tgid (of any file, any part of it) hold addr? */
bool scry_syms_mapped(struct scry_syms *s, int tgid, uint64_t addr);
/* A forked process: a copy of its parent's mappings, as fork gives it.  0, or -1 when out
 * of memory. */
int scry_syms_fork(struct scry_syms *s, int parent, int child);
/* A process that ended: its mappings forgotten (its pid may come back as another). */
void scry_syms_drop(struct scry_syms *s, int tgid);
/* "name+0xoff" of a kernel address (kallsyms, read on first use), or of a user address
 * of tgid.  ret_addr: a return address (the call is the byte before it).  false when unknown. */
bool scry_syms_kernel(struct scry_syms *s, uint64_t addr, bool ret_addr, char *buf, size_t len);
bool scry_syms_user(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, char *buf, size_t len);

/* A user address's mapping and function, for profiles: path NULL when no mapping holds
 * it, func NULL when no symbol does (a stripped file without separate debug info: then the
 * symbol table of /usr/lib/debug/.build-id/xx/yyyy.debug is used when there is one).  The
 * strings belong to s.  false when no mapping holds it. */
struct scry_sym_info {
	const char *func;       /* function name, or NULL */
	uint64_t func_off;      /* addr - the function's start */
	const char *path;       /* the mapped file, or NULL */
	const char *build_id;   /* hex, or NULL */
	uint64_t start, end, pgoff;
};
bool scry_syms_user_info(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, struct scry_sym_info *out);
/* For an unwinder: the file mapped at a user address of tgid, the mapping's bounds and the
 * file's load bias (the address minus the file's link-time virtual address: 0 for an
 * ET_EXEC file).  false when no captured mapping holds addr, or its file cannot be read or
 * is not the one mapped (another build id at that path now). */
struct scry_sym_file {
	const char *path;       /* the file to open (the vDSO's copy for [vdso]); belongs to s */
	uint64_t start, end, pgoff, bias;
};
bool scry_syms_user_file(struct scry_syms *s, int tgid, uint64_t addr, struct scry_sym_file *out);
/* A kernel address's function name (kallsyms), or NULL; *off (if not NULL) the offset. */
const char *scry_syms_kernel_name(struct scry_syms *s, uint64_t addr, bool ret_addr, uint64_t *off);

/* strace -k's frame: "PATH(function+0xoff) [0xfileoffset]", "PATH() [0x...]" without a
 * symbol, "unexpected_backtracing_error [0xaddr]" outside any known mapping. */
void scry_syms_user_strace(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, char *buf, size_t len);

#endif
