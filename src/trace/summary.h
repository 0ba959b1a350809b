/* summary.h — `scry trace -c/-C`: calls, errors and time per syscall, printed as strace's
 * -c table (src/trace/summary.c).  Rows come from completed calls (trace_summary_call) or
 * from counts aggregated elsewhere, e.g. in the kernel (trace_summary_add). */
#ifndef SCRY_TRACE_SUMMARY_H
#define SCRY_TRACE_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include "trace/call.h"
#include "trace/options.h"

struct trace_summary;

struct trace_summary *trace_summary_new(void);
void trace_summary_free(struct trace_summary *s);

/* A call that returned (c->have_exit): one call, an error when ret is in [-4095, -1], its
 * duration when the entry is known.  Calls that never return are not counted (strace). */
void trace_summary_call(struct trace_summary *s, const struct trace_call *c);

/* Counts for syscall nr (name as printed; nr < 0 when unknown: rows are then told apart by
 * name), added to what the row already holds.  -1 when out of memory. */
int trace_summary_add(struct trace_summary *s, int nr, const char *name, uint64_t calls, uint64_t errors,
		      uint64_t total_ns);

/* strace's table:
 * % time     seconds  usecs/call     calls    errors syscall
 * ------ ----------- ----------- --------- --------- ----------------
 *  68.57    0.000048          48         1           execve
 * ...
 * ------ ----------- ----------- --------- --------- ----------------
 * 100.00    0.000070           7        10         1 total
 * Rows sorted by sortby, ties in syscall number order.  -1 on a write error. */
int trace_summary_print(const struct trace_summary *s, FILE *f, enum trace_sort sortby);

/* -U: the table's columns, strace's names (time-percent, total-time, min-time, max-time,
 * avg-time, calls, errors, name and their aliases); the name column is added last when
 * not given.  The number of columns, or -1 with the reason in err. */
enum { TRACE_COL_PERCENT, TRACE_COL_TOTAL, TRACE_COL_MIN, TRACE_COL_MAX, TRACE_COL_AVG, TRACE_COL_CALLS,
       TRACE_COL_ERRORS, TRACE_COL_NAME, TRACE_COL_NR };
int trace_summary_columns(const char *spec, int *cols, size_t max, char *err, size_t errlen);
/* The table with these columns (shortest and longest: of the calls counted one by one,
 * trace_summary_call; 0 for counts added in bulk). */
int trace_summary_print_cols(const struct trace_summary *s, FILE *f, enum trace_sort sortby, const int *cols,
			     size_t ncols);

#endif /* SCRY_TRACE_SUMMARY_H */
