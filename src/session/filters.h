/* filters.h — a session's event filter: the expression checked against the catalog events
 * of the session before anything is loaded, then compiled to filter fronts
 * (src/filter/bpf_gen.c) that run in the kernel before the dispatchers (probes.c).  An
 * event whose filter reads a value the kernel program cannot (struct members, array
 * elements, captured data, string arrays; scry's own fork event) is recorded unfiltered and
 * decided in user space before it is written (user_filter.c).
 * Semantics are LTTng's: a field an event lacks makes the expression false for that event,
 * which is then not recorded at all. */
#ifndef SCRY_SESSION_FILTERS_H
#define SCRY_SESSION_FILTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "catalog/catalog.h"

struct scry_probes;
struct scry_filters;

enum scry_filter_use {
	SCRY_FILTER_NONE,      /* recorded without a filter */
	SCRY_FILTER_NEVER,     /* the expression is false for every event of this kind */
	SCRY_FILTER_KERNEL,    /* a filter front decides (src/filter/bpf_gen.c) */
	SCRY_FILTER_USER,      /* recorded without a kernel filter, decided in user space */
};

/* Parse and check text against events[0..n) (CTF id = index).  skip_exits: only syscall
 * entries other than exit/exit_group are filtered (scry trace: the entry decides the call;
 * exit statuses, signals and process exits are always known).  NULL with err filled
 * (several lines: the message, the expression and a caret under the offending token). */
struct scry_filters *scry_filters_prepare(const char *text, const struct scry_event *const *events, size_t n,
					  bool skip_exits, char *err, size_t errlen);
/* The same for metrics: each event a syscall's call, decided at its exit, whose fields are
 * the entry event's (entries[i], read from the argument registers, which the exit still
 * has) and "ret" (the return value); one exit front holds them all and numbers without an
 * event are dropped.  A reference the kernel cannot read is an error (no user space decides
 * metrics). */
struct scry_filters *scry_filters_prepare_calls(const char *text, const struct scry_event *const *entries, size_t n,
						char *err, size_t errlen);
/* LTTng's event rules: each enabled rule's filter (text) and the events it matches (a
 * bitmap over events[0..n)); unfiltered: the events an enabled rule without a filter matches
 * (NULL: none).  An event is recorded when one of its rules accepts it: an unfiltered rule
 * records it as is, else the OR of its rules' filters decides (a rule whose filter can never
 * accept it, e.g. one reading a field it lacks, is left out of it; none left: never).
 * A filter that cannot be true for any event of its rule (a field they lack) is accepted
 * (lttng's): that rule never records.  A syntax error is an error naming the rule.
 * Events no rule matches are recorded unfiltered.  One expression per distinct OR: the
 * kernel fronts and the user-space filter evaluate it as a session filter's. */
struct scry_filter_rule {
	const char *name;               /* for errors: the rule's event name */
	const char *text;
	const uint64_t *events;
};
struct scry_filters *scry_filters_prepare_rules(const struct scry_filter_rule *rules, size_t nrules,
						const uint64_t *unfiltered, const struct scry_event *const *events,
						size_t n, bool skip_exits, char *err, size_t errlen);
enum scry_filter_use scry_filters_use(const struct scry_filters *f, size_t id);
/* The filter front of tracepoint event id once installed, -1 if none. */
int scry_filters_front_fd(const struct scry_filters *f, size_t id);
/* Event id's checked expression (valid until scry_filters_free), NULL if none; *sub: the
 * event's index for filter_event_access and filter_values.event. */
const struct filter *scry_filters_expr(const struct scry_filters *f, size_t id, size_t *sub);
/* SCRY_FILTER_USER: the first reference (filter_ref_text) the kernel cannot read; else -1. */
int scry_filters_user_ref(const struct scry_filters *f, size_t id);
/* SCRY_FILTER_USER set by install: why this kernel cannot run the filter (a glob needing
 * the kfunc bpf_strnstr, a context its BTF does not describe, ...); else NULL. */
const char *scry_filters_user_why(const struct scry_filters *f, size_t id);
/* Compile and load the fronts of the SCRY_FILTER_KERNEL events (after the probes are
 * loaded): one for the filtered syscall entries, one for the exits, one per filtered
 * tracepoint.  An event whose filter this kernel cannot run becomes SCRY_FILTER_USER
 * (*moved counts them: the user-space filter is to be made again).  A program the
 * verifier refuses, or fronts too large once combined, is an error naming the event
 * (--verbose: the verifier log). */
int scry_filters_install(struct scry_filters *f, struct scry_probes *p, bool verbose, size_t *moved,
			 char *err, size_t errlen);
void scry_filters_free(struct scry_filters *f);

/* The filter schema of a catalog event (fields, every scry context) and where the kernel
 * finds each access (also used by the differential test). */
struct filter_schema;
struct filter_ir;
struct fgen_loc;
int scry_filter_schema(const struct scry_event *ev, struct filter_schema *out);
void scry_filter_schema_free(struct filter_schema *s);
void scry_filter_locs(const struct scry_event *ev, const struct filter_ir *ir, struct fgen_loc *locs);
/* SCRY_FENV_* of an event's dispatcher. */
unsigned scry_filter_env_kind(const struct scry_event *ev);

#endif
