/* uprobe.c — see uprobe.h: a uprobe spec parsed, its binary's functions read (elfsyms.c),
 * the probes it names, and their events: "uprobe_<binary>_<function>" (uretprobe_ at the
 * return; _0x<offset> for FUNC+OFF, the address alone for 0xADDR), every character a CTF
 * identifier cannot hold replaced by '_', the spec resolved kept as model.emf.uri.  Fields:
 * with DWARF (dwarf.h), the parameters located in registers by name and type at a
 * function's entry and its typed return value; without, arg0..arg5 and ret (uint64). */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/dwarf.h"
#include "catalog/elfsyms.h"
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/uprobe.h"
#include "catalog/usdt.h"
#include "util/log.h"

bool scry_uprobe_claims(const char *spec)
{
	return !strncmp(spec, "uprobe:", 7) || !strncmp(spec, "uretprobe:", 10) || !strncmp(spec, "usdt:", 5);
}

/* One field of a probe's event and how the BPF side writes it. */
struct uparam {
	const char *name;
	bool str;
	uint8_t size, base;
	bool is_signed;
	uint8_t reg, shift;
	bool on_stack;                    /* a stack argument at offset stack */
	uint16_t stack;
	bool mem;                         /* a variable in memory at register reg + moff */
	int16_t moff;
	const struct scry_dw_param *dw;   /* typed from DWARF: its enumerators */
};

static struct scry_event *build_event(const char *name, const char *system, const char *tp, const char *uri,
				      const struct uparam *p, unsigned n, struct scry_up_desc *d, unsigned strmax)
{
	struct scry_event *ev = calloc(1, sizeof(*ev));

	memset(d, 0, sizeof(*d));
	if (!ev)
		return NULL;
	ev->kind = SCRY_EV_UPROBE;
	ev->nr = -1;
	ev->name = scry_ctf_ident(name);
	ev->system = strdup(system);
	ev->tp = strdup(tp);
	ev->emf_uri = strdup(uri);
	ev->fields = calloc(n ? n : 1, sizeof(*ev->fields));
	if (!ev->name || !ev->system || !ev->tp || !ev->emf_uri || !ev->fields)
		goto oom;
	for (unsigned i = 0; i < n && i < SCRY_MAX_UP_OPS; i++) {
		struct scry_field *f = &ev->fields[i];

		if (!(f->name = scry_ctf_ident(p[i].name)))
			goto oom;
		ev->nfields++;
		f->type = p[i].str ? SCRY_F_STRING : SCRY_F_INT;
		f->size = p[i].str ? 1 : p[i].size;
		f->is_signed = p[i].is_signed;
		f->base = p[i].base;
		f->length_field = -1;
		f->arg = -1;
		f->ureg = p[i].on_stack || p[i].mem ? -1 : (int8_t)p[i].reg;
		f->ushift = p[i].shift;
		f->umax = (uint16_t)strmax;
		f->src = SCRY_SRC_NONE;
		if (p[i].dw && p[i].dw->nenums && !p[i].str) {
			if (!(f->enums = calloc(p[i].dw->nenums, sizeof(*f->enums))))
				goto oom;
			for (unsigned k = 0; k < p[i].dw->nenums; k++) {
				if (!(f->enums[k].name = strdup(p[i].dw->enums[k].name)))
					goto oom;
				f->enums[k].value = p[i].dw->enums[k].value;
				f->nenums++;
			}
		}
		d->ops[i] = (struct scry_up_op){ .kind = p[i].on_stack ? (p[i].str ? SCRY_UOP_STACK_STR : SCRY_UOP_STACK) :
						 p[i].mem ? (p[i].str ? SCRY_UOP_MEM_STR : SCRY_UOP_MEM) :
						 p[i].str ? SCRY_UOP_USTR : SCRY_UOP_REG, .reg = p[i].reg,
						 .off = p[i].mem ? (uint16_t)p[i].moff : p[i].stack,
						 .size = p[i].size, .shift = p[i].shift,
						 .max = (__u16)strmax };
		d->nops++;
	}
	return ev;
oom:
	scry_event_free(ev);
	return NULL;
}

