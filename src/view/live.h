/* live.h — `scry view net://HOST[:PORT]/host/HOSTNAME/SESSION`: follow a live session at
 * lttng-relayd through its viewer protocol (src/relay/live_proto.c): attach, fetch the
 * metadata and each stream's packets as the relay gets them, until the session ends.  The
 * packets are read by the same decoder and merge as trace files (src/view/reader.c). */
#ifndef SCRY_VIEW_LIVE_H
#define SCRY_VIEW_LIVE_H

#include <stdbool.h>
#include <stdio.h>
#include "view/reader.h"

#define VIEW_LIVE_MAX_STREAMS 1024
#define VIEW_LIVE_MAX_TRACES 16

/* Connect to the relay of url, find the session (waiting for it, with one line on errf,
 * while the relay does not list it), attach and read its metadata.  0, or -1 with a
 * one-line reason. */
int view_open_live(struct view *v, const char *url, FILE *errf, char *err, size_t errlen);

/* For the reader.  view_live_more: s's next packet: 1 loaded into s->map/s->size, 2 none
 * yet (s->quiet_until may have moved on), 0 the stream ended (or the relay failed). */
int view_live_more(struct view *v, struct view_stream *s);
/* Wait a little for the relay (flushing v->flush_ob first) and take the streams it added.
 * 1: the session is over (nothing more will come), 0: go on, -1: the relay failed. */
int view_live_wait(struct view *v);
bool view_live_failed(const struct view *v);
void view_live_close(struct view *v);

#endif
