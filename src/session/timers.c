/* timers.c — LTTng's channel timers on a session's channels: the switch timer (every period,
 * a channel's partly filled packets written out, so that a low-rate stream reaches the disk
 * and viewers within a period; the pump runs it on its loop) and the monitor timer's sample
 * (a channel's buffer usage: its fullest CPU ring). */
#include <errno.h>
#include <string.h>
#include "consumer/consumer.h"
#include "session/session_int.h"
#include "util/clock.h"

bool scry_session_has_switch_timer(const struct scry_session *s)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->opts.switch_timer_us)
			return true;
	return false;
}

uint64_t scry_session_switch_tick(struct scry_session *s, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (size_t i = 0; i < s->nchans; i++) {
		struct scry_channel *c = s->chans[i];
		uint64_t period = c->opts.switch_timer_us * 1000;

		if (!period)
			continue;
		if (now >= c->switch_next_ns) {
			/* staged records and the rings first: what was recorded before now */
			if (c->consumer && s->started && !s->paused)
				scry_consumer_switch(c->consumer);
			c->switch_next_ns = now + period;
		}
		if (c->switch_next_ns - now < next)
			next = c->switch_next_ns - now;
	}
	return next;
}

int scry_session_channel_usage(struct scry_session *s, const char *channel, uint64_t *used, uint64_t *size)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (!strcmp(s->chans[i]->name, channel) && s->chans[i]->consumer) {
			scry_consumer_usage(s->chans[i]->consumer, used, size);
			return 0;
		}
	return -ENOENT;
}

int scry_session_channel_stats(struct scry_session *s, const char *channel, uint64_t *discarded, uint64_t *lost,
			       uint64_t *lost_packets)
{
	for (size_t i = 0; i < s->nchans; i++)
		if (!strcmp(s->chans[i]->name, channel) && s->chans[i]->consumer) {
			struct scry_consumer_stats cs;

			scry_consumer_stats(s->chans[i]->consumer, &cs);
			*discarded = cs.discarded;
			*lost = cs.lost;
			*lost_packets = cs.lost_packets;
			return 0;
		}
	return -ENOENT;
}
