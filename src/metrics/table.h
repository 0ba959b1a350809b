/* table.h — scry top's table: the rows of a metrics snapshot (read.h) joined by their
 * (pid, comm, syscall, container) labels — calls, errors and bytes counters, a latency histogram —,
 * rates against the previous snapshot, sorted by a key, rendered as text. */
#ifndef SCRY_METRICS_TABLE_H
#define SCRY_METRICS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "metrics/read.h"

/* The config scry top runs: metric i of enum scry_top_metric, labels pid, comm, syscall,
 * container (util/cgroup.h: the container's short id or machine name, "" for none), tid. */
extern const char scry_top_config[];
enum scry_top_metric { SCRY_TOP_CALLS, SCRY_TOP_ERRORS, SCRY_TOP_BYTES, SCRY_TOP_LATENCY, SCRY_TOP_NMETRICS };

enum scry_top_sort { SCRY_TOP_BY_CALLS, SCRY_TOP_BY_ERRORS, SCRY_TOP_BY_LATENCY, SCRY_TOP_BY_BYTES };

struct scry_top_row {
	char *pid, *comm, *syscall, *container;   /* the row's labels */
	char *tid;                       /* its thread's (threads view), else "" */
	bool exited;                     /* its process is gone (shown once more, then left out) */
	uint64_t calls, errors, bytes;   /* totals since the start */
	double calls_rate, errors_rate, bytes_rate;   /* per second since the previous table */
	double p50_ns, p99_ns;           /* over the whole run; -1: none measured, or beyond */
};

struct scry_top_table {
	struct scry_top_row *rows;
	size_t n;
	uint64_t t_ns;                   /* when the snapshot was read */
	bool threads;                    /* a row per thread (else the threads' series summed) */
};

/* Rows of snap (read at t_ns), a row per thread or not (threads), rates against prev (may be
 * NULL or empty; one of the other kind gives no rates).  0 or -ENOMEM. */
int scry_top_table_build(struct scry_top_table *out, const struct scry_metrics_snap *snap, uint64_t t_ns,
			 const struct scry_top_table *prev, bool threads);
/* Display order; scry_top_table_sort_keys gives back the order build's prev needs. */
void scry_top_table_sort(struct scry_top_table *t, enum scry_top_sort by);
void scry_top_table_sort_keys(struct scry_top_table *t);
/* At most max_rows rows (0: all) under a header line. */
void scry_top_table_print(FILE *f, const struct scry_top_table *t, enum scry_top_sort by, size_t max_rows,
			  double interval_s);
void scry_top_table_free(struct scry_top_table *t);

/* The process view (table_procs.c): one row per process (per thread with a table of
 * threads: top's H), its syscall rows summed. */
struct scry_top_proc {
	const char *pid, *comm;          /* the table's strings (comm: its busiest row's); pid: the
					  * thread's tid in a threads view */
	const char *container;           /* its first row's ("": none) */
	uint64_t calls, errors, bytes;
	double calls_rate, errors_rate, bytes_rate;
	const char *busiest;             /* the syscall of most calls/s (then calls) */
	bool exited;
};

struct scry_top_procs {
	struct scry_top_proc *p;
	size_t n;
	double calls_rate, errors_rate;  /* the whole table's */
	bool threads;                    /* rows of threads */
};

/* Processes of t (rows in any order); exited(pid, ctx) marks those gone.  0 or -ENOMEM. */
int scry_top_procs_build(struct scry_top_procs *out, const struct scry_top_table *t,
			 bool (*exited)(const char *pid, void *ctx), void *ctx);
void scry_top_procs_sort(struct scry_top_procs *p, enum scry_top_sort by);
/* Totals in a header (processes, calls/s, errors/s), then at most max_rows rows (0: all). */
void scry_top_procs_print(FILE *f, const struct scry_top_procs *p, enum scry_top_sort by, size_t max_rows);
void scry_top_procs_free(struct scry_top_procs *p);

#endif /* SCRY_METRICS_TABLE_H */
