/* daemon_int.h — the daemon's objects as its files see them: the daemon (its loop, its
 * catalog, its sessions: server.c), a session's configuration — what create, enable-channel,
 * enable-event, add-context and track said, in order — and the engine session built from
 * it (sessions.c), the verbs that change them (verbs*.c).  Private to src/daemon/.
 *
 * A session's configuration is the truth until start: after each change an engine session
 * (session/session.h) is built from it again (scry_session_create: events resolved, output
 * checked; nothing loaded), so that a bad event or option fails the command that gave it,
 * with the engine's reason.  start loads and starts that engine session and puts its pump on
 * the daemon's loop; once started, changes go to the engine's verbs (enable/disable an event,
 * track a pid) and are added to the configuration; stop completes the trace and frees the
 * engine session (its BPF objects and rings). */
#ifndef SCRY_DAEMON_INT_H
#define SCRY_DAEMON_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "feed/capture.h"
#include "feed/http.h"
#include "relay/proto.h"
#include "kernel/probes.h"
#include "session/session.h"

struct dop {                       /* an enable-event or disable-event, in order */
	bool enable;
	char *spec;                    /* the engine's spec: syscall:GLOB, SYSTEM:GLOB, GLOB */
	char *filter;                  /* an enable's rule's filter (LTTng's), NULL: none */
	char *name;                    /* a probe rule's name (enable-event --userspace-probe,
					* --probe, --function NAME), NULL: its spec names it */
	bool one;                      /* a disable of the rule (spec, filter) alone (load's: a
					* disabled <event>); else of every rule of spec */
	pid_t pid;                     /* --pid: a per-process set's rule; 0: the channel's */
};

struct dchannel {
	char *name;
	size_t ring_size;              /* per CPU; 0: the engine's default */
	uint64_t subbuf_size, num_subbuf;
	uint64_t ctx_mask;
	bool disabled;                 /* disable-channel: its events not recorded, it stays */
	uint64_t tracefile_size, tracefile_count;   /* --tracefile-size/--tracefile-count (0: none) */
	/* LTTng's channel timers, in us (0: inactive; the kernel domain's defaults: switch 0, read
	 * 200000, monitor 1000000): the switch timer writes partly filled packets out, the read
	 * timer bounds the consumer's wake-up period, the monitor timer samples buffer usage */
	uint64_t switch_timer_us, read_timer_us, monitor_timer_us;
	uint64_t monitor_next_ns;      /* its next sample, and the last one (bytes of the fullest */
	uint64_t usage_used, usage_size;   /* CPU ring not yet consumed, of its size) */
	bool usage_sampled;
	bool output_mmap;              /* --output mmap (the kernel domain's default: splice) */
	bool overwrite;                /* --overwrite in a normal session (a snapshot session's
					* channels overwrite anyway) */
	struct dop *ops;
	size_t nops;
};

#define DCHANNEL_READ_TIMER_US 200000
#define DCHANNEL_MONITOR_TIMER_US 1000000

/* D_STOPPED: the engine session is kept loaded and paused (LTTng's stop): start records
 * again into the same trace; destroy completes it and frees the BPF objects and rings. */
enum dstate { D_CREATED, D_STARTED, D_STOPPED };

/* A snapshot session's output (LTTng's: one at a time; verbs_snapshot.c). */
enum { DSNAP_DEFAULT, DSNAP_SET, DSNAP_DELETED };
struct dsnap_output {
	int state;                     /* DSNAP_*: DEFAULT is output 1 at the session's directory */
	unsigned id, next_id;
	char name[64];
	char *path;
	bool file_url;                 /* given as file://PATH: add-output echoes it so */
	uint64_t max;                  /* -m: 0 none */
};

/* The trackers, in lttng's order of `list`: bits of dsession.tracker_set */
enum { DTRACK_PID, DTRACK_VPID, DTRACK_UID, DTRACK_GID, DTRACK_VUID, DTRACK_VGID, DTRACK_NR };

