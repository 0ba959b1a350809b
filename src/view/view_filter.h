/* view_filter.h — `scry view --filter`: the event classes of the traces a view opened, as
 * filter schemas (payload fields as the view names them, contexts from the stream and event
 * context scopes, plus cpu_id from the packet context), and the filter applied to each
 * decoded event (src/view/view_filter.c). */
#ifndef SCRY_VIEW_VIEW_FILTER_H
#define SCRY_VIEW_VIEW_FILTER_H

#include <stdbool.h>
#include "filter/filter.h"
#include "view/reader.h"

struct view_filter;

/* Check f against every event class of v (f must outlive the result).  NULL with err filled
 * (a position in f's text) when the filter cannot apply to this trace. */
struct view_filter *view_filter_new(const struct view *v, struct filter *f, struct filter_error *err);
/* Does the current event of s match? */
bool view_filter_match(struct view_filter *vf, const struct view_stream *s);
void view_filter_free(struct view_filter *vf);

#endif
