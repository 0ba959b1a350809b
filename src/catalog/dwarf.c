/* dwarf.c — see dwarf.h: parameters and return types of probed functions through libdw:
 * opening a binary's DWARF, the function at an address and its parameters by the calling
 * convention, the line tables (statement probes' addresses), the variables in scope at an
 * address, and --fetch member paths.  What a value's type and location make of it as a field:
 * dwarf_value.c. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/dwarf_int.h"
#include "scry_abi.h"

static Dwarf *try_open(const char *path, int *fd)
{
	Dwarf *dw;

	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (!(dw = dwarf_begin(*fd, DWARF_C_READ))) {
		close(*fd);
		*fd = -1;
	}
	return dw;
}

struct scry_dwarf *scry_dwarf_open(const char *path, const uint8_t *build_id, size_t idlen, char *why, size_t whylen)
{
	struct scry_dwarf *d = calloc(1, sizeof(*d));
	char dbg[256];
	size_t n;

	if (!d) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if ((d->dw = try_open(path, &d->fd)))
		return d;
	if (idlen >= 2) {
		n = (size_t)snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", build_id[0]);
		for (size_t i = 1; i < idlen && n + 3 < sizeof(dbg); i++)
			n += (size_t)snprintf(dbg + n, sizeof(dbg) - n, "%02x", build_id[i]);
		snprintf(dbg + n, sizeof(dbg) - n, ".debug");
		if ((d->dw = try_open(dbg, &d->fd)))
			return d;
	}
	snprintf(why, whylen, "%s has no DWARF (nor separate debug info by build id)", path);
	free(d);
	return NULL;
}

void scry_dwarf_close(struct scry_dwarf *d)
{
	if (!d)
		return;
	dwarf_end(d->dw);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

struct find_ctx {
	uint64_t addr;
	Dwarf_Die found;
	bool ok;
};

static int find_cb(Dwarf_Die *f, void *arg)
{
	struct find_ctx *c = arg;
	Dwarf_Addr lo;

	if (dwarf_lowpc(f, &lo) == 0 && lo == c->addr) {
		c->found = *f;
		c->ok = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int scry_dwarf_func(struct scry_dwarf *d, uint64_t addr, struct scry_dw_func *out)
{
	struct find_ctx c = { .addr = addr };
	Dwarf_Die cu, child, t;
	int gprs, next = 0, stack = 0, mem, align;

	memset(out, 0, sizeof(*out));
	if (dwarf_addrdie(d->dw, addr, &cu))
		dwarf_getfuncs(&cu, find_cb, &c, 0);
	if (!c.ok) {                       /* no aranges: every CU */
		Dwarf_Off off = 0, noff;
		size_t hsize;

		while (!c.ok && dwarf_nextcu(d->dw, off, &noff, &hsize, NULL, NULL, NULL) == 0) {
			if (dwarf_offdie(d->dw, off + hsize, &cu))
				dwarf_getfuncs(&cu, find_cb, &c, 0);
			off = noff;
		}
	}
	if (!c.ok)
		return -1;
	scry_dw_classify_mem(scry_dw_type_of(&c.found, &t) ? &t : NULL, &out->ret, &gprs, &mem, &align);
	snprintf(out->ret.name, sizeof(out->ret.name), "ret");
	out->ret.reg = out->ret.kind == SCRY_DW_NONE ? -1 : SCRY_UREG_RET;
	if (out->ret.kind == SCRY_DW_NONE && gprs)   /* a small struct returned in rax:rdx */
		snprintf(out->ret.why, sizeof(out->ret.why), "a struct returned by value: not recorded");
	if (mem && !strncmp(out->ret.ctype, "struct ", 7)) {
		/* a larger struct is returned through a hidden pointer in rdi: the parameters
		 * start at rsi */
		snprintf(out->ret.why, sizeof(out->ret.why), "a struct of more than 16 bytes: returned in memory");
		next = 1;
	}
	if (dwarf_child(&c.found, &child))
		return 0;
	do {
		struct scry_dw_param *p;
		const char *name;

		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			out->variadic = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter || out->nparams >= SCRY_DW_MAX_PARAMS)
			continue;
		p = &out->params[out->nparams++];
		name = dwarf_diename(&child);
		snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
		if (!name)
			snprintf(p->name, sizeof(p->name), "arg%u", out->nparams - 1);
		scry_dw_classify_mem(scry_dw_type_of(&child, &t) ? &t : NULL, p, &gprs, &mem, &align);
		p->reg = -1;
		if (mem) {                      /* on the stack whatever the registers */
			stack = (stack + align - 1) / align * align + mem;
			continue;
		}
		if (gprs && next + gprs > 6) {
			/* the whole argument goes to the stack; later ones may still fit */
			if (p->kind == SCRY_DW_INT || p->kind == SCRY_DW_STR) {
				p->stack = stack;
			} else {
				p->kind = SCRY_DW_NONE;
				snprintf(p->why, sizeof(p->why), "past the six integer registers: passed on the stack");
			}
			stack += gprs * 8;
			continue;
		}
		if (p->kind != SCRY_DW_NONE)
			p->reg = next;
		next += gprs;
	} while (!dwarf_siblingof(&child, &child));
	return 0;
}

