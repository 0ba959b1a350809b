/* siginfo.h — names of si_code values as strace prints them in `--- SIGCHLD {si_signo=
 * SIGCHLD, si_code=CLD_EXITED} ---` lines (src/trace/siginfo.c). */
#ifndef SCRY_TRACE_SIGINFO_H
#define SCRY_TRACE_SIGINFO_H

/* "SI_USER", "CLD_EXITED", "SEGV_MAPERR"...; NULL when unknown.  The generic codes are
 * looked up first, then those of the signal (as strace does). */
const char *trace_si_code_name(int sig, int code);

#endif /* SCRY_TRACE_SIGINFO_H */
