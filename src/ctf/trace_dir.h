/* trace_dir.h — a trace directory's life on disk: DIR/kernel/ and DIR/kernel/index/ made
 * for a recording, locked while it runs (flock on DIR: a second recorder, or `scry recover`,
 * keeps its hands off), and removed again, whole, when the recording never started (the
 * metadata did not fit, the programs did not attach): nothing is left half made. */
#ifndef SCRY_CTF_TRACE_DIR_H
#define SCRY_CTF_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>

struct ctf_trace_dir;

/* Make DIR (or, unless exclusive, use it if it exists and is empty), DIR/kernel and
 * DIR/kernel/index, and lock DIR.  0 or -errno with a reason in err (exclusive and DIR
 * exists: -EEXIST, no message). */
int ctf_trace_dir_make(struct ctf_trace_dir **out, const char *dir, bool exclusive, char *err, size_t errlen);
const char *ctf_trace_dir_kernel(const struct ctf_trace_dir *d);   /* DIR/kernel */
/* Unlock; unless keep, remove what make made, with every file inside. */
void ctf_trace_dir_close(struct ctf_trace_dir *d, bool keep);

/* Lock DIR (an existing trace) for a repair: 0, -EWOULDBLOCK when a recorder (or another
 * repair) holds it and !wait, or -errno; *fd: close it to unlock. */
int ctf_trace_dir_lock(const char *dir, bool wait, int *fd);

#endif
