/* warm_shell.c — the shell of scry's BPF object (see probes_int.h, the Makefile's
 * scry_shell.bpf.o): the same ELF without .BTF.ext and the relocations, embedded here by its
 * own skeleton (only its bytes are used).  A warm start prepares and fingerprints its settings
 * on the shell (kernel/warm.c) and takes scryd's loaded object: the programs' instructions are
 * never read, so libbpf's open skips the line info, CO-RE records and relocations of the whole
 * object (~3.4 of its ~5 ms). */
#include <stddef.h>
#include <bpf/libbpf.h>
#include "scry_abi.h"    /* before the skeleton: its .bss holds scry_abi.h structs */
#include "scry_shell.skel.h"
#include "kernel/probes_int.h"

const void *probes_warm_shell_elf(size_t *size)
{
	return scry_shell_bpf__elf_bytes(size);
}
