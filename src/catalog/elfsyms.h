/* elfsyms.h — the functions of an ELF file, for uprobes: the file found (a path, or a bare
 * name searched in $PATH), its function symbols from .symtab and .dynsym (libelf), each
 * with its address and the file offset a uprobe attaches to, and its build id (to find
 * separate debug info). */
#ifndef SCRY_CATALOG_ELFSYMS_H
#define SCRY_CATALOG_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scry_elf_func {
	char *name;
	uint64_t addr;          /* st_value: the link-time virtual address */
	uint64_t size;
	uint64_t offset;        /* file offset (what a uprobe attaches to) */
};

struct scry_elf {
	char *path;             /* absolute */
	struct scry_elf_func *funcs;   /* sorted by name, one per name */
	size_t nfuncs;
	bool has_symtab;        /* .symtab present (not stripped) */
	uint64_t entry;         /* e_entry: the entry point (jumped to, never called) */
	uint8_t build_id[64];
	size_t build_id_len;
	/* program headers PT_LOAD (vaddr -> offset) */
	struct { uint64_t vaddr, memsz, offset; } loads[16];
	size_t nloads;
};

/* Find the file of a uprobe spec's PATH: with a '/', that file; else the first executable
 * of that name in $PATH, else a library of that name in the library directories ("libc.so.6",
 * or "libc": its versioned file libc.so.N).  Returns a malloc'd absolute path, or NULL with a
 * reason in err. */
char *scry_elf_find(const char *path, char *err, size_t errlen);
/* -p: a bare name is first looked for among the files these processes map
 * (/proc/PID/maps: "libc" or "libc.so.6" the libc they use, "server" their executable),
 * through /proc/PID/root when it is in another mount namespace.  Copied. */
void scry_elf_search_pids(const int *pids, size_t n);
/* Read the functions of path (absolute).  0, or -1 with a one-line reason in err. */
int scry_elf_load(struct scry_elf *e, const char *path, char *err, size_t errlen);
void scry_elf_free(struct scry_elf *e);
const struct scry_elf_func *scry_elf_func(const struct scry_elf *e, const char *name);
/* The file offset of virtual address addr, or -1 if no PT_LOAD segment holds it. */
int64_t scry_elf_offset(const struct scry_elf *e, uint64_t addr);

#endif
