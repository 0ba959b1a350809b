/* usdt.c — see usdt.h: the .note.stapsdt notes of an ELF file. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "catalog/usdt.h"

#define NT_STAPSDT 3

void scry_usdt_notes_free(struct scry_usdt_note *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].provider);
		free(v[i].name);
		free(v[i].args);
	}
	free(v);
}

static unsigned count_args(const char *a)
{
	unsigned n = 0;

	for (const char *p = a; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n++;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

/* One note's description: pc, base, semaphore, then provider, name, args (NUL-terminated). */
static int add_note(struct scry_usdt_note **v, size_t *n, const char *d, size_t len)
{
	struct scry_usdt_note *nv, *u;
	const char *prov = d + 24, *name, *args, *end = d + len;

	if (len < 27)
		return 0;
	if (!(name = memchr(prov, 0, (size_t)(end - prov))) || ++name >= end ||
	    !(args = memchr(name, 0, (size_t)(end - name))) || ++args >= end || !memchr(args, 0, (size_t)(end - args)))
		return 0;
	if (!(nv = realloc(*v, (*n + 1) * sizeof(**v))))
		return -ENOMEM;
	*v = nv;
	u = &nv[*n];
	memset(u, 0, sizeof(*u));
	memcpy(&u->pc, d, 8);
	memcpy(&u->base, d + 8, 8);
	memcpy(&u->semaphore, d + 16, 8);
	u->provider = strdup(prov);
	u->name = strdup(name);
	u->args = strdup(args);
	++*n;
	if (!u->provider || !u->name || !u->args)
		return -ENOMEM;
	u->nargs = count_args(args);
	return 0;
}

int scry_usdt_notes(const char *path, struct scry_usdt_note **out, size_t *n, char *err, size_t errlen)
{
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, ret = -1;

	*out = NULL;
	*n = 0;
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *sname;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(sname, ".note.stapsdt") ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((char *)data->d_buf + name_off, "stapsdt", 8))
				continue;
			if (add_note(out, n, (char *)data->d_buf + desc_off, nh.n_descsz)) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
		}
	}
	ret = 0;
out:
	if (ret) {
		scry_usdt_notes_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}
