/* dwarf_frames.c — the source frames of a code address (see dwarf.h): the compile unit
 * holding it (its ranges: .debug_aranges is not always there), the innermost function there
 * and the scopes its instance is nested in (dwarf_getscopes_die: the inlined copies innermost
 * first, then the function), each named by
 * itself or its abstract origin, with its line: the address's own for the innermost, the
 * call's (DW_AT_call_file, DW_AT_call_line) of the copy inlined into it for each outer one. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/dwarf_int.h"

static bool cu_of(Dwarf *dw, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (dwarf_addrdie(dw, addr, cu))
		return true;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, addr) == 1)
			return true;
		off = next;
	}
	return false;
}

static const char *name_of(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

unsigned scry_dwarf_frames(struct scry_dwarf *d, uint64_t addr, struct scry_dw_frame *out, unsigned max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	Dwarf_Line *line;
	const char *file = NULL;
	int lineno = 0, n;
	unsigned k = 0;

	if (!d || !max || !cu_of(d->dw, addr, &cu))
		return 0;
	if ((line = dwarf_getsrc_die(&cu, addr))) {
		file = dwarf_linesrc(line, NULL, NULL);
		dwarf_lineno(line, &lineno);
	}
	dwarf_getsrcfiles(&cu, &files, NULL);
	/* the innermost function at addr, then the scopes its instance is nested in (those
	 * dwarf_getscopes gives after an inlined copy are its abstract origin's) */
	n = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Die fn = scopes[i];

			free(scopes);
			scopes = NULL;
			n = dwarf_getscopes_die(&fn, &scopes);
			break;
		}
		if (i == n - 1)
			n = 0;
	}
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute a;
		Dwarf_Word cf, cl;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		copy(out[k].name, sizeof(out[k].name), name_of(&scopes[i]));
		copy(out[k].file, sizeof(out[k].file), file);
		out[k].line = lineno;
		k++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the function it is inlined into: at the line of this call */
		file = NULL;
		lineno = 0;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cf) == 0 && files)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cl) == 0)
			lineno = (int)cl;
	}
	free(scopes);
	return k;
}
