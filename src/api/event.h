/* event.h — libscry's events (struct scry_event of include/scry/scry.h): a channel's
 * records decoded by the catalog's decoders for the callback, and loss records.  Include
 * after api/engine.h. */
#ifndef SCRY_API_EVENT_H
#define SCRY_API_EVENT_H

#include <stddef.h>
#include <stdint.h>

struct scry_event {
	int kind;                                  /* enum scry_event_kind */
	const struct scry_engine_event *ev;        /* a record's event description */
	const struct scry_record_layout *layout;
	struct scry_record rec;
	const struct scry_fieldval *vals;          /* ev->nfields decoded values */
	const char *channel;                       /* its channel's name (NULL: a loss record) */
	uint32_t cpu;
	uint64_t ts, lost;
};

/* A session's decoder: one channel's events and contexts (from load on). */
struct scry_api_decoder {
	const char *channel;                       /* its name, the engine's (valid while it is) */
	const struct scry_engine_event *const *events;   /* by event id */
	size_t nevents;
	struct scry_record_layout layout;
	struct scry_fieldval *vals;
	size_t maxfields;
	struct scry_event e;                       /* the one handed to the callback */
	uint64_t malformed;                        /* records that did not decode (skipped) */
};

/* For channel chan (an index) of a loaded session: 0, or -errno with the reason. */
int scry_api_decoder_init(struct scry_api_decoder *d, struct scry_engine_session *s, unsigned chan, char *err,
			  size_t errlen);
void scry_api_decoder_free(struct scry_api_decoder *d);
/* Record ev (size bytes) of cpu decoded, or NULL (a record that does not decode: counted). */
const struct scry_event *scry_api_decode(struct scry_api_decoder *d, unsigned cpu, const uint8_t *ev, size_t size);
/* A loss record of n events at time now. */
const struct scry_event *scry_api_loss(struct scry_api_decoder *d, uint64_t n, uint64_t now);

#endif
