/* session_int.h — libscry's in-process session (struct scry_session of
 * include/scry/scry.h) as session.c and channel.c share it.  Include after api/engine.h
 * and api/event.h. */
#ifndef SCRY_API_SESSION_INT_H
#define SCRY_API_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <scry/scry.h>

/* err may be NULL when errlen is 0 */
#define SAY(...) ((void)(errlen ? snprintf(err, errlen, __VA_ARGS__) : 0))

/* A channel as the caller describes it (channel.c), made into the engine's at start. */
struct api_channel {
	char *name;
	struct scry_channel_options opts;   /* the known members */
	bool added;                         /* by scry_session_add_channel (else channel0's defaults) */
	char **specs, **filters;            /* the rules, in order (filters[i] NULL: none) */
	size_t nrules;
	uint64_t ctx_mask;                  /* contexts of this channel alone */
	unsigned index;                     /* the engine's channel index (from start) */
	struct scry_session *s;             /* the record sink's context: */
	struct scry_api_decoder dec;        /* the callback's events of this channel (event.c) */
};

struct scry_session {
	struct scry_session_options opts;   /* the known members; output copied */
	char *output;
	char *relay_name;
	struct relay_url relay;             /* opts.relay_url parsed */
	struct api_channel **chans;         /* in the order made */
	size_t nchans;
	uint64_t ctx_mask;                  /* contexts of every channel */
	pid_t *pids;
	size_t npids;
	uint32_t *uids, *gids, *vpids;      /* the uid, gid and vpid trackers (NULL: none) */
	size_t nuids, ngids, nvpids;
	char **cgroups;                     /* the cgroup tracker's directories */
	size_t ncgroups;
	scry_event_cb cb;
	void *cb_ctx;
	struct scry_engine_session *engine; /* from start */
	bool stopped;
	uint64_t lost_reported;             /* losses given to the callback so far */
	struct scry_api_decoder loss;       /* its event: the loss records */
};

bool api_check_session(const struct scry_session *s, bool before_start, const char *what, char *err,
		       size_t errlen, int *ret);
/* A ring size option: 0, or a power of two in the engine's range; else the reason. */
int api_check_ring_size(const char *what, size_t size, char *err, size_t errlen);

/* channel.c: channel name (NULL or "channel0": channel0, made with the defaults if missing), or NULL
 * with -ENOENT (or -ENOMEM) in *ret and the reason. */
struct api_channel *api_channel_get(struct scry_session *s, const char *name, const char *what, char *err,
				    size_t errlen, int *ret);
/* The engine's channels of the session's (those with events), in out (s->nchans of
 * them, *n set); each record sink set when sink is.  0, or -EINVAL with the reason. */
int api_channels_build(struct scry_session *s, struct scry_channel_opts *out, size_t *n,
		       void (*sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size), char *err,
		       size_t errlen);
/* Before stop, a session with overwrite channels paused (the rings drained, the packets
 * written) and their overwritten packets counted in *lost_packets (0 without any).  0, or
 * -errno with the reason. */
int api_channels_pause(struct scry_session *s, uint64_t *lost_packets, char *err, size_t errlen);
void api_channel_free(struct api_channel *c);

#endif
