/* scry.h — libscry, scry's C library: kernel tracing sessions run inside the caller's
 * process (as `scry record` runs them), events handed to a callback as decoded, typed
 * values, and the control of scryd's sessions (as liblttng-ctl drives lttng-sessiond).
 * docs/LIBSCRY.md has a complete example; `pkg-config --cflags --libs scry` builds it.
 *
 * Conventions
 *   - Every name is scry_-prefixed; every object is opaque, made by a _new/_connect and
 *     freed by its _destroy/_close.  The library keeps no global state of its own.
 *   - Functions that can fail return 0 (or a pointer) on success and a negative errno
 *     (or NULL) on failure, with a one-line reason naming the problem in err (errlen bytes,
 *     always NUL-terminated when errlen > 0; err may be NULL when errlen is 0).  A filter's
 *     syntax error adds two lines: the filter, and a caret under the fault.
 *   - Options structs begin with their size: initialise them with their _INIT macro, so a
 *     program built against this header keeps working with later releases, which only add
 *     members at the end.  Symbols are versioned (SCRY_0.1); later releases add versions.
 *
 * Threads and processes
 *   - A session (struct scry_session) is used by one thread at a time, and sessions run one
 *     at a time in a process (the engine shares process-wide caches: kernel features, BTF,
 *     the vDSO): several sessions from several threads need the caller's lock.
 *   - A control connection (struct scry_ctl) is used by one thread at a time; different
 *     connections may be used by different threads at once (each call its own socket).
 *   - The event callback runs on the thread that called scry_session_run, inside it; it
 *     must not call the session's functions, and the event it gets is valid only during
 *     the call (copy what you keep).
 *   - scry_session_run's stop flag may be set from any thread or a signal handler (it is
 *     seen within 0.1 s).  While it waits, scry_session_run unblocks SIGINT, SIGTERM and
 *     SIGHUP on its thread: install handlers for them (as the examples do) or they end the
 *     process as usual.
 *   - A session with a trace directory forks a small guardian process at start, which
 *     recovers the trace if the caller dies before scry_session_stop, and exits then.
 *
 * Privileges: an in-process session loads BPF programs: root, or CAP_BPF, CAP_PERFMON and
 * CAP_SYS_RESOURCE.  The control part needs access to scryd's socket (root or the group
 * scryd gives its run directory). */
#ifndef SCRY_SCRY_H
#define SCRY_SCRY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCRY_VERSION_MAJOR 0
#define SCRY_VERSION_MINOR 1
#define SCRY_VERSION_PATCH 0

/* The library's version as it runs ("0.1.0"). */
const char *scry_version(void);

/* ---------------------------------------------------------------------------------------
 * In-process sessions: new -> [add_channel] -> enable_event / add_context / track_pid /
 * on_event -> start -> run (until the stop flag or the tracked processes' end) -> stop -> destroy.
 * ------------------------------------------------------------------------------------- */

struct scry_session;
struct scry_event;

struct scry_session_options {
	size_t size;               /* sizeof(struct scry_session_options): SCRY_SESSION_OPTIONS_INIT */
	/* a trace directory to write (CTF 1.8 in LTTng's kernel layout, babeltrace2 reads it):
	 * it must not exist yet (or be empty), its parent must; NULL: no trace, the events go
	 * to the callback only (scry_session_on_event) */
	const char *output;
	/* nonzero: every process of the machine; 0: only the processes given to
	 * scry_session_track_pid (and their children born while tracing); not both */
	int system_wide;
	/* per-CPU ring buffer bytes (a power of two; 0: 8 MiB, less beyond 8 CPUs) */
	size_t buffer_size;
	/* LTTng's network output: the trace streamed to an lttng-relayd at
	 * net://HOST[:CTRL[:DATA]][/PATH] (ports 5342, 5343), beside output when it is given, else
	 * alone; NULL: none.  relay_name: the session's name at the relay (NULL: "scry"), which
	 * writes HOSTNAME/NAME-DATE/kernel (or HOSTNAME/PATH) */
	const char *relay_url;
	const char *relay_name;
};
#ifdef __cplusplus   /* C++ before 20 has no designated initializers: every member, in order */
#define SCRY_SESSION_OPTIONS_INIT { sizeof(struct scry_session_options), NULL, 0, 0, NULL, NULL }
#else
#define SCRY_SESSION_OPTIONS_INIT { .size = sizeof(struct scry_session_options) }
#endif

