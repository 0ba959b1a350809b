/* options.c — `scry trace` settings (see options.h); the command line is cli/trace_options.c.  Set syntax as strace's: -e trace=
 * replaces the previous selection; a leading '!' inverts the whole set; "all" and "none";
 * "?NAME" ignores an unknown name; "/REGEX" selects the names matching an extended regular
 * expression; "%class" (and strace's deprecated bare "file", "network", ...). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "format/format.h"
#include "trace/classes.h"
#include "trace/options.h"
#include "util/parse.h"

#define SEL_WORDS (TRACE_NR_MAX / 64)

struct sel {
	uint64_t bits[SEL_WORDS];
	bool rest;
};

static void sel_fill(struct sel *s, bool on)
{
	memset(s->bits, on ? 0xff : 0, sizeof(s->bits));
	s->rest = on;
}

static void sel_set(struct sel *s, int nr)
{
	if (nr >= 0 && nr < TRACE_NR_MAX)
		s->bits[nr / 64] |= 1ULL << (nr % 64);
}

void trace_opts_init(struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	memset(o->sel, 0xff, sizeof(o->sel));
	o->sel_rest = true;
	o->status = TRACE_ST_ALL;
	o->sigset = ~0ULL;
	o->strsize = 32;
	o->sortby = TRACE_SORT_TIME;
}

void trace_opts_free(struct trace_opts *o)
{
	free(o->pids);
	o->pids = NULL;
	o->npids = 0;
	free(o->probes);
	o->probes = NULL;
	o->nprobes = 0;
	free(o->paths);
	o->paths = NULL;
	o->npaths = 0;
	free(o->env);
	o->env = NULL;
	o->nenv = 0;
}

bool trace_opts_selected(const struct trace_opts *o, int nr)
{
	if (nr < 0 || nr >= TRACE_NR_MAX)
		return o->sel_rest;
	return o->sel[nr / 64] >> (nr % 64) & 1;
}

bool trace_opts_dumped(const struct trace_opts *o, int fd, bool write)
{
	const uint64_t *set = write ? o->dump_write : o->dump_read;

	return fd >= 0 && fd < TRACE_FD_MAX && (set[fd / 64] >> (fd % 64) & 1);
}

bool trace_opts_selects_all(const struct trace_opts *o)
{
	for (size_t i = 0; i < SEL_WORDS; i++)
		if (o->sel[i] != ~0ULL)
			return false;
	return o->sel_rest;
}

/* "unknown syscall 'opn'; did you mean open, openat?" */
static void unknown_name(const char *name, const struct trace_names *names, char *err, size_t errlen)
{
	const char *best[4];
	size_t k = names->names ? scry_closest(name, names->names, names->nnames, best, 4) : 0;
	size_t n = (size_t)snprintf(err, errlen, "unknown syscall '%s'", name);

	for (size_t i = 0; i < k && n < errlen; i++) {
		/* the list may hold one syscall twice (kernel name and alias) */
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(best[i], best[j]);
		if (!dup)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s", i ? "," : "; did you mean", best[i]);
	}
	if (n < errlen)
		snprintf(err + n, errlen - n, "%s", k ? "?" : " (scry list syscalls shows them)");
}

static int add_regex(struct sel *s, const char *re, bool quiet, const struct trace_names *names,
		     char *err, size_t errlen)
{
	regex_t rx;
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), found = 0;

	if (rc) {
		char msg[128];

		regerror(rc, &rx, msg, sizeof(msg));
		snprintf(err, errlen, "invalid regular expression '/%s': %s", re, msg);
		return -1;
	}
	for (size_t i = 0; i < names->nnames; i++) {
		int nr;

		if (regexec(&rx, names->names[i], 0, NULL, 0))
			continue;
		if ((nr = names->lookup(names->ctx, names->names[i])) >= 0) {
			sel_set(s, nr);
			found = 1;
		}
	}
	regfree(&rx);
	if (!found && !quiet) {
		snprintf(err, errlen, "no syscall matches '/%s'", re);
		return -1;
	}
	return 0;
}

static int add_token(struct sel *s, char *tok, const struct trace_names *names, char *err, size_t errlen)
{
	bool quiet = false;
	char *at;
	unsigned mask;
	int nr;

	if (*tok == '?') {
		quiet = true;
		tok++;
	}
	if (!*tok) {
		snprintf(err, errlen, "empty syscall name");
		return -1;
	}
	if (*tok == '/')
		return add_regex(s, tok + 1, quiet, names, err, errlen);
	if ((at = strrchr(tok, '@'))) {
		if (strcmp(at, "@64")) {
			snprintf(err, errlen, "'%s': scry traces the 64-bit personality only", tok);
			return -1;
		}
		*at = '\0';
	}
	if (!strcmp(tok, "all")) {
		sel_fill(s, true);
		return 0;
	}
	if (!strcmp(tok, "none"))
		return 0;
	if ((mask = trace_class_by_name(tok))) {
		size_t it = 0;
		const char *kname;

		while ((kname = trace_class_next(mask, &it)))
			sel_set(s, names->lookup(names->ctx, kname));
		return 0;
	}
	if (*tok == '%') {
		snprintf(err, errlen, "unknown syscall class '%s' (classes: %s)", tok, trace_class_list());
		return -1;
	}
	if ((nr = names->lookup(names->ctx, tok)) >= 0) {
		sel_set(s, nr);
		return 0;
	}
	if (quiet)
		return 0;
	unknown_name(tok, names, err, errlen);
	return -1;
}

