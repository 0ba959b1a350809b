/* metadata.h — CTF 1.8 TSDL metadata for a scry trace, in LTTng's kernel layout.
 * Written when recording starts, and again, whole, when an event is enabled later.
 * One stream class per channel; in each, the event id of events[i] is i. */
#ifndef SCRY_CTF_METADATA_H
#define SCRY_CTF_METADATA_H

#include <stddef.h>
#include <stdint.h>
#include "catalog/catalog.h"
#include "util/dirh.h"

struct ctf_trace_info {
	uint8_t uuid[16];             /* trace uuid (also in every packet header) */
	const char *hostname;
	const char *sysname;          /* uname -s */
	const char *kernel_release;   /* uname -r */
	const char *kernel_version;   /* uname -v */
	const char *trace_name;       /* the trace directory's base name */
	const char *creation_datetime;/* ISO 8601, e.g. "20261122T023400+0000" */
	int64_t clock_offset_s;       /* CLOCK_REALTIME - CLOCK_MONOTONIC at start: seconds ... */
	uint64_t clock_offset_ns;     /* ... and nanoseconds (0..999999999) */
	uint8_t clock_uuid[16];
	const char *clock_name;       /* NULL: "monotonic" (LTTng's), its description "Monotonic Clock" */
	const char *clock_description;
	const struct ctf_stream_class *streams;   /* stream class id = index (a channel each) */
	size_t nstreams;
	/* the cgroup_id context's names: env scry_cgroup_ID = "CONTAINER ID" for each cgroup
	 * v2 directory of a container (scry view names the cgroup_id context with them) */
	const struct ctf_cgroup_name *cgroups;
	size_t ncgroups;
};

struct ctf_cgroup_name {
	uint64_t id;
	const char *container;
};

/* A channel's stream class: its event context and its events (event id i = events[i]). */
struct ctf_stream_class {
	uint64_t ctx_mask;            /* the contexts its events carry: bit (1 << enum scry_ctx) */
	const struct scry_event *const *events;
	size_t nevents;
};

/* The metadata text (malloc'd, caller frees), or NULL with a reason in err. */
char *ctf_metadata_text(const struct ctf_trace_info *ti, char *err, size_t errlen);
/* Write it as kdir's "metadata", whole: under a hidden name, fsync'd, then renamed over it
 * (an event enabled after start rewrites it).  0 or -errno with a reason in err. */
int ctf_metadata_write(struct scry_dirh *kdir, const struct ctf_trace_info *ti, char *err, size_t errlen);

#endif
