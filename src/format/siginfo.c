/* siginfo.c — a siginfo_t as strace prints it ({si_signo=SIGCHLD, si_code=CLD_EXITED,
 * si_pid=12, si_uid=0, si_status=0, si_utime=0, si_stime=0}): the si_code names of
 * asm-generic/siginfo.h, and which members of the union a signal and code carry
 * (scry_siginfo_fields), shared by the text printer here and by JSON writers. */
#include <signal.h>
#include <stddef.h>
#include "format/format.h"
#include "format/fmt_internal.h"

struct code_name {
	int code;
	const char *name;
};

#define END { 0, NULL }

static const struct code_name generic[] = {
	{ 0, "SI_USER" }, { 0x80, "SI_KERNEL" }, { -1, "SI_QUEUE" }, { -2, "SI_TIMER" },
	{ -3, "SI_MESGQ" }, { -4, "SI_ASYNCIO" }, { -5, "SI_SIGIO" }, { -6, "SI_TKILL" },
	{ -7, "SI_DETHREAD" }, { -60, "SI_ASYNCNL" }, END,
};
static const struct code_name ill[] = {
	{ 1, "ILL_ILLOPC" }, { 2, "ILL_ILLOPN" }, { 3, "ILL_ILLADR" }, { 4, "ILL_ILLTRP" },
	{ 5, "ILL_PRVOPC" }, { 6, "ILL_PRVREG" }, { 7, "ILL_COPROC" }, { 8, "ILL_BADSTK" },
	{ 9, "ILL_BADIADDR" }, END,
};
static const struct code_name fpe[] = {
	{ 1, "FPE_INTDIV" }, { 2, "FPE_INTOVF" }, { 3, "FPE_FLTDIV" }, { 4, "FPE_FLTOVF" },
	{ 5, "FPE_FLTUND" }, { 6, "FPE_FLTRES" }, { 7, "FPE_FLTINV" }, { 8, "FPE_FLTSUB" },
	{ 14, "FPE_FLTUNK" }, { 15, "FPE_CONDTRAP" }, END,
};
static const struct code_name segv[] = {
	{ 1, "SEGV_MAPERR" }, { 2, "SEGV_ACCERR" }, { 3, "SEGV_BNDERR" }, { 4, "SEGV_PKUERR" },
	{ 5, "SEGV_ACCADI" }, { 6, "SEGV_ADIDERR" }, { 7, "SEGV_ADIPERR" }, { 8, "SEGV_MTEAERR" },
	{ 9, "SEGV_MTESERR" }, { 10, "SEGV_CPERR" }, END,
};
static const struct code_name bus[] = {
	{ 1, "BUS_ADRALN" }, { 2, "BUS_ADRERR" }, { 3, "BUS_OBJERR" }, { 4, "BUS_MCEERR_AR" },
	{ 5, "BUS_MCEERR_AO" }, END,
};
static const struct code_name trap[] = {
	{ 1, "TRAP_BRKPT" }, { 2, "TRAP_TRACE" }, { 3, "TRAP_BRANCH" }, { 4, "TRAP_HWBKPT" },
	{ 5, "TRAP_UNK" }, { 6, "TRAP_PERF" }, END,
};
static const struct code_name cld[] = {
	{ 1, "CLD_EXITED" }, { 2, "CLD_KILLED" }, { 3, "CLD_DUMPED" }, { 4, "CLD_TRAPPED" },
	{ 5, "CLD_STOPPED" }, { 6, "CLD_CONTINUED" }, END,
};
static const struct code_name poll[] = {
	{ 1, "POLL_IN" }, { 2, "POLL_OUT" }, { 3, "POLL_MSG" }, { 4, "POLL_ERR" },
	{ 5, "POLL_PRI" }, { 6, "POLL_HUP" }, END,
};
static const struct code_name prof[] = { { 1, "PROF_SIG" }, END };
static const struct code_name sys[] = { { 1, "SYS_SECCOMP" }, { 2, "SYS_USER_DISPATCH" }, END };

static const char *lookup(const struct code_name *t, int code)
{
	for (; t->name; t++)
		if (t->code == code)
			return t->name;
	return NULL;
}

const char *scry_si_code_name(int sig, int code)
{
	const char *n = lookup(generic, code);

	if (n)
		return n;
	switch (sig) {
	case SIGILL: return lookup(ill, code);
	case SIGFPE: return lookup(fpe, code);
	case SIGSEGV: return lookup(segv, code);
	case SIGBUS: return lookup(bus, code);
	case SIGTRAP: return lookup(trap, code);
	case SIGCHLD: return lookup(cld, code);
	case SIGIO: return lookup(poll, code);
	case SIGPROF: return lookup(prof, code);
	case SIGSYS: return lookup(sys, code);
	default: return NULL;
	}
}

static size_t put(struct scry_si_field *f, size_t n, size_t max, const char *name, enum scry_si_kind k,
		  int64_t v)
{
	if (n < max)
		f[n] = (struct scry_si_field){ name, k, v };
	return n + 1;
}

/* strace's print_si_info: si_errno when set; then, for codes from user space (<= 0), the
 * sender (and the value it queued, a timer's id and overrun, SIGIO's band and fd); for the
 * kernel's codes, what the signal carries: a child's pid, uid, status and times, a fault's
 * address, SIGIO's band and fd, or else a sender or a value when present. */
