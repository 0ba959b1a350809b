/* collect.c — the kernel's counts and the unwound samples' tally to a profile (see
 * collect.h).  Each stack is symbolized once: kernel stacks by id, user stacks by (process,
 * id), an unwound user stack once per tally entry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/dwarf.h"
#include "profile/collect.h"

#ifndef EFAULT
#define EFAULT 14
#endif

struct span {
	uint64_t key;            /* 0: empty slot */
	uint32_t first, n;       /* into frames */
};

#define MAX_INLINE 16             /* source frames kept per address */

struct dwfile {                  /* a file's DWARF, opened once (d NULL: it has none) */
	char *path;
	struct scry_dwarf *d;
};

struct collector {
	struct scry_prof_symopts o;
	struct dwfile *dws;
	size_t ndws;
	struct scry_profiler *k;
	struct scry_syms *syms;
	struct scry_prof *p;
	struct span *memo;       /* stacks already symbolized */
	size_t cap, used;
	uint32_t *frames;
	size_t nframes, capframes;
	uint32_t kmap;           /* the kernel's mapping + 1 */
	int *reread;             /* processes whose mappings were read again for an address */
	size_t nreread;
	uint64_t addrs[SCRY_PROF_MAX_DEPTH];
};

static struct span *memo_slot(struct collector *c, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;

	for (size_t i = (h ^ (h >> 31)) & (c->cap - 1);; i = (i + 1) & (c->cap - 1))
		if (!c->memo[i].key || c->memo[i].key == key)
			return &c->memo[i];
}

static int memo_fit(struct collector *c)
{
	struct span *old = c->memo;
	size_t oc = c->cap;

	if (2 * (c->used + 1) <= c->cap)
		return 0;
	c->cap = oc ? 2 * oc : 1024;
	if (!(c->memo = calloc(c->cap, sizeof(*c->memo)))) {
		c->memo = old;
		c->cap = oc;
		return -ENOMEM;
	}
	for (size_t i = 0; i < oc; i++)
		if (old[i].key)
			*memo_slot(c, old[i].key) = old[i];
	free(old);
	return 0;
}

