/* span.h — one finished span as scry exports it (OpenTelemetry's model): ids, name, wall
 * times, and string or integer attributes. */
#ifndef SCRY_SPANS_SPAN_H
#define SCRY_SPANS_SPAN_H

#include <stdbool.h>
#include <stdint.h>

#define SCRY_SPAN_NAME_MAX   64
#define SCRY_SPAN_ATTRS_MAX  8
#define SCRY_SPAN_STR_MAX    256

struct scry_span_attr {
	const char *key;                 /* a static string */
	bool is_int;
	int64_t i;
	char s[SCRY_SPAN_STR_MAX];
};

struct scry_span {
	uint8_t trace_id[16], span_id[8], parent_id[8];
	bool has_parent;
	char name[SCRY_SPAN_NAME_MAX];
	uint64_t start_ns, end_ns;       /* ns since the epoch */
	bool error;                      /* status ERROR (a process killed or exiting non-zero) */
	struct scry_span_attr attrs[SCRY_SPAN_ATTRS_MAX];
	unsigned nattrs;
};

void scry_span_attr_int(struct scry_span *s, const char *key, int64_t v);
void scry_span_attr_str(struct scry_span *s, const char *key, const char *v, size_t len);

#endif /* SCRY_SPANS_SPAN_H */