struct dsession {
	char *name, *dir;
	struct scry_cred owner;        /* its creator: only it (and root) sees and acts on it, and
					* every file of it is made with its rights */
	char owner_name[64];
	bool set_group;                /* create --group: who besides the owner reads its trace */
	gid_t group;
	enum dstate state;
	struct dchannel *chans;
	size_t nchans;
	pid_t *pids;                   /* pid tracker (none: every process) */
	size_t npids;
	uint32_t *vpids, *uids, *gids, *vuids, *vgids;
	size_t nvpids, nuids, ngids, nvuids, nvgids;
	/* bit DTRACK_*: that tracker is an inclusion set (lttng's policy include-set), its values
	 * above, none meaning no process (lttng's "none": the last value untracked, or untrack
	 * --all --pid); clear: every process (lttng's include-all) */
	unsigned tracker_set;
	bool snapshot;                 /* a flight recorder: overwrite channels kept in memory,
					* written by snapshot record */
	unsigned nsnapshots;
	unsigned clock;                /* create --clock: SCRY_CLOCK_* */
	unsigned max_pid_sets;         /* create --max-pid-sets: per-process event sets kept */
	char *last_snapshot;            /* the directory of the last snapshot recorded */
	struct dsnap_output snap_out;   /* its snapshot output (verbs_snapshot.c) */
	struct relay_url relay;        /* create --set-url, -C/-D: the relay the trace streams to */
	bool has_relay, relay_only;    /* ... and without -o (dir is then the relay's URL) */
	uint32_t live_timer_us;        /* create --live[=USEC]: a live session */
	char *hostname;                /* create --hostname: the host's name at the relay */
	uint64_t rot_timer_ns, rot_size;   /* enable-rotation --timer / --size (0: none) */
	int rot_timer, size_timer;         /* --timer's loop timer, and the 250 ms check (--size, a
					    * failed write) once started, or -1 */
	int prep_timer;                    /* the engine's BPF objects loaded ahead of start, once
					    * the configuration has not changed for a moment, or -1 */
	uint64_t rot_bytes;                /* the trace's bytes at the last rotation */
	unsigned nchunks;                  /* chunks archived, at stop */
	struct daemon *d;                  /* for the rotation timers */
	struct scry_session *eng;      /* built from the above; loaded once started */
	struct scry_session_pump *pump;
	struct scry_session_summary sum;   /* at stop */
	char stop_error[256];
	int write_error;               /* a failed write, said once in the log */
	/* create --metrics FILE / --spans FILE (feeds.c): NULL when neither was given */
	char *metrics_file, *spans_file;    /* absolute paths */
	char **env;                         /* the creating command's OTEL_* variables */
	struct scry_capture *cap;
	struct scry_http *http;             /* create --listen: the metrics served (or NULL) */
	char *listen;
	bool prom_written;                  /* DIR/metrics.prom written at a stop */
};

struct daemon {
	struct scry_loop *loop;
	struct scry_catalog *cat;
	struct dsession **sess;
	size_t nsess;
	volatile sig_atomic_t *stop;
	unsigned max_sessions_per_user;  /* scryd --max-sessions-per-user: a non-root uid's sessions */
	bool release_armed;            /* the heap given back once the verb that freed sessions is done */
};

/* peer.c: who asks, as the kernel says (the control socket's SO_PEERCRED) */
struct dpeer {
	struct scry_cred cred;         /* its uid, gid and groups */
	pid_t pid;
	char *cwd;                     /* its process's working directory (/proc/PID/cwd), or NULL */
	char *home;                    /* the password database's (root's: as its command says) */
	char user[64];                 /* its name, or its uid */
};
int dpeer_of(struct dpeer *p, uid_t uid, gid_t gid, pid_t pid, int pidfd, const char *claimed_home, char *err,
	     size_t errlen);
