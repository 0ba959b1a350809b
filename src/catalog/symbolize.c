/* symbolize.c — call stack addresses to function names (see symbolize.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "catalog/elfsyms.h"
#include "catalog/symbolize.h"
#include "catalog/vdso.h"
#include "util/cache.h"

struct map {
	int tgid;
	uint64_t start, end, pgoff;
	char *path;
	char bid[129];          /* hex build id, "-" when the file has none */
};

struct elf_ent {
	char *path;
	struct scry_elf e;
	bool ok;
	uint32_t *by_addr;      /* indexes of e.funcs sorted by address */
};

struct ksym {
	uint64_t addr;
	char *name;
};

struct scry_syms {
	struct map *maps;
	size_t nmaps, capmaps;
	struct elf_ent *elfs;
	size_t nelfs, capelfs;
	struct ksym *ks;
	size_t nks;
	bool ks_read;
	char kept[64][129];        /* build ids copied to the cache this run (keep_elf) */
	size_t nkept;
	size_t hit;                /* 1 + the map find_map found last (0: none): a stack's
				    * frames and the next event's mostly fall in it */
	struct {                   /* when a process's maps were last read (by tgid % 256):
				    * an address no file maps (JIT code, a frame-pointer walk
				    * through code built without them) re-reads them at most
				    * every SCRY_MAPS_REREAD_NS, not at every event */
		int tgid;
		uint64_t at;
	} reread[256];
};

#define SCRY_MAPS_REREAD_NS 100000000ull   /* 100 ms */

struct scry_syms *scry_syms_new(void)
{
	return calloc(1, sizeof(struct scry_syms));
}

void scry_syms_free(struct scry_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	for (size_t i = 0; i < s->nelfs; i++) {
		free(s->elfs[i].path);
		free(s->elfs[i].by_addr);
		if (s->elfs[i].ok)
			scry_elf_free(&s->elfs[i].e);
	}
	for (size_t i = 0; i < s->nks; i++)
		free(s->ks[i].name);
	free(s->maps);
	free(s->elfs);
	free(s->ks);
	free(s);
}

static const struct scry_elf *g_sort_elf;
static int by_addr_cmp(const void *a, const void *b)
{
	uint64_t x = g_sort_elf->funcs[*(const uint32_t *)a].addr, y = g_sort_elf->funcs[*(const uint32_t *)b].addr;
	return x < y ? -1 : x > y;
}

/* A stripped file (Debian's libc, python3): the functions of the symbol table of its
 * separate debug file found by build id (/usr/lib/debug/.build-id/xx/yyyy.debug: libc6-dbg),
 * whose link-time addresses are the file's, in place of the few of .dynsym. */
static void debug_symtab(struct scry_elf *e)
{
	char dbg[256], err[256];
	struct scry_elf d;
	size_t n;

	if (!e->build_id_len)
		return;
	n = (size_t)snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", e->build_id[0]);
	for (size_t i = 1; i < e->build_id_len && n + 3 < sizeof(dbg); i++)
		n += (size_t)snprintf(dbg + n, sizeof(dbg) - n, "%02x", e->build_id[i]);
	snprintf(dbg + n, sizeof(dbg) - n, ".debug");
	if (access(dbg, R_OK) || scry_elf_load(&d, dbg, err, sizeof(err)))
		return;
	if (d.has_symtab && d.nfuncs > e->nfuncs) {
		struct scry_elf_func *f = e->funcs;
		size_t nf = e->nfuncs;

		e->funcs = d.funcs;
		e->nfuncs = d.nfuncs;
		d.funcs = f;
		d.nfuncs = nf;
	}
	scry_elf_free(&d);
}

/* The file to open for a mapping's path: the vDSO's copy for [vdso]. */
static const char *file_of(const char *path)
{
	return strcmp(path, SCRY_VDSO_NAME) ? path : scry_vdso_path();
}

/* The ELF file at path, loaded once (NULL when it cannot be read). */
static struct elf_ent *elf_get(struct scry_syms *s, const char *path)
{
	char err[256];
	struct elf_ent *e;
	const char *file = file_of(path);

