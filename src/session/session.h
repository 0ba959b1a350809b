/* session.h — a recording session, LTTng's model: channels (each a stream class of the
 * trace: per-CPU ring buffers, its enabled events — their CTF ids are their index in the
 * channel —, its contexts), the targets (system-wide or followed processes), the filter,
 * and the outputs (the trace directory; a channel's record sink).
 * The CLI drives it: create -> [track] -> load -> start -> run ... -> stop -> destroy. */
#ifndef SCRY_SESSION_H
#define SCRY_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/dirh.h"
#include <sys/types.h>
#include "catalog/catalog.h"

#define SCRY_DEFAULT_RING_SIZE   (8u << 20)     /* per CPU, up to 8 CPUs ... */
#define SCRY_DEFAULT_RING_TOTAL  (64u << 20)    /* ... then this much shared by all CPUs */
#define SCRY_MIN_RING_SIZE       (1u << 20)
#define SCRY_STACK_RING_FACTOR   4              /* call stack records (their frames, ~100-300
						 * bytes a stack): rings this many times the
						 * default, unless a size is given */
#define SCRY_DEFAULT_PACKET_SIZE (1u << 20)

#define SCRY_DEFAULT_CHANNEL "channel0"

enum scry_channel_kind {
	SCRY_CHANNEL_EVENTS,            /* events written to the trace (and the record sink) */
	SCRY_CHANNEL_COUNT,             /* its syscalls counted in the kernel, no event written
					 * (scry trace -c: scry_session_sc_count) */
	SCRY_CHANNEL_METRICS,           /* counters and histograms of syscalls updated in the
					 * kernel (opts.metrics), no event written (scry serve,
					 * scry top: scry_session_metric_fd) */
};

/* A channel: LTTng's, one stream class of the trace (stream files NAME_<cpu>). */
struct scry_span_mark_probe;

struct scry_channel_opts {
	const char *name;               /* NULL: SCRY_DEFAULT_CHANNEL */
	enum scry_channel_kind kind;
	const char *const *events;      /* event specs (-e), NULL/0: the default set */
	size_t nevents;
	/* each spec's filter (LTTng's event rules: scry_session_enable_rule), NULL: none */
	const char *const *event_filters;
	bool no_events;                 /* nevents 0: none (enabled later: scryd's channel whose
					 * first events are per-process ones) */
	uint64_t ctx_mask;              /* contexts its events carry, 1 << enum scry_ctx */
	size_t ring_size;               /* per-CPU ring bytes (power of two pages); 0: 8 MiB, less
					 * beyond 8 CPUs (64 MiB in all, at least 1 MiB each) */
	/* a record sink (scry trace's live printer): every record of the channel, in each
	 * CPU's time order (header, contexts, payload: catalog/record.h reads them) */
	void (*sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size);
	void *sink_ctx;
	/* SCRY_CHANNEL_METRICS (metrics/config.h builds them): nmetrics descriptors, each
	 * metric's bound on its series, and per syscall number the mask of the metrics it feeds
	 * (SCRY_MAX_SYSCALLS entries) */
	const struct scry_metric_desc *metrics;
	const uint32_t *metric_max_entries;
	unsigned nmetrics;
	const uint32_t *metric_sc;
	size_t packet_size;             /* CTF packet (LTTng's sub-buffer) bytes; 0: the session's */
	unsigned keep_packets;          /* in a snapshot session: packets kept per CPU (LTTng's
					 * sub-buffer count); 0: 4 */
	/* LTTng's overwrite channel in a normal session: packet_size sub-buffers, this many per
	 * CPU, wait for the writer (the pump's flush each second, the switch timer, stop); one
	 * more completed meanwhile overwrites the oldest unwritten (a lost packet, a gap in
	 * packet_seq_num).  0: discard (written as they complete) */
	unsigned overwrite_packets;
	const struct scry_metric_bounds *metric_bounds;   /* nmetrics: fixed histogram buckets */
	/* LTTng's --tracefile-size/--tracefile-count: each CPU's stream split in files
	 * NAME_<cpu>_<index> of at most tracefile_size bytes (at least a packet), the oldest
	 * deleted beyond tracefile_count (0: every file kept) */
	uint64_t tracefile_size, tracefile_count;
	/* LTTng's switch timer: every switch_timer_us, the channel's partly filled packets
	 * written out (a low-rate stream reaches the disk and viewers); 0: the pump's second */
	uint64_t switch_timer_us;
	/* scry trace -k: each syscall exit of the channel (and exit's and exit_group's entry) sends
	 * its thread's user registers and ustack_window bytes of its stack to a ring of
	 * ustack_ring bytes (scry_session_ustack_fd; scry_abi.h: struct scry_ustack_rec); 0: none */
	uint32_t ustack_window;
	size_t ustack_ring;
	/* SCRY_CHANNEL_METRICS: the spans' parents from the application's marks (kernel/probes.h) */
	const struct scry_span_mark_probe *span_mark;
};

