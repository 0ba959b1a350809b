/* channels.h — `scry record`'s channels from its command line, as LTTng's enable-channel and
 * enable-event -c: -e, -c (contexts) and --buffer-size apply to the channel named by the
 * last --channel NAME before them (made by its first --channel).  Before any --channel: -e adds to the default channel
 * (channel0), and -c and --buffer-size set what every channel starts with. */
#ifndef SCRY_CLI_CHANNELS_H
#define SCRY_CLI_CHANNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "session/session.h"

struct cli_channel {
	const char *name;          /* NULL: the default channel */
	char **events;
	size_t nevents;
	uint64_t ctx_mask;
	size_t ring_size;          /* 0: the session's default */
};

struct cli_channels {
	struct cli_channel *v;     /* v[0]: the default channel */
	size_t n;
	size_t cur;                /* the channel -e, -c and --buffer-size apply to */
	bool named;                /* a --channel was given */
	struct scry_channel_opts *opts;   /* cli_channels_finish's */
};

/* Start with the default channel and these contexts. */
int cli_channels_init(struct cli_channels *cc, uint64_t ctx_mask);
int cli_channels_open(struct cli_channels *cc, const char *name, char *err, size_t errlen);      /* --channel */
int cli_channels_events(struct cli_channels *cc, const char *list, char *err, size_t errlen);    /* -e */
int cli_channels_contexts(struct cli_channels *cc, const char *list, char *err, size_t errlen);  /* -c */
void cli_channels_ring_size(struct cli_channels *cc, size_t bytes);                             /* --buffer-size */
/* The session's channels (so->channels, valid until cli_channels_free): the default
 * channel only if it has events or no --channel was given; a named one without -e is an
 * error. */
int cli_channels_finish(struct cli_channels *cc, struct scry_session_opts *so, char *err, size_t errlen);
void cli_channels_free(struct cli_channels *cc);

#endif