	for (size_t i = 0; i < s->nelfs; i++)
		if (!strcmp(s->elfs[i].path, path))
			return s->elfs[i].ok ? &s->elfs[i] : NULL;
	if (s->nelfs == s->capelfs) {
		size_t cap = s->capelfs ? 2 * s->capelfs : 16;
		struct elf_ent *n = realloc(s->elfs, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->elfs = n;
		s->capelfs = cap;
	}
	e = &s->elfs[s->nelfs];
	memset(e, 0, sizeof(*e));
	if (!(e->path = strdup(path)))
		return NULL;
	s->nelfs++;
	e->ok = file && scry_elf_load(&e->e, file, err, sizeof(err)) == 0;
	if (!e->ok)
		return NULL;
	if (!e->e.has_symtab)
		debug_symtab(&e->e);
	if (e->e.nfuncs && (e->by_addr = malloc(e->e.nfuncs * sizeof(uint32_t)))) {
		for (size_t i = 0; i < e->e.nfuncs; i++)
			e->by_addr[i] = (uint32_t)i;
		g_sort_elf = &e->e;
		qsort(e->by_addr, e->e.nfuncs, sizeof(uint32_t), by_addr_cmp);
	}
	return e;
}

static void hex_bid(const struct scry_elf *e, char *out)
{
	if (!e || !e->build_id_len) {
		strcpy(out, "-");
		return;
	}
	for (size_t i = 0; i < e->build_id_len && i < 64; i++)
		sprintf(out + 2 * i, "%02x", e->build_id[i]);
}

/* While recording: a copy of the file mapped at path, named by its build id, kept in the
 * cache (util/cache.h), so that the file's names outlive it (deleted, replaced by another
 * build).  Once per build id and run; nothing without a build id, nor for the vDSO. */
static void keep_elf(struct scry_syms *s, const char *path, const char *bid)
{
	char cp[600];

	if (!strcmp(bid, "-") || !strcmp(path, SCRY_VDSO_NAME) || !scry_cache_elf_path(bid, cp, sizeof(cp)))
		return;
	for (size_t i = 0; i < s->nkept; i++)
		if (!strcmp(s->kept[i], bid))
			return;
	if (s->nkept < sizeof(s->kept) / sizeof(s->kept[0]))
		snprintf(s->kept[s->nkept++], sizeof(s->kept[0]), "%s", bid);
	scry_cache_keep(path, cp);
}

/* The ELF file of mapping m: the file at its path if it is still the one mapped (the same
 * build id), else the cache's copy of that build id; NULL when neither. */
static struct elf_ent *elf_of(struct scry_syms *s, const struct map *m)
{
	struct elf_ent *e = elf_get(s, m->path);
	char bid[129], cp[600];

	if (e) {
		hex_bid(&e->e, bid);
		if (!strcmp(bid, m->bid))
			return e;
	}
	if (!strcmp(m->bid, "-") || !scry_cache_elf_path(m->bid, cp, sizeof(cp)) || !(e = elf_get(s, cp)))
		return NULL;
	hex_bid(&e->e, bid);
	return strcmp(bid, m->bid) ? NULL : e;
}

static struct map *add_map(struct scry_syms *s, int tgid, uint64_t start, uint64_t end, uint64_t pgoff,
			   const char *path, const char *bid)
{
	struct map *m;

	if (s->nmaps == s->capmaps) {
		size_t cap = s->capmaps ? 2 * s->capmaps : 64;
		struct map *n = realloc(s->maps, cap * sizeof(*n));
		if (!n)
			return NULL;
		s->maps = n;
		s->capmaps = cap;
	}
	m = &s->maps[s->nmaps];
	*m = (struct map){ .tgid = tgid, .start = start, .end = end, .pgoff = pgoff, .path = strdup(path) };
	if (!m->path)
		return NULL;
	snprintf(m->bid, sizeof(m->bid), "%s", bid);
	s->nmaps++;
	s->hit = 0;   /* a newer mapping (a later exec's) may hold the last hit's addresses */
	return m;
}

static struct map *find_map(struct scry_syms *s, int tgid, uint64_t addr)
{
	if (s->hit && s->hit <= s->nmaps) {
		struct map *m = &s->maps[s->hit - 1];

		if (m->tgid == tgid && addr >= m->start && addr < m->end)
			return m;
	}
	for (size_t i = s->nmaps; i-- > 0;)   /* the newest first: a later exec's mappings */
		if (s->maps[i].tgid == tgid && addr >= s->maps[i].start && addr < s->maps[i].end) {
			s->hit = i + 1;
			return &s->maps[i];
		}
	return NULL;
}

int scry_syms_load_maps(struct scry_syms *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4608];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		int tgid, n = 0;
		uint64_t a, b, off;
		char bid[129];

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%d %" SCNx64 " %" SCNx64 " %" SCNx64 " %128s %n", &tgid, &a, &b, &off, bid, &n) < 5 || !n)
			continue;
		if (!add_map(s, tgid, a, b, off, line + n, bid)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

bool scry_syms_mapped(struct scry_syms *s, int tgid, uint64_t addr)
{
	return find_map(s, tgid, addr) != NULL;
}

int scry_syms_add_map(struct scry_syms *s, int tgid, uint64_t start, uint64_t end, uint64_t pgoff, const char *path)
{
	struct elf_ent *e = elf_get(s, path);
	char bid[129];

	hex_bid(e ? &e->e : NULL, bid);
	if (!add_map(s, tgid, start, end, pgoff, path, bid))
		return -1;
	keep_elf(s, path, bid);
	return 0;
}

int scry_syms_fork(struct scry_syms *s, int parent, int child)
{
	size_t n = s->nmaps;

	for (size_t i = 0; i < n; i++) {
		struct map m = s->maps[i];   /* add_map may move the array */

		if (m.tgid == parent && !add_map(s, child, m.start, m.end, m.pgoff, m.path, m.bid))
			return -1;
	}
	return 0;
}

void scry_syms_drop(struct scry_syms *s, int tgid)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nmaps; i++) {
		if (s->maps[i].tgid == tgid) {
			free(s->maps[i].path);
			continue;
		}
		s->maps[k++] = s->maps[i];
	}
	s->nmaps = k;
	s->hit = 0;
	if (s->reread[(unsigned)tgid % 256].tgid == tgid)   /* its pid may come back at once */
		s->reread[(unsigned)tgid % 256].tgid = 0;
}