struct scry_session_opts {
	const char *output;             /* trace directory; NULL: ./scry-YYYYmmdd-HHMMSS, none when
					 * a channel has a sink or counts */
	/* whose rights the trace's directories and files are made, written and removed with
	 * (util/runas.h: scryd's session owner; valid while the session is); NULL: scry's own */
	const struct scry_cred *owner;
	/* --group: the trace's directories and files given this group (who besides the owner may
	 * read them: 0750/0640); else the owner's own group */
	bool set_group;
	gid_t group;
	const struct scry_channel_opts *channels;   /* NULL/0: one channel of the defaults */
	size_t nchannels;
	struct scry_catalog *catalog;   /* the caller's, open until destroy (a catalog reads
					 * ~700 tracefs formats: one is enough); NULL: its own */
	bool target_all;                /* -a */
	/* the scheduler's events (sched_switch, sched_waking, sched_wakeup, sched_wakeup_new,
	 * sched_migrate_task) recorded for every task, the others for the target only; a channel
	 * of the defaults gains the wake-ups (scry record -- CMD / -p: a trace the CPU analyses
	 * read, every task seen switched in and out) */
	bool sched_everyone;
	bool no_follow;                 /* the children of followed processes are not followed
					 * (scry trace without -f, as strace) */
	size_t packet_size;
	struct scry_capture_opts capture;   /* user memory read by syscall events (-s, --snaplen) */
	/* filter (LTTng's language), evaluated in the kernel before an event is written, or in
	 * user space before the consumer writes it when the kernel cannot read its values */
	const char *filter;
	bool filter_entries_only;       /* syscall exits unfiltered (scry trace: the entry decides) */
	/* trackers besides the pid one (scry_session_track), combined with AND */
	const uint32_t *track_vpids, *track_uids, *track_gids;
	size_t ntrack_vpids, ntrack_uids, ntrack_gids;
	/* LTTng's vuid/vgid trackers: the real uid/gid as the task's user namespace maps them
	 * (unmapped: the overflow id, 65534) */
	const uint32_t *track_vuids, *track_vgids;
	size_t ntrack_vuids, ntrack_vgids;
	const char *const *track_cgroups;   /* cgroup v2 directories (descendants included) */
	size_t ntrack_cgroups;
	/* a flight recorder (LTTng's snapshot session): no trace written as it records; each
	 * channel keeps its last packets per CPU in memory (the oldest overwritten) and
	 * scry_session_snapshot writes them as a trace; output: where snapshots go */
	bool snapshot;
	/* the trace clock, SCRY_CLOCK_* (scry_abi.h): monotonic (0, LTTng's), boot (counts
	 * suspend), tai (where the kernel has bpf_ktime_get_tai_ns: -ENOTSUP otherwise) */
	unsigned clock;
	/* per-process event sets (scry_session_enable_event_pid) kept at most, the least
	 * recently used evicted beyond (at most SCRY_PID_SETS_MAX); 0: none */
	unsigned max_pid_sets;
	/* no event is enabled once loaded (scry record, scry trace): a program for a kind of
	 * event the channel has none of is not loaded (the tracefs tracepoints' writer: ~4 ms
	 * of verifier) */
	bool fixed_events;
	/* LTTng's network output: the trace streamed to an lttng-relayd (relay/relay.h), beside
	 * the output directory when one is given, else alone; NULL: none */
	const struct relay_url *relay;
	const char *relay_session;      /* the session's name at the relay (NULL: "scry") */
	const char *hostname;           /* the host's name at the relay (NULL: this machine's) */
	uint32_t live_timer_us;         /* > 0: a live session: every live-timer period, partly
					 * filled packets flushed and idle streams' beacons sent */
};

#define SCRY_DEFAULT_PID_SETS 64

