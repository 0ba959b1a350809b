/* channels.c — `scry record`'s channels from its options (see channels.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/channels.h"

int cli_channels_init(struct cli_channels *cc, uint64_t ctx_mask)
{
	memset(cc, 0, sizeof(*cc));
	cc->v = calloc(1, sizeof(*cc->v));
	if (!cc->v)
		return -ENOMEM;
	cc->v[0].ctx_mask = ctx_mask;
	cc->n = 1;
	return 0;
}

static struct cli_channel *current(struct cli_channels *cc)
{
	return &cc->v[cc->cur];
}

int cli_channels_open(struct cli_channels *cc, const char *name, char *err, size_t errlen)
{
	struct cli_channel *v;

	cc->named = true;
	for (size_t i = 0; i < cc->n; i++)
		if (!strcmp(cc->v[i].name ? cc->v[i].name : SCRY_DEFAULT_CHANNEL, name)) {
			cc->cur = i;    /* named again: what follows adds to it */
			return 0;
		}
	v = realloc(cc->v, (cc->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	cc->v = v;
	/* a new channel starts with what was set before any --channel */
	v[cc->n] = (struct cli_channel){ .name = name, .ctx_mask = v[0].ctx_mask, .ring_size = v[0].ring_size };
	cc->cur = cc->n++;
	return 0;
}

int cli_channels_events(struct cli_channels *cc, const char *list, char *err, size_t errlen)
{
	struct cli_channel *c = current(cc);
	char *copy, *save = NULL, *tok;

	if (!list[strspn(list, ", \t")]) {
		snprintf(err, errlen, "empty event list in -e '%s' (`scry list` shows the events)", list);
		return -EINVAL;
	}
	if (!(copy = strdup(list)))
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **e = realloc(c->events, (c->nevents + 1) * sizeof(*e));
		if (!e || !(e[c->nevents] = strdup(tok))) {
			if (e)
				c->events = e;
			free(copy);
			return -ENOMEM;
		}
		c->events = e;
		c->nevents++;
	}
	free(copy);
	return 0;
}

int cli_channels_contexts(struct cli_channels *cc, const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *tok;
	uint64_t mask = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *name = tok[0] == '$' ? tok + 1 : tok;
		if (!strncmp(name, "ctx.", 4))
			name += 4;
		int c = scry_context_by_name(name);
		if (c < 0) {
			scry_context_unknown(tok, err, errlen);
			free(copy);
			return -EINVAL;
		}
		mask |= 1ULL << c;
	}
	free(copy);
	if (!mask) {
		snprintf(err, errlen, "empty context list");
		return -EINVAL;
	}
	current(cc)->ctx_mask = mask;
	return 0;
}

void cli_channels_ring_size(struct cli_channels *cc, size_t bytes)
{
	current(cc)->ring_size = bytes;
}

int cli_channels_finish(struct cli_channels *cc, struct scry_session_opts *so, char *err, size_t errlen)
{
	size_t first = cc->named && !cc->v[0].nevents ? 1 : 0;

	for (size_t i = first; i < cc->n; i++)
		if (!cc->v[i].nevents && cc->named) {
			const char *name = cc->v[i].name ? cc->v[i].name : SCRY_DEFAULT_CHANNEL;

			snprintf(err, errlen, "channel '%s' has no events (give -e after --channel %s)", name, name);
			return -EINVAL;
		}
	free(cc->opts);
	cc->opts = calloc(cc->n, sizeof(*cc->opts));
	if (!cc->opts)
		return -ENOMEM;
	for (size_t i = first; i < cc->n; i++)
		cc->opts[i - first] = (struct scry_channel_opts){
			.name = cc->v[i].name,
			.events = (const char *const *)cc->v[i].events,
			.nevents = cc->v[i].nevents,
			.ctx_mask = cc->v[i].ctx_mask,
			.ring_size = cc->v[i].ring_size,
		};
	so->channels = cc->opts;
	so->nchannels = cc->n - first;
	return 0;
}

void cli_channels_free(struct cli_channels *cc)
{
	for (size_t i = 0; i < cc->n; i++) {
		for (size_t k = 0; k < cc->v[i].nevents; k++)
			free(cc->v[i].events[k]);
		free(cc->v[i].events);
	}
	free(cc->v);
	free(cc->opts);
	memset(cc, 0, sizeof(*cc));
}
