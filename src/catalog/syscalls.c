/* syscalls.c — the syscall list at run time: the generated table (syscall_table.c) with
 * argument names and types refreshed from this kernel's sys_enter_NAME format files when
 * tracefs has them, so a kernel newer than the table is described correctly.  What those
 * ~400 files say is kept in the cache (util/cache.h: syscalls-BUILD-KERNEL.txt, a line per
 * table row: its name, then "-" for no usable format or its arguments as name and type
 * pairs, tab-separated), so that later runs read one file (~10 ms of every start). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/internal.h"
#include "catalog/syscall_table.h"
#include "catalog/tpformat.h"
#include "util/cache.h"

struct ctype_info {
	const char *name;
	uint8_t size;
	bool is_signed;
};

/* Same decisions as scripts/gen_syscalls.py (C_TYPES). */
static const struct ctype_info ctypes[] = {
	{ "int", 4, true }, { "pid_t", 4, true }, { "key_t", 4, true }, { "mqd_t", 4, true },
	{ "timer_t", 4, true }, { "clockid_t", 4, true }, { "key_serial_t", 4, true },
	{ "__s32", 4, true }, { "rwf_t", 4, true },
	{ "unsigned int", 4, false }, { "unsigned", 4, false }, { "u32", 4, false },
	{ "__u32", 4, false }, { "uid_t", 4, false }, { "gid_t", 4, false }, { "qid_t", 4, false },
	{ "umode_t", 2, false },
	{ "long", 8, true }, { "loff_t", 8, true }, { "off_t", 8, true },
	{ "unsigned long", 8, false }, { "size_t", 8, false }, { "aio_context_t", 8, false },
	{ "u64", 8, false }, { "__u64", 8, false },
};

/* User-facing (unistd) names of syscalls the kernel names differently. */
static const char *const aliases[][2] = {
	{ "stat", "newstat" }, { "fstat", "newfstat" }, { "lstat", "newlstat" },
	{ "uname", "newuname" }, { "sendfile", "sendfile64" }, { "umount2", "umount" },
};

int scry_syscall_ctype(const char *ctype, uint8_t *size, bool *is_signed, bool *is_pointer)
{
	const char *base = ctype;

	if (!strncmp(base, "const ", 6))
		base += 6;
	*is_pointer = strchr(ctype, '*') || !strcmp(base, "cap_user_header_t") ||
		      !strcmp(base, "cap_user_data_t");
	if (*is_pointer) {
		*size = 8;
		*is_signed = false;
		return 0;
	}
	if (!strncmp(base, "enum ", 5)) {
		*size = 4;
		*is_signed = false;
		return 0;
	}
	for (size_t i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
		if (!strcmp(ctypes[i].name, base)) {
			*size = ctypes[i].size;
			*is_signed = ctypes[i].is_signed;
			return 0;
		}
	*size = 8;           /* unknown type: a full register, no extension */
	*is_signed = false;
	return -1;
}

static const char *keep(struct scry_syscalls *s, const char *str)
{
	char *d;

	if (s->nstrings == s->capstrings) {
		size_t ncap = s->capstrings ? s->capstrings * 2 : 256;
		char **n = realloc(s->strings, ncap * sizeof(*n));

		if (!n)
			return NULL;
		s->strings = n;
		s->capstrings = ncap;
	}
	if (!(d = strdup(str)))
		return NULL;
	s->strings[s->nstrings++] = d;
	return d;
}

/* The arguments the kernel's format file of row gives, as name and type pairs (pointing
 * into *fmt, to free with tpformat_free when the result is >= 0): their number, or -1
 * when there is no usable format (the generated row is kept). */
static int format_args(const char *tracefs, const char *name, struct tpformat *fmt,
		       const char *pairs[SCRY_MAX_ARGS][2])
{
	char path[512], perr[128];
	char *text = NULL;
	size_t len;
	int n = 0;

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tracefs, name);
	if (scry_read_text(path, &text, &len) < 0)
		return -1;  /* not traceable on this kernel */
	if (tpformat_parse(text, len, fmt, perr, sizeof(perr)) < 0) {
		free(text);
		return -1;
	}
	free(text);
	for (unsigned i = 0; i < fmt->nfields; i++) {
		const struct tpformat_field *ff = &fmt->fields[i];

		if (ff->is_common || !strcmp(ff->name, "__syscall_nr"))
			continue;
		if (n == SCRY_MAX_ARGS) {   /* not a syscall layout we know */
			tpformat_free(fmt);
			return -1;
		}
		pairs[n][0] = ff->name;
		pairs[n][1] = ff->type;
		n++;
	}
	return n;
}