static void dw_field(struct uparam *p, const struct scry_dw_param *dp)
{
	*p = (struct uparam){ .name = dp->name, .str = dp->kind == SCRY_DW_STR, .size = dp->size,
			      .base = dp->base, .is_signed = dp->is_signed, .reg = (uint8_t)(dp->reg >= 0 ? dp->reg : 0),
			      .on_stack = dp->reg < 0, .stack = (uint16_t)(dp->reg < 0 ? dp->stack : 0),
			      .mem = dp->mem, .moff = (int16_t)dp->moff, .dw = dp };
}

/* Where a probe is, for --fetch: its DWARF and its link-time address (a statement's, or the
 * function's start). */
struct probe_site {
	struct scry_dwarf *dw;
	uint64_t addr;
};

/* --fetch's members by path for the probe at site, appended to p[*n] (the descriptions in
 * fetched[], which must outlive the event's building); what cannot be read is said once. */
static void fetch_fields(struct scry_catalog *cat, const struct probe_site *site, bool stmt, bool ret,
			 const char *uri, bool first, struct uparam *p, unsigned *n, struct scry_dw_param *fetched)
{
	const char *list = scry_catalog_capture(cat)->fetch;
	char expr[256], why[160];

	for (const char *c = list; c && *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] ? 1 : 0)) {
		size_t len = strcspn(c, ",");
		int r;

		snprintf(expr, sizeof(expr), "%.*s", (int)(len < sizeof(expr) ? len : sizeof(expr) - 1), c);
		if (!strpbrk(expr, ".>"))
			continue;      /* a variable by name: recorded as it is */
		if (*n >= SCRY_MAX_UP_OPS) {
			if (first)
				scry_log(SCRY_LOG_INFO, "scry: %s: --fetch %s not recorded: more than %d fields", uri, expr,
					 SCRY_MAX_UP_OPS);
			continue;
		}
		r = scry_dwarf_fetch(site->dw, site->addr, stmt, ret, expr, &fetched[*n], why, sizeof(why));
		if (r == 0) {
			dw_field(&p[*n], &fetched[*n]);
			(*n)++;
		} else if (r < 0 && first)
			scry_log(SCRY_LOG_INFO, "scry: %s: --fetch %s not recorded: %s", uri, expr, why);
		else if (r > 0 && first && !why[0])
			scry_log(SCRY_LOG_INFO, "scry: %s: --fetch %s not recorded: no variable %.*s here", uri, expr,
				 (int)strcspn(expr, "-."), expr);
	}
}

/* The event of one probe: built once per key, then the catalog's.  dwf: the function's
 * DWARF when it has some and the probe is at its entry (or return). */
