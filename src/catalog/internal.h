/* internal.h — helpers shared by the catalog's own files (not used outside src/catalog):
 * LTTng name mapping (lttng_names.c), identifier escaping, the run-time syscall list
 * (syscalls.c), and the event builder (event.c) that event_tp.c and event_syscall.c use. */
#ifndef SCRY_CATALOG_INTERNAL_H
#define SCRY_CATALOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "catalog/catalog.h"

/* LTTng's event name for tracefs SYSTEM:EVENT ("softirq_entry" -> "irq_softirq_entry"),
 * or event itself. */
const char *scry_lttng_event_name(const char *system, const char *event);
/* LTTng's field name for a tracefs field ("sched_switch.prev_pid" -> "prev_tid"), or field. */
const char *scry_lttng_field_name(const char *system, const char *event, const char *field);
/* What LTTng adds to a raw int32 field's value (sched prio fields: -MAX_RT_PRIO), or 0. */
int scry_lttng_field_adjust(const char *system, const char *event, const char *field);
/* LTTng records this char[] field (block's rwbs) as uint32 RWBS_FLAG_* bits. */
bool scry_lttng_rwbs_flags(const char *system, const char *field);
/* irq's softirq_{entry,exit,raise}.vec: LTTng records it as uint8 vec and the enum
 * irq_softirq_names name; its labels in vector order. */
bool scry_lttng_softirq_vec(const char *system, const char *event, const char *field);
size_t scry_lttng_softirq_names(const char *const **labels);
/* The size LTTng gives a tracefs integer field it records narrower (kmem's gfp_flags: the
 * kernel's unsigned long record of a gfp_t, lttng-modules' gfp_t), or 0: its low bytes. */
unsigned scry_lttng_field_size(const char *system, const char *event, const char *field);
/* The fields of an event LTTng records in another order than tracefs (net_dev_xmit's rc
 * before len): their names in LTTng's order, *n of them; NULL for the format's order. */
const char *const *scry_lttng_field_order(const char *system, const char *event, size_t *n);
/* The field before which LTTng adds a "tid" field (current's) to this event, or NULL. */
const char *scry_lttng_tid_before(const char *system, const char *event);
/* name with the characters an identifier cannot hold replaced by '_' (the metadata writer
 * prefixes every field with '_', as LTTng does).  Returns a malloc'ed string. */
char *scry_ctf_ident(const char *name);

/* Events the catalog built on demand, by key ("system:event", "uprobe:PATH:FUNC"...):
 * the one cached, or NULL; cache takes ev (freed if it cannot: NULL then). */
const struct scry_event *scry_catalog_cached(struct scry_catalog *cat, const char *key);
const struct scry_event *scry_catalog_cache(struct scry_catalog *cat, const char *key, struct scry_event *ev);
/* The capture options (strings' size). */
const struct scry_capture_opts *scry_catalog_capture(const struct scry_catalog *cat);

/* Read a whole (small, possibly unseekable) file: 0, or -1 with errno set. */
int scry_read_text(const char *path, char **buf, size_t *len);

/* The run-time syscall list: the generated table refreshed from tracefs. */
struct scry_syscalls {
	struct scry_syscall *list;   /* number order */
	bool *args_known;            /* parallel to list */
	size_t n;
	char **strings;              /* names/types owned by the list */
	size_t nstrings, capstrings;
};
int scry_syscalls_load(const char *tracefs, struct scry_syscalls *out, char *err, size_t errlen);
void scry_syscalls_free(struct scry_syscalls *s);
const struct scry_syscall *scry_syscalls_find(const struct scry_syscalls *s, const char *name);

/* An event being built (event.c): its fields appended one by one, cap of them allocated. */
struct builder {
	struct scry_event *ev;
	unsigned cap;
};
/* A new event with no fields (free it with scry_event_free); NULL on no memory. */
struct scry_event *scry_event_new(const char *name, const char *system, const char *tp,
				  enum scry_ekind kind, int nr);
/* Append a field named `name` (escaped into a TSDL identifier); NULL on no memory. */
struct scry_field *scry_event_add(struct builder *b, const char *name, enum scry_ftype type, uint8_t size,
				  bool is_signed);
/* Append a char[count] text field; NULL on no memory. */
struct scry_field *scry_event_add_text(struct builder *b, const char *name, uint32_t count);

#endif /* SCRY_CATALOG_INTERNAL_H */