/* sc's arguments replaced by the kernel's n name and type pairs; -1 out of memory. */
static int apply_args(struct scry_syscalls *s, const struct scry_syscall_row *row, struct scry_syscall *sc,
		      bool *known, const char *pairs[SCRY_MAX_ARGS][2], int n)
{
	struct scry_syscall_arg args[SCRY_MAX_ARGS];

	for (int i = 0; i < n; i++) {
		struct scry_syscall_arg *a = &args[i];

		memset(a, 0, sizeof(*a));
		for (unsigned j = 0; j < row->nargs; j++)
			if (!strcmp(row->args[j].name, pairs[i][0]) && !strcmp(row->args[j].ctype, pairs[i][1])) {
				*a = row->args[j];
				break;
			}
		if (a->name)
			continue;
		a->name = keep(s, pairs[i][0]);
		a->ctype = keep(s, pairs[i][1]);
		if (!a->name || !a->ctype)
			return -1;
		scry_syscall_ctype(a->ctype, &a->size, &a->is_signed, &a->is_pointer);
		a->is_string = !strcmp(a->ctype, "const char *");
	}
	memcpy(sc->args, args, sizeof(args));
	sc->nargs = (unsigned)n;
	*known = true;
	return 0;
}

/* The cache's line of row (text at *p, moved past it) as pairs pointing into the text
 * (tabs and the newline cut): their number, -1 for "-", -2 when the line is not row's. */
static int cached_args(char **p, const char *name, const char *pairs[SCRY_MAX_ARGS][2])
{
	char *line = *p, *nl = strchr(line, '\n'), *f, *save = NULL;
	int n = 0;

	if (!nl)
		return -2;
	*nl = 0;
	*p = nl + 1;
	if (!(f = strtok_r(line, "\t", &save)) || strcmp(f, name))
		return -2;
	if (!(f = strtok_r(NULL, "\t", &save)))
		return 0;               /* no argument */
	if (!strcmp(f, "-"))
		return strtok_r(NULL, "\t", &save) ? -2 : -1;
	for (; f; f = strtok_r(NULL, "\t", &save)) {
		const char *type = strtok_r(NULL, "\t", &save);

		if (!type || n == SCRY_MAX_ARGS)
			return -2;
		pairs[n][0] = f;
		pairs[n][1] = type;
		n++;
	}
	return n;
}

/* The argument specs of sc: its row of syscall_specs.c when that row fits this kernel's
 * arguments, else plain values typed from the format file. */
static void fill_spec(struct scry_syscall *sc)
{
	const char *spec = scry_sc_spec_find(sc->name);
	const char *names[SCRY_MAX_ARGS];
	char err[128];

	for (unsigned i = 0; i < sc->nargs; i++)
		names[i] = sc->args[i].name;
	if (spec && scry_argspec_parse(spec, names, sc->nargs, sc->spec, err, sizeof(err)) == 0)
		return;
	memset(sc->spec, 0, sizeof(sc->spec));
	for (unsigned i = 0; i < sc->nargs; i++) {
		const struct scry_syscall_arg *a = &sc->args[i];

		sc->spec[i].kind = a->is_string ? SCRY_A_PATH :
				   a->is_pointer ? SCRY_A_PTR :
				   a->is_signed ? SCRY_A_INT : SCRY_A_UINT;
	}
}

/* Arguments a syscall takes from its caller's stack rather than its registers, as strace
 * shows them: rt_sigreturn's is the mask the signal frame restores, whose address the BPF
 * entry program passes as argument 0 (src/bpf/syscalls.bpf.h, SCRY_SIGFRAME_MASK_OFF). */
static void add_frame_args(struct scry_syscall *sc)
{
	char err[128];

	if (strcmp(sc->name, "rt_sigreturn") || sc->nargs)
		return;
	sc->args[0] = (struct scry_syscall_arg){ .name = "uc_sigmask", .ctype = "sigset_t *", .size = 8,
						 .is_pointer = true };
	if (scry_argspec_parse("istruct:sigframe_mask", (const char *[]){ "uc_sigmask" }, 1, sc->spec, err,
			       sizeof(err)) == 0)
		sc->nargs = 1;
}

