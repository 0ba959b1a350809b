/* channel.c — libscry's channels (scry_session_add_channel and the _in_channel calls of
 * include/scry/scry.h): each a name, LTTng's channel options, its rules and contexts,
 * gathered before start and made into the engine's channels (session/session.h's
 * scry_channel_opts, as the daemon's enable-channel makes them) when it starts. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api/engine.h"
#include "api/event.h"
#include "api/session_int.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."
#define DEFAULT_SUBBUF (1u << 20)
#define DEFAULT_NUM_SUBBUF 4

void api_channel_free(struct api_channel *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrules; i++) {
		free(c->specs[i]);
		free(c->filters[i]);
	}
	free(c->specs);
	free(c->filters);
	scry_api_decoder_free(&c->dec);
	free(c->name);
	free(c);
}

static struct api_channel *find(struct scry_session *s, const char *name)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (!strcmp(s->chans[i]->name, name))
			return s->chans[i];
	return NULL;
}

/* A new channel of s named name with opts (NULL: the defaults); NULL: out of memory. */
static struct api_channel *add(struct scry_session *s, const char *name, const struct scry_channel_options *opts)
{
	struct api_channel **v = realloc(s->chans, (s->nchans + 1) * sizeof(*v)), *c;

	if (!v)
		return NULL;
	s->chans = v;
	if (!(c = calloc(1, sizeof(*c))) || !(c->name = strdup(name))) {
		free(c);
		return NULL;
	}
	if (opts)   /* the members this caller's options have (an older header's: fewer) */
		memcpy(&c->opts, opts, opts->size < sizeof(c->opts) ? opts->size : sizeof(c->opts));
	c->opts.size = sizeof(c->opts);
	c->s = s;
	return s->chans[s->nchans++] = c;
}

/* The options' checks (the daemon's enable-channel's limits). */
static int check_options(const struct scry_channel_options *o, char *err, size_t errlen)
{
	const char *what = "scry_session_add_channel";
	size_t subbuf = o->subbuf_size ? o->subbuf_size : DEFAULT_SUBBUF;
	int ret;

	/* the first release's members at least (a later one's header has more) */
	if (o->size < offsetof(struct scry_channel_options, tracefile_count) + sizeof(o->tracefile_count) ||
	    o->size > 4096) {
		SAY("%s: options of size %zu: initialise them with SCRY_CHANNEL_OPTIONS_INIT", what, o->size);
		return -EINVAL;
	}
	if (o->subbuf_size && ((o->subbuf_size & (o->subbuf_size - 1)) || o->subbuf_size < 4096 ||
			       o->subbuf_size > (256u << 20))) {
		SAY("%s: subbuf_size %zu is not a power of two from 4 KiB to 256 MiB", what, o->subbuf_size);
		return -EINVAL;
	}
	if (o->num_subbuf > 1024) {
		SAY("%s: num_subbuf %u is over 1024", what, o->num_subbuf);
		return -EINVAL;
	}
	if ((ret = api_check_ring_size(what, o->buffer_size, err, errlen)))
		return ret;
	if (!o->overwrite && o->num_subbuf) {
		if (o->buffer_size) {
			SAY("%s: buffer_size and num_subbuf both size a discard channel's ring: give one", what);
			return -EINVAL;
		}
		if ((o->num_subbuf & (o->num_subbuf - 1)) ||
		    api_check_ring_size(what, subbuf * o->num_subbuf, NULL, 0)) {
			SAY("%s: subbuf_size x num_subbuf (%zu x %u) is a discard channel's ring: a power of two "
			    "from 1 MiB to 2 GiB", what, subbuf, o->num_subbuf);
			return -EINVAL;
		}
	}
	if (o->tracefile_count && !o->tracefile_size) {
		SAY("%s: tracefile_count needs tracefile_size", what);
		return -EINVAL;
	}
	if (o->tracefile_count > 1000000) {
		SAY("%s: tracefile_count %llu is over 1000000", what, (unsigned long long)o->tracefile_count);
		return -EINVAL;
	}
	if (o->tracefile_size && o->tracefile_size < subbuf) {
		SAY("%s: tracefile_size %llu is smaller than a sub-buffer (%zu bytes: subbuf_size)", what,
		    (unsigned long long)o->tracefile_size, subbuf);
		return -EINVAL;
	}
	if (o->switch_timer_us > UINT32_MAX) {
		SAY("%s: switch_timer_us %llu is over %u", what, (unsigned long long)o->switch_timer_us, UINT32_MAX);
		return -EINVAL;
	}
	return 0;
}

