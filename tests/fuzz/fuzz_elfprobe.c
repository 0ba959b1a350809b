/* fuzz_elfprobe.c — libFuzzer target: input bytes as an ELF file (in a memfd) read the way a
 * uprobe spec reads its binary: its functions and their file offsets (elfsyms.c), its USDT
 * notes (usdt.c), the DWARF of its first functions (dwarf.c, dwarf_value.c: parameters, types, the
 * registers they are in), their source frames (dwarf_frames.c: inlined copies, lines) and a line's
 * addresses (statement probes).  Nothing may crash or leak; every answer must be consistent
 * (functions sorted and unique, offsets of loaded segments, register indexes in range). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "catalog/dwarf.h"
#include "catalog/elfsyms.h"
#include "catalog/usdt.h"
#include "scry_abi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("elfprobe", MFD_CLOEXEC);
	char path[64], err[512], why[256];
	struct scry_elf e;
	struct scry_usdt_note *notes;
	size_t n;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!scry_elf_load(&e, path, err, sizeof(err))) {
		for (size_t i = 1; i < e.nfuncs; i++)
			if (strcmp(e.funcs[i - 1].name, e.funcs[i].name) >= 0)
				abort();
		for (size_t i = 0; i < e.nfuncs; i++)
			if (scry_elf_offset(&e, e.funcs[i].addr) != (int64_t)e.funcs[i].offset)
				abort();
		struct scry_dwarf *dw = scry_dwarf_open(path, e.build_id, e.build_id_len, why, sizeof(why));
		for (size_t i = 0; dw && i < e.nfuncs && i < 16; i++) {
			struct scry_dw_func f;

			if (scry_dwarf_func(dw, e.funcs[i].addr, &f))
				continue;
			if (f.nparams > SCRY_DW_MAX_PARAMS)
				abort();
			for (unsigned k = 0; k < f.nparams; k++)
				if (f.params[k].reg >= 6 ||
				    (f.params[k].kind != SCRY_DW_NONE && f.params[k].reg < 0 && f.params[k].stack < 0))
					abort();
		}
		for (size_t i = 0; dw && i < e.nfuncs && i < 16; i++) {   /* scry profile --inline --lines */
			struct scry_dw_frame fr[8];
			unsigned n = scry_dwarf_frames(dw, e.funcs[i].addr, fr, 8);

			if (n > 8)
				abort();
			for (unsigned k = 0; k < n; k++)
				if (strnlen(fr[k].name, sizeof(fr[k].name)) == sizeof(fr[k].name) || fr[k].line < 0)
					abort();
		}
		if (dw) {                    /* a statement probe's line table */
			uint64_t *addrs;
			size_t na;
			int found;

			if (!scry_dwarf_line_addrs(dw, "uprobed.c", 53, &addrs, &na, &found)) {
				for (size_t i = 1; i < na; i++)
					if (addrs[i - 1] >= addrs[i])
						abort();
				free(addrs);
			}
		}
		if (dw) {                    /* scry list uprobe:PATH:FILE:* */
			int *lines;
			unsigned *na;
			size_t nl;

			if (!scry_dwarf_file_lines(dw, "uprobed.c", &lines, &na, &nl)) {
				for (size_t i = 0; i < nl; i++)
					if ((i && lines[i - 1] >= lines[i]) || !na[i])
						abort();
				free(lines);
				free(na);
			}
		}
		scry_dwarf_close(dw);
		scry_elf_free(&e);
	} else {
		scry_elf_free(&e);
	}
	if (!scry_usdt_notes(path, &notes, &n, err, sizeof(err))) {
		for (size_t i = 0; i < n; i++)
			if (!notes[i].provider || !notes[i].name || !notes[i].args)
				abort();
		scry_usdt_notes_free(notes, n);
	}
	close(fd);
	return 0;
}
