/* session_int.h — the session and channel objects as their files see them (session.c: the
 * lifecycle; output.c: the trace directory, its metadata, chunks and snapshots; channel.c:
 * a channel's BPF object, rings and consumer; events.c: enabling and disabling a channel's
 * events through the sources of source.h, src_*.c).  Private to src/session/. */
#ifndef SCRY_SESSION_INT_H
#define SCRY_SESSION_INT_H

#include "catalog/catalog.h"
#include "catalog/uprobe.h"
#include "ctf/metadata.h"
#include "session/guard.h"
#include "session/session.h"
#include "relay/relay.h"

#define NO_EVENT 0xffff

struct tp_ref {
	char *system, *name;
	int id;
	int slot;                        /* probes' slot once attached, else -1 */
	bool disabled;
	bool pid_only;                   /* enabled for per-process sets only (SCRY_TP_PIDSET) */
	bool front;                      /* attached behind a filter front (kept on its hook when
	                                  * disabled: its descriptor off) */
	int front_fd;                    /* that front's program (the filters' fronts live as long
	                                  * as the probes) */
};

/* Per-process event sets (pid_sets.c): a selection of a channel's events. */
struct pid_sel {
	uint64_t sc[SCRY_MAX_SYSCALLS / 64];   /* syscall numbers */
	uint64_t tp[SCRY_MAX_TP / 64];         /* indices in the channel's tps */
};

/* A process's set: the rules enable_event_pid gave it, in the kernel at slot of every
 * channel; its use for the least-recently-used eviction. */
struct pid_set {
	pid_t pid;                       /* the process (tgid) */
	int pidfd;                       /* its end removes the set (its pid may be reused) */
	unsigned slot;
	uint64_t used;                   /* the session's pset_clock when last changed or seen used */
	uint64_t hits;                   /* its events counted by the kernel when last looked at */
	struct scry_pid_rule *rules;     /* channel: its channel's name */
	size_t nrules;
};

/* A uprobe to attach (src_uprobes.c). */
struct up_ref {
	struct scry_uprobe u;
	int id;
	int slot;                        /* probes' slot once attached, else -1 */
	bool disabled;
};

/* An event rule of a channel (LTTng's): the spec enable_event gave, its filter (NULL:
 * none), enabled or not, and the channel's events it matched (a bitmap over event ids). */
struct chan_rule {
	char *spec, *filter;
	bool enabled;
	uint64_t *ids;
	size_t nwords;
};

/* A channel: a stream class of the trace (its events, their ids, its contexts) over a
 * set of per-CPU rings, filled by one BPF object of its own (its load-time settings are
 * the channel's: contexts, the fork and unknown-syscall events, ring size). */
struct scry_channel {
	struct scry_session *s;
	struct scry_channel_opts opts;   /* name owned (name below) */
	bool ring_default;               /* no ring size given: sized at load for its contexts */
	char *name;
	unsigned id;                     /* stream class id = index in the session */
	const struct scry_event **events;/* enabled events; CTF id = index */
	size_t nevents, capevents;
	struct tp_ref *tps;              /* generic tracepoints to attach */
	size_t ntps;
	size_t ntps_attached;            /* tps[0..n) are attached */
	struct up_ref *ups;              /* uprobes to attach */
	size_t nups, nups_attached;
	bool any_uprobe, any_usdt;       /* their programs are loaded */
	bool tp_writer;                  /* the tracefs tracepoints' program is loaded */
	uint16_t *sc_entry, *sc_exit;    /* per syscall number: event ids or NO_EVENT */
	bool *sc_off;                    /* per syscall number: disabled (its ids kept) */
	uint16_t unknown_entry, unknown_exit, fork_id, signal_id, signal_gen_id;
	bool any_syscall;
	uint16_t sd_ids[SCRY_SD_NR];     /* statedump event ids (src_statedump.c), NO_EVENT: off */
	bool statedump;                  /* one of them is on: the dump runs at start */
	uint16_t profile_id;             /* profile_cpu_clock's id (src_profile.c), NO_EVENT: off */
	unsigned profile_freq;           /* its samples per second per CPU */
	uint16_t net_conn_id;            /* net_connection's id (src_net.c), NO_EVENT: off */
	struct scry_sd_item *sd_items;   /* its items read from /proc and /sys ahead of the switch
					  * (channel_statedump_prepare), NULL: read at the dump */
	size_t sd_n, sd_nhead;
	struct scry_probes *probes;
	struct scry_consumer *consumer;
	struct scry_filters *filters;
	struct scry_user_filter *ufilter;   /* the filter's events decided in user space */
	struct chan_rule *rules;         /* its event rules, in the order first given */
	size_t nrules;
	struct chan_rule *marking;       /* the rule being enabled: the events it matches marked */
	bool off;                        /* disabled (scry_session_enable_channel): its switch stays off */
	bool live_filters;               /* loaded with doors: its syscall filters may change
					  * while recording (channel_rules_relive) */
	bool enabling_pid;               /* an enable for per-process sets: what it adds is theirs only
					  * (a syscall's sc_off set, a tracepoint's pid_only) */
	uint64_t switch_next_ns;         /* its switch timer's next period (timers.c) */
	unsigned changes;                /* bumped by a source when an enable changed a known event */
	struct pid_sel psel;             /* what the session's per-process sets select here: their
					  * union (the descriptors' SCRY_*_PIDSET) */
};

