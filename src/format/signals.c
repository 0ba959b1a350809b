/* signals.c — x86_64 signal names as strace prints them (SIGTERM, SIGRTMIN for 32,
 * SIGRT_n for 32+n), lookup by name, and signal masks: "[INT TERM]", "[]", and the
 * complement "~[KILL STOP]" when two thirds or more of the bits are set. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "format/format.h"
#include "format/fmt_internal.h"

static const char *const signames[65] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
	"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS", "SIGRTMIN",
	"SIGRT_1", "SIGRT_2", "SIGRT_3", "SIGRT_4", "SIGRT_5", "SIGRT_6", "SIGRT_7", "SIGRT_8",
	"SIGRT_9", "SIGRT_10", "SIGRT_11", "SIGRT_12", "SIGRT_13", "SIGRT_14", "SIGRT_15",
	"SIGRT_16", "SIGRT_17", "SIGRT_18", "SIGRT_19", "SIGRT_20", "SIGRT_21", "SIGRT_22",
	"SIGRT_23", "SIGRT_24", "SIGRT_25", "SIGRT_26", "SIGRT_27", "SIGRT_28", "SIGRT_29",
	"SIGRT_30", "SIGRT_31", "SIGRT_32",
};

static const struct fmt_xval aliases[] = {
	{ 6, "SIGIOT" }, { 17, "SIGCLD" }, { 29, "SIGPOLL" }, { 31, "SIGUNUSED" }, { 64, "SIGRTMAX" },
};

const char *scry_signal_name(int sig)
{
	return sig > 0 && sig <= 64 ? signames[sig] : NULL;
}

/* "SIGTERM", "TERM", "sigterm", "SIGRT_3", "RT_3", "RTMIN+3", "15" */
int scry_signal_by_name(const char *name)
{
	char buf[24];
	char *end;
	long n;

	if (!name || !*name)
		return -1;
	if (*name >= '0' && *name <= '9') {
		n = strtol(name, &end, 10);
		return !*end && n > 0 && n <= 64 ? (int)n : -1;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	if (strlen(name) + 4 > sizeof(buf))
		return -1;
	strcpy(buf, "SIG");
	strcat(buf, name);
	for (int s = 1; s <= 64; s++)
		if (!strcasecmp(signames[s], buf))
			return s;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcasecmp(aliases[i].name, buf))
			return (int)aliases[i].v;
	if (!strncasecmp(name, "RTMIN+", 6)) {
		n = strtol(name + 6, &end, 10);
		if (name[6] >= '0' && name[6] <= '9' && !*end && n >= 0 && n <= 32)
			return (int)(32 + n);
	}
	return -1;
}

void fmt_signame(struct outbuf *ob, int64_t sig)
{
	const char *n = sig > 0 && sig <= 64 ? signames[sig] : NULL;

	if (n && fmt_xlat_style != SCRY_XLAT_ABBREV) {   /* -X: 15 [/ * SIGTERM * /] */
		ob_i64(ob, sig);
		if (fmt_xlat_style == SCRY_XLAT_VERBOSE) {
			OB_LIT(ob, " /* ");
			ob_puts(ob, n);
			OB_LIT(ob, " */");
		}
	} else if (n)
		ob_puts(ob, n);
	else
		ob_i64(ob, sig);
}

void fmt_sigset(struct outbuf *ob, const uint8_t *p, size_t bytes)
{
	unsigned words = (unsigned)((bytes > 8 ? 8 : bytes) + 3) / 4, bits = words * 32, count = 0;
	uint64_t mask = 0;
	char sep = '[';

	for (unsigned i = 0; i < (bytes > 8 ? 8 : bytes); i++)
		mask |= (uint64_t)p[i] << (8 * i);
	count = (unsigned)__builtin_popcountll(mask);
	if (bits && count >= bits * 2 / 3) {
		mask = ~mask;
		if (bits < 64)
			mask &= (1ULL << bits) - 1;
		ob_putc(ob, '~');
	}
	for (unsigned i = 0; i < bits; i++) {
		unsigned sig = i + 1;

		if (!(mask >> i & 1))
			continue;
		ob_putc(ob, sep);
		sep = ' ';
		if (sig < 32) {
			ob_puts(ob, signames[sig] + 3);
		} else if (sig == 32) {
			OB_LIT(ob, "RTMIN");
		} else {
			OB_LIT(ob, "RT_");
			ob_u64(ob, sig - 32);
		}
	}
	if (sep == '[')
		ob_putc(ob, '[');
	ob_putc(ob, ']');
}
