/* user_filter.h — the user-space side of a session's filter (filters.h): the events whose
 * filter reads values the kernel program cannot (SCRY_FILTER_USER) are recorded unfiltered
 * and the expression is evaluated on each of them before the consumer writes it (the
 * consumer's predicate, consumer.h).  Also the filter schema of captured struct elements,
 * whose members only user space reads. */
#ifndef SCRY_SESSION_USER_FILTER_H
#define SCRY_SESSION_USER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "catalog/catalog.h"
#include "session/filters.h"

struct scry_user_filter;
struct filter_field;

/* The predicate for the SCRY_FILTER_USER events of f (events[0..n), CTF id = index),
 * recorded with the contexts of ctx_mask.  0 with *out NULL when no event needs one; -1
 * with err when a context the expression reads in user space is not recorded ($ctx.cpu_id
 * always is: the CPU of the ring).  f and events must outlive the result. */
int scry_user_filter_new(struct scry_user_filter **out, const struct scry_filters *f,
			 const struct scry_event *const *events, size_t n, uint64_t ctx_mask,
			 char *err, size_t errlen);
/* One line per such event: the reference the kernel cannot read, and why (--verbose). */
void scry_user_filter_explain(const struct scry_user_filter *u);   /* SCRY_LOG_VERBOSE lines */
/* consumer.h's scry_event_pred (ctx: the user filter): does the event (header, contexts,
 * payload) match?  false when it cannot be decoded. */
bool scry_user_filter_match(void *ctx, unsigned cpu, const uint8_t *ev, size_t size);
/* The event ids to ask about, SCRY_PRED_IDS_WORDS words of bits. */
const uint64_t *scry_user_filter_ids(const struct scry_user_filter *u);
void scry_user_filter_free(struct scry_user_filter *u);

/* The element of a struct sequence as filter fields, named and laid out as the CTF
 * metadata declares it: the members, then each tail as `_NAME_length` and NAME (or NAME for
 * a string); a scalar element type ("int") is an integer.  scry_user_elem_size: the nodes
 * (and, in *name_bytes, the name bytes) it takes; scry_user_elem_schema builds it at
 * *nodes and *names and moves both past it. */
size_t scry_user_elem_size(const struct scry_struct_desc *d, size_t *name_bytes);
const struct filter_field *scry_user_elem_schema(const struct scry_struct_desc *d, struct filter_field **nodes,
						 char **names);

#endif
