/* output.h — the `scry view` sinks: babeltrace2-style text lines (src/view/output_text.c)
 * and one JSON object per line (src/view/output_json.c), and the JSON Schema of those
 * objects (src/view/json_schema.c). */
#ifndef SCRY_VIEW_OUTPUT_H
#define SCRY_VIEW_OUTPUT_H

#include <stdbool.h>
#include "util/outbuf.h"
#include "view/reader.h"

struct scry_syms;
struct plan;

/* A context scope's text kept with the values it was made of (output_text.c): the next
 * event whose scope has the same values copies it (contexts repeat event after event). */
#define TEXT_MEMO_VALS 16
#define TEXT_MEMO_STR  128
#define TEXT_MEMO_TEXT 480
#define TEXT_MEMO_WAYS 4
struct text_memo {
	const struct plan *plan;
	size_t nv, nstr, ntext;
	uint64_t u[TEXT_MEMO_VALS];
	uint32_t strs;            /* bit i: value i is a string (its bytes in str) */
	uint8_t str[TEXT_MEMO_STR];
	char text[TEXT_MEMO_TEXT];
};

struct text_out {
	struct outbuf *ob;
	struct tod_cache tod;
	bool have_last;
	int64_t last_ns;
	struct scry_syms *syms;   /* non-NULL: call stack contexts' addresses symbolized */
	struct text_memo memo[2][TEXT_MEMO_WAYS];   /* packet context, stream event context */
	unsigned memo_next[2];
};

void text_out_init(struct text_out *o, struct outbuf *ob, bool gmt);
void text_event(struct text_out *o, struct view_stream *s);

struct json_out {
	struct outbuf *ob;
	struct tod_cache tod;     /* always UTC */
};

void json_out_init(struct json_out *o, struct outbuf *ob);
/* The container the event's cgroup_id context names (the trace's env scry_cgroup_ID), or
 * NULL (no such context, no name recorded for it). */
const char *view_event_container(const struct view_stream *s);
void json_event(struct json_out *o, const struct view_stream *s);
/* Whether a struct member is written by json_event (packet context fields babeltrace2 hides
 * and the CTF layout's auxiliary integers are not): json_schema_write follows it too. */
bool json_member_shown(const struct op *o);

struct view;
/* `scry view --json-schema`: the JSON Schema (draft 2020-12) of the objects json_event writes
 * for the event classes of v's traces (src/view/json_schema.c).  0, or -1 with a reason. */
int json_schema_write(const struct view *v, FILE *f, char *err, size_t errlen);

#endif
