/* relay_out.c — a session's network output (session.h: opts.relay): the relay connected at
 * load (relay/relay.h), its sinks given to every channel's consumer (channel.c), pumped with
 * the rings' polls, the live timer's tick, rotation through the relay's trace chunks, its
 * totals in the session's summary, and its close at stop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer/consumer.h"
#include "relay/relay.h"
#include "session/session.h"
#include "session/session_int.h"

int session_check_relay(struct scry_session *s, char *err, size_t errlen)
{
	const char *name = s->opts.relay_session ? s->opts.relay_session : "scry";

	if (!s->opts.relay) {
		if (s->opts.live_timer_us) {
			snprintf(err, errlen, "a live session streams to a relay: give one (--set-url net://HOST)");
			return -EINVAL;
		}
		return 0;
	}
	if (s->opts.snapshot && s->opts.live_timer_us) {
		snprintf(err, errlen, "a snapshot session is not live");
		return -EINVAL;
	}
	if (!*name || strchr(name, '/') || strstr(name, "..")) {
		snprintf(err, errlen, "session name '%s' cannot name a directory at the relay", name);
		return -EINVAL;
	}
	if (!s->dir && !(s->dir = strdup(name))) {   /* streamed only: the trace's name */
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int session_connect_relay(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_relay_opts ro = {
		.url = s->opts.relay,
		.session_name = s->opts.relay_session ? s->opts.relay_session : "scry",
		.hostname = s->opts.hostname,
		.live_timer_us = s->opts.live_timer_us,
	};
	int ret;

	if (s->relay)
		return 0;
	if ((ret = scry_relay_connect(&s->relay, &ro, err, errlen)))
		return ret;
	snprintf(s->relay_path, sizeof(s->relay_path), "%s", scry_relay_path(s->relay));
	return 0;
}

int session_relay_rotate(struct scry_session *s, char *archive, size_t archive_len, char *err, size_t errlen)
{
	uint64_t ts = session_now(s);
	int ret;

	if (s->opts.live_timer_us) {
		snprintf(err, errlen, "a live session cannot rotate (as with LTTng: its viewers follow one trace)");
		return -ENOTSUP;
	}
	if (s->paused && s->chunk_closed) {
		snprintf(err, errlen, "the session is stopped and its last chunk archived: nothing to rotate");
		return -EINVAL;
	}
	if (session_has_trace(s)) {
		/* written locally too: the local chunk first (its streams' last packets go to the
		 * relay's streams, which go on into the next local chunk's streams), then the
		 * relay's; the archive said is the local one */
		char rarch[512];

		if ((ret = session_rotate(s, !s->paused, archive, archive_len, err, errlen)) ||
		    (ret = scry_relay_rotate(s->relay, !s->paused, rarch, sizeof(rarch), err, errlen)))
			return ret;
		if (s->paused)
			s->chunk_closed = true;
		return 0;
	}
	/* the chunk's last packets: every stream's to now (an empty one if it had none), the
	 * next packets beginning there */
	for (size_t i = 0; i < s->nchans && !s->paused; i++) {
		if (s->chans[i]->consumer && (ret = scry_consumer_drain(s->chans[i]->consumer, ts))) {
			snprintf(err, errlen, "rotation: draining the rings: %s", strerror(-ret));
			return ret;
		}
	}
	/* stopped: the chunk archived, the next made when the session starts again */
	if ((ret = scry_relay_rotate(s->relay, !s->paused, archive, archive_len, err, errlen)))
		return ret;
	s->chunks++;
	if (s->paused)
		s->chunk_closed = true;
	return 0;
}

int session_relay_open_chunk(struct scry_session *s, char *err, size_t errlen)
{
	int ret;

	if (session_has_trace(s) && (ret = session_open_chunk(s, session_now(s), err, errlen)))
		return ret;
	return scry_relay_rotate(s->relay, true, NULL, 0, err, errlen);
}

void session_relay_progress(struct scry_session *s, struct scry_session_summary *out)
{
	struct scry_relay_stats st;

	if (s->relay)
		scry_relay_stats(s->relay, &st);
	else
		st = s->relay_final;
	out->relay_packets = st.packets;
	out->relay_events = st.events;
	out->relay_lost_packets = st.lost_packets;
	out->relay_lost_events = st.lost_events;
	out->relay_beacons = st.beacons;
	if (s->relay && scry_relay_error(s->relay)[0])
		snprintf(s->relay_error, sizeof(s->relay_error), "%s", scry_relay_error(s->relay));
}

void session_close_relay(struct scry_session *s)
{
	if (!s->relay)
		return;
	scry_relay_close(s->relay, &s->relay_final, s->relay_error, sizeof(s->relay_error));   /* streams closed, flushed */
	s->relay = NULL;
}

void scry_session_live_tick(struct scry_session *s)
{
	uint64_t now = session_now(s);   /* before the rings are drained: nothing older left there */

	if (!s->relay || !s->started || s->paused)
		return;
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer)
			scry_consumer_live_tick(s->chans[i]->consumer, now);
	scry_relay_live_tick(s->relay, now);
}

uint64_t scry_session_live_period_ns(const struct scry_session *s)
{
	return s->opts.relay ? (uint64_t)s->opts.live_timer_us * 1000 : 0;
}

const char *scry_session_relay_error(const struct scry_session *s)
{
	if (s->relay && scry_relay_error(s->relay)[0])
		return scry_relay_error(s->relay);
	return s->relay_error;
}

const char *scry_session_relay_path(const struct scry_session *s)
{
	return s->relay_path;
}