struct scry_session {
	struct scry_session_opts opts;
	struct scry_catalog *cat;
	char *dir;                       /* trace directory */
	struct scry_dirh *root;          /* the trace directory, or a snapshot session's output
					  * (made at load, held until destroy) */
	struct scry_channel **chans;     /* stream class id = index */
	size_t nchans;
	uint8_t uuid[16];
	uint64_t start_ts, stop_ts;
	int *cgroup_fds;
	struct ctf_trace_dir *tdir;      /* the trace directory, made and locked by load */
	struct scry_guard guard;         /* recovers the trace if we die (SIGKILL...) */
	char created[64];                /* the metadata's creation time, clock offset and */
	int64_t clock_off_s;             /* clock uuid, fixed by its first write */
	uint64_t clock_off_ns;
	uint8_t clock_uuid[16];
	struct ctf_cgroup_name *cgnames; /* the containers' cgroups of the metadata's env, also */
	size_t ncgnames;                 /* fixed by its first write (a relay gets the same env) */
	bool created_cgnames;
	bool has_trace;                  /* a trace directory is written (session_has_trace) */
	unsigned chunks;                 /* trace chunks archived (rotation) */
	char chunk_begin[32];            /* the current chunk's begin, LTTng's YYYYmmddTHHMMSS+HHMM */
	bool prepared, loaded, started;
	struct scry_session_load_times load_times;
	bool paused;                     /* stopped by scry_session_pause, resumable */
	bool chunk_closed;               /* paused with its chunk archived (a session that rotated) */
	struct pid_set *psets;           /* per-process event sets (pid_sets.c) */
	size_t npsets;
	unsigned max_psets;              /* the bound (opts.max_pid_sets) */
	uint64_t pset_clock;             /* a logical clock: each change, each look at their use */
	uint64_t psets_evicted, psets_ended;
	struct scry_relay *relay;        /* the relay streamed to (opts.relay), from load to stop */
	struct scry_relay *snap_relay;   /* while a snapshot is sent to a relay: its connection */
	struct scry_relay_stats relay_final;   /* its totals once closed */
	char relay_error[512];           /* why it stopped taking packets, kept past its close */
	char relay_path[512];            /* the session's directory at the relay */
};

/* session.c */
bool session_has_trace(const struct scry_session *s);
/* The channel named name (NULL: the first), or NULL with a reason in err. */
struct scry_channel *session_channel(const struct scry_session *s, const char *name, char *err, size_t errlen);
/* output.c */
/* Now on the session's trace clock (what its events are stamped with). */
uint64_t session_now(const struct scry_session *s);
/* At create: the trace directory's name (-o's, or a default one), -o's checked with the
 * owner's rights (its parent exists and may be written; a directory that exists must be the
 * owner's and empty, but a snapshot session's). */
int session_check_output(struct scry_session *s, char *err, size_t errlen);
/* At load: the trace directory made and locked (a default name made free with -1, -2...). */
int session_make_trace_dir(struct scry_session *s, char *err, size_t errlen);
/* At load: a snapshot session's output, where its snapshots go. */
int session_make_snapshot_base(struct scry_session *s, char *err, size_t errlen);
/* A new chunk in DIR/kernel: its metadata, every channel's streams from ts. */
int session_open_chunk(struct scry_session *s, uint64_t ts, char *err, size_t errlen);
/* A random (version 4) uuid. */
void session_random_uuid(uint8_t u[16]);
int session_write_metadata(struct scry_session *s, char *err, size_t errlen);
/* A trace chunk's begin or end, as LTTng names its archives: YYYYmmddTHHMMSS+HHMM. */
void session_chunk_stamp(char *buf, size_t len);
/* The current chunk's streams closed and DIR/kernel moved to the archives (its path in
 * archive); when reopen, the next chunk's metadata and streams in a new DIR/kernel. */
