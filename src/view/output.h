/* output.h — the `scry view` sinks: babeltrace2-style text lines (src/view/output_text.c)
 * and one JSON object per line (src/view/output_json.c). */
#ifndef SCRY_VIEW_OUTPUT_H
#define SCRY_VIEW_OUTPUT_H

#include <stdbool.h>
#include "util/outbuf.h"
#include "view/reader.h"

struct scry_syms;

struct text_out {
	struct outbuf *ob;
	struct tod_cache tod;
	bool have_last;
	int64_t last_ns;
	struct scry_syms *syms;   /* non-NULL: call stack contexts' addresses symbolized */
};

void text_out_init(struct text_out *o, struct outbuf *ob, bool gmt);
void text_event(struct text_out *o, struct view_stream *s);

struct json_out {
	struct outbuf *ob;
	struct tod_cache tod;     /* always UTC */
};

void json_out_init(struct json_out *o, struct outbuf *ob);
void json_event(struct json_out *o, const struct view_stream *s);

#endif
