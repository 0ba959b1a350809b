/* session_int.h — the session object as its files see it (session.c: the lifecycle and the
 * trace directory; events.c: enabling and disabling events, the syscall table, attaching
 * tracepoints).  Private to src/session/. */
#ifndef SCRY_SESSION_INT_H
#define SCRY_SESSION_INT_H

#include "catalog/catalog.h"
#include "session/guard.h"
#include "session/session.h"

#define CHANNEL "channel0"
#define NO_EVENT 0xffff


struct tp_ref {
	char *system, *name;
	int id;
	int slot;                        /* probes' slot once attached, else -1 */
	bool disabled;
};

struct scry_session {
	struct scry_session_opts opts;
	struct scry_catalog *cat;
	char *dir;                       /* trace directory */
	char *kernel_dir;
	const struct scry_event **events;/* enabled events; CTF id = index */
	size_t nevents, capevents;
	struct tp_ref *tps;              /* generic tracepoints to attach */
	size_t ntps;
	uint16_t *sc_entry, *sc_exit;    /* per syscall number: event ids or NO_EVENT */
	bool *sc_off;                    /* per syscall number: disabled (its ids kept) */
	uint16_t unknown_entry, unknown_exit, fork_id;
	bool any_syscall;
	uint8_t uuid[16];
	uint64_t start_ts, stop_ts;
	struct scry_probes *probes;
	struct scry_consumer *consumer;
	struct scry_filters *filters;
	struct scry_user_filter *ufilter;   /* the filter's events decided in user space */
	int *cgroup_fds;
	struct ctf_trace_dir *tdir;      /* the trace directory, made and locked by load */
	struct scry_guard guard;         /* recovers the trace if we die (SIGKILL...) */
	char created[64];                /* the metadata's creation time, clock offset and */
	int64_t clock_off_s;             /* clock uuid, fixed by its first write */
	uint64_t clock_off_ns;
	uint8_t clock_uuid[16];
	size_t ntps_attached;            /* s->tps[0..n) are attached */
	bool started;
};

/* session.c */
bool session_has_trace(const struct scry_session *s);
int session_write_metadata(struct scry_session *s, char *err, size_t errlen);
/* events.c */
int session_enable_spec(struct scry_session *s, const char *spec, char *err, size_t errlen);
int session_set_syscall_table(struct scry_session *s, char *err, size_t errlen);
int session_attach_tracepoints(struct scry_session *s, char *err, size_t errlen);

#endif
