/* uprobe.h — user-space probes: the specs uprobe:PATH:FUNC, uretprobe:PATH:FUNC,
 * uprobe:PATH:FUNC+OFF, uprobe:PATH:0xADDR and uprobe:PATH:GLOB resolved against the ELF
 * file (elfsyms.h) into the probes to attach (file offsets), each with its event
 * (catalog-owned) and the descriptor its BPF program writes it by (scry_up_desc).
 * Arguments: the x86-64 System V registers arg0..arg5 at entry and `ret` at return.
 * usdt:PATH:PROVIDER:NAME (or usdt:PATH:NAME) names a USDT probe (usdt.h): its event
 * usdt_<provider>_<name>, its arguments arg0..argN typed by the note's operands. */
#ifndef SCRY_CATALOG_UPROBE_H
#define SCRY_CATALOG_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "catalog/catalog.h"

/* Functions a glob may probe at once (one link each). */
#define SCRY_UPROBE_GLOB_MAX 512

struct scry_uprobe {
	char *path;                 /* the binary, absolute */
	char *func;                 /* the function, or NULL (an address) */
	uint64_t offset;            /* file offset of the probed instruction */
	bool ret;                   /* uretprobe */
	char *provider;             /* a USDT probe: its provider (func: its name), else NULL */
	const struct scry_event *ev;
	struct scry_up_desc desc;   /* event_id left to the session */
};

/* Is spec a uprobe spec ("uprobe:", "uretprobe:", "usdt:")? */
bool scry_uprobe_claims(const char *spec);
/* The probes spec names (n >= 1), or -errno with a one-line reason in err (no file, no such
 * function with the closest names, a glob matching too many). */
int scry_catalog_uprobes(struct scry_catalog *cat, const char *spec, struct scry_uprobe **out, size_t *n,
			 char *err, size_t errlen);
void scry_uprobes_free(struct scry_uprobe *u, size_t n);

/* Listing (scry list uprobe:PATH[:GLOB]): each function of PATH matching GLOB (all without
 * one), sorted by name, with its DWARF description (NULL when it has none).  *found
 * counts them; -errno with a one-line reason in err. */
struct scry_dw_func;
typedef void (*scry_uprobe_list_fn)(void *ctx, const char *path, const char *func, uint64_t addr,
				    const struct scry_dw_func *dw);
int scry_uprobe_list(const char *spec, scry_uprobe_list_fn fn, void *ctx, size_t *found, char *err, size_t errlen);
/* scry list uprobe:PATH:FILE:GLOB: the lines of FILE with code whose number matches GLOB
 * ("*", "3?"), each with its count of addresses. */
typedef void (*scry_uprobe_line_fn)(void *ctx, const char *path, const char *file, int line, unsigned naddrs);
int scry_uprobe_list_lines(const char *spec, scry_uprobe_line_fn fn, void *ctx, size_t *found, char *err,
			   size_t errlen);

#endif
