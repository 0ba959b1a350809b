/* event.h — construction of struct scry_event: from a tracefs format text (event_tp.c),
 * for a syscall's entry/exit (event_syscall.c), and for the built-in events (event.c).
 * Catalog-internal. */
#ifndef SCRY_CATALOG_EVENT_H
#define SCRY_CATALOG_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include "catalog/catalog.h"

/* NULL with a one-line reason in err if the format cannot be parsed or used. */
struct scry_event *scry_event_from_format(const char *system, const char *name, const char *text,
					  size_t len, char *err, size_t errlen);
/* args_known false: the arguments are unknown, the event records six raw uint64 arg0..arg5. */
struct scry_event *scry_event_syscall_entry(const struct scry_syscall *sc, bool args_known,
					    const struct scry_capture_opts *o);
struct scry_event *scry_event_syscall_exit(const struct scry_syscall *sc, const struct scry_capture_opts *o);
struct scry_event *scry_event_builtin(const char *name);
/* net_connection (event_net.c) */
struct scry_event *scry_event_net_connection(void);
void scry_event_free(struct scry_event *ev);

#endif /* SCRY_CATALOG_EVENT_H */
