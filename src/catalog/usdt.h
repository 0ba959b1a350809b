/* usdt.h — USDT probes (<sys/sdt.h>, SystemTap's format): the .note.stapsdt notes of an ELF
 * file, each a probe's provider, name, address, semaphore and argument operands ("-4@%eax
 * 8@%rdx"), read with libelf.  Attaching them (address adjustment by .stapsdt.base,
 * semaphores, argument specs) is libbpf's (bpf_program__attach_usdt). */
#ifndef SCRY_CATALOG_USDT_H
#define SCRY_CATALOG_USDT_H

#include <stddef.h>
#include <stdint.h>

struct scry_usdt_note {
	char *provider, *name, *args;   /* args: the operands, space-separated */
	unsigned nargs;
	uint64_t pc, base, semaphore;   /* link-time addresses (semaphore 0: none) */
};

/* 0 (n may be 0), or -1 with a one-line reason in err. */
int scry_usdt_notes(const char *path, struct scry_usdt_note **out, size_t *n, char *err, size_t errlen);
void scry_usdt_notes_free(struct scry_usdt_note *v, size_t n);

#endif