struct scry_session_summary {
	uint64_t events;                /* written to the trace */
	uint64_t discarded;             /* lost in the kernel (ring full, build area busy, re-entry,
					 * an entry deferred to an exit that never came) */
	uint64_t truncated;             /* events with a string cut at SCRY_STR_MAX bytes */
	uint64_t bytes;                 /* bytes of the stream files */
	uint64_t clamped;               /* timestamps raised to keep a stream ordered */
	uint64_t filtered;              /* recorded, then rejected by the filter in user space */
	uint64_t lost;                  /* not written: the trace's disk failed (write_error), or
					 * too_big; events + discarded + lost = what was generated */
	uint64_t too_big;               /* events longer than a packet (--packet-size) */
	int write_error;                /* -errno of the failed write that stopped the trace, or 0 */
	uint64_t unfollowed;            /* children of followed processes that could not be
					 * followed (SCRY_FOLLOW_MAX live at once) */
	double seconds;                 /* from start to stop */
	/* a relay: packets (their events) handed to it, and those not delivered (its queue
	 * full, or it went away: scry_session_relay_error says why) */
	uint64_t relay_packets, relay_events, relay_lost_packets, relay_lost_events;
	uint64_t relay_beacons;
};

struct scry_session;
struct relay_url;

/* Resolve the events and check the output directory; nothing is created yet. */
int scry_session_create(struct scry_session **out, const struct scry_session_opts *o,
			char *err, size_t errlen);
/* Enable the events of spec (scry record -e's syntax: 'syscall:open*', 'sched:*') in the
 * channel named channel (NULL: the first).  Before load, as its opts.events.  After load, even once started: the metadata describes the new
 * events before their first record can be written, then their syscall descriptors are set
 * and their tracepoints attached.  Not on a loaded session with a session filter
 * (-ENOTSUP), nor the fork event or unknown syscalls (load-time settings).  Pointers from scry_session_events
 * are valid until the next call. */
int scry_session_enable_event(struct scry_session *s, const char *channel, const char *spec,
			      char *err, size_t errlen);
/* LTTng's event rule: spec enabled with its own filter (NULL: none) in channel: an event
 * is recorded when an enabled rule matching it accepts it (filters.h,
 * scry_filters_prepare_rules).  Before load, or once loaded (as scry_session_enable_event):
 * a change of filters there only for syscalls, in a channel loaded with doors (a daemon's:
 * the fronts flipped at one instant, channel_rules_relive); -ENOTSUP with the reason for a
 * tracepoint's or a probe's filter, or one decided in user space. */
int scry_session_enable_rule(struct scry_session *s, const char *channel, const char *spec, const char *filter,
			     char *err, size_t errlen);
/* Disable the rule (spec, filter) alone: its events stop being recorded unless another
 * enabled rule of spec remains (then the filters are made again).  Before load, or once
 * loaded with scry_session_enable_rule's limits. */
int scry_session_disable_rule(struct scry_session *s, const char *channel, const char *spec, const char *filter,
			      char *err, size_t errlen);
/* Disable the enabled events of channel (NULL: the first) matching spec (same syntax): a syscall's descriptor stops
 * recording it at once; a tracepoint stops being written at once, then is detached.  Their
 * event ids and metadata stay (enable them again with a new spec is not supported yet). */
int scry_session_disable_event(struct scry_session *s, const char *channel, const char *spec,
			       char *err, size_t errlen);
/* Per-process event sets: enable the events of spec (syscalls and tracepoints) in channel
 * for process pid only (its tgid: every thread of it; not its children, as LTTng's pid
 * tracker), before load or while recording: the session's own events go on for every
 * process.  Each process has one set (its rules: channel and spec); beyond
 * opts.max_pid_sets sets, the least recently used (changed, or seen recording an event) is
 * evicted and counted (*evicted: its pid, else 0).  A set ends with its process.  -ESRCH:
 * no such process; -ENOTSUP: another source's event, a filtered session, a channel that
 * does not record events, or a load-time setting (as scry_session_enable_event). */
int scry_session_enable_event_pid(struct scry_session *s, const char *channel, const char *spec, pid_t pid,
				  pid_t *evicted, char *err, size_t errlen);
/* Remove the rule (channel, spec) from pid's set (the set with its last rule): its events
 * stop being recorded for pid at once. */
int scry_session_disable_event_pid(struct scry_session *s, const char *channel, const char *spec, pid_t pid,
				   char *err, size_t errlen);
