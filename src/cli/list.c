/* list.c — `scry list`: the tracepoints, syscalls and contexts scry can record, and
 * (-f) the CTF fields of each event, all from the event catalog. */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "catalog/dwarf.h"
#include "catalog/elfsyms.h"
#include "catalog/uprobe.h"
#include "catalog/usdt.h"
#include "catalog/statedump.h"
#include "cli/commands.h"
#include "kernel/features.h"
#include "util/privs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry list [-f] [PATTERN...]\n"
		"\n"
		"  scry list                 every tracepoint (system:event) and their count\n"
		"  scry list 'sched:*'       tracepoints matching a glob (system:event, or event)\n"
		"  scry list syscalls        every syscall: number, name, arguments and C types\n"
		"  scry list 'syscalls:open*'  syscalls matching a glob\n"
		"  scry list contexts        the contexts of -c: name and CTF type\n"
		"  scry list features        what this kernel offers scry, and what scry does with it\n"
		"  scry list 'uprobe:PATH[:GLOB]'  the functions of a binary or library a uprobe can\n"
		"                            probe, with their parameters and types (DWARF)\n"
		"  scry list 'uprobe:PATH:FILE:*'  the lines of FILE with code (statement probes)\n"
		"  scry list usdt:PATH       the USDT probes of a binary, with their argument counts\n"
		"\n"
		"  -f, --fields   show each matching event's CTF fields (name and type)\n"
		"  -k, --kernel   the kernel's events (as lttng list -k; without it, `scry list` lists the\n"
		"                 daemon's sessions when a daemon runs)\n"
		"  -k --syscall   every system call, lttng list -k --syscall's layout\n"
		"  scry list NAME -c CHANNEL, scry list NAME -d: a session's channel, its domains (scryd)\n"
		"  -h, --help     this help\n");
}

static void field_type(const struct scry_event *ev, const struct scry_field *f, char *buf, size_t len)
{
	const char *hex = f->base == 16 ? " (hex)" : "";

	switch (f->type) {
	case SCRY_F_INT:
		snprintf(buf, len, "%sint%u%s", f->is_signed ? "" : "u", f->size * 8u, hex);
		break;
	case SCRY_F_STRING:
		snprintf(buf, len, "string");
		break;
	case SCRY_F_TEXT:
		snprintf(buf, len, "char[%u] (text)", f->count);
		break;
	case SCRY_F_ARRAY:
		snprintf(buf, len, "%sint%u[%u]%s", f->is_signed ? "" : "u", f->size * 8u, f->count, hex);
		break;
	case SCRY_F_SEQ:
		snprintf(buf, len, "%sint%u[%s]%s", f->is_signed ? "" : "u", f->size * 8u,
			 f->length_field >= 0 && (unsigned)f->length_field < ev->nfields
				 ? ev->fields[f->length_field].name : "?", hex);
		break;
	case SCRY_F_STRSEQ:
	case SCRY_F_STRUCTSEQ:
		snprintf(buf, len, "%s%s[%s]", f->type == SCRY_F_STRSEQ ? "string" : "struct ",
			 f->type == SCRY_F_STRSEQ ? "" : f->sdesc ? f->sdesc->name : "?",
			 f->length_field >= 0 && (unsigned)f->length_field < ev->nfields
				 ? ev->fields[f->length_field].name : "?");
		break;
	}
}

static void print_fields(const struct scry_event *ev)
{
	char t[96];

	printf("%s\n", ev->name);
	if (!ev->nfields)
		printf("    (no fields)\n");
	for (unsigned i = 0; i < ev->nfields; i++) {
		field_type(ev, &ev->fields[i], t, sizeof(t));
		printf("    %-24s %s\n", ev->fields[i].name, t);
	}
}

static int list_contexts(void)
{
	for (int i = 0; i < SCRY_CTX_NR; i++) {
		const struct scry_context_desc *c = scry_context(i);

		if (c->type == SCRY_F_TEXT)
			printf("%-12s char[%u] (text)\n", c->name, c->count);
		else if (c->type == SCRY_F_SEQ)
			printf("%-12s uint64[] (addresses, hex; up to %u)\n", c->name, c->count);
		else
			printf("%-12s %sint%u\n", c->name, c->is_signed ? "" : "u", c->size * 8u);
	}
	return 0;
}

/* `scry list features`: one line per kernel feature: present or not, scry's choice, and how
 * it was found out (kernel/features.c). */