int scry_session_add_channel(struct scry_session *s, const char *name, const struct scry_channel_options *opts,
			     char *err, size_t errlen)
{
	struct scry_channel_options dflt = SCRY_CHANNEL_OPTIONS_INIT;
	int ret;

	if (!api_check_session(s, true, "scry_session_add_channel", err, errlen, &ret))
		return ret;
	if (!name || !*name || name[strspn(name, NAME_CHARS)] || name[0] == '.' || strlen(name) > 200) {
		SAY("scry_session_add_channel: invalid channel name '%s' (letters, digits, '_', '-', '.')",
		    name ? name : "(NULL)");
		return -EINVAL;
	}
	if ((ret = check_options(opts ? opts : &dflt, err, errlen)))
		return ret;
	if (find(s, name)) {
		SAY("scry_session_add_channel: channel '%s' exists (%s)", name,
		    find(s, name)->added ? "added before" : "the default one, made when first used");
		return -EEXIST;
	}
	struct api_channel *c = add(s, name, opts);

	if (!c) {
		SAY("scry_session_add_channel: out of memory");
		return -ENOMEM;
	}
	c->added = true;
	return 0;
}

struct api_channel *api_channel_get(struct scry_session *s, const char *name, const char *what, char *err,
				    size_t errlen, int *ret)
{
	struct api_channel *c = find(s, name ? name : SCRY_DEFAULT_CHANNEL);

	if (c)
		return c;
	if (name && strcmp(name, SCRY_DEFAULT_CHANNEL)) {
		SAY("%s: no channel '%s' (scry_session_add_channel makes one)", what, name);
		*ret = -ENOENT;
		return NULL;
	}
	if (!(c = add(s, SCRY_DEFAULT_CHANNEL, NULL))) {
		SAY("%s: out of memory", what);
		*ret = -ENOMEM;
	}
	return c;
}

int scry_session_enable_event_in_channel(struct scry_session *s, const char *channel, const char *spec,
					 const char *filter, char *err, size_t errlen)
{
	const char *what = channel ? "scry_session_enable_event_in_channel" : "scry_session_enable_event";
	struct api_channel *c;
	char **sp, **fp, *a = NULL, *b = NULL;
	int ret;

	if (!api_check_session(s, true, what, err, errlen, &ret))
		return ret;
	if (!spec || !*spec) {
		SAY("%s: no event spec (e.g. \"syscall:openat\")", what);
		return -EINVAL;
	}
	if (!(c = api_channel_get(s, channel, what, err, errlen, &ret)))
		return ret;
	if (filter && !*filter)
		filter = NULL;
	if (!(sp = realloc(c->specs, (c->nrules + 1) * sizeof(*sp))))
		goto oom;
	c->specs = sp;
	if (!(fp = realloc(c->filters, (c->nrules + 1) * sizeof(*fp))))
		goto oom;
	c->filters = fp;
	if (!(a = strdup(spec)) || (filter && !(b = strdup(filter))))
		goto oom;
	c->specs[c->nrules] = a;
	c->filters[c->nrules++] = b;
	return 0;
oom:
	free(a);
	SAY("%s: out of memory", what);
	return -ENOMEM;
}

int scry_session_enable_event(struct scry_session *s, const char *spec, const char *filter, char *err,
			      size_t errlen)
{
	return scry_session_enable_event_in_channel(s, NULL, spec, filter, err, errlen);
}