void dpeer_free(struct dpeer *p);
bool dpeer_is_root(const struct dpeer *p);
/* The rights its file operations run with: NULL for root (the daemon's own). */
const struct scry_cred *dpeer_cred(const struct dpeer *p);
/* path made absolute against its working directory, malloc'd into *out: 0, -ENOMEM, or
 * -ENOENT (a relative path and no directory known). */
int dpeer_path(const struct dpeer *p, const char *path, char **out);
/* It is in group (or root): it may give its files that group. */
bool dpeer_in_group(const struct dpeer *p, gid_t group);
/* Process pid (alive while pidfd says so) could load BPF programs itself: CAP_SYS_ADMIN, or
 * CAP_BPF and CAP_PERFMON, effective, in the daemon's user namespace.  0, or -EPERM with
 * the reason. */
int dpeer_may_load_bpf(pid_t pid, int pidfd, char *err, size_t errlen);
/* It may see and act on s: its own, or root. */
bool dpeer_owns(const struct dpeer *p, const struct dsession *s);
/* The rights s's files are made with: NULL for root's sessions. */
const struct scry_cred *dsession_owner(const struct dsession *s);

/* sessions.c */
/* Session and channel names name files: LTTng's characters ([A-Za-z0-9_.-], not starting
 * with . or -, at most 200). */
bool dsession_name_ok(const char *n);
struct dsession *dsession_find(struct daemon *d, const char *name);
int dsession_add(struct daemon *d, const char *name, const char *dir, char *err, size_t errlen);
/* Rebuild s->eng from the configuration (before start): 0 or -errno with the reason. */
int dsession_rebuild(struct daemon *d, struct dsession *s, char *err, size_t errlen);
struct dchannel *dsession_channel(struct dsession *s, const char *name);
int dsession_add_channel(struct dsession *s, const char *name, struct dchannel **out);
/* Remove a channel that has no event (the pointers into s->chans move). */
void dsession_drop_channel(struct dsession *s, struct dchannel *c);
int dchannel_add_op(struct dchannel *c, bool enable, const char *spec);
/* An enable of the rule (spec, filter), LTTng's: a rule is its name and its filter. */
int dchannel_add_rule_op(struct dchannel *c, const char *spec, const char *filter);
/* A disable of that rule alone (load's disabled <event>). */
int dchannel_add_disable_rule_op(struct dchannel *c, const char *spec, const char *filter);
/* The same for a per-process set's rule (pid > 0). */
int dchannel_add_pid_op(struct dchannel *c, bool enable, const char *spec, pid_t pid);
/* The channel's event rules, LTTng's: one per spec and filter enable-event gave (without
 * --pid: the per-process sets are the engine's, scry_session_pid_sets), in the order first
 * given, enabled or not as its last enable-event/disable-event left it (a disable-event
 * names a spec: every rule of it).  Returns how many
 * (rules[] allocated, its specs pointing into c->ops); -ENOMEM. */
struct drule {
	const char *spec;
	const char *filter;            /* NULL: none */
	const char *name;              /* a probe rule's name, else NULL */
	bool enabled;
};
int dchannel_rules(const struct dchannel *c, struct drule **rules);
int dsession_start(struct daemon *d, struct dsession *s, char *err, size_t errlen);
int dsession_stop(struct daemon *d, struct dsession *s, char *err, size_t errlen);
/* Rotate now (archive the current chunk): 0 or -errno; archive: the chunk's directory. */
/* A streamed session's output as lttng's list shows it: "tcp4://HOST:CTRL/PATH [data: DATA]". */
const char *dsession_relay_output(struct dsession *s);
/* snapshot record to a relay (url, or the session's own: NULL), as LTTng's: the reply's lines. */
struct dreply;
int dsession_snapshot_relay(struct dsession *s, const char *url, const char *name, uint64_t max, struct dreply *r);
int dsession_rotate(struct dsession *s, char *archive, size_t len, char *err, size_t errlen);
/* (Re)arm or cancel the rotation timers of a started session as its settings say. */
void dsession_rotation_timers(struct daemon *d, struct dsession *s);
/* Stop it if it runs, remove it from the daemon, free it. */
void dsession_destroy(struct daemon *d, struct dsession *s);
/* A new session, not registered (dsession_register adds it to the daemon). */
struct dsession *dsession_new(const char *name, const char *dir);
int dsession_register(struct daemon *d, struct dsession *s, char *err, size_t errlen);
/* 0 when uid may own n more sessions (root always may), else -EUSERS with the reason. */
int dsession_quota(struct daemon *d, uid_t uid, size_t n, char *err, size_t errlen);
void dsession_free(struct dsession *s);
/* feeds.c: a session's metrics and spans (create --metrics/--spans), the record path's
 * (feed/capture.h).  dfeed_attach loads and checks the configs and starts the span exporter
 * with the caller's OTEL_* variables: 0, or -1 with a one-line err naming the file. */
