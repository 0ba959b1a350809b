/* dwarf_value.c — a value DWARF describes (a parameter, a variable, a return value, a member)
 * as scry records it: its type as a field (kind, size, signedness, C spelling, an enum's
 * enumerators, a small struct's integer members; which registers or stack bytes the x86-64
 * calling convention gives it) and its location at a pc (a register, or memory at a
 * register + offset, through the frame base and the call frame information).  See dwarf_int.h. */
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/dwarf_int.h"
#include "scry_abi.h"

bool scry_dw_type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

bool scry_dw_peel(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die cur = *t;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			*out = cur;
			return true;
		}
		if (!scry_dw_type_of(&cur, &cur))
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
		type_name(scry_dw_type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
		snprintf(buf, len, "%.100s%s*", sub, sub[0] && sub[strlen(sub) - 1] == '*' ? "" : " ");
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		type_name(scry_dw_type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
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
		type_name(scry_dw_type_of(t, &inner) ? &inner : NULL, sub, sizeof(sub), depth + 1);
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

	if (depth > 6 || !scry_dw_peel(t, &p))
		return false;
	switch (dwarf_tag(&p)) {
	case DW_TAG_base_type:
		return dwarf_attr(&p, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
	case DW_TAG_array_type:
		return scry_dw_type_of(&p, &mt) && has_float(&mt, depth + 1);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (dwarf_child(&p, &child))
			return false;
		do {
			if (dwarf_tag(&child) == DW_TAG_member && scry_dw_type_of(&child, &mt) &&
			    has_float(&mt, depth + 1))
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
		    !scry_dw_type_of(&m, &mt) || !scry_dw_peel(&mt, &pt))
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

void scry_dw_classify_mem(Dwarf_Die *t, struct scry_dw_param *p, int *gprs, int *mem, int *align)
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
	if (!scry_dw_peel(t, &pt)) {
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
		if (scry_dw_type_of(&pt, &target) && scry_dw_peel(&target, &tp) && dwarf_tag(&tp) == DW_TAG_base_type &&
		    dwarf_bytesize(&tp) == 1 && dwarf_attr(&tp, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc) &&
		    (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char))
			p->kind = SCRY_DW_STR;
		return;
	case DW_TAG_enumeration_type:
		*gprs = 1;
		p->kind = SCRY_DW_INT;
		p->size = size > 0 && size <= 8 ? (uint8_t)size : 4;
		p->base = 10;
		if (scry_dw_type_of(&pt, &target) && scry_dw_peel(&target, &tp) &&
		    dwarf_attr(&tp, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc))
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

bool scry_dw_member_of(Dwarf_Die *t, const char *name, Dwarf_Die *mt, Dwarf_Word *off)
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
		return !dwarf_hasattr(&m, DW_AT_bit_size) && scry_dw_type_of(&m, mt);
	} while (!dwarf_siblingof(&m, &m));
	return false;
}

/* ---- where a variable is at a pc --------------------------------------------------------- */

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

void scry_dw_var_location(struct scry_dwarf *d, Dwarf_Die *v, Dwarf_Die *func, Dwarf_Addr pc,
			  struct scry_dw_param *p)
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
