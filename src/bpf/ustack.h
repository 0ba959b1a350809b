/* ustack.h — a user stack to unwind in user space, as the BPF programs copy it (scry
 * profile --call-graph dwarf: profile.h; scry trace -k: scry_abi.h): the task's user
 * registers, saved on its entry to the kernel, in DWARF's numbering for x86-64 (libdw's
 * x86_64 backend: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, then rip), and the bytes of its
 * stack from the stack pointer up.  src/catalog/unwind.c unwinds them. */
#ifndef SCRY_BPF_USTACK_H
#define SCRY_BPF_USTACK_H

#define SCRY_DWREGS_N 17
#define SCRY_DWREG_BX 3
#define SCRY_DWREG_BP 6
#define SCRY_DWREG_SP 7
#define SCRY_DWREG_IP 16
#define SCRY_USTACK_MAX 65528        /* the largest window copied (perf's limit too) */

#endif