static int probe_event(struct scry_catalog *cat, struct scry_uprobe *u, const char *suffix,
		       const struct scry_dw_func *dwf, bool quiet, bool stmt, const struct probe_site *site)
{
	static const char *const regs[] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };
	const char *base = strrchr(u->path, '/') ? strrchr(u->path, '/') + 1 : u->path;
	const char *kind = u->ret ? "uretprobe" : "uprobe";
	char name[512], key[4200], uri[4200];
	struct uparam p[SCRY_MAX_UP_OPS];
	char mnames[SCRY_MAX_UP_OPS][112];
	unsigned n = 0, strmax = scry_catalog_capture(cat)->strsize;
	struct scry_event *ev;

	snprintf(name, sizeof(name), "%s_%s_%s", kind, base, suffix);
	snprintf(uri, sizeof(uri), "%s:%s:%s", kind, u->path, suffix);
	snprintf(key, sizeof(key), "%s", uri);
	if (stmt && dwf) {
		/* a statement probe: the variables in scope that DWARF locates at it */
		bool first = !scry_catalog_cached(cat, key);

		for (unsigned i = 0; i < dwf->nparams; i++) {
			const struct scry_dw_param *dp = &dwf->params[i];

			if (dp->kind != SCRY_DW_NONE && n < SCRY_MAX_UP_OPS)
				dw_field(&p[n++], dp);
			else if (first)
				scry_log(SCRY_LOG_INFO, "scry: %s: variable %s (%s) not recorded: %s", uri, dp->name, dp->ctype,
					 dp->kind != SCRY_DW_NONE ? "more than 12 fields" : dp->why);
		}
	} else if (stmt) {
		/* a statement probe without variables: its time and task */
	} else if (dwf && u->ret) {
		const struct scry_dw_param *r = &dwf->ret;

		if (r->kind == SCRY_DW_STRUCT) {
			/* a small struct returned in rax (first eightbyte) and rdx (second): "ret_x" */
			for (unsigned k = 0; k < r->nmembers && n < SCRY_MAX_UP_OPS; k++) {
				snprintf(mnames[n], sizeof(mnames[n]), "ret_%s", r->members[k].name);
				p[n] = (struct uparam){ .name = mnames[n], .size = r->members[k].size,
							.base = r->members[k].base, .is_signed = r->members[k].is_signed,
							.reg = r->members[k].off < 8 ? SCRY_UREG_RET : 2,
							.shift = (uint8_t)(r->members[k].off % 8) };
				n++;
			}
		} else if (r->kind != SCRY_DW_NONE) {
			dw_field(&p[n++], r);
		}
	} else if (dwf) {
		for (unsigned i = 0; i < dwf->nparams; i++) {
			const struct scry_dw_param *dp = &dwf->params[i];

			if (dp->kind == SCRY_DW_STRUCT && n + dp->nmembers <= SCRY_MAX_UP_OPS) {
				/* its members from its eightbytes' registers: "p_x" */
				for (unsigned k = 0; k < dp->nmembers; k++) {
					snprintf(mnames[n], sizeof(mnames[n]), "%s_%s", dp->name, dp->members[k].name);
					p[n] = (struct uparam){ .name = mnames[n], .size = dp->members[k].size,
								.base = dp->members[k].base,
								.is_signed = dp->members[k].is_signed,
								.reg = (uint8_t)(dp->reg + dp->members[k].off / 8),
								.shift = (uint8_t)(dp->members[k].off % 8) };
					n++;
				}
				continue;
			}
			if (dp->kind != SCRY_DW_NONE && dp->kind != SCRY_DW_STRUCT && n < SCRY_MAX_UP_OPS) {
				dw_field(&p[n++], dp);
				continue;
			}
			if (!quiet)
				scry_log(SCRY_LOG_INFO, "scry: %s: parameter %s (%s) not recorded: %s", uri,
					 dp->name, dp->ctype, dp->kind != SCRY_DW_NONE ? "more than 12 fields" : dp->why);
		}
	} else if (u->ret)
		p[n++] = (struct uparam){ .name = "ret", .size = 8, .base = 10, .reg = SCRY_UREG_RET };
	else
		for (int i = 0; i < 6; i++)
			p[n++] = (struct uparam){ .name = regs[i], .size = 8, .base = 10, .reg = (uint8_t)i };
	struct scry_dw_param *fetched = NULL;

	if (site && site->dw && dwf && scry_catalog_capture(cat)->fetch) {
		if (!(fetched = calloc(SCRY_MAX_UP_OPS, sizeof(*fetched))))
			return -ENOMEM;
		fetch_fields(cat, site, stmt, u->ret, uri, !scry_catalog_cached(cat, key), p, &n, fetched);
	}
	strmax = strmax ? strmax + 1 : SCRY_STR_MAX;
	if ((u->ev = scry_catalog_cached(cat, key))) {
		/* the same probe again: its descriptor is rebuilt the same way */
		struct scry_event *tmp = build_event(name, kind, suffix, uri, p, n, &u->desc, strmax);
		scry_event_free(tmp);
		free(fetched);
		return tmp ? 0 : -ENOMEM;
	}
	ev = build_event(name, kind, suffix, uri, p, n, &u->desc, strmax);
	free(fetched);
	if (!ev || !(u->ev = scry_catalog_cache(cat, key, ev)))
		return -ENOMEM;
	return 0;
}

void scry_uprobes_free(struct scry_uprobe *u, size_t n)
{
	for (size_t i = 0; u && i < n; i++) {
		free(u[i].path);
		free(u[i].func);
		free(u[i].provider);
	}
	free(u);
}

