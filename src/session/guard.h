/* guard.h — the guardian of a recording: a small process forked before the recording begins
 * that outlives the recorder.  When the recorder ends without releasing it (SIGKILL, the OOM
 * killer, a crash), it recovers the trace (ctf/recover.h: unfinished packets cut, indexes
 * rebuilt), so that babeltrace2 reads every complete packet, and says so on stderr.  It holds
 * no BPF object and no trace file while it waits; a released guardian exits at once.
 * (LTTng's consumerd outlives its session daemon for the same reason.) */
#ifndef SCRY_SESSION_GUARD_H
#define SCRY_SESSION_GUARD_H

#include <stddef.h>
#include <sys/types.h>
#include "util/dirh.h"

struct scry_guard {
	pid_t pid;          /* the guardian, or 0 */
	int fd;             /* our end of its pipe: closing it without a release = we died */
};

/* Fork the guardian of the trace directory dir: it holds the directory itself (no path
 * looked up again) and recovers it with the rights of the directory handle's owner only
 * (its uid, gids and groups, for good: the guardian is that user's process then).  0 or
 * -errno. */
int scry_guard_start(struct scry_guard *g, struct scry_dirh *dir, char *err, size_t errlen);
/* The recording ended cleanly: the guardian exits without touching the trace. */
void scry_guard_release(struct scry_guard *g);

#endif
