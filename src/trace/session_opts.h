/* session_opts.h — the session `scry trace` asks for, from its options (trace/options.h): the
 * channel's events (the selected syscalls, and what the printer needs besides), its contexts
 * and kind, the session's settings.  One function for cmd_trace and for scryd, which loads
 * the default's BPF object ahead of time (daemon/warm.c): the same options give the same
 * object, and its fingerprint says so (kernel/fingerprint.c). */
#ifndef SCRY_TRACE_SESSION_OPTS_H
#define SCRY_TRACE_SESSION_OPTS_H

#include <stddef.h>
#include "session/session.h"
#include "trace/options.h"

#define TRACE_USTACK_RING (64u << 20)   /* -k: bytes of the ring of stack copies (~2,000 of the
					 * deepest, ~12,000 of ordinary ones, ~5 KB, waiting) */

struct trace_session {
	struct scry_session_opts so;    /* so.channels: &chan (ts stays where it is built) */
	struct scry_channel_opts chan;  /* no sink yet: the caller's */
	char **specs;                   /* chan.events */
	size_t nspecs;
};

/* ts for o with the catalog cat: 0, or -ENOMEM (trace_session_free frees it either way). */
int trace_session_build(struct trace_session *ts, const struct trace_opts *o, struct scry_catalog *cat);
void trace_session_free(struct trace_session *ts);

#endif
