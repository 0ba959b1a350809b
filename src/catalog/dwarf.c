/* dwarf.c — see dwarf.h: parameters and return types of probed functions through libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/dwarf.h"
#include "scry_abi.h"

struct scry_dwarf {
	Dwarf *dw;
	int fd;
};

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

/* The type DIE of die (DW_AT_type), or false for void. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

/* Skip typedefs and qualifiers. */
static bool peel(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die cur = *t;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			*out = cur;
			return true;
		}
		if (!type_of(&cur, &cur))
			return false;     /* const void */
	}
	return false;
}

/* The C spelling of type t (NULL: void) into buf. */
static void type_name(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	Dwarf_Die inner;
	const char *name = t ? dwarf_diename(t) : NULL;
	char sub[96];

	if (!t) {
		snprintf(buf, len, "void");
		return;
	}
	if (depth > 8) {
		snprintf(buf, len, "...");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		type_name(type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%.100s%s*", sub, sub[0] && sub[strlen(sub) - 1] == '*' ? "" : " ");
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		type_name(type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s %.100s", dwarf_tag(t) == DW_TAG_const_type ? "const" : "volatile", sub);
		break;
	case DW_TAG_structure_type:
		snprintf(buf, len, "struct %s", name ? name : "<anonymous>");
		break;
	case DW_TAG_union_type:
		snprintf(buf, len, "union %s", name ? name : "<anonymous>");
		break;
	case DW_TAG_enumeration_type:
		snprintf(buf, len, "enum %s", name ? name : "<anonymous>");
		break;
	case DW_TAG_array_type:
		type_name(type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%s[]", sub);
		break;
	case DW_TAG_subroutine_type:
		snprintf(buf, len, "function");
		break;
	default:
		snprintf(buf, len, "%s", name ? name : "?");
	}
}

static bool has_float(Dwarf_Die *t, int depth)
{
	Dwarf_Die p, child, mt;
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (depth > 6 || !peel(t, &p))
		return false;
	switch (dwarf_tag(&p)) {
	case DW_TAG_base_type:
		return dwarf_attr(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
	case DW_TAG_array_type:
		return type_of(&p, &mt) && has_float(&mt, depth + 1);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (dwarf_child(&p, &child))
			return false;
		do {
			if (dwarf_tag(&child) == DW_TAG_member && type_of(&child, &mt) && has_float(&mt, depth + 1))
				return true;
		} while (!dwarf_siblingof(&child, &child));
		return false;
	default:
		return false;
	}
}

/* The members of a small struct passed in registers, each an integer, enum or pointer
 * within one eightbyte (no bit fields, arrays or nested structs): false if one is not. */
static bool struct_members(Dwarf_Die *st, struct scry_dw_param *p)
{
	Dwarf_Die m, mt, pt;
	Dwarf_Attribute a;
	Dwarf_Word off, enc = 0;

	p->nmembers = 0;
	if (dwarf_child(st, &m))
		return false;
	do {
		const char *name = dwarf_diename(&m);
		int size, tag;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (!name || !*name || p->nmembers >= SCRY_DW_MAX_MEMBERS || dwarf_hasattr(&m, DW_AT_bit_size) ||
		    !dwarf_attr(&m, DW_AT_data_member_location, &a) || dwarf_formudata(&a, &off) ||
		    !type_of(&m, &mt) || !peel(&mt, &pt))
			return false;
		tag = dwarf_tag(&pt);
		size = dwarf_bytesize(&pt);
		if (tag == DW_TAG_pointer_type)
			size = 8;
		if ((tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type && tag != DW_TAG_pointer_type) ||
		    (size != 1 && size != 2 && size != 4 && size != 8) || off % 8 + (unsigned)size > 8 || off >= 16)
			return false;
		enc = 0;
		if (tag == DW_TAG_base_type && dwarf_attr(&pt, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float)
			return false;
		snprintf(p->members[p->nmembers].name, sizeof(p->members[0].name), "%s", name);
		p->members[p->nmembers].size = (uint8_t)size;
		p->members[p->nmembers].off = (uint8_t)off;
		p->members[p->nmembers].base = tag == DW_TAG_pointer_type ? 16 : 10;
		p->members[p->nmembers].is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		p->nmembers++;
	} while (!dwarf_siblingof(&m, &m));
	return p->nmembers > 0;
}

/* Describe a value of type t (NULL: void) as a field; *gprs: the integer registers it takes
 * (0 when it is passed elsewhere, why set); *mem, *align: its bytes and alignment on the
 * stack when it is passed there whatever the registers left (0: never). */
static void classify_mem(Dwarf_Die *t, struct scry_dw_param *p, int *gprs, int *mem, int *align)
{
	Dwarf_Die pt, target, tp;
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	int size;

	*gprs = 0;
	*mem = 0;
	*align = 8;
	p->kind = SCRY_DW_NONE;
	p->stack = -1;
	type_name(t, p->ctype, sizeof(p->ctype), 0);
	if (!t)
		return;
	if (!peel(t, &pt)) {
		snprintf(p->why, sizeof(p->why), "type unknown");
		return;
	}
	size = dwarf_bytesize(&pt);
	switch (dwarf_tag(&pt)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		*gprs = 1;
		p->kind = SCRY_DW_INT;
		p->size = 8;
		p->base = 16;
		if (type_of(&pt, &target) && peel(&target, &tp) && dwarf_tag(&tp) == DW_TAG_base_type &&
		    dwarf_bytesize(&tp) == 1 && dwarf_attr(&tp, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
			p->kind = SCRY_DW_STR;
		return;
	case DW_TAG_enumeration_type:
		*gprs = 1;
		p->kind = SCRY_DW_INT;
		p->size = size > 0 && size <= 8 ? (uint8_t)size : 4;
		p->base = 10;
		if (type_of(&pt, &target) && peel(&target, &tp) && dwarf_attr(&tp, DW_AT_encoding, &a) &&
		    !dwarf_formudata(&a, &enc))
			p->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		if (!dwarf_child(&pt, &target)) {
			do {
				Dwarf_Sword sv;
				Dwarf_Word uv;
				const char *en = dwarf_diename(&target);

				if (dwarf_tag(&target) != DW_TAG_enumerator || !en || !*en ||
				    p->nenums >= SCRY_DW_MAX_ENUMS || !dwarf_attr(&target, DW_AT_const_value, &a))
					continue;
				if (p->is_signed ? dwarf_formsdata(&a, &sv) : dwarf_formudata(&a, &uv))
					continue;
				snprintf(p->enums[p->nenums].name, sizeof(p->enums[0].name), "%s", en);
				p->enums[p->nenums++].value = p->is_signed ? (int64_t)sv : (int64_t)uv;
			} while (!dwarf_siblingof(&target, &target));
		}
		return;
	case DW_TAG_base_type:
		if (dwarf_attr(&pt, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
			snprintf(p->why, sizeof(p->why), "%s", size > 8 ? "a long double: passed on the stack" :
				 "floating point: passed in an SSE register");
			if (size > 8) {
				*mem = 16;
				*align = 16;
			}
			return;
		}
		if (size == 16) {
			*gprs = 2;
			snprintf(p->why, sizeof(p->why), "a 128-bit integer: wider than a field");
			return;
		}
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			snprintf(p->why, sizeof(p->why), "an integer of %d bytes", size);
			return;
		}
		*gprs = 1;
		p->kind = SCRY_DW_INT;
		p->size = (uint8_t)size;
		p->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		p->base = 10;
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		if (size > 16 || size < 0) {
			snprintf(p->why, sizeof(p->why), "a struct of more than 16 bytes by value: passed on the stack");
			*mem = size > 0 ? (size + 7) / 8 * 8 : 0;
		} else if (has_float(&pt, 0)) {
			snprintf(p->why, sizeof(p->why), "a struct with floating-point members by value: not in integer registers");
		} else {
			*gprs = (size + 7) / 8;
			if (dwarf_tag(&pt) == DW_TAG_structure_type && struct_members(&pt, p)) {
				p->kind = SCRY_DW_STRUCT;
				return;
			}
			snprintf(p->why, sizeof(p->why), "a struct by value (in %d register%s): members are not recorded",
				 *gprs, *gprs > 1 ? "s" : "");
		}
		return;
	default:
		snprintf(p->why, sizeof(p->why), "type not recorded");
	}
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
	classify_mem(type_of(&c.found, &t) ? &t : NULL, &out->ret, &gprs, &mem, &align);
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
		classify_mem(type_of(&child, &t) ? &t : NULL, p, &gprs, &mem, &align);
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

/* ---- statement probes: the variables in scope and where they are ---------------------- */

/* DWARF's x86-64 register numbers (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8..r15) as the
 * uprobe program's (SCRY_UREG_*). */
static int ureg_of_dwarf(unsigned r)
{
	static const int map[16] = {
		SCRY_UREG_RET, 2, 3, SCRY_UREG_BX, 1, 0, SCRY_UREG_BP, SCRY_UREG_SP,
		4, 5, SCRY_UREG_R10, SCRY_UREG_R11, SCRY_UREG_R12, SCRY_UREG_R13, SCRY_UREG_R14, SCRY_UREG_R15,
	};
	return r < 16 ? map[r] : -1;
}

/* One operation naming a register (DW_OP_regN, regx) or an address from one (bregN, bregx
 * with its offset): the register, or -1. */
static int op_reg(const Dwarf_Op *op, bool *is_addr, int64_t *off)
{
	*off = 0;
	*is_addr = false;
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return ureg_of_dwarf(op->atom - DW_OP_reg0);
	if (op->atom == DW_OP_regx)
		return ureg_of_dwarf((unsigned)op->number);
	*is_addr = true;
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*off = (int64_t)op->number;
		return ureg_of_dwarf(op->atom - DW_OP_breg0);
	}
	if (op->atom == DW_OP_bregx) {
		*off = (int64_t)op->number2;
		return ureg_of_dwarf((unsigned)op->number);
	}
	return -1;
}

/* The frame base of func at pc as register + offset (an address): its DW_AT_frame_base,
 * through the call frame information when it is the CFA. */
static bool frame_base(struct scry_dwarf *d, Dwarf_Die *func, Dwarf_Addr pc, int *reg, int64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	bool is_addr;

	if (!func || !dwarf_attr_integrate(func, DW_AT_frame_base, &a) || dwarf_getlocation_addr(&a, pc, &ops, &n, 1) != 1 ||
	    n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		Dwarf_CFI *cfi = dwarf_getcfi(d->dw), *eh = NULL;   /* .debug_frame, else .eh_frame */
		Dwarf_Frame *fr = NULL;
		Dwarf_Op *cops;
		size_t nc;
		bool ok = false;

		if ((!cfi || dwarf_cfi_addrframe(cfi, pc, &fr)) && dwarf_getelf(d->dw) &&
		    (eh = dwarf_getcfi_elf(dwarf_getelf(d->dw))) && dwarf_cfi_addrframe(eh, pc, &fr))
			fr = NULL;
		if (fr && !dwarf_frame_cfa(fr, &cops, &nc) && nc == 1) {
			*reg = op_reg(&cops[0], &is_addr, off);
			ok = *reg >= 0 && is_addr;
		}
		free(fr);
		if (eh)
			dwarf_cfi_end(eh);
		return ok;
	}
	*reg = op_reg(&ops[0], &is_addr, off);
	/* DW_OP_bregN: the base is rN + off; DW_OP_regN: the base is rN's value */
	return *reg >= 0;
}

/* Where variable v is at pc, into p (kind already set from its type). */
static void var_location(struct scry_dwarf *d, Dwarf_Die *v, Dwarf_Die *func, Dwarf_Addr pc, struct scry_dw_param *p)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	bool is_addr;
	int64_t off;
	int r;

	p->reg = -1;
	if (!dwarf_attr_integrate(v, DW_AT_location, &a)) {
		snprintf(p->why, sizeof(p->why), "optimized out (no location)");
		goto none;
	}
	if (dwarf_getlocation_addr(&a, pc, &ops, &n, 1) != 1 || !n) {
		snprintf(p->why, sizeof(p->why), "optimized out at this line");
		goto none;
	}
	if (n == 1 && ops[0].atom == DW_OP_addr) {
		snprintf(p->why, sizeof(p->why), "a static variable: its address moves with the binary's load address");
		goto none;
	}
	if (n == 1 && ops[0].atom == DW_OP_fbreg) {
		int64_t fboff;

		if (!frame_base(d, func, pc, &r, &fboff)) {
			snprintf(p->why, sizeof(p->why), "in the frame, whose base scry cannot compute here");
			goto none;
		}
		p->reg = r;
		p->mem = true;
		p->moff = (int)(fboff + (int64_t)ops[0].number);
	} else if (n == 1 && (r = op_reg(&ops[0], &is_addr, &off)) >= 0) {
		p->reg = r;
		p->mem = is_addr;
		p->moff = (int)off;
	} else if (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) {
		snprintf(p->why, sizeof(p->why), "a location scry cannot read (only its value at the function's entry)");
		goto none;
	} else if (ops[n - 1].atom == DW_OP_stack_value) {
		snprintf(p->why, sizeof(p->why), "a location scry cannot read (a value computed from others)");
		goto none;
	} else {
		snprintf(p->why, sizeof(p->why), "a location scry cannot read (DWARF expression of %zu operations, first 0x%x)",
			 n, ops[0].atom);
		goto none;
	}
	if (p->mem && (p->moff < -32768 || p->moff > 32767)) {
		snprintf(p->why, sizeof(p->why), "at an offset too large from its register");
		goto none;
	}
	return;
none:
	p->kind = SCRY_DW_NONE;
	p->reg = -1;
	p->mem = false;
}

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
				classify_mem(type_of(&child, &t) ? &t : NULL, p, &gprs, &mem, &align);
				p->stack = -1;
				if (p->kind == SCRY_DW_STRUCT) {
					p->kind = SCRY_DW_NONE;
					snprintf(p->why, sizeof(p->why), "a struct (its members by path: not read yet)");
				}
				if (p->kind != SCRY_DW_NONE)
					var_location(d, &child, func, addr, p);
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

/* The member of struct or union type t (peeled) named name: its type and offset. */
static bool member_of(Dwarf_Die *t, const char *name, Dwarf_Die *mt, Dwarf_Word *off)
{
	Dwarf_Die m;
	Dwarf_Attribute a;

	if ((dwarf_tag(t) != DW_TAG_structure_type && dwarf_tag(t) != DW_TAG_union_type) || dwarf_child(t, &m))
		return false;
	do {
		const char *mn = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !mn || strcmp(mn, name))
			continue;
		*off = 0;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) && dwarf_formudata(&a, off))
			return false;
		return !dwarf_hasattr(&m, DW_AT_bit_size) && type_of(&m, mt);
	} while (!dwarf_siblingof(&m, &m));
	return false;
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
			var_location(d, &die, fn, addr, &loc);
		}
		free(scopes);
		if (!found)
			return 1;
		if (loc.kind == SCRY_DW_NONE) {
			snprintf(why, whylen, "%s", loc.why);
			return -1;
		}
		have_type = type_of(&die, &t);
	} else {
		struct scry_dw_func *f = malloc(sizeof(*f));
		int k = -1;

		if (!f || scry_dwarf_func(d, addr, f) || !func_at(d, addr, &func)) {
			free(f);
			return 1;
		}
		if (ret && !strcmp(root, "ret")) {
			loc.reg = SCRY_UREG_RET;
			have_type = type_of(&func, &t);
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
				have_type = idx == k && type_of(&die, &t);
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
		if (!peel(&t, &pt)) {
			snprintf(why, whylen, "the type before '%s' is unknown", m);
			return -1;
		}
		if (arrow) {
			if (dwarf_tag(&pt) != DW_TAG_pointer_type || !type_of(&pt, &t) || !peel(&t, &pt)) {
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
		if (!member_of(&pt, m, &mt, &off)) {
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
	classify_mem(&t, out, &gprs, &mem, &align);
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