int scry_syms_capture(struct scry_syms *s, int tgid, uint64_t addr, FILE *out)
{
	char path[64], line[4608];
	FILE *f;
	int found = -1;

	if (find_map(s, tgid, addr))
		return 0;
	struct timespec ts;
	uint64_t now = clock_gettime(CLOCK_MONOTONIC, &ts) ? 0 : (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	unsigned slot = (unsigned)tgid % 256;

	/* a miss read moments ago: the address is in no file mapping.  addr 0 (every mapping, as
	 * at a process's first sample or its exec) always reads them and starts no wait: read at
	 * an exec's first sample, before ld.so has mapped the libraries, it must not keep the
	 * next miss (the first sample in libc) from reading them again */
	if (addr && now && s->reread[slot].tgid == tgid && now - s->reread[slot].at < SCRY_MAPS_REREAD_NS)
		return -1;
	if (addr) {
		s->reread[slot].tgid = tgid;
		s->reread[slot].at = now;
	} else if (s->reread[slot].tgid == tgid) {
		s->reread[slot].tgid = 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b, off;
		char perms[8];
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &a, &b, perms, &off, &n) < 4 ||
		    !n || (line[n] != '/' && strcmp(line + n, SCRY_VDSO_NAME)) || !strchr(perms, 'x'))
			continue;
		bool known = false;
		for (size_t i = 0; i < s->nmaps && !known; i++)
			known = s->maps[i].tgid == tgid && s->maps[i].start == a && s->maps[i].end == b &&
				!strcmp(s->maps[i].path, line + n);
		if (!known) {
			struct elf_ent *e = elf_get(s, line + n);
			char bid[129];

			hex_bid(e ? &e->e : NULL, bid);
			if (!add_map(s, tgid, a, b, off, line + n, bid))
				break;
			keep_elf(s, line + n, bid);
			if (out)
				fprintf(out, "%d %" PRIx64 " %" PRIx64 " %" PRIx64 " %s %s\n", tgid, a, b, off, bid,
					line + n);
		}
		if (addr >= a && addr < b)
			found = 0;
	}
	fclose(f);
	if (out)
		fflush(out);
	return found;
}

static void read_kallsyms(struct scry_syms *s)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	size_t cap = 0;

	s->ks_read = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type, name[256];

		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3 || !a ||
		    (type != 't' && type != 'T' && type != 'W' && type != 'w'))
			continue;
		if (s->nks == cap) {
			size_t nc = cap ? 2 * cap : 65536;
			struct ksym *n = realloc(s->ks, nc * sizeof(*n));
			if (!n)
				break;
			s->ks = n;
			cap = nc;
		}
		if (!(s->ks[s->nks].name = strdup(name)))
			break;
		s->ks[s->nks++].addr = a;
	}
	fclose(f);
	for (size_t i = 1; i < s->nks; i++)   /* kallsyms is mostly sorted: insertion sort */
		for (size_t j = i; j > 0 && s->ks[j - 1].addr > s->ks[j].addr; j--) {
			struct ksym t = s->ks[j];
			s->ks[j] = s->ks[j - 1];
			s->ks[j - 1] = t;
		}
}

bool scry_syms_kernel(struct scry_syms *s, uint64_t addr, bool ret_addr, char *buf, size_t len)
{
	uint64_t off;
	const char *name = scry_syms_kernel_name(s, addr, ret_addr, &off);

	if (!name)
		return false;
	snprintf(buf, len, "%s+0x%" PRIx64, name, off);
	return true;
}

