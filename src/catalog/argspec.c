/* argspec.c — parsing of the per-syscall argument specifications (grammar in argspec.h;
 * the table itself is syscall_specs.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/argspec.h"

struct kindname {
	const char *name;
	enum scry_akind kind;
	bool capture;           /* takes a direction prefix */
	bool named;             /* takes :NAME */
	bool len;               /* takes (LEN) */
};

static const struct kindname kinds[] = {
	{ "int", SCRY_A_INT, false, false, false },
	{ "uint", SCRY_A_UINT, false, false, false },
	{ "hex", SCRY_A_HEX, false, false, false },
	{ "oct", SCRY_A_OCT, false, false, false },
	{ "ptr", SCRY_A_PTR, false, false, false },
	{ "fd", SCRY_A_FD, false, false, false },
	{ "dirfd", SCRY_A_DIRFD, false, false, false },
	{ "pid", SCRY_A_PID, false, false, false },
	{ "sig", SCRY_A_SIG, false, false, false },
	{ "mode", SCRY_A_MODE, false, false, false },
	{ "flags", SCRY_A_FLAGS, false, true, false },
	{ "enum", SCRY_A_ENUM, false, true, false },
	{ "path", SCRY_A_PATH, false, false, false },
	{ "str", SCRY_A_STR, false, false, false },
	{ "strv", SCRY_A_STRV, false, false, false },
	{ "buf", SCRY_A_BUF, true, false, true },
	{ "hexbuf", SCRY_A_BUF, true, false, true },    /* shown in \x hex (set "hex") */
	{ "pathbuf", SCRY_A_BUF, true, false, true },   /* a path written by the kernel (set "path") */
	{ "struct", SCRY_A_STRUCT, true, true, false },
	{ "array", SCRY_A_ARRAY, true, true, true },
	{ "sockaddr", SCRY_A_SOCKADDR, true, false, true },
	{ "iovec", SCRY_A_IOVEC, true, false, true },
	{ "msghdr", SCRY_A_MSGHDR, true, false, false },
	{ "fdset", SCRY_A_FDSET, true, false, true },
	{ "dirents", SCRY_A_DIRENTS, true, false, true },
};

/* Interned set/type names: specs are static strings, but the parser needs NUL-terminated
 * names; keep one copy of each for the life of the program. */
static const char *intern(const char *s, size_t n)
{
	static char **names;
	static size_t count, cap;

	for (size_t i = 0; i < count; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], s, n))
			return names[i];
	if (count == cap) {
		size_t ncap = cap ? cap * 2 : 64;
		char **nn = realloc(names, ncap * sizeof(*nn));
		if (!nn)
			return NULL;
		names = nn;
		cap = ncap;
	}
	if (!(names[count] = strndup(s, n)))
		return NULL;
	return names[count++];
}

static size_t word(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n;
}

static int find_arg(const char *p, size_t n, const char *const *argnames, unsigned nargs)
{
	for (unsigned i = 0; i < nargs; i++)
		if (argnames[i] && strlen(argnames[i]) == n && !memcmp(argnames[i], p, n))
			return (int)i;
	return -1;
}