int scry_session_add_context_in_channel(struct scry_session *s, const char *channel, const char *name, char *err,
					size_t errlen)
{
	const char *what = channel ? "scry_session_add_context_in_channel" : "scry_session_add_context";
	struct api_channel *c = NULL;
	int ret, ctx;

	if (!api_check_session(s, true, what, err, errlen, &ret))
		return ret;
	if (!name || (ctx = scry_context_by_name(name)) < 0) {
		if (errlen)
			scry_context_unknown(name ? name : "(NULL)", err, errlen);
		return -EINVAL;
	}
	if (channel && !(c = api_channel_get(s, channel, what, err, errlen, &ret)))
		return ret;
	*(c ? &c->ctx_mask : &s->ctx_mask) |= 1ULL << ctx;
	return 0;
}

int scry_session_add_context(struct scry_session *s, const char *name, char *err, size_t errlen)
{
	return scry_session_add_context_in_channel(s, NULL, name, err, errlen);
}

int api_channels_build(struct scry_session *s, struct scry_channel_opts *out, size_t *n,
		       void (*sink)(void *ctx, unsigned cpu, const uint8_t *ev, size_t size), char *err,
		       size_t errlen)
{
	*n = 0;
	for (size_t i = 0; i < s->nchans; i++) {
		struct api_channel *c = s->chans[i];
		const struct scry_channel_options *o = &c->opts;

		if (!c->nrules) {
			if (!c->added)
				continue;    /* channel0 named by add_context_in_channel alone */
			SAY("scry_session_start: channel '%s' has no events (scry_session_enable_event_in_channel)",
			    c->name);
			return -EINVAL;
		}
		if (o->overwrite && !s->output) {
			SAY("scry_session_start: overwrite channel '%s' needs options.output (its sub-buffers are "
			    "the trace's packets)", c->name);
			return -EINVAL;
		}
		if (o->tracefile_size && !s->output) {
			SAY("scry_session_start: channel '%s': tracefile_size needs options.output (the files it "
			    "splits)", c->name);
			return -EINVAL;
		}
		if (o->overwrite && s->opts.relay_url) {
			SAY("scry_session_start: overwrite channel '%s': not in a session streamed to a relay (its "
			    "packets are sent as they complete)", c->name);
			return -EINVAL;
		}
		c->index = (unsigned)*n;
		out[(*n)++] = (struct scry_channel_opts){
			.name = c->name,
			.events = (const char *const *)c->specs, .event_filters = (const char *const *)c->filters,
			.nevents = c->nrules,
			.ctx_mask = s->ctx_mask | c->ctx_mask,
			.ring_size = !o->overwrite && o->num_subbuf ? (o->subbuf_size ? o->subbuf_size : DEFAULT_SUBBUF) *
					o->num_subbuf : o->buffer_size ? o->buffer_size : s->opts.buffer_size,
			.packet_size = o->subbuf_size,
			.overwrite_packets = o->overwrite ? (o->num_subbuf ? o->num_subbuf : DEFAULT_NUM_SUBBUF) : 0,
			.switch_timer_us = o->switch_timer_us,
			.tracefile_size = o->tracefile_size, .tracefile_count = o->tracefile_count,
			.sink = sink, .sink_ctx = sink ? c : NULL,
		};
	}
	if (!*n) {
		SAY("scry_session_start: no event enabled (scry_session_enable_event)");
		return -EINVAL;
	}
	return 0;
}

int api_channels_pause(struct scry_session *s, uint64_t *lost_packets, char *err, size_t errlen)
{
	bool overwrite = false;
	int ret;

	*lost_packets = 0;
	for (size_t i = 0; i < s->nchans; i++)
		overwrite |= s->chans[i]->nrules && s->chans[i]->opts.overwrite;
	if (!overwrite)
		return 0;
	/* stop closes the consumers, their counts with them: pause first (the rings drained, the
	 * packets written), then count, as scryd's stop does */
	ret = scry_session_pause(s->engine, err, errlen);
	for (size_t i = 0; i < s->nchans; i++) {
		uint64_t discarded, lost, packets = 0;

		if (s->chans[i]->nrules && s->chans[i]->opts.overwrite &&
		    !scry_session_channel_stats(s->engine, s->chans[i]->name, &discarded, &lost, &packets))
			*lost_packets += packets;
	}
	return ret;
}