/* A channel (LTTng's): a stream class of the trace (stream files NAME_<cpu>) with its own
 * per-CPU buffers, event-loss mode, events and contexts.  A session without
 * scry_session_add_channel has one, "channel0", which scry_session_enable_event fills. */
struct scry_channel_options {
	size_t size;               /* sizeof(struct scry_channel_options): SCRY_CHANNEL_OPTIONS_INIT */
	/* LTTng's event-loss mode.  0 (discard): a full ring drops new events (counted in
	 * stats.discarded, reported as loss records).  Nonzero (overwrite): each CPU's last
	 * num_subbuf sub-buffers wait for the writer (once a second, the switch timer, stop);
	 * one more completed meanwhile overwrites the oldest unwritten (counted in
	 * stats.lost_packets, a gap in the trace's packet_seq_num).  Needs options.output and no
	 * relay_url; the callback still gets every event. */
	int overwrite;
	/* LTTng's sub-buffer: the trace's packet bytes, a power of two from 4 KiB to 256 MiB
	 * (0: 1 MiB) */
	size_t subbuf_size;
	/* LTTng's sub-buffer count, 1 to 1024 (0: 4): an overwrite channel's sub-buffers per
	 * CPU; in a discard channel, when given, subbuf_size x num_subbuf is the per-CPU ring
	 * (instead of buffer_size) */
	unsigned num_subbuf;
	/* per-CPU ring buffer bytes (a power of two, 1 MiB to 2 GiB; 0: the session's
	 * buffer_size) */
	size_t buffer_size;
	/* LTTng's switch timer: every switch_timer_us microseconds (at most UINT32_MAX) the
	 * channel's partly filled packets are written out, so a low-rate stream reaches the
	 * disk; 0: once a second.  (No read timer: the rings are polled at their fill rate.) */
	uint64_t switch_timer_us;
	/* LTTng's trace file splitting: each CPU's stream in files NAME_<cpu>_<index> of at most
	 * tracefile_size bytes (whole packets: at least subbuf_size), the oldest deleted beyond
	 * tracefile_count files (0: every file kept; at most 1000000; needs tracefile_size).
	 * 0: one file per CPU.  Needs options.output. */
	uint64_t tracefile_size;
	uint64_t tracefile_count;
};
#ifdef __cplusplus
#define SCRY_CHANNEL_OPTIONS_INIT { sizeof(struct scry_channel_options), 0, 0, 0, 0, 0, 0, 0 }
#else
#define SCRY_CHANNEL_OPTIONS_INIT { .size = sizeof(struct scry_channel_options) }
#endif

/* A new session, nothing loaded yet.  opts may be NULL (the defaults: no trace directory,
 * tracked processes only).  NULL with the reason in err (a bad option, a malformed relay
 * URL, out of memory). */
struct scry_session *scry_session_new(const struct scry_session_options *opts, char *err, size_t errlen);

/* Enable the events of spec in the default channel ("channel0"), `scry record -e`'s
 * syntax ("syscall:openat", "syscall:open*", "sched:sched_switch", "sched:*",
 * "uprobe:/bin/bash:readline"...; `scry list` shows them),
 * with filter (LTTng's filter language over the event's fields and contexts, e.g.
 * "filename == \"/etc/passwd\"" — NULL: none): an event is recorded when one of its enabled
 * rules accepts it; a filter naming a field an event lacks rejects it (an exit has no
 * filename).  Before scry_session_start: -EBUSY after.  Specs and filters are
 * checked at start (an unknown event is start's error). */
int scry_session_enable_event(struct scry_session *s, const char *spec, const char *filter, char *err,
			      size_t errlen);