struct scry_pid_rule {
	const char *channel;
	char *spec;
};
struct scry_pid_set_info {
	pid_t pid;
	uint64_t events;                /* recorded through the set so far (0 before load) */
	const struct scry_pid_rule *rules;   /* valid until the next call on the session */
	size_t nrules;
};
struct scry_pid_sets_stats {
	size_t n;                       /* sets now */
	unsigned max;                   /* the bound */
	uint64_t evicted;               /* sets evicted (least recently used) */
	uint64_t ended;                 /* sets removed because their process ended */
};
/* The per-process sets (up to max of them in out, least recently used first) and their
 * counters; sets whose process ended are removed first.  Returns how many were written. */
size_t scry_session_pid_sets(struct scry_session *s, struct scry_pid_set_info *out, size_t max,
			     struct scry_pid_sets_stats *st);
/* Add context ctx (enum scry_ctx) to channel (NULL: the first): every event of the channel
 * carries it.  Before load only (contexts are load-time settings of the channel's BPF
 * object, as lttng add-context refuses a started session): -EBUSY after. */
int scry_session_add_context(struct scry_session *s, const char *channel, unsigned ctx, char *err, size_t errlen);
/* Follow a process (and its future children); valid after start's load, before or after attach. */
int scry_session_track(struct scry_session *s, pid_t tgid, char *err, size_t errlen);
/* Load the channels' BPF programs and their tables (the verifier's work: most of a start),
 * before anything of the trace exists; once (load does it if no one did).  A daemon does it
 * ahead of `start` for a configured session. */
int scry_session_prepare(struct scry_session *s, char *err, size_t errlen);
bool scry_session_prepared(const struct scry_session *s);
/* Create the trace directory and metadata, load the BPF programs and their tables (unless
 * prepared). */
int scry_session_load(struct scry_session *s, char *err, size_t errlen);
/* Where scry_session_load's time went (ns): the trace directory and its guardian (a fork),
 * the channels' BPF objects (opened, loaded and verified, their tables filled; 0 when
 * prepared before the load, taking prepare_ns), the metadata. */
struct scry_session_load_times {
	uint64_t dir_ns, bpf_ns, metadata_ns, prepare_ns;
};
void scry_session_load_times(const struct scry_session *s, struct scry_session_load_times *out);
/* Attach: events flow from here on. */
int scry_session_start(struct scry_session *s, char *err, size_t errlen);
/* Move what the rings hold into the trace; returns bytes moved or -errno. */
long scry_session_poll(struct scry_session *s);
/* Wait before the next poll, paced by the fill rate (see scry_consumer_poll_delay_ns). */
uint64_t scry_session_poll_delay_ns(const struct scry_session *s);
int scry_session_flush(struct scry_session *s);
void scry_session_progress(struct scry_session *s, struct scry_session_summary *out);
struct scry_catalog *scry_session_catalog(const struct scry_session *s);
/* The counting channel's totals of syscall nr so far (-ENOENT: no channel counts). */
int scry_session_sc_count(struct scry_session *s, unsigned nr, struct scry_sc_count *out);
/* The wait(2) status of process tgid, which exited, as the kernel saw it (read once);
 * -ENOENT when not known. */
int scry_session_exit_code(struct scry_session *s, pid_t tgid, int *status);
/* The ring of the first channel's user stack copies (ustack_window), -1 if none, and what
 * became of them. */
int scry_session_ustack_fd(const struct scry_session *s);
int scry_session_ustack_stats(struct scry_session *s, struct scry_ustack_stats *out);
/* The metrics channel's map of metric id (see scry_probes_metric_fd), -1 if none. */
int scry_session_metric_fd(const struct scry_session *s, unsigned id);
/* The metrics channel's ring buffer of kernel spans (struct scry_span_rec), -1 if none. */
int scry_session_span_fd(const struct scry_session *s);
/* The metrics channel's kernel counters (-ENOENT: no metrics channel). */
int scry_session_metric_stats(struct scry_session *s, struct scry_metric_stats *out);
/* The metrics channel's programs: their kernel statistics (kernel/probes.h). */
struct scry_prog_stats;
size_t scry_session_prog_stats(struct scry_session *s, struct scry_prog_stats *out, size_t max);
/* Channel chan's events, indexed by CTF event id (a record sink decodes with them). */
size_t scry_session_events(const struct scry_session *s, unsigned chan, const struct scry_event *const **events);
/* How a run ends (scry_session_run): whichever comes first. */
struct scry_run_opts {
	uint64_t duration_ns;           /* > 0: a deadline */
	pid_t child;                    /* > 0: the command scry started: its end (reaped) */
	const pid_t *pids;              /* the end of every one of these processes (-p) */
	size_t npids;
	uint64_t max_poll_delay_ns;     /* > 0: poll at least this often (live output) */
	void (*after_poll)(void *ctx, uint64_t now);    /* after each poll of the rings */
	void (*every_second)(void *ctx, uint64_t now);  /* a status line */
	void *ctx;
	volatile sig_atomic_t *stop;    /* set by a signal handler: stop */
};

