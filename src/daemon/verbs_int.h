/* verbs_int.h — what the files of the control verbs share: a request's context (struct
 * verb_ctx), the helpers of verbs.c (a refusal's reason, a bad option, a verb's target
 * session and what it takes, paths) and each verb daemon_verb (verbs.c) hands a command to,
 * by the file that owns it.  Private to verbs*.c. */
#ifndef SCRY_DAEMON_VERBS_INT_H
#define SCRY_DAEMON_VERBS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "daemon/daemon_int.h"

struct verb_ctx {
	struct daemon *d;
	const struct dpeer *peer;      /* who asks (peer.c) */
	const char *current;
	const char *const *env;        /* the caller's OTEL_* variables */
	struct dreply *r;
	const char *verb;
};

/* verbs.c: the helpers */
/* The reason of a refusal into r->err: -EINVAL.  ERR: refuse with the verb's r. */
int __attribute__((format(printf, 2, 3))) refuse(struct dreply *r, const char *fmt, ...);
#define ERR(...) refuse(r, __VA_ARGS__)
/* getopt over the request's argv: opterr off, the offending option named in the reason. */
int bad_option(struct verb_ctx *v, int argc, char **argv);
/* A session, channel or snapshot name: letters, digits, '_', '-', '.'. */
/* The session a verb acts on: -s NAME, else the caller's current one (NULL: refused). */
struct dsession *target(struct verb_ctx *v, const char *name);
/* The engine session is loaded (started, or stopped and kept): changes go to its verbs. */
bool loaded(const struct dsession *s);
/* 0: s takes the verb's change (what a loaded session refuses, each verb says). */
int changeable(struct verb_ctx *v, struct dsession *s);
/* path made absolute against the caller's directory, malloc'd into *out: 0, or -errno with
 * the reason in v->r. */
int resolve_path(struct verb_ctx *v, const char *path, char **out);
/* ~/scry-traces/NAME-STAMP, its parent made with the caller's rights (verbs.c) */
int default_traces_dir(struct verb_ctx *v, const char *name, const char *stamp, char **dir);
/* Stop (if started) and destroy s, said in the reply; its name into r->cleared. */
int destroy_one(struct verb_ctx *v, struct dsession *s);

/* verbs_channels.c */
int verb_enable_channel(struct verb_ctx *v, int argc, char **argv);
int verb_disable_channel(struct verb_ctx *v, int argc, char **argv);
int verb_add_context(struct verb_ctx *v, int argc, char **argv);

/* verbs_events.c: enable-event (enable) or disable-event */
int verb_event(struct verb_ctx *v, int argc, char **argv, bool enable);

/* verbs_track.c: track (add) or untrack */
int verb_track(struct verb_ctx *v, int argc, char **argv, bool add);

/* verbs_snapshot.c: snapshot add-output, list-output, del-output */
int verb_snapshot_output(struct verb_ctx *v, int argc, char **argv);

/* verbs_files.c */
int verb_snapshot(struct verb_ctx *v, int argc, char **argv);
int verb_rotate(struct verb_ctx *v, int argc, char **argv);
int verb_regenerate(struct verb_ctx *v, int argc, char **argv);
int verb_rotation(struct verb_ctx *v, int argc, char **argv, bool enable);
int verb_save(struct verb_ctx *v, int argc, char **argv);
int verb_load(struct verb_ctx *v, int argc, char **argv);
int verb_view(struct verb_ctx *v, int argc, char **argv);

#endif
