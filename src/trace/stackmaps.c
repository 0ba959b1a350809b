/* stackmaps.c — `scry trace -k`: what a process maps, learnt from its calls as they are
 * printed (see stackmaps.h), beside the mappings read from /proc/PID/maps when its stacks
 * arrive — which a process living a millisecond has left by then:
 *  - mmap of a file: [ret, ret + length) at the file offset, the file as the fd table
 *    names it (the libraries ld.so loads: libc's open, then its mmaps);
 *  - a successful execve: the program interpreter (ld.so) the kernel mapped, placed by the
 *    exit's instruction pointer, which is the interpreter's entry point (a static program:
 *    the program itself, by its own entry; a program at fixed addresses, ET_EXEC, too);
 *  - the program's own mapping, a PIE at a random base, from the mprotect that ld.so makes
 *    of its RELRO segment (PROT_READ over a range no known mapping holds, of the size of
 *    the program's PT_GNU_RELRO): the base is the range's start less the segment's. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/symbolize.h"
#include "trace/imap.h"
#include "trace/stackmaps.h"

#define MAP_ANON_FLAG 0x20      /* MAP_ANONYMOUS */

struct trace_stackmaps {
	struct imap exes;       /* tgid -> struct exe *: a PIE whose base is not known yet */
};

struct exe {
	char *path;             /* as /proc/PID/maps names it */
	uint64_t end;           /* its image's end (link-time) */
	uint64_t relro, relro_end;   /* PT_GNU_RELRO, page-aligned */
};

struct trace_stackmaps *trace_stackmaps_new(void)
{
	return calloc(1, sizeof(struct trace_stackmaps));
}

static void exe_free(struct exe *x)
{
	if (x) {
		free(x->path);
		free(x);
	}
}

void trace_stackmaps_free(struct trace_stackmaps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->exes.cap; i++)
		if (m->exes.slots[i].key)
			exe_free(m->exes.slots[i].val);
	imap_free(&m->exes);
	free(m);
}

/* An ELF file's entry, end of its loaded image (link-time addresses), PT_GNU_RELRO (page
 * aligned; 0, 0: none) and, if it has one, its program interpreter.  false when it cannot
 * be read. */
static bool elf_layout(const char *path, uint64_t *entry, uint64_t *end, bool *dyn, char *interp, size_t len,
		       uint64_t *relro)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	GElf_Ehdr eh;
	size_t n;
	bool ok = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n))
		goto out;
	*entry = eh.e_entry;
	*dyn = eh.e_type == ET_DYN;
	*end = 0;
	if (interp)
		interp[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > *end)
			*end = ph.p_vaddr + ph.p_memsz;
		if (ph.p_type == PT_GNU_RELRO && relro) {
			relro[0] = ph.p_vaddr & ~0xfffULL;
			relro[1] = (ph.p_vaddr + ph.p_memsz) & ~0xfffULL;   /* ld.so: down to a page */
		}
		if (ph.p_type == PT_INTERP && interp && ph.p_filesz && ph.p_filesz < len) {
			size_t got;
			char *raw = elf_rawfile(e, &got);

			if (raw && ph.p_offset + ph.p_filesz <= got) {
				memcpy(interp, raw + ph.p_offset, ph.p_filesz);
				interp[ph.p_filesz] = '\0';
			}
		}
	}
	ok = true;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/* The image the kernel loaded for an execve of exe whose exit is at ip. */
static void learn_exec(struct trace_stackmaps *m, struct scry_syms *s, int tgid, const char *exe, uint64_t ip)
{
	char interp[PATH_MAX], *real;
	uint64_t entry, end, relro[2] = { 0, 0 };
	bool dyn;

	exe_free(imap_del(&m->exes, tgid));
	if (!elf_layout(exe, &entry, &end, &dyn, interp, sizeof(interp), relro) || !(real = realpath(exe, NULL)))
		return;
	if (interp[0] && !dyn) {          /* a dynamic program at fixed addresses */
		scry_syms_add_map(s, tgid, 0, end, 0, real);
	} else if (interp[0] && relro[1] > relro[0]) {   /* a PIE: placed by its RELRO mprotect */
		struct exe *x = calloc(1, sizeof(*x));

		if (x) {
			*x = (struct exe){ .path = real, .end = end, .relro = relro[0], .relro_end = relro[1] };
			real = NULL;
			if (imap_put(&m->exes, tgid, x))
				exe_free(x);
		}
	}
	free(real);
	if (interp[0]) {
		if (!elf_layout(interp, &entry, &end, &dyn, NULL, 0, NULL) || !dyn || ip < entry)
			return;
		exe = interp;
	} else if (!dyn) {       /* ET_EXEC: at its link-time addresses */
		entry = ip;
	}
	if (!(real = realpath(exe, NULL)))   /* as /proc/PID/maps names it */
		return;
	scry_syms_add_map(s, tgid, ip - entry, ip - entry + end, 0, real);
	free(real);
}

/* ld.so's mprotect(PROT_READ) of a PIE's RELRO: [start, start + len) in no known mapping. */
static void learn_relro(struct trace_stackmaps *m, struct scry_syms *s, int tgid, uint64_t start, uint64_t len)
{
	struct exe *x = imap_get(&m->exes, tgid);

	/* (a library's RELRO, often of the same size, lies in its data mapping: known) */
	if (!x || len != x->relro_end - x->relro || start < x->relro || scry_syms_mapped(s, tgid, start))
		return;
	scry_syms_add_map(s, tgid, start - x->relro, start - x->relro + x->end, 0, x->path);
	exe_free(imap_del(&m->exes, tgid));
}

void trace_stack_learn(struct trace_stackmaps *m, struct scry_syms *s, struct fdtrack *fds,
		       const struct trace_call *c, const struct scry_argval *all)
{
	if (!m || !s || !c->name || c->ret < 0)
		return;
	if (!strcmp(c->name, "mprotect") && c->ret == 0 && c->nargs >= 3 && all[0].have && all[1].have &&
	    all[2].have && all[2].v == 1 /* PROT_READ */) {
		learn_relro(m, s, c->pid, all[0].v, all[1].v);
		return;
	}
	if (!strcmp(c->name, "mmap") && c->nargs >= 6 && all[1].have && all[3].have && all[4].have && all[5].have &&
	    !(all[3].v & MAP_ANON_FLAG) && (int32_t)all[4].v >= 0 && c->ret > 0) {
		const char *path = fdtrack_path(fds, c->pid, (int32_t)all[4].v);

		if (path && path[0] == '/' && !strstr(path, " (deleted)"))
			scry_syms_add_map(s, c->pid, (uint64_t)c->ret, (uint64_t)c->ret + all[1].v, all[5].v, path);
		return;
	}
	if ((!strcmp(c->name, "execve") || !strcmp(c->name, "execveat")) && c->ret == 0 && c->ip && c->nargs &&
	    all[!strcmp(c->name, "execveat")].p) {
		const struct scry_argval *f = &all[!strcmp(c->name, "execveat")];
		char exe[PATH_MAX];
		const char *cwd;

		if (f->len >= sizeof(exe) - 1 || f->truncated)
			return;
		if (f->p[0] == '/' || !(cwd = fdtrack_path(fds, c->pid, -100)))
			snprintf(exe, sizeof(exe), "%.*s", (int)f->len, (const char *)f->p);
		else
			snprintf(exe, sizeof(exe), "%s/%.*s", cwd, (int)f->len, (const char *)f->p);
		learn_exec(m, s, c->pid, exe, c->ip);
	}
}