static int list_features(void)
{
	struct scry_feature_report r[32];
	size_t n = scry_features_probe(r, sizeof(r) / sizeof(r[0]));

	printf("%-15s %-7s %s\n", "FEATURE", "KERNEL", "SCRY");
	for (size_t i = 0; i < n; i++)
		printf("%-15s %-7s %s  [%s]\n", r[i].name, r[i].present ? "yes" : "no", r[i].use, r[i].why);
	return 0;
}

/* One function for scry list uprobe:...: its parameters and return value from DWARF, each
 * with the field it is recorded as, or why it is not. */
static void print_uprobe_fn(void *ctx, const char *path, const char *func, uint64_t addr,
			    const struct scry_dw_func *dw)
{
	printf("uprobe:%s:%s\n", path, func);
	if (!dw) {
		printf("    (no DWARF for it: arg0..arg5 at entry, ret at return, uint64 registers)\n");
		return;
	}
	for (unsigned i = 0; i < dw->nparams; i++) {
		const struct scry_dw_param *p = &dw->params[i];
		size_t n = strlen(p->ctype);

		printf("    %s%s%s", p->ctype, n && p->ctype[n - 1] == '*' ? "" : " ", p->name);
		if (p->kind == SCRY_DW_NONE)
			printf("    [not recorded: %s]", p->why);
		else if (p->kind == SCRY_DW_STR)
			printf("    [string]");
		if (p->kind != SCRY_DW_NONE && p->reg < 0 && p->stack >= 0)
			printf("    [on the stack]");
		for (unsigned k = 0; k < p->nmembers; k++)
			printf("%s%s_%s%s", k ? ", " : "    [fields ", p->name, p->members[k].name,
			       k + 1 == p->nmembers ? "]" : "");
		for (unsigned k = 0; k < p->nenums; k++)
			printf("%s%s=%lld%s", k ? ", " : "    [", p->enums[k].name, (long long)p->enums[k].value,
			       k + 1 == p->nenums ? "]" : "");
		printf("\n");
	}
	if (dw->variadic)
		printf("    ...    [not recorded: variadic]\n");
	printf("    -> %s", dw->ret.ctype);
	for (unsigned k = 0; k < dw->ret.nmembers; k++)
		printf("%sret_%s%s", k ? ", " : "    [fields ", dw->ret.members[k].name, k + 1 == dw->ret.nmembers ? "]" : "");
	if (dw->ret.kind == SCRY_DW_NONE && dw->ret.why[0])
		printf("    [not recorded: %s]", dw->ret.why);
	printf("\n");
}

static void print_uprobe_line(void *ctx, const char *path, const char *file, int line, unsigned naddrs)
{
	printf("uprobe:%s:%s:%d  %u address%s\n", path, file, line, naddrs, naddrs == 1 ? "" : "es");
}