/* "did you mean" over the functions of e. */
static void suggest(const struct scry_elf *e, const char *name, char *err, size_t errlen)
{
	const char **all = malloc((e->nfuncs ? e->nfuncs : 1) * sizeof(*all)), *best[3];
	size_t nb, len;

	if (!all)
		return;
	for (size_t i = 0; i < e->nfuncs; i++)
		all[i] = e->funcs[i].name;
	nb = scry_closest(name, all, e->nfuncs, best, 3);
	len = strlen(err);
	if (nb)
		snprintf(err + len, errlen - len, "; did you mean %s%s%s%s%s?", best[0], nb > 1 ? ", " : "",
			 nb > 1 ? best[1] : "", nb > 2 ? ", " : "", nb > 2 ? best[2] : "");
	free(all);
}

/* The variables of a statement at each of its n addresses (its copies): one event serves
 * them all, so a variable is recorded only where every copy has it, located, with the same
 * type; at the others it is left with the reason.  0 or -errno. */
static int stmt_vars(struct scry_dwarf *dw, const uint64_t *addrs, size_t n, struct scry_dw_func *vars)
{
	for (size_t i = 0; i < n; i++)
		scry_dwarf_vars_at(dw, addrs[i], &vars[i]);    /* none: no variables */
	for (unsigned k = 0; k < vars[0].nparams; k++) {
		struct scry_dw_param *p0 = &vars[0].params[k];
		bool everywhere = p0->kind != SCRY_DW_NONE;

		for (size_t i = 1; i < n && everywhere; i++) {
			const struct scry_dw_param *q = NULL;

			for (unsigned j = 0; j < vars[i].nparams && !q; j++)
				if (!strcmp(vars[i].params[j].name, p0->name))
					q = &vars[i].params[j];
			everywhere = q && q->kind == p0->kind && q->size == p0->size && q->is_signed == p0->is_signed;
		}
		if (!everywhere && p0->kind != SCRY_DW_NONE) {
			p0->kind = SCRY_DW_NONE;
			snprintf(p0->why, sizeof(p0->why), "not located at every copy of the line");
		}
	}
	/* every copy lists the first one's variables, in its order */
	for (size_t i = 1; i < n; i++) {
		struct scry_dw_func *tmp = malloc(sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		*tmp = vars[0];
		for (unsigned k = 0; k < tmp->nparams; k++) {
			if (tmp->params[k].kind == SCRY_DW_NONE)
				continue;
			for (unsigned j = 0; j < vars[i].nparams; j++)
				if (!strcmp(vars[i].params[j].name, tmp->params[k].name)) {
					tmp->params[k] = vars[i].params[j];
					break;
				}
		}
		vars[i] = *tmp;
		free(tmp);
	}
	return 0;
}

static int add_probe(struct scry_catalog *cat, struct scry_uprobe **v, size_t *n, const char *path, bool ret,
		     const char *func, uint64_t offset, const char *suffix, const struct scry_dw_func *dwf, bool quiet,
		     bool stmt, const struct probe_site *site)
{
	struct scry_uprobe *nv = realloc(*v, (*n + 1) * sizeof(**v)), *u;

	if (!nv)
		return -ENOMEM;
	*v = nv;
	u = &nv[*n];
	memset(u, 0, sizeof(*u));
	u->ret = ret;
	u->offset = offset;
	if (!(u->path = strdup(path)) || (func && !(u->func = strdup(func)))) {
		free(u->path);
		return -ENOMEM;
	}
	++*n;
	return probe_event(cat, u, suffix, dwf, quiet, stmt, site);
}

/* usdt:PATH:PROVIDER:NAME or usdt:PATH:NAME: one probe per provider:name (libbpf attaches
 * every note of that name), its arguments typed by the operands ("-4@%ebx": int32). */
static int catalog_usdt(struct scry_catalog *cat, const char *spec, struct scry_uprobe **out, size_t *n,
			char *err, size_t errlen)
{
	static const char *const argn[] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6", "arg7" };
	_Static_assert(SCRY_MAX_UP_OPS >= 8, "USDT arguments");
	const char *rest = spec + 5, *c1 = strchr(rest, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *pathspec = NULL, *path = NULL, *prov = NULL, *name = NULL;
	struct scry_usdt_note *notes = NULL;
	size_t nn = 0;
	int rc = -EINVAL;

	if (!c1 || c1 == rest || !c1[1] || (c2 && (c2 == c1 + 1 || !c2[1]))) {
		snprintf(err, errlen, "'%s': expected usdt:PATH:PROVIDER:NAME (or usdt:PATH:NAME)", spec);
		return -EINVAL;
	}
	if (!(pathspec = strndup(rest, (size_t)(c1 - rest))) ||
	    !(prov = c2 ? strndup(c1 + 1, (size_t)(c2 - c1 - 1)) : strdup("")) || !(name = strdup(c2 ? c2 + 1 : c1 + 1))) {
		rc = -ENOMEM;
		goto out;
	}
	if (!(path = scry_elf_find(pathspec, err, errlen)) || scry_usdt_notes(path, &notes, &nn, err, errlen))
		goto out;
	for (size_t i = 0; i < nn; i++) {
		struct scry_usdt_note *u = &notes[i];
		struct uparam p[SCRY_MAX_UP_OPS];
		struct scry_uprobe *nv, *pr;
		char ename[512], uri[4200];
		const char *a = u->args;
		unsigned np = 0;
		bool dup = false;
		struct scry_event *ev;

		if ((*prov && strcmp(prov, u->provider)) || strcmp(name, u->name))
			continue;
		for (size_t k = 0; k < *n && !dup; k++)
			dup = !strcmp((*out)[k].provider, u->provider);
		if (dup)
			continue;
		if (u->nargs > 8) {   /* uprobes.bpf.h reads 8 USDT arguments */
			snprintf(err, errlen, "'%s': %u arguments, more than the 8 scry records", spec, u->nargs);
			goto out;
		}
		for (; np < u->nargs; np++) {
			long sz = 8;

			while (*a == ' ')
				a++;
			if (strchr(a, '@') && (!strchr(a, ' ') || strchr(a, '@') < strchr(a, ' ')))
				sz = strtol(a, NULL, 10);
			p[np] = (struct uparam){ .name = argn[np], .size = (uint8_t)(labs(sz) == 1 || labs(sz) == 2 ||
					labs(sz) == 4 ? labs(sz) : 8), .base = 10, .is_signed = sz < 0, .reg = (uint8_t)np };
			while (*a && *a != ' ')
				a++;
		}
		if (!(nv = realloc(*out, (*n + 1) * sizeof(*nv)))) {
			rc = -ENOMEM;
			goto out;
		}
		*out = nv;
		pr = &nv[*n];
		memset(pr, 0, sizeof(*pr));
		if (!(pr->path = strdup(path)) || !(pr->func = strdup(u->name)) || !(pr->provider = strdup(u->provider))) {
			free(pr->path);
			free(pr->func);
			rc = -ENOMEM;
			goto out;
		}
		++*n;
		snprintf(ename, sizeof(ename), "usdt_%s_%s", u->provider, u->name);
		snprintf(uri, sizeof(uri), "usdt:%s:%s:%s", path, u->provider, u->name);
		if (!(ev = build_event(ename, "usdt", u->name, uri, p, np, &pr->desc, 0))) {
			rc = -ENOMEM;
			goto out;
		}
		for (unsigned k = 0; k < np; k++) {
			pr->desc.ops[k].kind = SCRY_UOP_USDT;
			ev->fields[k].ureg = -1;   /* an operand bpf_usdt_arg reads */
		}
		if ((pr->ev = scry_catalog_cached(cat, uri)))
			scry_event_free(ev);
		else if (!(pr->ev = scry_catalog_cache(cat, uri, ev))) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = 0;
	if (!*n) {
		const char **all = malloc((nn ? nn : 1) * sizeof(*all)), *best[3];
		size_t nb = 0, len;

		snprintf(err, errlen, "no USDT probe %s%s%s in %s%s", prov, *prov ? ":" : "", name, path,
			 nn ? "" : " (it has no .note.stapsdt notes)");
		for (size_t i = 0; all && i < nn; i++)
			all[i] = notes[i].name;
		if (all && nn && (nb = scry_closest(name, all, nn, best, 1))) {
			len = strlen(err);
			snprintf(err + len, errlen - len, "; did you mean %s?", best[0]);
		}
		free(all);
		rc = -ENOENT;
	}
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		scry_uprobes_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	scry_usdt_notes_free(notes, nn);
	free(pathspec);
	free(path);
	free(prov);
	free(name);
	return rc;
}

int scry_catalog_uprobes(struct scry_catalog *cat, const char *spec, struct scry_uprobe **out, size_t *n,
			 char *err, size_t errlen)
{
	bool ret = !strncmp(spec, "uretprobe:", 10);
	const char *rest = spec + (ret ? 10 : 7), *colon = strchr(rest, ':'), *target;
	char *pathspec = NULL, *path = NULL, *func = NULL, suffix[600];
	struct scry_elf e = { 0 };
	struct scry_dwarf *dw = NULL;
	struct scry_dw_func dwf;
	struct scry_uprobe *v = NULL;
	size_t nv = 0;
	int rc = -EINVAL;

	*out = NULL;
	*n = 0;
	if (!strncmp(spec, "usdt:", 5))
		return catalog_usdt(cat, spec, out, n, err, errlen);
	if (!colon || colon == rest || !colon[1]) {
		snprintf(err, errlen, "'%s': expected %s:PATH:FUNCTION (or FUNCTION+OFFSET, 0xADDRESS, a glob)", spec,
			 ret ? "uretprobe" : "uprobe");
		return -EINVAL;
	}
	target = colon + 1;
	if (!(pathspec = strndup(rest, (size_t)(colon - rest)))) {
		rc = -ENOMEM;
		goto out;
	}
	if (!(path = scry_elf_find(pathspec, err, errlen)))
		goto out;
	if (scry_elf_load(&e, path, err, errlen))
		goto out;
	dw = scry_dwarf_open(path, e.build_id, e.build_id_len, suffix, sizeof(suffix));
	if (!strncmp(target, "0x", 2)) {                     /* an address */
		char *end;
		uint64_t addr = strtoull(target, &end, 16);
		int64_t off;

		if (*end || end == target + 2) {
			snprintf(err, errlen, "'%s': invalid address '%s'", spec, target);
			goto out;
		}
		if ((off = scry_elf_offset(&e, addr)) < 0) {
			snprintf(err, errlen, "'%s': address 0x%" PRIx64 " is in no loaded segment of %s", spec, addr, path);
			goto out;
		}
		snprintf(suffix, sizeof(suffix), "0x%" PRIx64, addr);
		rc = add_probe(cat, &v, &nv, path, ret, NULL, (uint64_t)off, suffix, NULL, true, false, NULL);
		goto out;
	}
	const char *lc = strrchr(target, ':');
	if (lc && lc[1] && strspn(lc + 1, "0123456789") == strlen(lc + 1)) {   /* FILE:LINE */
		char *file = strndup(target, (size_t)(lc - target));
		int line = atoi(lc + 1), found = 0;
		uint64_t *addrs = NULL;
		size_t na = 0;

		if (!file) {
			rc = -ENOMEM;
			goto out;
		}
		if (ret) {
			snprintf(err, errlen, "'%s': a uretprobe is set on a function, not on a line", spec);
		} else if (!dw) {
			snprintf(err, errlen, "'%s': %s has no DWARF line table (built without -g?)", spec, path);
		} else if (scry_dwarf_line_addrs(dw, file, line, &addrs, &na, &found)) {
			snprintf(err, errlen, "'%s': no code at %s:%d in %s", spec, file, line, path);
			rc = -ENOENT;
		} else if (found != line) {
			snprintf(err, errlen, "'%s': line %d of %s has no code (the next line with code is %d)", spec,
				 line, file, found);
			rc = -ENOENT;
		} else {
			const char *fb = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

			snprintf(suffix, sizeof(suffix), "%s:%d", fb, line);
			struct scry_dw_func *vars = calloc(na, sizeof(*vars));

			rc = vars ? stmt_vars(dw, addrs, na, vars) : -ENOMEM;
			for (size_t i = 0; i < na && !rc; i++) {
				int64_t off = scry_elf_offset(&e, addrs[i]);

				if (off >= 0)
					rc = add_probe(cat, &v, &nv, path, false, NULL, (uint64_t)off, suffix, &vars[i], true, true,
						       &(struct probe_site){ dw, addrs[i] });
			}
			free(vars);
			if (!rc && !nv) {
				snprintf(err, errlen, "'%s': the code of %s:%d is in no loaded segment", spec, file, line);
				rc = -ENOENT;
			}
		}
		free(addrs);
		free(file);
		goto out;
	}
	if (!e.nfuncs) {
		snprintf(err, errlen, "%s has no function symbols (stripped): probe it by address, uprobe:%s:0xADDRESS",
			 path, pathspec);
		goto out;
	}
	const char *plus = strchr(target, '+');
	if (plus) {                                          /* FUNC+OFFSET */
		const struct scry_elf_func *f;
		char *end;
		uint64_t off;

		if (!(func = strndup(target, (size_t)(plus - target)))) {
			rc = -ENOMEM;
			goto out;
		}
		off = strtoull(plus + 1, &end, 0);
		if (*end || end == plus + 1) {
			snprintf(err, errlen, "'%s': invalid offset '%s'", spec, plus + 1);
			goto out;
		}
		if (!(f = scry_elf_func(&e, func))) {
			snprintf(err, errlen, "no function '%s' in %s", func, path);
			suggest(&e, func, err, errlen);
			rc = -ENOENT;
			goto out;
		}
		if (f->size && off >= f->size) {
			snprintf(err, errlen, "'%s': offset %" PRIu64 " is past the end of %s (%" PRIu64 " bytes)", spec, off,
				 func, f->size);
			goto out;
		}
		if (ret) {
			snprintf(err, errlen, "'%s': a uretprobe is set on a function, not at an offset", spec);
			goto out;
		}
		/* a probe inside an instruction would break the program: only where the line
		 * table says an instruction starts (0xADDR, unchecked, for the rest) */
		if (off && (!dw || !scry_dwarf_addr_is_row(dw, f->addr + off))) {
			snprintf(err, errlen, "'%s': cannot tell that offset %" PRIu64 " of %s starts an instruction (%s): "
				 "give an instruction's address from objdump -d as uprobe:%s:0xADDR (%s is at 0x%" PRIx64 ")",
				 spec, off, func, dw ? "no line table row there" : "no DWARF", pathspec, func, f->addr);
			goto out;
		}
		snprintf(suffix, sizeof(suffix), "%s+0x%" PRIx64, func, off);
		rc = add_probe(cat, &v, &nv, path, ret, func, f->offset + off, suffix,
			       off == 0 && dw && !scry_dwarf_func(dw, f->addr, &dwf) ? &dwf : NULL, false, false,
			       &(struct probe_site){ dw, f->addr });
		goto out;
	}
	bool glob = strpbrk(target, "*?[") != NULL;
	size_t matches = 0;

	for (size_t i = 0; i < e.nfuncs; i++)
		if (glob ? !fnmatch(target, e.funcs[i].name, 0) : !strcmp(target, e.funcs[i].name))
			matches++;
	/* the entry point is jumped to, not called: its "return address" is argc, which a
	 * uretprobe would overwrite */
	if (ret && !glob && matches && scry_elf_func(&e, target)->addr == e.entry && e.entry) {
		snprintf(err, errlen, "'%s': %s is the entry point of %s, never called nor returned from "
			 "(a uretprobe would overwrite argc)", spec, target, path);
		goto out;
	}
	if (!matches) {
		snprintf(err, errlen, "no function %s '%s' in %s", glob ? "matches" : "named", target, path);
		if (!glob)
			suggest(&e, target, err, errlen);
		rc = -ENOENT;
		goto out;
	}
	if (matches > SCRY_UPROBE_GLOB_MAX) {
		snprintf(err, errlen, "'%s' matches %zu functions of %s, more than the %d one spec may probe "
			 "(one uprobe each): narrow the glob", spec, matches, path, SCRY_UPROBE_GLOB_MAX);
		rc = -ERANGE;
		goto out;
	}
	for (size_t i = 0; i < e.nfuncs; i++) {
		const struct scry_elf_func *f = &e.funcs[i];
		bool dup = false;

		if ((glob ? fnmatch(target, f->name, 0) : strcmp(target, f->name)) || (ret && f->addr == e.entry))
			continue;
		/* aliases (two names at one address) are probed once: the first name */
		for (size_t k = 0; k < nv && !dup; k++)
			dup = v[k].offset == f->offset;
		if (dup)
			continue;
		if ((rc = add_probe(cat, &v, &nv, path, ret, f->name, f->offset, f->name,
				    dw && !scry_dwarf_func(dw, f->addr, &dwf) ? &dwf : NULL, glob, false,
				    &(struct probe_site){ dw, f->addr })))
			goto out;
	}
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		scry_uprobes_free(v, nv);
	} else {
		*out = v;
		*n = nv;
	}
	scry_elf_free(&e);
	scry_dwarf_close(dw);
	free(pathspec);
	free(path);
	free(func);
	return rc;
}

int scry_uprobe_list(const char *spec, scry_uprobe_list_fn fn, void *ctx, size_t *found, char *err, size_t errlen)
{
	const char *rest = spec + (strncmp(spec, "uretprobe:", 10) ? 7 : 10), *colon = strchr(rest, ':');
	char *pathspec = colon ? strndup(rest, (size_t)(colon - rest)) : strdup(rest), *path = NULL, why[256];
	const char *glob = colon && colon[1] ? colon + 1 : "*";
	struct scry_elf e = { 0 };
	struct scry_dwarf *dw = NULL;
	struct scry_dw_func dwf;
	int rc = -EINVAL;

	*found = 0;
	if (!pathspec) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!*pathspec) {
		snprintf(err, errlen, "'%s': expected uprobe:PATH[:GLOB]", spec);
		goto out;
	}
	if (!(path = scry_elf_find(pathspec, err, errlen)) || scry_elf_load(&e, path, err, errlen))
		goto out;
	dw = scry_dwarf_open(path, e.build_id, e.build_id_len, why, sizeof(why));
	for (size_t i = 0; i < e.nfuncs; i++) {
		if (fnmatch(glob, e.funcs[i].name, 0))
			continue;
		++*found;
		fn(ctx, path, e.funcs[i].name, e.funcs[i].addr,
		   dw && !scry_dwarf_func(dw, e.funcs[i].addr, &dwf) ? &dwf : NULL);
	}
	rc = 0;
	if (!*found) {
		snprintf(err, errlen, "no function matches '%s' in %s%s", glob, path,
			 e.nfuncs ? "" : " (it has no function symbols: stripped)");
		rc = -ENOENT;
	}
out:
	scry_elf_free(&e);
	scry_dwarf_close(dw);
	free(pathspec);
	free(path);
	return rc;
}

int scry_uprobe_list_lines(const char *spec, scry_uprobe_line_fn fn, void *ctx, size_t *found, char *err,
			   size_t errlen)
{
	const char *rest = spec + 7, *c1 = strchr(rest, ':'), *c2 = c1 ? strrchr(c1 + 1, ':') : NULL;
	char *pathspec = NULL, *path = NULL, *file = NULL, why[256];
	struct scry_elf e = { 0 };
	struct scry_dwarf *dw = NULL;
	int *lines = NULL, rc = -EINVAL;
	unsigned *naddrs = NULL;
	size_t n = 0;

	*found = 0;
	if (!c1 || !c2 || c2 == c1 + 1) {
		snprintf(err, errlen, "'%s': expected uprobe:PATH:FILE:LINE-GLOB", spec);
		return -EINVAL;
	}
	if (!(pathspec = strndup(rest, (size_t)(c1 - rest))) || !(file = strndup(c1 + 1, (size_t)(c2 - c1 - 1)))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (!(path = scry_elf_find(pathspec, err, errlen)) || scry_elf_load(&e, path, err, errlen))
		goto out;
	if (!(dw = scry_dwarf_open(path, e.build_id, e.build_id_len, why, sizeof(why)))) {
		snprintf(err, errlen, "%s has no DWARF line table (built without -g?)", path);
		goto out;
	}
	if (scry_dwarf_file_lines(dw, file, &lines, &naddrs, &n)) {
		snprintf(err, errlen, "no line of %s has code in %s", file, path);
		rc = -ENOENT;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%d", lines[i]);
		if (fnmatch(c2 + 1, num, 0))
			continue;
		++*found;
		fn(ctx, path, file, lines[i], naddrs[i]);
	}
	rc = 0;
	if (!*found) {
		snprintf(err, errlen, "no line of %s matching '%s' has code in %s", file, c2 + 1, path);
		rc = -ENOENT;
	}
out:
	free(lines);
	free(naddrs);
	scry_elf_free(&e);
	scry_dwarf_close(dw);
	free(pathspec);
	free(path);
	free(file);
	return rc;
}