/* Add channel name (letters, digits, '_', '-', '.'; "channel0" is the default channel's
 * name) with opts (NULL: the defaults: discard, 1 MiB sub-buffers, the session's ring
 * size); its events and contexts are given by the _in_channel calls.  Before
 * scry_session_start: -EBUSY after; -EEXIST: a channel of that name; -EINVAL: a bad name
 * or option.  A channel added gets at least one event (start refuses it otherwise). */
int scry_session_add_channel(struct scry_session *s, const char *name, const struct scry_channel_options *opts,
			     char *err, size_t errlen);

/* scry_session_enable_event in channel (NULL or "channel0": the default channel, made with
 * the defaults when first used, unless scry_session_add_channel made it before).
 * -ENOENT: no such channel. */
int scry_session_enable_event_in_channel(struct scry_session *s, const char *channel, const char *spec,
					 const char *filter, char *err, size_t errlen);

/* Add a context every event (of every channel) carries: "pid", "tid", "procname", "ppid",
 * "uid", "cpu_id", "hostname"... (`scry list contexts`).  pid, tid and procname are there
 * by default.
 * Before scry_session_start: -EBUSY after; -EINVAL: no such context. */
int scry_session_add_context(struct scry_session *s, const char *name, char *err, size_t errlen);
/* Add a context to the events of channel alone (NULL: every channel, as
 * scry_session_add_context).  -ENOENT: no such channel. */
int scry_session_add_context_in_channel(struct scry_session *s, const char *channel, const char *name, char *err,
					size_t errlen);

/* Trace process pid (every thread of it; a thread's id stands for its process) and the
 * children it makes from then on.  Before
 * scry_session_start: -EBUSY after; -ESRCH: no such process.  A session that is not
 * system-wide needs at least one. */
int scry_session_track_pid(struct scry_session *s, pid_t pid, char *err, size_t errlen);

/* LTTng's uid and gid trackers: only the processes whose real user (group) id is one of
 * those given are recorded, whatever else selects them (system_wide, or the tracked
 * processes: both must hold).  Before scry_session_start: -EBUSY after. */
int scry_session_track_uid(struct scry_session *s, uid_t uid, char *err, size_t errlen);
int scry_session_track_gid(struct scry_session *s, gid_t gid, char *err, size_t errlen);

/* LTTng's vpid tracker: only the processes whose pid in their own pid namespace is vpid
 * (a container's process 1, say), and the children they make while tracing.  Combined
 * with the other trackers as the uid one.  Before scry_session_start: -EBUSY after. */
int scry_session_track_vpid(struct scry_session *s, pid_t vpid, char *err, size_t errlen);
/* The cgroup tracker: only the processes in the cgroup v2 directory path
 * ("/sys/fs/cgroup/system.slice/nginx.service") or below it, when the event happens (at
 * most 16 paths).  Combined with the other trackers as the uid one.  Before
 * scry_session_start: -EBUSY after; -ENOENT, -ENOTDIR: not a cgroup v2 directory. */
int scry_session_track_cgroup(struct scry_session *s, const char *path, char *err, size_t errlen);

/* The callback for each event (NULL: none), in each CPU's time order (events of different
 * CPUs are not merged), and for each loss (scry_event_kind SCRY_EVENT_LOSS).  Called from
 * scry_session_run.  Before scry_session_start: -EBUSY after; 0. */
typedef void (*scry_event_cb)(const struct scry_event *e, void *ctx);
int scry_session_on_event(struct scry_session *s, scry_event_cb cb, void *ctx);

/* Load the BPF programs, create the trace directory (if any), connect to the relay (if
 * any), begin recording.  At least one event enabled; an output, a relay or a callback;
 * tracked processes or system_wide.  0, or
 * -errno with the reason (-EPERM: privileges; -ENOENT: an unknown event; -EINVAL: a bad
 * filter or options). */
int scry_session_start(struct scry_session *s, char *err, size_t errlen);

/* Move events to the trace and the callback until *stop is nonzero (stop may be NULL for
 * a session that tracks processes), or until every tracked process has ended (not for a
 * system-wide session).  Returns 0 when it ended so, or -errno. */
