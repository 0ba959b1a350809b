/* stackname.h — strace -k's name of a user stack frame, "PATH(function+0xoff) [0xfileoff]"
 * (src/trace/stackname.c): the function as libunwind, strace's unwinder, names it — the
 * nearest function symbol of the mapped file's .symtab and .dynsym — and the offset in
 * the file; "PATH() [0x...]" without a symbol, "unexpected_backtracing_error [0xaddr]"
 * outside any mapping the process was seen with (catalog/symbolize.h captures them). */
#ifndef SCRY_TRACE_STACKNAME_H
#define SCRY_TRACE_STACKNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scry_syms;
struct trace_stacknames;          /* the symbol tables read, by file */

struct trace_stacknames *trace_stacknames_new(void);
void trace_stacknames_free(struct trace_stacknames *t);

/* The frame at addr of process tgid; ret_addr: a return address (named by the byte
 * before it, the offset counted from addr, as libunwind's unw_get_proc_name).  false when
 * no mapping holds it (unexpected_backtracing_error). */
bool trace_stack_frame(struct trace_stacknames *t, struct scry_syms *s, int tgid, uint64_t addr, bool ret_addr,
		       char *buf, size_t len);

#endif /* SCRY_TRACE_STACKNAME_H */