int session_rotate(struct scry_session *s, bool reopen, char *archive, size_t archive_len, char *err, size_t errlen);
/* At stop, after the streams are closed: DIR/kernel moved to the archives as the last chunk. */
int session_rename_last_chunk(struct scry_session *s, char *err, size_t errlen);
/* relay_out.c: the network output (opts.relay) */
/* At create: the relay's options checked (nothing is connected yet). */
int session_check_relay(struct scry_session *s, char *err, size_t errlen);
/* At load: connected, the relay's session and metadata stream made. */
int session_connect_relay(struct scry_session *s, char *err, size_t errlen);
/* rotate on a streamed session: the current chunk archived at the relay, the next one
 * made (not when stopped: then at the next start, session_relay_open_chunk). */
int session_relay_rotate(struct scry_session *s, char *archive, size_t archive_len, char *err, size_t errlen);
int session_relay_open_chunk(struct scry_session *s, char *err, size_t errlen);
/* The relay's totals into out (from its close on, the final ones). */
void session_relay_progress(struct scry_session *s, struct scry_session_summary *out);
/* Its streams closed, the last packets flushed, the connections closed. */
void session_close_relay(struct scry_session *s);
/* channel.c */
int channel_new(struct scry_channel **out, struct scry_session *s, const struct scry_channel_opts *o,
		unsigned id, char *err, size_t errlen);
int channel_load(struct scry_channel *c, char *err, size_t errlen);
int channel_start(struct scry_channel *c, char *err, size_t errlen);
void channel_free(struct scry_channel *c);
/* src_statedump.c: the statedump of c, once recording (nothing when it is not enabled) */
int channel_statedump(struct scry_channel *c, char *err, size_t errlen);
/* The statedump's items of the files (interrupts, CPUs, block devices...) read now, before
 * the session's switch: the dump at start then only walks the kernel's tasks and files, the
 * recorder's time in the trace before its command runs kept short. */
int channel_statedump_prepare(struct scry_channel *c, char *err, size_t errlen);
/* events.c (over the sources of source.h) */
int channel_enable_spec(struct scry_channel *c, const char *spec, char *err, size_t errlen);
/* The rule (spec, filter) enabled in c (made if new; its events enabled as
 * channel_enable_spec's), before load. */
int channel_enable_rule(struct scry_channel *c, const char *spec, const char *filter, char *err, size_t errlen);
/* The rule (spec, filter) of c, made if new (disabled): NULL when memory runs out. */
struct chan_rule *channel_rule(struct scry_channel *c, const char *spec, const char *filter);
/* Event id matched by the rule being enabled (c->marking). */
void channel_mark(struct scry_channel *c, int id);
/* Some rule of c has a filter (enabled or not). */
bool channel_rules_filtered(const struct scry_channel *c);
/* rules.c: c's filters made again from its enabled rules (before load): 0 or -errno with
 * the reason; none when no rule has a filter (and the session has no filter). */
int channel_rules_prepare(struct scry_channel *c, char *err, size_t errlen);
/* Once loaded: c's filters made again from its enabled rules (events 0..na were there
 * before the change), their syscall fronts loaded
 * and flipped in at one instant (kernel/fronts.c's doors); -ENOTSUP with the reason when the
 * change is not a syscall's (a tracepoint's front is on its own hook), needs user space, or
 * the channel has no doors.  Nothing changed on an error. */
int channel_rules_relive(struct scry_channel *c, size_t na, char *err, size_t errlen);
void channel_rules_free(struct scry_channel *c);
/* Enable spec in c, loaded or not (pid_only: for per-process sets only): the checks of a
 * loaded channel, the metadata rewritten for new events; *changed: something to describe. */
int channel_enable(struct scry_channel *c, const char *spec, bool pid_only, bool *changed, char *err,
		   size_t errlen);
/* Mark in sel the enabled events of c that spec matches (per-process sets); -ENOTSUP with a
 * reason for a source without them. */
int channel_select(struct scry_channel *c, const char *spec, struct pid_sel *sel, char *err, size_t errlen);
bool channel_spec_selectable(const char *spec);
/* describe, then attach if the session is started */
int channel_refresh(struct scry_channel *c, char *err, size_t errlen);
/* pid_sets.c: every set written into the channels' kernels (after attach: tracepoint slots);
 * the sets of processes that ended removed; the sets freed */
int session_pid_sets_sync(struct scry_session *s, char *err, size_t errlen);
void session_pid_sets_reap(struct scry_session *s);
void session_pid_sets_free(struct scry_session *s);
/* the BPF object's tables say what is enabled (after load, after a change) */
int channel_describe(struct scry_channel *c, char *err, size_t errlen);
/* attach what is enabled and not attached yet (at start, after a change once started) */
int channel_attach(struct scry_channel *c, char *err, size_t errlen);

#endif