int scry_session_run(struct scry_session *s, const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* As scry_session_run, for at most timeout_ms: for a program that has other work between
 * its calls (its own loop).  Returns 1 when the time ran out (recording goes on; call it
 * again), 0 when *stop was set or the tracked processes ended, or -errno. */
int scry_session_run_for(struct scry_session *s, const volatile sig_atomic_t *stop, uint32_t timeout_ms, char *err,
			 size_t errlen);

/* What a session recorded (scry_session_stop). */
struct scry_session_stats {
	size_t size;               /* sizeof(struct scry_session_stats): SCRY_SESSION_STATS_INIT */
	uint64_t events;           /* recorded (written to the trace, or given to the callback) */
	uint64_t discarded;        /* lost in the kernel: a ring buffer was full */
	uint64_t lost;             /* lost in user space: the trace could not be written */
	uint64_t bytes;            /* bytes of the trace's stream files (0 without a trace) */
	uint64_t relay_lost;       /* events in packets the relay did not take (its queue full, or
				    * it went away); the callback and the trace directory had them */
	uint64_t lost_packets;     /* overwrite channels: packets overwritten before they were
				    * written (the callback had their events) */
};
#ifdef __cplusplus
#define SCRY_SESSION_STATS_INIT { sizeof(struct scry_session_stats), 0, 0, 0, 0, 0, 0 }
#else
#define SCRY_SESSION_STATS_INIT { .size = sizeof(struct scry_session_stats) }
#endif

/* Stop recording: the rings drained (the callback gets the last events, and a last loss
 * record if events were lost since the previous one), the trace completed on disk and at
 * the relay.  stats may be NULL.  Once; a session not started: -EINVAL; -EIO: packets were
 * not delivered to the relay (stats->relay_lost, err says why). */
int scry_session_stop(struct scry_session *s, struct scry_session_stats *stats, char *err, size_t errlen);

/* Free the session (stopped first if it runs: the trace completed, the callback no longer
 * called).  NULL is ignored. */
void scry_session_destroy(struct scry_session *s);

/* The trace directory (after start), or NULL without one. */
const char *scry_session_trace_dir(const struct scry_session *s);

/* ---------------------------------------------------------------------------------------
 * Events, as the callback gets them: no CTF knowledge needed.
 * ------------------------------------------------------------------------------------- */

enum scry_event_kind {
	SCRY_EVENT_RECORD = 1,     /* a recorded event */
	SCRY_EVENT_LOSS = 2,       /* events lost since the previous loss record: scry_event_lost */
};

enum scry_value_type {
	SCRY_VALUE_NONE = 0,       /* no such field or context */
	SCRY_VALUE_INT = 1,        /* a signed integer */
	SCRY_VALUE_UINT = 2,       /* an unsigned integer (pointers, flags, sizes) */
	SCRY_VALUE_STRING = 3,     /* text (a path, a process name) */
	SCRY_VALUE_BYTES = 4,      /* anything else: arrays, buffers, structs (their raw bytes) */
};

enum scry_event_kind scry_event_kind(const struct scry_event *e);
/* The event's name, LTTng's ("syscall_entry_openat", "syscall_exit_openat",
 * "sched_switch"); "scry_lost_events" for a loss record. */
const char *scry_event_name(const struct scry_event *e);
/* When it happened: CLOCK_MONOTONIC nanoseconds (a loss record: when the loss was seen). */
uint64_t scry_event_timestamp(const struct scry_event *e);
/* The CPU it was recorded on; SCRY_CPU_NONE for a loss record. */
#define SCRY_CPU_NONE UINT32_MAX
uint32_t scry_event_cpu(const struct scry_event *e);
/* A loss record: the events lost (in the kernel or on the way) since the previous one. */
uint64_t scry_event_lost(const struct scry_event *e);
/* The channel it was recorded in ("channel0" unless scry_session_add_channel named
 * others); NULL for a loss record (which counts every channel's losses). */
const char *scry_event_channel(const struct scry_event *e);

/* The payload's fields: how many, the name of the i-th, the type of one by name. */
unsigned scry_event_field_count(const struct scry_event *e);
const char *scry_event_field_name(const struct scry_event *e, unsigned i);
enum scry_value_type scry_event_field_type(const struct scry_event *e, const char *name);
/* A field's value by name: an integer (INT or UINT, -ERANGE if it does not fit), a string
 * (its bytes without the NUL in *len, which may be NULL), raw bytes (*len).  -ENOENT: no
 * such field; -EINVAL: not of that type (NULL for the pointer forms). */
int scry_event_field_int(const struct scry_event *e, const char *name, int64_t *v);
int scry_event_field_uint(const struct scry_event *e, const char *name, uint64_t *v);
const char *scry_event_field_string(const struct scry_event *e, const char *name, size_t *len);
const void *scry_event_field_bytes(const struct scry_event *e, const char *name, size_t *len);
/* The contexts the event carries: how many, the name of the i-th (the session's order). */
unsigned scry_event_context_count(const struct scry_event *e);
const char *scry_event_context_name(const struct scry_event *e, unsigned i);
/* A context by name ("pid", "tid", "procname"...), as for fields. */
enum scry_value_type scry_event_context_type(const struct scry_event *e, const char *name);
int scry_event_context_int(const struct scry_event *e, const char *name, int64_t *v);
const char *scry_event_context_string(const struct scry_event *e, const char *name, size_t *len);

/* ---------------------------------------------------------------------------------------
 * The control of scryd (the session daemon: `scryd`, or `systemctl start scry-sessiond`),
 * as `scry create/enable-event/start...` do it: each call one request over its socket
 * ($SCRY_RUNDIR/control.sock, default /run/scry).  Sessions made so live in the daemon,
 * beyond the caller's process.
 * ------------------------------------------------------------------------------------- */

struct scry_ctl;

/* A connection to the daemon, which must run (none is started); NULL with the reason in
 * err ("no daemon answers on RUNDIR/control...", the socket refused to this user...).
 * Every scry_ctl_ call returns 0, or -errno with the reason in err: -EREMOTEIO is the
 * daemon's refusal, err its one-line reason ("session 'x' not found..."). */
struct scry_ctl *scry_ctl_connect(char *err, size_t errlen);
void scry_ctl_close(struct scry_ctl *c);

/* Create session name writing its trace in output (NULL: the daemon's default,
 * ~/scry-traces/NAME-DATE); snapshot nonzero: a flight recorder (LTTng's --snapshot). */
int scry_ctl_create(struct scry_ctl *c, const char *name, const char *output, int snapshot, char *err,
		    size_t errlen);
/* Enable spec (as scry_session_enable_event) in session name, with filter (NULL: none). */
int scry_ctl_enable_event(struct scry_ctl *c, const char *name, const char *spec, const char *filter, char *err,
			  size_t errlen);
/* Add a context to the events of session name (before it starts). */
int scry_ctl_add_context(struct scry_ctl *c, const char *name, const char *context, char *err, size_t errlen);
/* Trace process pid in session name (LTTng's track --pid). */
int scry_ctl_track_pid(struct scry_ctl *c, const char *name, pid_t pid, char *err, size_t errlen);
int scry_ctl_start(struct scry_ctl *c, const char *name, char *err, size_t errlen);
int scry_ctl_stop(struct scry_ctl *c, const char *name, char *err, size_t errlen);
/* A snapshot session's buffers written as a trace (record-snapshot). */
int scry_ctl_snapshot(struct scry_ctl *c, const char *name, char *err, size_t errlen);
/* Rotate session name's trace: the chunk so far archived whole (LTTng's rotate). */
int scry_ctl_rotate(struct scry_ctl *c, const char *name, char *err, size_t errlen);
int scry_ctl_destroy(struct scry_ctl *c, const char *name, char *err, size_t errlen);

/* The sessions (name NULL) or one session's description, as the daemon writes it (`scry
 * list [NAME]`'s text): a malloc'ed string in *out for the caller to free. */
int scry_ctl_list(struct scry_ctl *c, const char *name, char **out, char *err, size_t errlen);

/* Any other control verb of `scry --help` (argv[0] the verb: "enable-channel",
 * "regenerate"...), argc strings; its output (may be NULL) malloc'ed in *out. */
int scry_ctl_command(struct scry_ctl *c, int argc, const char *const *argv, char **out, char *err,
		     size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* SCRY_SCRY_H */