/* Does a line table's file name match file (a base name, or the tail of a path)? */
static bool file_matches(const char *src, const char *file)
{
	size_t ls = strlen(src), lf = strlen(file);
	const char *base = strrchr(src, '/');

	if (!strchr(file, '/'))
		return !strcmp(base ? base + 1 : src, file);
	return ls >= lf && !strcmp(src + ls - lf, file) && (ls == lf || src[ls - lf - 1] == '/');
}

struct line_addr { int line; uint64_t addr; };

static int cmp_line_addr(const void *a, const void *b)
{
	const struct line_addr *x = a, *y = b;

	if (x->line != y->line)
		return (x->line > y->line) - (x->line < y->line);
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Every statement row of file at or after line min_line, in every CU (inlined copies too),
 * sorted by line then address: *rows (free it) and *n.  -1: none, or out of memory. */
static int file_rows(struct scry_dwarf *d, const char *file, int min_line, struct line_addr **rows, size_t *n)
{
	struct line_addr *v = NULL;
	size_t nv = 0, cap = 0;
	Dwarf_Off off = 0, noff;
	size_t hsize;

	for (; dwarf_nextcu(d->dw, off, &noff, &hsize, NULL, NULL, NULL) == 0; off = noff) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;

		if (!dwarf_offdie(d->dw, off + hsize, &cu) || dwarf_getsrclines(&cu, &lines, &nl))
			continue;
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
			bool stmt = false, end = false;
			Dwarf_Addr a;
			int ln;

			if (!src || dwarf_lineno(l, &ln) || ln < min_line || dwarf_linebeginstatement(l, &stmt) ||
			    !stmt || dwarf_lineendsequence(l, &end) || end || dwarf_lineaddr(l, &a) ||
			    !file_matches(src, file))
				continue;
			if (nv == cap) {
				struct line_addr *nvv = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
				if (!nvv) {
					free(v);
					return -1;
				}
				v = nvv;
			}
			v[nv++] = (struct line_addr){ ln, a };
		}
	}
	if (!nv) {
		free(v);
		return -1;
	}
	qsort(v, nv, sizeof(*v), cmp_line_addr);
	*rows = v;
	*n = nv;
	return 0;
}

int scry_dwarf_line_addrs(struct scry_dwarf *d, const char *file, int line, uint64_t **addrs, size_t *n,
			  int *found_line)
{
	struct line_addr *v;
	size_t nv, k = 0;
	uint64_t *out;

	*addrs = NULL;
	*n = 0;
	/* the first line at or after `line` that has statement rows: every address of it */
	if (file_rows(d, file, line, &v, &nv))
		return -1;
	if (!(out = calloc(nv, sizeof(*out)))) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < nv && v[i].line == v[0].line; i++)
		if (!k || out[k - 1] != v[i].addr)
			out[k++] = v[i].addr;
	*found_line = v[0].line;
	free(v);
	*addrs = out;
	*n = k;
	return 0;
}

int scry_dwarf_file_lines(struct scry_dwarf *d, const char *file, int **lines_out, unsigned **naddrs, size_t *n)
{
	struct line_addr *v;
	size_t nv, k = 0;

	*lines_out = NULL;
	*naddrs = NULL;
	*n = 0;
	if (file_rows(d, file, 1, &v, &nv))
		return -1;
	*lines_out = calloc(nv, sizeof(int));
	*naddrs = calloc(nv, sizeof(unsigned));
	if (!*lines_out || !*naddrs) {
		free(*lines_out);
		free(*naddrs);
		free(v);
		return -1;
	}
	for (size_t i = 0; i < nv; i++) {
		if (i && v[i].line == v[i - 1].line && v[i].addr == v[i - 1].addr)
			continue;
		if (!k || (*lines_out)[k - 1] != v[i].line)
			(*lines_out)[k++] = v[i].line;
		(*naddrs)[k - 1]++;
	}
	free(v);
	*n = k;
	return 0;
}