#define CACHE_HEAD "scry-syscalls 1\n"

int scry_syscalls_load(const char *tracefs, struct scry_syscalls *out, char *err, size_t errlen)
{
	struct scry_syscalls s = { 0 };
	char cpath[512], *ctext = NULL, *cp = NULL, *wtext = NULL;
	size_t clen = 0, wlen = 0;
	FILE *w = NULL;        /* the cache being written, on a miss */
	/* the kernel's own tracefs only (tests give directories of their own) */
	bool cached = tracefs && (!strcmp(tracefs, "/sys/kernel/tracing") || !strcmp(tracefs, "/sys/kernel/debug/tracing")) &&
		      scry_cache_path("syscalls", "txt", cpath, sizeof(cpath));

	memset(out, 0, sizeof(*out));
	if (cached && scry_read_text(cpath, &ctext, &clen) == 0 && !strncmp(ctext, CACHE_HEAD, strlen(CACHE_HEAD)))
		cp = ctext + strlen(CACHE_HEAD);
	s.list = calloc(scry_syscall_table_len, sizeof(*s.list));
	s.args_known = calloc(scry_syscall_table_len, sizeof(*s.args_known));
	if (!s.list || !s.args_known)
		goto nomem;
restart:
	if (!cp && cached && (w = open_memstream(&wtext, &wlen)))
		fputs(CACHE_HEAD, w);
	for (size_t i = 0; i < scry_syscall_table_len; i++) {
		const struct scry_syscall_row *row = &scry_syscall_table[i];
		struct scry_syscall *sc = &s.list[s.n];
		const char *pairs[SCRY_MAX_ARGS][2];
		struct tpformat fmt;
		int n = -1;

		if (row->nr < 0 || row->nr >= SCRY_MAX_SYSCALLS)
			continue;
		sc->name = row->name;
		sc->nr = row->nr;
		sc->nargs = row->args_known ? row->nargs : 0;
		memcpy(sc->args, row->args, sizeof(sc->args));
		s.args_known[s.n] = row->args_known;
		if (cp) {
			if ((n = cached_args(&cp, row->name, pairs)) == -2) {
				/* not this table's cache: every format file read again */
				cp = NULL;
				s.n = 0;
				for (size_t k = 0; k < s.nstrings; k++)
					free(s.strings[k]);
				s.nstrings = 0;
				goto restart;
			}
		} else if (tracefs) {
			n = format_args(tracefs, row->name, &fmt, pairs);
			if (w) {
				fputs(row->name, w);
				if (n < 0)
					fputs("\t-", w);
				for (int k = 0; k < n; k++)
					fprintf(w, "\t%s\t%s", pairs[k][0], pairs[k][1]);
				fputc('\n', w);
			}
		}
		/* the pairs point into fmt when they were read from a format file */
		int r = n >= 0 ? apply_args(&s, row, sc, &s.args_known[s.n], pairs, n) : 0;

		if (n >= 0 && !cp)
			tpformat_free(&fmt);
		if (r < 0)
			goto nomem;
		fill_spec(sc);
		add_frame_args(sc);
		s.n++;
	}
	if (w && !fclose(w)) {
		w = NULL;
		scry_cache_prune("syscalls");
		scry_cache_write(cpath, wtext, wlen);   /* a failure: the next run reads the files again */
	}
	free(wtext);
	free(ctext);
	*out = s;
	return 0;
nomem:
	if (w)
		fclose(w);
	free(wtext);
	free(ctext);
	snprintf(err, errlen, "out of memory building the syscall list");
	scry_syscalls_free(&s);
	return -1;
}

void scry_syscalls_free(struct scry_syscalls *s)
{
	for (size_t i = 0; i < s->nstrings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->list);
	free(s->args_known);
	memset(s, 0, sizeof(*s));
}

const char *scry_syscall_user_name(const char *kernel_name)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(kernel_name, aliases[i][1]))
			return aliases[i][0];
	return kernel_name;
}

const struct scry_syscall *scry_syscalls_find(const struct scry_syscalls *s, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i][0]))
			name = aliases[i][1];
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->list[i].name, name))
			return &s->list[i];
	return NULL;
}
