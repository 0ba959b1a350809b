/* elfsyms.c — see elfsyms.h: an ELF file's functions through libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "catalog/elfsyms.h"

static int *search_pids;
static size_t nsearch_pids;

void scry_elf_search_pids(const int *pids, size_t n)
{
	free(search_pids);
	search_pids = NULL;
	nsearch_pids = 0;
	if (n && (search_pids = malloc(n * sizeof(*pids)))) {
		memcpy(search_pids, pids, n * sizeof(*pids));
		nsearch_pids = n;
	}
}

/* A file process pid maps whose base name is name, or name.so... ("libc" -> libc.so.6). */
static char *find_in_maps(int pid, const char *name)
{
	char mpath[64], line[PATH_MAX + 256], *found = NULL;
	size_t ln = strlen(name);
	FILE *f;

	snprintf(mpath, sizeof(mpath), "/proc/%d/maps", pid);
	if (!(f = fopen(mpath, "re")))
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/'), *base, *nl;

		if (!file)
			continue;
		if ((nl = strchr(file, '\n')))
			*nl = 0;
		if (strstr(file, " (deleted)"))
			continue;
		base = strrchr(file, '/') + 1;
		if (strcmp(base, name) && (strncmp(base, name, ln) || strncmp(base + ln, ".so", 3)))
			continue;
		if (!access(file, R_OK)) {
			found = realpath(file, NULL);
		} else {                     /* another mount namespace */
			char root[PATH_MAX + 64];

			snprintf(root, sizeof(root), "/proc/%d/root%s", pid, file);
			if (!access(root, R_OK))
				found = strdup(root);
		}
	}
	fclose(f);
	return found;
}

char *scry_elf_find(const char *path, char *err, size_t errlen)
{
	char buf[PATH_MAX], *r;
	struct stat st;

	for (size_t i = 0; i < nsearch_pids && !strchr(path, '/'); i++)
		if ((r = find_in_maps(search_pids[i], path)))
			return r;

	if (strchr(path, '/')) {
		if (!(r = realpath(path, NULL))) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return NULL;
		}
		if (stat(r, &st) || !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s: not a regular file", path);
			free(r);
			return NULL;
		}
		return r;
	}
	const char *dirs = getenv("PATH");
	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (const char *d = dirs, *e; *d; d = *e ? e + 1 : e) {
		e = strchrnul(d, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - d), e > d ? d : ".", path);
		if (!stat(buf, &st) && S_ISREG(st.st_mode) && !access(buf, X_OK))
			return realpath(buf, NULL);
	}
	/* a library: "libc.so.6", or "libc" (its versioned file, "libc.so.6") */
	static const char *const libdirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
					       "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib" };
	for (size_t i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
		glob_t g;

		snprintf(buf, sizeof(buf), "%s/%s", libdirs[i], path);
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return realpath(buf, NULL);
		if (strstr(path, ".so") || strpbrk(path, "*?["))
			continue;
		snprintf(buf, sizeof(buf), "%s/%s.so.[0-9]*", libdirs[i], path);
		if (!glob(buf, 0, NULL, &g) && g.gl_pathc) {
			char *lib = realpath(g.gl_pathv[0], NULL);
			globfree(&g);
			return lib;
		}
		globfree(&g);
	}
	snprintf(err, errlen, "%s: not found in $PATH nor in the library directories", path);
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	const struct scry_elf_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

int64_t scry_elf_offset(const struct scry_elf *e, uint64_t addr)
{
	for (size_t i = 0; i < e->nloads; i++)
		if (addr >= e->loads[i].vaddr && addr < e->loads[i].vaddr + e->loads[i].memsz)
			return (int64_t)(addr - e->loads[i].vaddr + e->loads[i].offset);
	return -1;
}

static int add_symbols(struct scry_elf *e, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int64_t off;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || (off = scry_elf_offset(e, sym.st_value)) < 0)
			continue;
		if (e->nfuncs == *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			struct scry_elf_func *f = realloc(e->funcs, ncap * sizeof(*f));
			if (!f)
				return -ENOMEM;
			e->funcs = f;
			*cap = ncap;
		}
		if (!(e->funcs[e->nfuncs].name = strdup(name)))
			return -ENOMEM;
		e->funcs[e->nfuncs].addr = sym.st_value;
		e->funcs[e->nfuncs].size = sym.st_size;
		e->funcs[e->nfuncs].offset = (uint64_t)off;
		e->nfuncs++;
	}
	return 0;
}

static void read_build_id(struct scry_elf *e, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0)
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz <= sizeof(e->build_id)) {
			memcpy(e->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			e->build_id_len = nh.n_descsz;
			return;
		}
}

int scry_elf_load(struct scry_elf *e, const char *path, char *err, size_t errlen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nph, cap = 0, k = 0;
	int fd, ret = -1;

	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	if (eh.e_machine != EM_X86_64 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		snprintf(err, errlen, "%s: not an x86-64 ELF file (scry's uprobes read the x86-64 registers)", path);
		goto out;
	}
	e->entry = eh.e_entry;
	if (elf_getphdrnum(elf, &nph))
		nph = 0;
	for (size_t i = 0; i < nph && e->nloads < sizeof(e->loads) / sizeof(e->loads[0]); i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			e->loads[e->nloads].vaddr = ph.p_vaddr;
			e->loads[e->nloads].memsz = ph.p_memsz;
			e->loads[e->nloads].offset = ph.p_offset;
			e->nloads++;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOTE)
			read_build_id(e, scn);
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			e->has_symtab = true;
		if (add_symbols(e, elf, scn, &sh, &cap)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	/* one per name (.symtab and .dynsym both list the exported ones) */
	if (e->nfuncs)
		qsort(e->funcs, e->nfuncs, sizeof(*e->funcs), by_name);
	for (size_t i = 0; i < e->nfuncs; i++) {
		if (k && !strcmp(e->funcs[k - 1].name, e->funcs[i].name)) {
			free(e->funcs[i].name);
			continue;
		}
		e->funcs[k++] = e->funcs[i];
	}
	e->nfuncs = k;
	ret = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

void scry_elf_free(struct scry_elf *e)
{
	for (size_t i = 0; i < e->nfuncs; i++)
		free(e->funcs[i].name);
	free(e->funcs);
	free(e->path);
	memset(e, 0, sizeof(*e));
}

const struct scry_elf_func *scry_elf_func(const struct scry_elf *e, const char *name)
{
	struct scry_elf_func key = { .name = (char *)name, .addr = 0 };
	size_t lo = 0, hi = e->nfuncs;

	while (lo < hi) {          /* the first of that name */
		size_t mid = (lo + hi) / 2;
		if (strcmp(e->funcs[mid].name, key.name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->nfuncs && !strcmp(e->funcs[lo].name, name) ? &e->funcs[lo] : NULL;
}