bool scry_dwarf_addr_is_row(struct scry_dwarf *d, uint64_t addr)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t nl;

	if (!dwarf_addrdie(d->dw, addr, &cu) || dwarf_getsrclines(&cu, &lines, &nl))
		return false;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;

		if (l && !dwarf_lineaddr(l, &a) && a == addr)
			return true;
	}
	return false;
}

/* ---- statement probes: the variables in scope (where each is: dwarf_value.c) ------------- */

int scry_dwarf_vars_at(struct scry_dwarf *d, uint64_t addr, struct scry_dw_func *out)
{
	Dwarf_Die cu, *scopes = NULL, *func = NULL;
	int ns;

	memset(out, 0, sizeof(*out));
	if (!dwarf_addrdie(d->dw, addr, &cu) || (ns = dwarf_getscopes(&cu, addr, &scopes)) <= 0)
		return -1;
	for (int i = 0; i < ns && !func; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			func = &scopes[i];
	for (int i = 0; i < ns; i++) {
		Dwarf_Die child;
		int tag = dwarf_tag(&scopes[i]);

		if (!dwarf_child(&scopes[i], &child)) {
			do {
				int ct = dwarf_tag(&child), gprs, mem, align;
				const char *name = dwarf_diename(&child);
				struct scry_dw_param *p;
				Dwarf_Die t;
				bool seen = false;

				if ((ct != DW_TAG_variable && ct != DW_TAG_formal_parameter) || !name ||
				    out->nparams >= SCRY_DW_MAX_PARAMS)
					continue;
				for (unsigned k = 0; k < out->nparams && !seen; k++)
					seen = !strcmp(out->params[k].name, name);   /* an inner one hides it */
				if (seen)
					continue;
				p = &out->params[out->nparams++];
				snprintf(p->name, sizeof(p->name), "%s", name);
				scry_dw_classify_mem(scry_dw_type_of(&child, &t) ? &t : NULL, p, &gprs, &mem, &align);
				p->stack = -1;
				if (p->kind == SCRY_DW_STRUCT) {
					p->kind = SCRY_DW_NONE;
					snprintf(p->why, sizeof(p->why), "a struct (its members by path: not read yet)");
				}
				if (p->kind != SCRY_DW_NONE)
					scry_dw_var_location(d, &child, func, addr, p);
				else
					p->reg = -1;
			} while (!dwarf_siblingof(&child, &child));
		}
		/* the innermost function (or inlined copy of one) ends the scope */
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			break;
	}
	free(scopes);
	return 0;
}

/* ---- --fetch: members by path ------------------------------------------------------------ */

/* The function DIE whose code starts at addr. */
static bool func_at(struct scry_dwarf *d, uint64_t addr, Dwarf_Die *out)
{
	struct find_ctx c = { .addr = addr };
	Dwarf_Die cu;

	if (dwarf_addrdie(d->dw, addr, &cu))
		dwarf_getfuncs(&cu, find_cb, &c, 0);
	if (c.ok)
		*out = c.found;
	return c.ok;
}

int scry_dwarf_fetch(struct scry_dwarf *d, uint64_t addr, bool stmt, bool ret, const char *path,
		     struct scry_dw_param *out, char *why, size_t whylen)
{
	char root[64];
	size_t rl = strcspn(path, "-.");
	const char *s = path + rl;
	Dwarf_Die die, t, pt, func;
	struct scry_dw_param loc = { .reg = -1 };
	bool have_type = false;
	int gprs, mem, align;

	memset(out, 0, sizeof(*out));
	why[0] = 0;
	if (!rl || rl >= sizeof(root)) {
		snprintf(why, whylen, "expected VARIABLE->MEMBER or VARIABLE.MEMBER");
		return -1;
	}
	snprintf(root, sizeof(root), "%.*s", (int)rl, path);
	/* the root: a variable in scope at a statement, a parameter at a function's entry
	 * (its register by the calling convention), the return value at a uretprobe */
	if (stmt) {
		Dwarf_Die cu, *scopes = NULL, *fn = NULL;
		int ns;
		bool found = false;

		if (!dwarf_addrdie(d->dw, addr, &cu) || (ns = dwarf_getscopes(&cu, addr, &scopes)) <= 0)
			return 1;
		for (int i = 0; i < ns && !fn; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
				fn = &scopes[i];
		for (int i = 0; i < ns && !found; i++) {
			Dwarf_Die c;
			int tag = dwarf_tag(&scopes[i]);

			if (!dwarf_child(&scopes[i], &c))
				do {
					const char *n = dwarf_diename(&c);
					int ct = dwarf_tag(&c);

					if ((ct == DW_TAG_variable || ct == DW_TAG_formal_parameter) && n && !strcmp(n, root)) {
						die = c;
						found = true;
					}
				} while (!found && !dwarf_siblingof(&c, &c));
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				break;
		}
		if (found) {
			loc.kind = SCRY_DW_INT;
			scry_dw_var_location(d, &die, fn, addr, &loc);
		}
		free(scopes);
		if (!found)
			return 1;
		if (loc.kind == SCRY_DW_NONE) {
			snprintf(why, whylen, "%s", loc.why);
			return -1;
		}
		have_type = scry_dw_type_of(&die, &t);
	} else {
		struct scry_dw_func *f = malloc(sizeof(*f));
		int k = -1;

		if (!f || scry_dwarf_func(d, addr, f) || !func_at(d, addr, &func)) {
			free(f);
			return 1;
		}
		if (ret && !strcmp(root, "ret")) {
			loc.reg = SCRY_UREG_RET;
			have_type = scry_dw_type_of(&func, &t);
		} else if (!ret) {
			for (unsigned i = 0; i < f->nparams && k < 0; i++)
				if (!strcmp(f->params[i].name, root))
					k = (int)i;
			if (k >= 0 && !dwarf_child(&func, &die)) {
				int idx = -1;

				do
					if (dwarf_tag(&die) == DW_TAG_formal_parameter && ++idx == k)
						break;
				while (!dwarf_siblingof(&die, &die));
				have_type = idx == k && scry_dw_type_of(&die, &t);
				loc.reg = f->params[k].reg;
				if (f->params[k].reg < 0 || f->params[k].kind != SCRY_DW_INT) {
					snprintf(why, whylen, "%s is not a pointer in a register at the entry", root);
					free(f);
					return -1;
				}
			}
		}
		free(f);
		if (loc.reg < 0)
			return 1;
	}
	if (!have_type) {
		snprintf(why, whylen, "%s has no type in DWARF", root);
		return -1;
	}
	/* each step: "->m" reads through the pointer (only from a register: one read in all),
	 * ".m" moves within the struct in memory */
	while (*s) {
		char m[64];
		bool arrow = s[0] == '-' && s[1] == '>';
		size_t ml;
		Dwarf_Word off;
		Dwarf_Die mt;

		if (!arrow && s[0] != '.') {
			snprintf(why, whylen, "expected -> or . at '%s'", s);
			return -1;
		}
		s += arrow ? 2 : 1;
		ml = strcspn(s, "-.");
		if (!ml || ml >= sizeof(m)) {
			snprintf(why, whylen, "a member name expected at '%s'", s);
			return -1;
		}
		snprintf(m, sizeof(m), "%.*s", (int)ml, s);
		s += ml;
		if (!scry_dw_peel(&t, &pt)) {
			snprintf(why, whylen, "the type before '%s' is unknown", m);
			return -1;
		}
		if (arrow) {
			if (dwarf_tag(&pt) != DW_TAG_pointer_type || !scry_dw_type_of(&pt, &t) ||
			    !scry_dw_peel(&t, &pt)) {
				snprintf(why, whylen, "'->%s' on something that is not a pointer to a struct", m);
				return -1;
			}
			if (loc.mem) {
				snprintf(why, whylen, "'->%s': the pointer is in memory, reading through it takes two reads "
					 "(not done)", m);
				return -1;
			}
			loc.mem = true;
			loc.moff = 0;
		} else if (!loc.mem) {
			snprintf(why, whylen, "'.%s': the struct is in registers (its members are recorded as fields)", m);
			return -1;
		}
		if (!scry_dw_member_of(&pt, m, &mt, &off)) {
			snprintf(why, whylen, "no member '%s' (or a bit field)", m);
			return -1;
		}
		loc.moff += (int)off;
		t = mt;
	}
	if (!loc.mem) {
		snprintf(why, whylen, "no member named: %s is recorded as it is", root);
		return 1;
	}
	scry_dw_classify_mem(&t, out, &gprs, &mem, &align);
	if (out->kind != SCRY_DW_INT && out->kind != SCRY_DW_STR) {
		snprintf(why, whylen, "%s is a %s: only integers, enums, pointers and strings are read", path, out->ctype);
		return -1;
	}
	if (loc.moff < -32768 || loc.moff > 32767) {
		snprintf(why, whylen, "at an offset too large from its register");
		return -1;
	}
	size_t k = 0;
	for (const char *c = path; *c && k + 1 < sizeof(out->name); c++) {
		if (*c == '-' && c[1] == '>')
			continue;
		out->name[k++] = *c == '>' || *c == '.' ? '_' : *c;
	}
	out->name[k] = 0;
	out->reg = loc.reg;
	out->mem = true;
	out->moff = loc.moff;
	out->stack = -1;
	return 0;
}