int dfeed_attach(struct daemon *d, struct dsession *s, const char *metrics, const char *spans,
		 const char *const *env, char *err, size_t errlen);
/* create --listen ADDR: the metrics served there (503 until started).  0, or -1 with err. */
int dfeed_listen(struct dsession *s, const char *listen, char *err, size_t errlen);
/* Scrapes read the engine session from now on (true), or no more (false: before it goes). */
void dfeed_serving(struct dsession *s, bool on);
/* In dsession_rebuild: so's channels, then the metrics channel. */
int dfeed_channels(struct dsession *s, struct scry_session_opts *so, char *err, size_t errlen);
/* After the engine session is created: the process spans fed by one of its channels; 1 when
 * it must be created again (so has a channel "spans" now). */
int dfeed_bind(struct dsession *s, struct scry_session_opts *so, char *err, size_t errlen);
/* After an enable-event on a loaded session: the process spans bound again (-1: they could
 * not be). */
int dfeed_rebind(struct dsession *s);
/* After load: the kernel spans' ring. */
int dfeed_open(struct dsession *s, char *err, size_t errlen);
/* The pump's arguments: how often to poll at least, and what after each poll. */
uint64_t dfeed_poll_delay(const struct dsession *s);
void (*dfeed_after_poll(const struct dsession *s))(void *ctx, uint64_t now);
/* At stop (the engine paused): the spans of what was read handed over, DIR/metrics.prom
 * written, the loss said in the log. */
void dfeed_stopped(struct dsession *s);
/* At destroy, before the engine session goes: the spans still open ended, the exporter
 * flushed (2 s at most), the totals in the log. */
void dfeed_end(struct dsession *s);
/* `list NAME` / `status`: what the session feeds and what it lost. */
void dfeed_describe(struct dsession *s, FILE *out);
void dfeed_free(struct dsession *s);
/* probes.c: dynamic probes in sessions (LTTng's --userspace-probe, --probe, --function) */
enum { DPROBE_USER = 1, DPROBE_PROBE, DPROBE_FUNCTION };
bool dprobe_user(const char *spec);     /* uprobe: or usdt: */
bool dprobe_kernel(const char *spec);   /* kprobe: or kretprobe: */
/* The engine's spec of a probe of kind at loc (DPROBE_USER: elf:PATH:SYMBOL or
 * sdt:PATH:PROVIDER:NAME, PATH made absolute against peer's directory (NULL: it must be
 * absolute) and opened with s's owner's rights; else a kernel SOURCE), malloc'd into *spec:
 * 0, or -errno with the reason. */
int dprobe_spec(const struct dsession *s, const struct dpeer *peer, int kind, const char *loc, char **spec,
		char *err, size_t errlen);
/* path opened for reading with s's owner's rights: 0, or -errno with "'PATH': why". */
int dprobe_check_binary(const struct dsession *s, const char *path, char *err, size_t errlen);
/* A probe spec's parts: kind; user probes: path, a (the symbol, or the provider:name's
 * provider start), provider and b (sdt's name); kernel: a (the source). */