/* The function of user address look (mapping *mp, file offset *fo), NULL when none. */
static const struct scry_elf_func *user_func(struct scry_syms *s, int tgid, uint64_t look, struct map **mp,
					     uint64_t *fop)
{
	uint64_t fo, va = 0;
	struct map *m = find_map(s, tgid, look);
	struct elf_ent *e;
	size_t lo = 0, hi;
	bool in_load = false;

	*mp = m;
	if (!m)
		return NULL;
	*fop = fo = look - m->start + m->pgoff;
	if (!(e = elf_of(s, m)))    /* none, or another file at that path now and no copy */
		return NULL;
	for (size_t i = 0; i < e->e.nloads && !in_load; i++)
		if (fo >= e->e.loads[i].offset && fo < e->e.loads[i].offset + e->e.loads[i].memsz) {
			va = e->e.loads[i].vaddr + (fo - e->e.loads[i].offset);
			in_load = true;
		}
	hi = e->e.nfuncs;
	if (!in_load || !hi || !e->by_addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (e->e.funcs[e->by_addr[mid]].addr <= va)
			lo = mid;
		else
			hi = mid;
	}
	const struct scry_elf_func *fn = &e->e.funcs[e->by_addr[lo]];
	if (va < fn->addr || va >= fn->addr + fn->size)   /* sizeless symbols place nothing */
		return NULL;
	*fop = va;   /* from here on: the function's address space */
	return fn;
}

bool scry_syms_user(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, char *buf, size_t len)
{
	uint64_t look = ret_addr ? addr - 1 : addr, va;
	struct map *m;
	const struct scry_elf_func *fn = user_func(s, tgid, look, &m, &va);

	if (!fn)
		return false;
	snprintf(buf, len, "%s+0x%" PRIx64, fn->name, va + (addr - look) - fn->addr);
	return true;
}

void scry_syms_user_strace(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, char *buf, size_t len)
{
	uint64_t look = ret_addr ? addr - 1 : addr, x = 0;
	struct map *m;
	const struct scry_elf_func *fn = user_func(s, tgid, look, &m, &x);

	if (!m)
		snprintf(buf, len, "unexpected_backtracing_error [0x%" PRIx64 "]", addr);
	else if (!fn)
		snprintf(buf, len, "%s() [0x%" PRIx64 "]", m->path, addr - m->start + m->pgoff);
	else
		snprintf(buf, len, "%s(%s+0x%" PRIx64 ") [0x%" PRIx64 "]", m->path, fn->name,
			 x + (addr - look) - fn->addr, addr - m->start + m->pgoff);
}

bool scry_syms_user_info(struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr, struct scry_sym_info *out)
{
	uint64_t look = ret_addr ? addr - 1 : addr, va = 0;
	struct map *m;
	const struct scry_elf_func *fn = user_func(s, tgid, look, &m, &va);

	memset(out, 0, sizeof(*out));
	if (!m)
		return false;
	out->path = m->path;
	out->build_id = strcmp(m->bid, "-") ? m->bid : NULL;
	out->start = m->start;
	out->end = m->end;
	out->pgoff = m->pgoff;
	if (fn) {
		out->func = fn->name;
		out->func_off = va + (addr - look) - fn->addr;
	}
	return true;
}

bool scry_syms_user_file(struct scry_syms *s, int tgid, uint64_t addr, struct scry_sym_file *out)
{
	struct map *m = find_map(s, tgid, addr);
	struct elf_ent *e;
	uint64_t fo;

	if (!m || !(e = elf_of(s, m)))
		return false;
	fo = addr - m->start + m->pgoff;
	for (size_t i = 0; i < e->e.nloads; i++)
		if (fo >= e->e.loads[i].offset && fo < e->e.loads[i].offset + e->e.loads[i].memsz) {
			*out = (struct scry_sym_file){ .path = strcmp(e->path, m->path) ? e->path : file_of(m->path), .start = m->start, .end = m->end,
						       .pgoff = m->pgoff,
						       .bias = addr - (e->e.loads[i].vaddr + fo - e->e.loads[i].offset) };
			return true;
		}
	return false;
}

const char *scry_syms_kernel_name(struct scry_syms *s, uint64_t addr, bool ret_addr, uint64_t *off)
{
	uint64_t look = ret_addr ? addr - 1 : addr;
	size_t lo = 0, hi;

	if (!s->ks_read)
		read_kallsyms(s);
	hi = s->nks;
	if (!hi || look < s->ks[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->ks[mid].addr <= look)
			lo = mid;
		else
			hi = mid;
	}
	if (off)
		*off = addr - s->ks[lo].addr;
	return s->ks[lo].name;
}
