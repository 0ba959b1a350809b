/* syscalls.c — the syscall list at run time: the generated table (syscall_table.c) with
 * argument names and types refreshed from this kernel's sys_enter_NAME format files when
 * tracefs has them, so a kernel newer than the table is described correctly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/internal.h"
#include "catalog/syscall_table.h"
#include "catalog/tpformat.h"

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

/* Replace sc's arguments by those of the kernel's format file, if there is one. */
static int refresh(struct scry_syscalls *s, const char *tracefs, const struct scry_syscall_row *row,
		   struct scry_syscall *sc, bool *known)
{
	char path[512], perr[128];
	char *text = NULL;
	size_t len;
	struct tpformat f;
	struct scry_syscall_arg args[SCRY_MAX_ARGS];
	unsigned n = 0;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tracefs, row->name);
	if (scry_read_text(path, &text, &len) < 0)
		return 0;   /* not traceable on this kernel: keep the generated row */
	if (tpformat_parse(text, len, &f, perr, sizeof(perr)) < 0)
		goto cleanup;   /* unusable format: keep the generated row */
	for (unsigned i = 0; i < f.nfields; i++) {
		const struct tpformat_field *ff = &f.fields[i];
		struct scry_syscall_arg *a;

		if (ff->is_common || !strcmp(ff->name, "__syscall_nr"))
			continue;
		if (n == SCRY_MAX_ARGS)
			goto free_fmt;   /* not a syscall layout we know */
		a = &args[n++];
		memset(a, 0, sizeof(*a));
		for (unsigned j = 0; j < row->nargs; j++)
			if (!strcmp(row->args[j].name, ff->name) && !strcmp(row->args[j].ctype, ff->type)) {
				*a = row->args[j];
				break;
			}
		if (a->name)
			continue;
		a->name = keep(s, ff->name);
		a->ctype = keep(s, ff->type);
		if (!a->name || !a->ctype) {
			ret = -1;
			goto free_fmt;
		}
		scry_syscall_ctype(a->ctype, &a->size, &a->is_signed, &a->is_pointer);
		a->is_string = !strcmp(a->ctype, "const char *");
	}
	memcpy(sc->args, args, sizeof(args));
	sc->nargs = n;
	*known = true;
free_fmt:
	tpformat_free(&f);
cleanup:
	free(text);
	return ret;
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

int scry_syscalls_load(const char *tracefs, struct scry_syscalls *out, char *err, size_t errlen)
{
	struct scry_syscalls s = { 0 };

	memset(out, 0, sizeof(*out));
	s.list = calloc(scry_syscall_table_len, sizeof(*s.list));
	s.args_known = calloc(scry_syscall_table_len, sizeof(*s.args_known));
	if (!s.list || !s.args_known)
		goto nomem;
	for (size_t i = 0; i < scry_syscall_table_len; i++) {
		const struct scry_syscall_row *row = &scry_syscall_table[i];
		struct scry_syscall *sc = &s.list[s.n];

		if (row->nr < 0 || row->nr >= SCRY_MAX_SYSCALLS)
			continue;
		sc->name = row->name;
		sc->nr = row->nr;
		sc->nargs = row->args_known ? row->nargs : 0;
		memcpy(sc->args, row->args, sizeof(sc->args));
		s.args_known[s.n] = row->args_known;
		if (tracefs && refresh(&s, tracefs, row, sc, &s.args_known[s.n]) < 0)
			goto nomem;
		fill_spec(sc);
		add_frame_args(sc);
		s.n++;
	}
	*out = s;
	return 0;
nomem:
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