static int parse_one(const char **pp, const char *const *argnames, unsigned nargs, struct scry_argspec *a,
		     char *err, size_t errlen)
{
	const char *p = *pp;
	const struct kindname *k = NULL;
	size_t n;

	memset(a, 0, sizeof(*a));
	/* direction prefix: only in front of capture kinds */
	for (int d = 0; d < 3 && !k; d++) {
		static const char *const pre[] = { "io", "i", "o" };
		static const enum scry_adir dirs[] = { SCRY_DIR_INOUT, SCRY_DIR_IN, SCRY_DIR_OUT };
		size_t pl = strlen(pre[d]);

		if (strncmp(p, pre[d], pl))
			continue;
		n = word(p + pl);
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (kinds[i].capture && strlen(kinds[i].name) == n && !strncmp(p + pl, kinds[i].name, n)) {
				k = &kinds[i];
				a->dir = dirs[d];
				p += pl + n;
				break;
			}
	}
	if (!k) {
		n = word(p);
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!kinds[i].capture && strlen(kinds[i].name) == n && !strncmp(p, kinds[i].name, n)) {
				k = &kinds[i];
				p += n;
				break;
			}
	}
	if (!k) {
		n = word(p);
		snprintf(err, errlen, "unknown argument kind '%.*s'", (int)(n ? n : 1), p);
		return -1;
	}
	a->kind = k->kind;
	if ((!strcmp(k->name, "hexbuf") && !(a->set = intern("hex", 3))) ||
	    (!strcmp(k->name, "pathbuf") && !(a->set = intern("path", 4)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (k->named) {
		if (*p != ':' || !(n = word(p + 1))) {
			snprintf(err, errlen, "'%s' needs a name (%s:NAME)", k->name, k->name);
			return -1;
		}
		if (!(a->set = intern(p + 1, n))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		p += 1 + n;
	}
	if (k->len) {
		bool deref = false;

		if (*p != '(') {
			snprintf(err, errlen, "'%s' needs a length (%s(LEN))", k->name, k->name);
			return -1;
		}
		p++;
		if (*p == '*') {
			deref = true;
			p++;
		}
		n = word(p);
		if (!n) {
			snprintf(err, errlen, "empty length in '%s(...)'", k->name);
			return -1;
		}
		if (isdigit((unsigned char)*p)) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (deref || end != p + n || v == 0 || v > 65535) {
				snprintf(err, errlen, "bad constant length '%.*s'", (int)n, p);
				return -1;
			}
			a->len = SCRY_LEN_CONST;
			a->len_const = (uint32_t)v;
		} else if (n == 3 && !strncmp(p, "ret", 3) && !deref) {
			if (a->dir != SCRY_DIR_OUT) {
				snprintf(err, errlen, "length 'ret' is only known on exit (use o%s)", k->name);
				return -1;
			}
			a->len = SCRY_LEN_RET;
		} else {
			int i = find_arg(p, n, argnames, nargs);

			if (i < 0) {
				snprintf(err, errlen, "length '%.*s' is not an argument", (int)n, p);
				return -1;
			}
			a->len = deref ? SCRY_LEN_UPTR : SCRY_LEN_ARG;
			a->len_arg = (uint8_t)i;
		}
		p += n;
		if (*p != ')') {
			snprintf(err, errlen, "missing ')' after the length of '%s'", k->name);
			return -1;
		}
		p++;
	}
	*pp = p;
	return 0;
}

int scry_argspec_parse(const char *spec, const char *const *argnames, unsigned nargs,
		       struct scry_argspec *out, char *err, size_t errlen)
{
	const char *p = spec;
	unsigned n = 0;

	for (;;) {
		while (*p == ' ')
			p++;
		if (!*p && n == 0 && nargs == 0)
			return 0;
		if (n == nargs || n == SCRY_MAX_ARGS) {
			snprintf(err, errlen, "more argument specs than the %u arguments", nargs);
			return -1;
		}
		if (parse_one(&p, argnames, nargs, &out[n], err, errlen) < 0)
			return -1;
		n++;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (*p != ',') {
			snprintf(err, errlen, "expected ',' at '%.20s'", p);
			return -1;
		}
		p++;
	}
	if (n != nargs) {
		snprintf(err, errlen, "%u argument specs for %u arguments", n, nargs);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct scry_argspec *a = &out[i];

		if (a->len == SCRY_LEN_UPTR && a->dir == SCRY_DIR_IN) {
			snprintf(err, errlen, "argument %u: a length read through a pointer is for exit (o...)", i + 1);
			return -1;
		}
		if ((a->len == SCRY_LEN_ARG || a->len == SCRY_LEN_UPTR) && a->len_arg == i) {
			snprintf(err, errlen, "argument %u: its length cannot be itself", i + 1);
			return -1;
		}
	}
	return 0;
}

const char *scry_sc_spec_find(const char *name)
{
	for (size_t i = 0; i < scry_sc_specs_len; i++)
		if (!strcmp(scry_sc_specs[i].name, name))
			return scry_sc_specs[i].spec;
	return NULL;
}