struct scry_run_end {
	bool child_done;                /* the command ended; wstatus as waitpid gives it */
	int wstatus;
	bool deadline;
	bool targets_ended;
};

/* Move events into the outputs until the run ends (see struct scry_run_opts): one event
 * loop, polls paced by the fill rate, packets flushed every second. */
int scry_session_run(struct scry_session *s, const struct scry_run_opts *o, struct scry_run_end *end,
		     char *err, size_t errlen);
/* The session's pump: its rings polled at the pace of their fill rate and its packets
 * flushed every second, as timers of loop l — scry_session_run's own loop, or a daemon's
 * that runs every session and its control socket in one loop.  after_poll may be NULL. */
struct scry_loop;
struct scry_session_pump;
int scry_session_pump_start(struct scry_session *s, struct scry_loop *l, uint64_t max_poll_delay_ns,
			    void (*after_poll)(void *ctx, uint64_t now), void *ctx, struct scry_session_pump **out);
/* Cancel its timers (before scry_session_stop). */
void scry_session_pump_stop(struct scry_session_pump *p);
/* An output directory as a session would take it, checked with owner's rights (NULL: scry's
 * own) before anything is made: its parent exists and may be written in; it does not exist,
 * or is a directory of the owner, empty (but a snapshot session's output: snapshot).  0, or
 * -errno with the reason in err. */
int scry_session_check_output(const char *dir, const struct scry_cred *owner, bool snapshot, char *err,
			      size_t errlen);
/* The trace's directory (a snapshot session's output), held from load to destroy: what
 * goes beside the trace (metrics.prom) is written in it.  NULL before load. */
struct scry_dirh *scry_session_root_dir(const struct scry_session *s);
/* A snapshot session's channels, as they are now, written as a complete trace in base/name
 * (base made if missing, a directory of the owner; name made here, it must not exist): the
 * streams' newest packets within max_bytes in all (0: no bound; -EINVAL when it cannot hold
 * one packet of each stream, as LTTng refuses it), and the metadata of every event enabled.  Recording goes on.  *bytes: the bytes
 * of the streams written.  0 or -errno. */
/* The same sent to a relay (url; NULL: opts.relay) as LTTng's `snapshot record net://`: a
 * snapshot session at the relay whose one chunk is named name (HOSTNAME/SESSION-DATE/name
 * there: its path in path).  0 or -errno with a one-line reason (nothing is half-sent
 * silently: a packet not delivered fails it). */
int scry_session_snapshot_relay(struct scry_session *s, const struct relay_url *url, const char *name,
				uint64_t max_bytes, uint64_t *bytes, char *path, size_t pathlen, char *err, size_t errlen);
int scry_session_snapshot(struct scry_session *s, const char *base, const char *name, uint64_t max_bytes,
			  uint64_t *bytes, char *err, size_t errlen);
/* Rotation (LTTng's): the current trace chunk — every stream and the metadata, in DIR/kernel
 * — closed and moved whole to DIR/archives/<begin>-<end>-<index>/kernel, a trace babeltrace2
 * reads alone; the next chunk starts in DIR/kernel at once (no event lost or repeated: the
 * rings are drained into the closing chunk, what follows goes to the next).  archive (may be
 * NULL): the chunk's directory.  0 or -errno. */
int scry_session_rotate(struct scry_session *s, char *archive, size_t archive_len, char *err, size_t errlen);
/* Stop recording and keep everything (LTTng's stop): every channel's switch off at one
 * instant, the rings drained and the packets written (the trace is complete on disk), the
 * programs, rings and streams kept; a session that rotated archives its chunk.  0 or -errno
 * (a write error). */
int scry_session_pause(struct scry_session *s, char *err, size_t errlen);
/* Record again into the same trace (LTTng's start after stop): the streams go on, their
 * next packets from now; a session whose chunk was archived starts a new one. */
int scry_session_resume(struct scry_session *s, char *err, size_t errlen);
/* LTTng's enable-channel/disable-channel of an existing channel: a disabled channel's events
 * are not recorded (its switch stays off); it stays in the trace.  Any time. */
