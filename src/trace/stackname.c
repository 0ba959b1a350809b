/* stackname.c — `scry trace -k`'s frames named as strace -k names them (see stackname.h).
 * strace 6.1 (Debian's, built on libunwind) names a frame with libunwind's lookup_symbol:
 * of the STT_FUNC symbols defined in the mapped file's own .symtab and .dynsym (no separate
 * debug file), the nearest at or below the address, sizes ignored, the first met on a tie
 * (section order, then table order).  So a libc frame reads __open64+0x51 (its .dynsym)
 * where the debug file would say __libc_open64, and a frame in a stripped binary reads
 * "/usr/bin/cat() [0x2752]". */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/symbolize.h"
#include "trace/stackname.h"

struct fsym {
	uint64_t value;
	uint32_t order;          /* first met wins a tie */
	char *name;
};

struct fsyms {
	char *path;
	struct fsym *v;
	size_t n;
};

struct trace_stacknames {
	struct fsyms *files;
	size_t nfiles;
};

struct trace_stacknames *trace_stacknames_new(void)
{
	return calloc(1, sizeof(struct trace_stacknames));
}

void trace_stacknames_free(struct trace_stacknames *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++) {
		for (size_t k = 0; k < t->files[i].n; k++)
			free(t->files[i].v[k].name);
		free(t->files[i].v);
		free(t->files[i].path);
	}
	free(t->files);
	free(t);
}

static int by_value(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* The defined STT_FUNC symbols of path's .symtab and .dynsym, sorted by value. */
static void load(struct fsyms *f, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	uint32_t order = 0;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ, NULL))) {
		close(fd);
		return;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(e, sh.sh_link, s.st_name)))
				continue;
			if (f->n == cap) {
				struct fsym *nv = realloc(f->v, (cap = cap ? cap * 2 : 256) * sizeof(*nv));

				if (!nv)
					goto out;
				f->v = nv;
			}
			if (!(f->v[f->n].name = strdup(name)))
				goto out;
			f->v[f->n].value = s.st_value;
			f->v[f->n++].order = order++;
		}
	}
out:
	qsort(f->v, f->n, sizeof(*f->v), by_value);
	elf_end(e);
	close(fd);
}

static struct fsyms *file_syms(struct trace_stacknames *t, const char *path)
{
	struct fsyms *nv;

	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i].path, path))
			return &t->files[i];
	if (!(nv = realloc(t->files, (t->nfiles + 1) * sizeof(*nv))))
		return NULL;
	t->files = nv;
	nv = &t->files[t->nfiles];
	memset(nv, 0, sizeof(*nv));
	if (!(nv->path = strdup(path)))
		return NULL;
	t->nfiles++;
	load(nv, path);
	return nv;
}

/* The nearest symbol at or below va (the first of its value), or NULL. */
static const struct fsym *nearest(const struct fsyms *f, uint64_t va)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {           /* first entry above va */
		size_t mid = lo + (hi - lo) / 2;

		if (f->v[mid].value <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	while (lo > 0 && f->v[lo - 1].value == f->v[lo].value)
		lo--;
	return &f->v[lo];
}

bool trace_stack_frame(struct trace_stacknames *t, struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr,
		       char *buf, size_t len)
{
	uint64_t look = ret_addr ? addr - 1 : addr;
	struct scry_sym_info info;
	struct scry_sym_file file;
	const struct fsyms *f;
	const struct fsym *sym = NULL;

	if (!scry_syms_user_info(s, tgid, look, false, &info) || !info.path) {
		snprintf(buf, len, "unexpected_backtracing_error [0x%" PRIx64 "]", addr);
		return false;
	}
	if (scry_syms_user_file(s, tgid, look, &file) && (f = file_syms(t, file.path)))
		sym = nearest(f, look - file.bias);
	if (sym)
		snprintf(buf, len, "%s(%s+0x%" PRIx64 ") [0x%" PRIx64 "]", info.path, sym->name,
			 look - file.bias - sym->value + (addr - look), addr - info.start + info.pgoff);
	else
		snprintf(buf, len, "%s() [0x%" PRIx64 "]", info.path, addr - info.start + info.pgoff);
	return true;
}