static int list_uprobes(const char *spec)
{
	char err[1024];
	size_t found;
	const char *c1 = strchr(spec + 7, ':');

	if (!strncmp(spec, "uprobe:", 7) && c1 && strchr(c1 + 1, ':')) {   /* uprobe:PATH:FILE:GLOB */
		if (scry_uprobe_list_lines(spec, print_uprobe_line, NULL, &found, err, sizeof(err))) {
			fprintf(stderr, "scry list: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (scry_uprobe_list(spec, print_uprobe_fn, NULL, &found, err, sizeof(err))) {
		fprintf(stderr, "scry list: %s\n", err);
		return 1;
	}
	return 0;
}

static int list_usdt(const char *spec)
{
	struct scry_usdt_note *notes;
	char err[1024], *path;
	size_t n;
	const char *rest = spec + 5, *colon = strchr(rest, ':');
	char *pathspec = colon ? strndup(rest, (size_t)(colon - rest)) : strdup(rest);
	const char *glob = colon && colon[1] ? colon + 1 : "*";
	size_t found = 0;

	if (!pathspec || !(path = scry_elf_find(pathspec, err, sizeof(err)))) {
		fprintf(stderr, "scry list: %s\n", pathspec ? err : "out of memory");
		free(pathspec);
		return 1;
	}
	free(pathspec);
	if (scry_usdt_notes(path, &notes, &n, err, sizeof(err))) {
		fprintf(stderr, "scry list: %s\n", err);
		free(path);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		char pn[512];

		snprintf(pn, sizeof(pn), "%s:%s", notes[i].provider, notes[i].name);
		if (fnmatch(glob, pn, 0))
			continue;
		found++;
		printf("usdt:%s:%s:%s  %u argument%s%s%s%s\n", path, notes[i].provider, notes[i].name, notes[i].nargs,
		       notes[i].nargs == 1 ? "" : "s", notes[i].nargs ? " (" : "", notes[i].args,
		       notes[i].nargs ? ")" : "");
	}
	if (!found)
		fprintf(stderr, "scry list: no USDT probe matches '%s' in %s%s\n", glob, path,
			n ? "" : " (it has no .note.stapsdt notes)");
	scry_usdt_notes_free(notes, n);
	free(path);
	return found ? 0 : 1;
}

static void print_syscall(struct scry_catalog *cat, const struct scry_syscall *sc)
{
	printf("%4d  %s(", sc->nr, sc->name);
	if (!scry_catalog_syscall_args_known(cat, sc))
		printf("? arguments unknown: no tracefs format");
	for (unsigned i = 0; i < sc->nargs; i++) {
		const char *ct = sc->args[i].ctype;
		size_t n = strlen(ct);

		printf("%s%s%s%s", i ? ", " : "", ct, n && ct[n - 1] == '*' ? "" : " ", sc->args[i].name);
	}
	printf(")\n");
}

/* Syscalls whose name matches glob (NULL: all).  Returns the match count. */
static size_t list_syscalls(struct scry_catalog *cat, const char *glob, bool fields)
{
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(cat, &list), found = 0;

	for (size_t i = 0; i < n; i++) {
		if (glob && fnmatch(glob, list[i].name, 0))
			continue;
		found++;
		if (!fields) {
			print_syscall(cat, &list[i]);
			continue;
		}
		const struct scry_event *en = scry_catalog_syscall_entry(cat, &list[i]);
		const struct scry_event *ex = scry_catalog_syscall_exit(cat, &list[i]);

		if (en)
			print_fields(en);
		if (ex)
			print_fields(ex);
	}
	return found;
}

/* lttng list -k --syscall's layout: every syscall scry records, by number, with its
 * bitness (x86-64's native calls: lttng-modules' 64-bit table; scry records no compat one) */
static int list_syscalls_lttng(struct scry_catalog *cat)
{
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(cat, &list);

	printf("System calls:\n-------------\n");
	for (size_t i = 0; i < n; i++)
		printf("      %s [64-bit]\n", list[i].name);
	printf("\n");
	return 0;
}

/* Tracepoints matching glob (against "system:event", or "event" for a glob without ':'). */
static size_t list_tracepoints(struct scry_catalog *cat, const char *glob, bool fields)
{
	const char *const *names;
	size_t n = scry_catalog_tracepoints(cat, &names), found = 0;
	char err[256];

	for (size_t i = 0; i < n; i++) {
		const char *colon = strchr(names[i], ':');
		const char *subject = glob && !strchr(glob, ':') && colon ? colon + 1 : names[i];

		if (glob && fnmatch(glob, subject, 0))
			continue;
		found++;
		if (!fields) {
			printf("%s\n", names[i]);
			continue;
		}
		char sys[256];
		size_t sl = colon ? (size_t)(colon - names[i]) : 0;
		const struct scry_event *ev;

		if (!colon || sl >= sizeof(sys))
			continue;
		memcpy(sys, names[i], sl);
		sys[sl] = '\0';
		ev = scry_catalog_builtin(cat, colon + 1);   /* written by scry in LTTng's layout */
		if (!ev || strcmp(ev->system, sys))
			ev = scry_catalog_tracepoint(cat, sys, colon + 1, err, sizeof(err));
		if (ev) {
			printf("%s  ", names[i]);
			print_fields(ev);
		} else {
			printf("%s\n    (cannot be recorded: %s)\n", names[i], err);
		}
	}
	return found;
}

/* The statedump's events (lttng_statedump:NAME), written by scry's iterators at start. */
static size_t list_statedump(struct scry_catalog *cat, const char *glob, bool fields)
{
	size_t found = 0;

	for (int k = 0; k < SCRY_SD_NR; k++) {
		char full[128];

		snprintf(full, sizeof(full), "lttng_statedump:%s", scry_sd_specs[k].name);
		if (glob && fnmatch(glob, strchr(glob, ':') ? full : scry_sd_specs[k].name, 0))
			continue;
		found++;
		if (!fields) {
			printf("%s\n", full);
			continue;
		}
		printf("%s  ", full);
		print_fields(scry_catalog_builtin(cat, scry_sd_specs[k].name));
	}
	return found;
}

static void no_match(struct scry_catalog *cat, const char *pattern)
{
	const char *const *names;
	size_t n = scry_catalog_tracepoints(cat, &names), k;
	const char *best[4];

	k = scry_closest(pattern, names, n, best, 4);
	if (!k) {   /* a syscall name? */
		const struct scry_syscall *list;
		size_t ns = scry_catalog_syscalls(cat, &list);
		const char **sn = malloc((ns ? ns : 1) * sizeof(*sn));

		if (sn) {
			const char *p = strncmp(pattern, "syscalls:", 9) ? pattern : pattern + 9;

			for (size_t i = 0; i < ns; i++)
				sn[i] = list[i].name;
			k = scry_closest(p, sn, ns, best, 4);
			fprintf(stderr, "scry list: nothing matches '%s'", pattern);
			for (size_t i = 0; i < k; i++)
				fprintf(stderr, "%s syscalls:%s", i ? "," : "; did you mean", best[i]);
			fprintf(stderr, "%s\n", k ? "?" : " (scry list shows every tracepoint)");
			free(sn);
			return;
		}
	}
	fprintf(stderr, "scry list: nothing matches '%s'", pattern);
	for (size_t i = 0; i < k; i++)
		fprintf(stderr, "%s %s", i ? "," : "; did you mean", best[i]);
	fprintf(stderr, "%s\n", k ? "?" : " (scry list shows every tracepoint)");
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fields", no_argument, NULL, 'f' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "syscall", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct scry_catalog *cat = NULL;
	bool fields = false, kernel = false, syscalls = false;
	char err[512];
	int c, ret = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "fhk", opts, NULL)) != -1) {
		switch (c) {
		case 'k':       /* lttng list -k: the kernel's events (the only domain) */
			kernel = true;
			break;
		case 's':
			syscalls = true;
			break;
		case 'f':
			fields = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (syscalls && (!kernel || optind < argc)) {   /* lttng's words */
		fprintf(stderr, "scry list: %s\n", kernel ? "--syscall lists every system call: no argument"
							   : "--syscall will only work with the Kernel domain (-k)");
		return 1;
	}
	if (optind < argc && !strcmp(argv[optind], "contexts") && argc - optind == 1)
		return list_contexts();
	if (optind < argc && !strcmp(argv[optind], "features") && argc - optind == 1) {
		if (scry_check_privileges("scry list features", err, sizeof(err))) {
			fprintf(stderr, "scry list: %s\n", err);
			return 1;
		}
		return list_features();
	}
	if (optind < argc && argc - optind == 1 &&
	    (!strncmp(argv[optind], "uprobe:", 7) || !strncmp(argv[optind], "uretprobe:", 10)))
		return list_uprobes(argv[optind]);
	if (optind < argc && argc - optind == 1 && !strncmp(argv[optind], "usdt:", 5))
		return list_usdt(argv[optind]);
	if (!(cat = scry_catalog_open(NULL, err, sizeof(err)))) {
		fprintf(stderr, "scry list: %s\n", err);
		return 1;
	}
	if (syscalls) {
		ret = list_syscalls_lttng(cat);
		goto cleanup;
	}
	if (optind == argc) {
		size_t n = list_tracepoints(cat, NULL, fields) + list_statedump(cat, NULL, fields);

		printf("%zu tracepoints (scry list syscalls: %zu syscalls)\n", n,
		       scry_catalog_syscalls(cat, &(const struct scry_syscall *){ NULL }));
		goto cleanup;
	}
	for (int i = optind; i < argc; i++) {
		const char *p = argv[i];
		size_t found;

		if (!strcmp(p, "contexts")) {
			list_contexts();
			continue;
		}
		if (!strcmp(p, "syscalls") || !strcmp(p, "syscalls:*"))
			found = list_syscalls(cat, NULL, fields);
		else if (!strncmp(p, "syscalls:", 9))
			found = list_syscalls(cat, p + 9, fields);
		else if ((found = list_tracepoints(cat, p, fields) + list_statedump(cat, p, fields)) && !fields)
			printf("(%zu tracepoint%s)\n", found, found == 1 ? "" : "s");
		if (!found) {
			no_match(cat, p);
			ret = 1;
		}
	}
cleanup:
	scry_catalog_close(cat);
	return ret;
}