static int push(struct collector *c, uint32_t f)
{
	if (f == UINT32_MAX)
		return -ENOMEM;
	if (c->nframes == c->capframes) {
		size_t nc = c->capframes ? 2 * c->capframes : 4096;
		uint32_t *n = realloc(c->frames, nc * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->frames = n;
		c->capframes = nc;
	}
	c->frames[c->nframes++] = f;
	return 0;
}

static uint32_t named(struct collector *c, const char *name, uint32_t mapping, uint64_t addr, bool kernel)
{
	struct scry_prof_frame f = { .name = scry_prof_str(c->p, name), .mapping = mapping, .addr = addr,
				     .kernel = kernel };

	return f.name == UINT32_MAX ? UINT32_MAX : scry_prof_frame(c->p, &f);
}

/* An off-CPU stack is taken in the BPF program on the scheduler's tracepoint: its first
 * frames are the program and the tracepoint's caller, not where the thread blocked. */
static bool bpf_machinery(const char *name)
{
	return name && (!strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trace_run", 13) ||
			!strncmp(name, "__bpf_trace_", 12) || !strncmp(name, "__traceiter_", 12));
}

static int kernel_frames(struct collector *c, unsigned n)
{
	bool lead = c->p->offcpu;

	for (unsigned i = 0; i < n; i++) {
		const char *name = scry_syms_kernel_name(c->syms, c->addrs[i], i > 0, NULL);
		int r;

		if (lead && bpf_machinery(name))
			continue;
		lead = false;
		if ((r = push(c, named(c, name ? name : "[unknown]", c->kmap, c->addrs[i], true))))
			return r;
	}
	return 0;
}

/* The mappings of tgid read again (once per collection) when an address is in none. */
static bool reread(struct collector *c, int tgid, uint64_t addr)
{
	for (size_t i = 0; i < c->nreread; i++)
		if (c->reread[i] == tgid)
			return false;
	int *n = realloc(c->reread, (c->nreread + 1) * sizeof(*n));
	if (!n)
		return false;
	c->reread = n;
	c->reread[c->nreread++] = tgid;
	return scry_syms_capture(c->syms, tgid, addr, NULL) == 0;
}

/* The DWARF of the file at path (build id hex, or NULL), opened at its first use. */
static struct scry_dwarf *dwarf_of(struct collector *c, const char *path, const char *bid)
{
	uint8_t id[64];
	size_t idlen = 0;
	char why[256];
	struct dwfile *n;

	for (size_t i = 0; i < c->ndws; i++)
		if (!strcmp(c->dws[i].path, path))
			return c->dws[i].d;
	if (!(n = realloc(c->dws, (c->ndws + 1) * sizeof(*n))))
		return NULL;
	c->dws = n;
	for (; bid && bid[2 * idlen] && bid[2 * idlen + 1] && idlen < sizeof(id); idlen++)
		sscanf(bid + 2 * idlen, "%2hhx", &id[idlen]);
	n = &c->dws[c->ndws];
	if (!(n->path = strdup(path)))
		return NULL;
	n->d = scry_dwarf_open(path, id, idlen, why, sizeof(why));
	c->ndws++;
	return n->d;
}

/* The source frames of a user address (look: the address itself, or a return address minus
 * one) from its file's DWARF, pushed leaf first: each inlined copy (with --inline) and the
 * function, named by the symbol table's sym when there is one (perf's names), else DWARF's;
 * with --lines each name followed by (file:line), the function, file and line kept apart
 * too (pprof's).  0 frames pushed when DWARF has none. */
static int source_frames(struct collector *c, int tgid, uint64_t look, uint64_t addr, const char *sym,
			 const struct scry_sym_info *si, uint32_t map, unsigned *pushed)
{
	struct scry_dw_frame fr[MAX_INLINE];
	struct scry_sym_file f;
	struct scry_dwarf *d;
	unsigned n, from;
	char buf[512];

	*pushed = 0;
	if (!scry_syms_user_file(c->syms, tgid, look, &f) || !(d = dwarf_of(c, f.path, si->build_id)) ||
	    !(n = scry_dwarf_frames(d, look - f.bias, fr, MAX_INLINE)))
		return 0;
	from = c->o.inline_frames ? 0 : n - 1;
	for (unsigned j = from; j < n; j++) {
		const char *name = j == n - 1 && sym ? sym : fr[j].name;
		const char *b = strrchr(fr[j].file, '/');
		int r;

		if (!*name)
			name = sym ? sym : "[unknown]";
		if (c->o.lines && fr[j].line)
			snprintf(buf, sizeof(buf), "%s (%s:%d)", name, b ? b + 1 : fr[j].file, fr[j].line);
		else
			snprintf(buf, sizeof(buf), "%s", name);
		struct scry_prof_frame pf = { .name = scry_prof_str(c->p, buf), .mapping = map, .addr = addr,
					     .inlined = j < n - 1 };
		uint32_t id;

		if (c->o.lines && fr[j].line) {   /* pprof's Line and Function: not in the name */
			uint32_t fn = scry_prof_str(c->p, name), file = scry_prof_str(c->p, fr[j].file);

			if (fn == UINT32_MAX || file == UINT32_MAX)
				return -ENOMEM;
			pf.func = fn + 1;
			pf.file = file + 1;
			pf.line = (uint32_t)fr[j].line;
		}
		if (pf.name == UINT32_MAX || (id = scry_prof_frame(c->p, &pf)) == UINT32_MAX)
			return -ENOMEM;
		if ((r = push(c, id)))
			return r;
		(*pushed)++;
	}
	return 0;
}

static int user_frames(struct collector *c, int tgid, const uint64_t *addrs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct scry_sym_info si;
		char buf[512];
		const char *name = "[unknown]";
		uint32_t map = 0;
		bool ok = scry_syms_user_info(c->syms, tgid, addrs[i], i > 0, &si);

		if (!ok && reread(c, tgid, addrs[i]))
			ok = scry_syms_user_info(c->syms, tgid, addrs[i], i > 0, &si);
		if (ok) {
			struct scry_prof_mapping m = {
				.path = scry_prof_str(c->p, si.path),
				.build_id = scry_prof_str(c->p, si.build_id ? si.build_id : ""),
				.start = si.start, .limit = si.end, .pgoff = si.pgoff,
			};

			if (m.path == UINT32_MAX || m.build_id == UINT32_MAX ||
			    (map = scry_prof_mapping(c->p, &m)) == UINT32_MAX)
				return -ENOMEM;
			map++;
			if (!si.func || c->o.inline_frames || c->o.lines) {
				unsigned pushed;
				int r = source_frames(c, tgid, i > 0 ? addrs[i] - 1 : addrs[i], addrs[i], si.func, &si,
						      map, &pushed);

				if (r)
					return r;
				if (pushed)
					continue;
			}
			if (si.func) {
				name = si.func;
			} else {          /* perf's way: the file's name when no symbol holds it */
				const char *b = strrchr(si.path, '/');
				snprintf(buf, sizeof(buf), "[%s]", b ? b + 1 : si.path);
				name = buf;
			}
		}
		int r = push(c, named(c, name, map, addrs[i], false));
		if (r)
			return r;
	}
	return 0;
}