int trace_opts_set_trace(struct trace_opts *o, const char *set, const struct trace_names *names,
			 char *err, size_t errlen)
{
	struct sel s;
	bool invert = false;
	char *copy, *save = NULL, *tok;
	const char *p = set;
	int rc = 0;

	while (*p == '!') {
		invert = !invert;
		p++;
	}
	sel_fill(&s, false);
	if (!*p) {
		snprintf(err, errlen, "empty syscall set in trace=%s", set);
		return -1;
	}
	if (!(copy = strdup(p))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* strtok_r would skip empty tokens: split by hand so "open,,close" is an error */
	for (tok = copy; tok && !rc; tok = save) {
		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		rc = add_token(&s, tok, names, err, errlen);
	}
	free(copy);
	if (rc)
		return -1;
	if (invert) {
		for (size_t i = 0; i < SEL_WORDS; i++)
			s.bits[i] = ~s.bits[i];
		s.rest = !s.rest;
	}
	memcpy(o->sel, s.bits, sizeof(o->sel));
	o->sel_rest = s.rest;
	o->trace_given = true;
	return 0;
}

/* Generic "[!]all|none|tok,tok" set over a small bit mask; tok_bit returns 0 if unknown. */
static int parse_mask(const char *set, uint64_t all, uint64_t (*tok_bit)(const char *),
		      uint64_t *out, const char *what, const char *expected, char *err, size_t errlen)
{
	bool invert = false;
	uint64_t m = 0;
	const char *p = set;
	char *copy, *tok, *next;

	while (*p == '!') {
		invert = !invert;
		p++;
	}
	if (!(copy = strdup(p))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = copy; tok; tok = next) {
		uint64_t b;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!strcmp(tok, "all"))
			b = all;
		else if (!strcmp(tok, "none"))
			b = 0;
		else if (!(b = tok_bit(tok))) {
			snprintf(err, errlen, "invalid %s '%s' (expected %s)", what, tok, expected);
			free(copy);
			return -1;
		}
		m |= b;
	}
	free(copy);
	*out = invert ? ~m & all : m;
	return 0;
}

static uint64_t status_bit(const char *t)
{
	static const char *const names[] = { "successful", "failed", "unfinished", "unavailable", "detached" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(t, names[i]))
			return 1ULL << i;
	return 0;
}

/* "SIGIO", "io", "sigio", "29" */
static uint64_t signal_bit(const char *t)
{
	char name[32] = "SIG";
	char *end;
	size_t n = strncasecmp(t, "SIG", 3) ? 3 : 0;
	long v = strtol(t, &end, 10);
	int sig;

	if (*t && !*end)
		return v >= 1 && v <= 64 ? 1ULL << (v - 1) : 0;
	for (; *t && n < sizeof(name) - 1; t++)
		name[n++] = (char)toupper((unsigned char)*t);
	if (*t)
		return 0;
	name[n] = '\0';
	sig = scry_signal_by_name(name);
	return sig >= 1 && sig <= 64 ? 1ULL << (sig - 1) : 0;
}

