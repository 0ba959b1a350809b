/* dwarf_int.h — what the DWARF files share (dwarf.c: opening, functions, line tables, scopes,
 * --fetch paths; dwarf_value.c: a value's type as a field and its location at a pc): the open
 * DWARF and the value helpers.  Private to src/catalog/. */
#ifndef SCRY_CATALOG_DWARF_INT_H
#define SCRY_CATALOG_DWARF_INT_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "catalog/dwarf.h"

struct scry_dwarf {
	Dwarf *dw;
	int fd;
};

/* The type DIE of die (DW_AT_type), or false for void. */
bool scry_dw_type_of(Dwarf_Die *die, Dwarf_Die *out);
/* Skip typedefs and qualifiers. */
bool scry_dw_peel(Dwarf_Die *t, Dwarf_Die *out);
/* Describe a value of type t (NULL: void) as a field; *gprs: the integer registers it takes
 * (0 when it is passed elsewhere, why set); *mem, *align: its bytes and alignment on the
 * stack when it is passed there whatever the registers left (0: never). */
void scry_dw_classify_mem(Dwarf_Die *t, struct scry_dw_param *p, int *gprs, int *mem, int *align);
/* The member of struct or union type t (peeled) named name: its type and offset. */
bool scry_dw_member_of(Dwarf_Die *t, const char *name, Dwarf_Die *mt, Dwarf_Word *off);
/* Where variable v is at pc, into p (kind already set from its type): a register, or memory
 * at a register + offset (func: its function, for the frame base); else kind SCRY_DW_NONE
 * with the reason. */
void scry_dw_var_location(struct scry_dwarf *d, Dwarf_Die *v, Dwarf_Die *func, Dwarf_Addr pc,
			  struct scry_dw_param *p);

#endif /* SCRY_CATALOG_DWARF_INT_H */