/* The frames of stack id (kernel, or user of tgid), symbolized once: *first, *n in c->frames. */
static int stack(struct collector *c, int32_t id, bool kernel, int tgid, uint32_t *first, uint32_t *n)
{
	uint64_t key = kernel ? (1ULL << 63) | (uint32_t)id : ((uint64_t)(uint32_t)tgid << 32 | (uint32_t)id) + 1;
	struct span *s;
	unsigned depth;
	int r;

	*first = (uint32_t)c->nframes;
	*n = 0;
	if (id < 0) {
		if (id == -EFAULT)    /* no such stack: a user-mode sample's kernel side, a kernel thread's user side */
			return 0;
		*n = 1;
		return push(c, named(c, kernel ? "[lost kernel stack]" : "[lost user stack]", 0, 0, kernel));
	}
	if (memo_fit(c))
		return -ENOMEM;
	s = memo_slot(c, key);
	if (s->key) {
		*first = s->first;
		*n = s->n;
		return 0;
	}
	depth = scry_profiler_stack(c->k, id, c->addrs);
	if ((r = kernel ? kernel_frames(c, depth) : user_frames(c, tgid, c->addrs, depth)))
		return r;
	s = memo_slot(c, key);
	*s = (struct span){ .key = key, .first = *first, .n = (uint32_t)(c->nframes - *first) };
	*n = s->n;
	c->used++;
	return 0;
}

/* A sample: the kernel frames (kf, kn) then the user frames (uf, un), of c->frames. */
static int add(struct collector *c, uint32_t pid, uint32_t tgid, const char *comm16, uint64_t count, uint32_t kf,
	       uint32_t kn, uint32_t uf, uint32_t un)
{
	char comm[SCRY_PROF_COMM + 1];
	uint32_t *fr;
	int r;

	if (!(fr = malloc((kn + un + 1) * sizeof(*fr))))
		return -ENOMEM;
	memcpy(fr, c->frames + kf, kn * sizeof(*fr));
	memcpy(fr + kn, c->frames + uf, un * sizeof(*fr));
	memcpy(comm, comm16, SCRY_PROF_COMM);
	comm[SCRY_PROF_COMM] = 0;
	r = scry_prof_add(c->p, pid, tgid, comm, count, fr, kn + un);
	free(fr);
	return r;
}

static int one(void *ctx, const struct scry_prof_key *key, uint64_t count)
{
	struct collector *c = ctx;
	uint32_t kf, kn, uf, un;
	int r;

	if ((r = stack(c, key->kstack, true, (int)key->tgid, &kf, &kn)) ||
	    (r = stack(c, key->ustack, false, (int)key->tgid, &uf, &un)))
		return r;
	if (c->p->offcpu)            /* nanoseconds blocked: microseconds, as offcputime writes them */
		count = count >= 1000 ? (count + 500) / 1000 : 1;
	return add(c, key->pid, key->tgid, key->comm, count, kf, kn, uf, un);
}

/* An unwound sample of the tally: its kernel stack by id, its user frames as they are. */
static int one_unwound(struct collector *c, const struct scry_tally *t, const struct scry_tally_entry *e)
{
	uint32_t kf, kn, uf = 0, un;
	int r;

	if ((r = stack(c, e->kstack, true, (int)e->tgid, &kf, &kn)))
		return r;
	uf = (uint32_t)c->nframes;
	if ((r = user_frames(c, (int)e->tgid, scry_tally_ips(t, e), e->n)))
		return r;
	un = (uint32_t)c->nframes - uf;
	return add(c, e->pid, e->tgid, e->comm, e->count, kf, kn, uf, un);
}

int scry_prof_collect(struct scry_profiler *k, struct scry_syms *syms, const struct scry_tally *t,
		      const struct scry_prof_symopts *o, struct scry_prof *p, char *err, size_t errlen)
{
	struct collector c = { .k = k, .syms = syms, .p = p, .o = o ? *o : (struct scry_prof_symopts){ 0 } };
	struct scry_prof_mapping km = { .path = scry_prof_str(p, "[kernel.kallsyms]"), .build_id = scry_prof_str(p, ""),
					.start = 0xffff800000000000ULL, .limit = UINT64_MAX };
	int r = -ENOMEM;

	if (km.path != UINT32_MAX && km.build_id != UINT32_MAX && (c.kmap = scry_prof_mapping(p, &km)) != UINT32_MAX) {
		c.kmap++;
		r = scry_profiler_counts(k, one, &c);
	}
	for (size_t i = 0; !r && t && i < t->n; i++)
		r = one_unwound(&c, t, &t->e[i]);
	if (r)
		snprintf(err, errlen, "cannot read the profile's counts: %s", strerror(-r));
	free(c.memo);
	free(c.frames);
	free(c.reread);
	for (size_t i = 0; i < c.ndws; i++) {
		scry_dwarf_close(c.dws[i].d);
		free(c.dws[i].path);
	}
	free(c.dws);
	return r;
}