static uint64_t quiet_bit(const char *t)
{
	static const struct {
		const char *name;
		unsigned bit;
	} q[] = {
		{ "attach", TRACE_Q_ATTACH }, { "exit", TRACE_Q_EXIT }, { "exits", TRACE_Q_EXIT },
		{ "path-resolution", TRACE_Q_PATH_RESOLVE }, { "personality", TRACE_Q_PERSONALITY },
		{ "thread-execve", TRACE_Q_THREAD_EXECVE }, { "superseded", TRACE_Q_THREAD_EXECVE },
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (!strcmp(t, q[i].name))
			return q[i].bit;
	return 0;
}

/* -e read=SET, -e write=SET: descriptors, all, none, '!' inverts (strace's qualify_tokens). */
static int parse_fdset(const char *set, uint64_t *bits, const char *what, char *err, size_t errlen)
{
	bool invert = false;
	const char *p = set;
	char *copy, *tok, *next;

	while (*p == '!') {
		invert = !invert;
		p++;
	}
	memset(bits, 0, TRACE_FD_MAX / 8);
	if (!(copy = strdup(p))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = copy; tok; tok = next) {
		char *end;
		long v;

		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (!strcmp(tok, "all")) {
			memset(bits, 0xff, TRACE_FD_MAX / 8);
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		v = strtol(tok, &end, 10);
		if (!*tok || *end || v < 0 || v >= TRACE_FD_MAX) {
			snprintf(err, errlen, "invalid descriptor '%s' in -e %s= (expected 0-%d, all, none)", tok, what,
				 TRACE_FD_MAX - 1);
			free(copy);
			return -1;
		}
		bits[v / 64] |= 1ULL << (v % 64);
	}
	free(copy);
	for (size_t i = 0; invert && i < TRACE_FD_MAX / 64; i++)
		bits[i] = ~bits[i];
	return 0;
}

static bool any_bit(const uint64_t *bits)
{
	for (size_t i = 0; i < TRACE_FD_MAX / 64; i++)
		if (bits[i])
			return true;
	return false;
}

static bool qual_is(const char *arg, size_t qlen, const char *const *names)
{
	for (; *names; names++)
		if (strlen(*names) == qlen && !strncmp(arg, *names, qlen))
			return true;
	return false;
}

int trace_opts_qualifier(struct trace_opts *o, const char *arg, const struct trace_names *names,
		   char *err, size_t errlen)
{
	static const char *const unsupported[] = {
		"abbrev", "a", "verbose", "v", "raw", "x", "kvm", "decode-fds",
	};
	static const char *const q_quiet[] = { "quiet", "silent", "silence", "q", NULL };
	static const char *const q_read[] = { "read", "reads", "r", NULL };
	static const char *const q_write[] = { "write", "writes", "w", NULL };
	static const char *const q_inject[] = { "inject", "fault", NULL };
	static const char *const q_pids[] = { "decode-pids", NULL };
	const char *eq = strchr(arg, '=');
	size_t qlen = eq ? (size_t)(eq - arg) : 0;

	static const char *const probe_kinds[] = { "uprobe:", "uretprobe:", "usdt:", "kprobe:", "kretprobe:",
						   "fentry:", "fexit:" };

	for (size_t i = 0; i < sizeof(probe_kinds) / sizeof(probe_kinds[0]); i++)
		if (!strncmp(arg, probe_kinds[i], strlen(probe_kinds[i]))) {   /* a dynamic probe */
			const char **v = realloc(o->probes, (o->nprobes + 1) * sizeof(*v));

			if (!v) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			o->probes = v;
			v[o->nprobes++] = arg;
			return 0;
		}
	if (!eq)
		return trace_opts_set_trace(o, arg, names, err, errlen);
	if ((qlen == 5 && !strncmp(arg, "trace", 5)) || (qlen == 1 && arg[0] == 't'))
		return trace_opts_set_trace(o, eq + 1, names, err, errlen);
	if (qlen == 6 && !strncmp(arg, "status", 6)) {
		uint64_t m;

		if (parse_mask(eq + 1, TRACE_ST_ALL, status_bit, &m, "status",
			       "successful, failed, unfinished, unavailable, detached, all, none", err, errlen))
			return -1;
		o->status = (unsigned)m;
		return 0;
	}
	if ((qlen == 6 && !strncmp(arg, "signal", 6)) || (qlen == 7 && !strncmp(arg, "signals", 7)) ||
	    (qlen == 1 && arg[0] == 's'))
		return parse_mask(eq + 1, ~0ULL, signal_bit, &o->sigset, "signal",
				  "signal names or numbers 1-64, all, none", err, errlen);
	if (qual_is(arg, qlen, q_quiet)) {
		uint64_t m;

		if (parse_mask(eq + 1, TRACE_Q_ALL, quiet_bit, &m, "quiet",
			       "attach, exit, path-resolution, personality, thread-execve, superseded, all, none",
			       err, errlen))
			return -1;
		o->quiet = (unsigned)m;
		return 0;
	}
	if (qual_is(arg, qlen, q_read) || qual_is(arg, qlen, q_write)) {
		bool w = qual_is(arg, qlen, q_write);

		if (parse_fdset(eq + 1, w ? o->dump_write : o->dump_read, w ? "write" : "read", err, errlen))
			return -1;
		o->dumps = any_bit(o->dump_read) || any_bit(o->dump_write);
		return 0;
	}
	if (qual_is(arg, qlen, q_inject)) {
		o->inject = arg;
		return 0;
	}
	if (qual_is(arg, qlen, q_pids)) {
		if (strcmp(eq + 1, "comm") && strcmp(eq + 1, "none")) {
			snprintf(err, errlen, "invalid --decode-pids '%s' (expected comm, none; pidns is not supported)",
				 eq + 1);
			return -1;
		}
		o->decode_comm = !strcmp(eq + 1, "comm");
		return 0;
	}	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (strlen(unsupported[i]) == qlen && !strncmp(arg, unsupported[i], qlen)) {
			snprintf(err, errlen, "-e %.*s= is not supported by scry trace (supported: trace=, status=, signal=, quiet=, read=, write=)",
				 (int)qlen, arg);
			return -1;
		}
	snprintf(err, errlen, "invalid -e qualifier '%.*s' (expected trace=, status=, signal=, quiet=, read=, write=)",
		 (int)qlen, arg);
	return -1;
}