struct dprobe_loc {
	int kind;
	bool sdt;
	char *path, *provider;
	const char *a, *b;
};
int dprobe_location(const char *spec, struct dprobe_loc *l);
void dprobe_location_free(struct dprobe_loc *l);
/* A probe rule's lines in `list`, lttng's (its location under it). */
void dprobe_describe(const struct drule *rule, FILE *out);
/* session_xml.c: LTTng's session XML (session.xsd) */
/* s saved to path with the rights of as (NULL: the daemon's own); force: an existing file replaced. */
int dsession_save(const struct dsession *s, const char *path, bool force, const struct scry_cred *as, char *err,
		  size_t errlen);
/* Read every session of file path (or only the one named only): each built (its engine
 * session checks it) but none registered; *out, *n.  Unknown or unsupported elements: an
 * error naming them. */
int dsession_read_xml(struct daemon *d, const char *path, const char *only, struct dsession ***out,
		      size_t *n, bool **started, char *err, size_t errlen);
/* The same from memory (label names it in errors): the fuzz target's entry. */
int dsession_read_xml_buffer(const char *buf, size_t len, const char *label, struct dsession ***out,
			     size_t *n, bool **started, char *err, size_t errlen);
/* verbs_snapshot.c: s's snapshot output now, NULL when deleted (or out of memory) */
const struct dsnap_output *dsession_snapshot_output(struct dsession *s);
/* describe.c: `list NAME` and `status`: the session described, lttng's way. */
void dsession_describe(struct dsession *s, FILE *out);
/* `list NAME -c CHANNEL`: the same with that channel only (-ENOENT: none of that name, the
 * lines up to the channels written, as lttng's) */
int dsession_describe_channel(struct dsession *s, const char *channel, FILE *out);
/* `list NAME -d`: the session line and output, then its domains (lttng's "  - Kernel") */
void dsession_describe_domains(struct dsession *s, FILE *out);
/* "disk full", or the error's text. */
const char *dsession_write_error_name(int error);
/* relay.c: a streamed session's relay, live timer and deliveries (sum: its totals now) */
void dsession_describe_relay(struct dsession *s, const struct scry_session_summary *sum, FILE *out);
/* At stop: -EPIPE and the line "session 'N': P packets (E events) not delivered to RELAY:
 * why" in err when some were not, else 0. */
int dsession_relay_loss(struct dsession *s, char *err, size_t errlen);

/* verbs.c: run one request's command line for the peer uid (env: the caller's OTEL_* variables, "NAME=value",
 * NULL-terminated); out gets what to print, err the reason of a failure; *set_session the session to make current (static or s->name), *clear_session
 * a destroyed one.  Returns 0 or -errno. */
struct dreply {
	FILE *out;
	char *err;
	size_t errlen;
	const char *set_session;
	char **cleared;                /* names of destroyed sessions (owned) */
	size_t ncleared;
};
/* warm.c: the ready object of `scry trace`'s default (docs/DAEMON.md).  Start its thread
 * (0 or -errno with a reason); stop it (its object closed).  Take the object for a caller
 * (pid, alive while pidfd says so) asking with fingerprint fp: 0 and *out (the caller's to
 * send and free: scry_warm_clear), or -EPERM (it could not load it itself) or -ENOENT (none
 * ready for fp) with the reason. */
struct scry_warm;
struct dwarm_status {
	bool ready;
	char fp[SCRY_WARM_FP_HEX];     /* the ready object's fingerprint, "" if none */
	uint64_t made, handed, refused, failed;
	char last_error[256];
};
int dwarm_start(char *err, size_t errlen);
void dwarm_stop(void);
int dwarm_take(const char *fp, pid_t pid, int pidfd, struct scry_warm **out, char *err, size_t errlen);
void dwarm_status(struct dwarm_status *st);

int daemon_verb(struct daemon *d, char **argv, int argc, const struct dpeer *peer, const char *current,
		const char *const *env, struct dreply *r);

#endif