size_t scry_siginfo_fields(const uint8_t *p, struct scry_si_field *f, size_t max)
{
	int32_t sig = (int32_t)fmt_gets(p, 4), err = (int32_t)fmt_gets(p + 4, 4), code = (int32_t)fmt_gets(p + 8, 4);
	const uint8_t *u = p + 16;          /* union __sifields */
	int64_t pid = fmt_gets(u, 4), uid = (int64_t)fmt_get(u + 4, 4), ptr = (int64_t)fmt_get(u + 8, 8);
	size_t n = 0;

	if (err)
		n = put(f, n, max, "si_errno", SCRY_SI_ERRNO, err);
#define SOURCE() (n = put(f, n, max, "si_pid", SCRY_SI_INT, pid), n = put(f, n, max, "si_uid", SCRY_SI_UINT, uid))
#define VALUE() (n = put(f, n, max, "si_int", SCRY_SI_INT, fmt_gets(u + 8, 4)), \
		 n = put(f, n, max, "si_ptr", SCRY_SI_PTR, ptr))
#define BAND_FD() (n = put(f, n, max, "si_band", SCRY_SI_INT, fmt_gets(u, 8)), \
		   n = put(f, n, max, "si_fd", SCRY_SI_INT, fmt_gets(u + 8, 4)))
	if (code <= 0) {
		if (code == SI_USER || code == SI_TKILL) {
			SOURCE();
		} else if (code == SI_TIMER) {
			n = put(f, n, max, "si_timerid", SCRY_SI_HEX, (int64_t)fmt_get(u, 4));
			n = put(f, n, max, "si_overrun", SCRY_SI_INT, fmt_gets(u + 4, 4));
			VALUE();
		} else if (code == SI_SIGIO) {
			BAND_FD();
		} else {
			SOURCE();
			if (ptr)
				VALUE();
		}
		return n;
	}
	switch (sig) {
	case SIGCHLD:
		SOURCE();
		n = put(f, n, max, "si_status", code == CLD_EXITED ? SCRY_SI_INT : SCRY_SI_SIGNAL,
			fmt_gets(u + 8, 4));
		n = put(f, n, max, "si_utime", SCRY_SI_INT, fmt_gets(u + 16, 8));
		n = put(f, n, max, "si_stime", SCRY_SI_INT, fmt_gets(u + 24, 8));
		break;
	case SIGILL: case SIGFPE: case SIGBUS: case SIGSEGV: case SIGTRAP:
		n = put(f, n, max, "si_addr", SCRY_SI_PTR, (int64_t)fmt_get(u, 8));
		break;
	case SIGIO:
		if (code == POLL_IN || code == POLL_OUT || code == POLL_MSG)
			BAND_FD();
		break;
	case SIGSYS:
		n = put(f, n, max, "si_call_addr", SCRY_SI_PTR, (int64_t)fmt_get(u, 8));
		n = put(f, n, max, "si_syscall", SCRY_SI_INT, fmt_gets(u + 8, 4));
		n = put(f, n, max, "si_arch", SCRY_SI_HEX, (int64_t)fmt_get(u + 12, 4));
		break;
	default:
		if (pid || uid)
			SOURCE();
		if (ptr)
			VALUE();
	}
#undef SOURCE
#undef VALUE
#undef BAND_FD
	return n;
}

void scry_fmt_siginfo(struct outbuf *ob, const uint8_t *p)
{
	struct scry_si_field f[8];
	int32_t sig = (int32_t)fmt_gets(p, 4), code = (int32_t)fmt_gets(p + 8, 4);
	size_t n = scry_siginfo_fields(p, f, 8);
	const char *cn = scry_si_code_name(sig, code);

	ob_putc(ob, '{');
	if (sig) {
		OB_LIT(ob, "si_signo=");
		fmt_signame(ob, sig);
		OB_LIT(ob, ", si_code=");
		if (cn && fmt_xlat_style != SCRY_XLAT_ABBREV) {   /* -X: 0 [/ * SI_USER * /] */
			ob_i64(ob, code);
			if (fmt_xlat_style == SCRY_XLAT_VERBOSE) {
				OB_LIT(ob, " /* ");
				ob_puts(ob, cn);
				OB_LIT(ob, " */");
			}
		} else if (cn)
			ob_puts(ob, cn);
		else
			fmt_hex(ob, (uint32_t)code);
	}
	for (size_t i = 0; sig && i < n && i < 8; i++) {
		OB_LIT(ob, ", ");
		ob_puts(ob, f[i].name);
		ob_putc(ob, '=');
		switch (f[i].kind) {
		case SCRY_SI_INT: ob_i64(ob, f[i].v); break;
		case SCRY_SI_UINT: ob_u64(ob, (uint64_t)f[i].v); break;
		case SCRY_SI_HEX: fmt_hex(ob, (uint64_t)f[i].v); break;
		case SCRY_SI_PTR: fmt_ptr(ob, (uint64_t)f[i].v); break;
		case SCRY_SI_SIGNAL: fmt_signame(ob, f[i].v); break;
		case SCRY_SI_ERRNO: {
			const char *e = scry_errno_name((int)f[i].v);

			if (e)
				ob_puts(ob, e);
			else
				ob_i64(ob, f[i].v);
			break;
		}
		}
	}
	ob_putc(ob, '}');
}