int scry_session_enable_channel(struct scry_session *s, const char *channel, bool on, char *err, size_t errlen);
/* Chunks archived so far. */
unsigned scry_session_chunks(const struct scry_session *s);
/* LTTng's `regenerate statedump`: a started session's channels that record the statedump
 * (lttng_statedump_*, enabled before load) get a new one, from lttng_statedump_start to
 * _end, in the running trace.  -EINVAL when the session is not started or no channel
 * records it.  0 or -errno. */
int scry_session_statedump(struct scry_session *s, char *err, size_t errlen);
/* Detach, drain, close the trace.  A session that rotated archives its last chunk too. */
int scry_session_stop(struct scry_session *s, struct scry_session_summary *out, char *err, size_t errlen);
void scry_session_destroy(struct scry_session *s);

const char *scry_session_dir(const struct scry_session *s);
/* A streamed session: why its relay stopped taking packets ("" while it works, or without
 * a relay), and the session's directory at the relay as it answered ("" without one). */
const char *scry_session_relay_error(const struct scry_session *s);
const char *scry_session_relay_path(const struct scry_session *s);
/* The live timer's tick (opts.live_timer_us; the pump runs it): partly filled packets
 * written, a first packet for every stream that has none, beacons for idle streams. */
void scry_session_live_tick(struct scry_session *s);
/* The live timer's period (ns), 0 for a session that is not live. */
uint64_t scry_session_live_period_ns(const struct scry_session *s);
/* timers.c: the switch timers (scry_channel_opts.switch_timer_us): the channels whose period
 * came written out; returns the delay to the next one (SCRY_LOOP_NEVER-like UINT64_MAX when
 * no channel has one).  The pump runs it. */
uint64_t scry_session_switch_tick(struct scry_session *s, uint64_t now);
bool scry_session_has_switch_timer(const struct scry_session *s);
/* Time since the switch turned recording on (0 before): what a --duration counts from, the
 * statedump that follows the switch included. */
uint64_t scry_session_elapsed_ns(const struct scry_session *s);
/* LTTng's monitor timer: channel's buffer usage now (its fullest CPU ring: bytes not yet
 * consumed, of size).  -ENOENT: no such loaded channel. */
int scry_session_channel_usage(struct scry_session *s, const char *channel, uint64_t *used, uint64_t *size);
/* A loaded channel's events discarded in the kernel and lost on the way to the trace (its
 * consumer's totals, LTTng's per-channel statistics); -ENOENT: none. */
int scry_session_channel_stats(struct scry_session *s, const char *channel, uint64_t *discarded, uint64_t *lost,
			       uint64_t *lost_packets);
/* The per-CPU ring size a channel gets by default (scry_channel_opts.ring_size 0). */
size_t scry_default_ring_size(void);
/* The default ring of a channel of contexts ctx_mask: SCRY_STACK_RING_FACTOR times the
 * default with a call stack context, whose records are ~4-8x a syscall's (their frames), so
 * that the rings hold as long a stall of the consumer. */
size_t scry_default_ring_size_for(uint64_t ctx_mask);
/* The name of clock (SCRY_CLOCK_*: "monotonic", "boot", "tai"), NULL if none; and
 * whether this kernel offers it (0, or -ENOTSUP with a one-line reason). */
const char *scry_clock_name(unsigned clock);
int scry_clock_check(unsigned clock, char *err, size_t errlen);
/* Give events channel chan (an index) a record sink after create, before load: it gets
 * every record the trace does, and the trace directory is written as create decided (a
 * sink given in the options instead means no trace without an output).  0 or -EINVAL. */
int scry_session_set_sink(struct scry_session *s, unsigned chan,
			  void (*sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size), void *ctx);
/* scryd's ready object (kernel/probes.h): a loaded, unstarted session of one channel hands
 * its BPF object's descriptors over (scryd: daemon/warm.c); a session's object came from
 * scryd (warm) rather than being loaded here. */
struct scry_warm;
int scry_session_export_warm(struct scry_session *s, struct scry_warm *w, char *err, size_t errlen);
bool scry_session_warm(const struct scry_session *s);
size_t scry_session_nchannels(const struct scry_session *s);
/* The contexts channel chan's records carry (1 << enum scry_ctx; catalog/record.h reads them). */
uint64_t scry_session_ctx_mask(const struct scry_session *s, unsigned chan);

#endif
