/* siginfo.c — si_code names (asm-generic/siginfo.h), see siginfo.h. */
#include <signal.h>
#include <stddef.h>
#include "trace/siginfo.h"

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
static const struct code_name sys[] = {
	{ 1, "SYS_SECCOMP" }, { 2, "SYS_USER_DISPATCH" }, END,
};

static const char *lookup(const struct code_name *t, int code)
{
	for (; t->name; t++)
		if (t->code == code)
			return t->name;
	return NULL;
}

const char *trace_si_code_name(int sig, int code)
{
	const char *n = lookup(generic, code);

	if (n)
		return n;
	switch (sig) {
	case SIGILL:
		return lookup(ill, code);
	case SIGFPE:
		return lookup(fpe, code);
	case SIGSEGV:
		return lookup(segv, code);
	case SIGBUS:
		return lookup(bus, code);
	case SIGTRAP:
		return lookup(trap, code);
	case SIGCHLD:
		return lookup(cld, code);
	case SIGIO:
		return lookup(poll, code);
	case SIGSYS:
		return lookup(sys, code);
	default:
		return NULL;
	}
}
