/* trace_dir.h — a trace directory's life on disk: DIR, DIR/kernel/ and DIR/kernel/index/
 * made for a recording through directory handles (util/dirh.h: nothing is looked up by
 * path again once made, each name made with the owner's rights, 0750), DIR locked while it
 * records (flock: a second recorder, or `scry recover`, keeps its hands off), the chunks
 * of a rotation moved to DIR/archives/, and, when the recording never started (the metadata
 * did not fit, the programs did not attach), exactly the names it made removed again:
 * nothing is left half made, and nothing it did not make is touched. */
#ifndef SCRY_CTF_TRACE_DIR_H
#define SCRY_CTF_TRACE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include "util/dirh.h"

struct ctf_trace_dir;

/* Make DIR (path, relative to at: AT_FDCWD) with c's rights (NULL: scry's own), or, unless
 * exclusive, take it if it is an empty directory of c's user; then DIR/kernel and
 * DIR/kernel/index, and lock DIR.  0 or -errno with a reason in err (exclusive and DIR
 * exists: -EEXIST). */
int ctf_trace_dir_make(struct ctf_trace_dir **out, int at, const char *dir, bool exclusive,
		       const struct scry_cred *c, char *err, size_t errlen);
/* The same with DIR the name name in parent (a snapshot in its session's directory). */
int ctf_trace_dir_make_in(struct ctf_trace_dir **out, struct scry_dirh *parent, const char *name, bool exclusive,
			  char *err, size_t errlen);
struct scry_dirh *ctf_trace_dir_root(const struct ctf_trace_dir *d);     /* DIR */
struct scry_dirh *ctf_trace_dir_kernel(const struct ctf_trace_dir *d);   /* DIR/kernel (NULL between chunks) */
struct scry_dirh *ctf_trace_dir_index(const struct ctf_trace_dir *d);    /* DIR/kernel/index */
/* The current chunk (its streams closed) moved whole to DIR/archives/chunk/kernel. */
int ctf_trace_dir_archive(struct ctf_trace_dir *d, const char *chunk, char *err, size_t errlen);
/* A new DIR/kernel and its index/ for the next chunk. */
int ctf_trace_dir_new_chunk(struct ctf_trace_dir *d, char *err, size_t errlen);
/* Unlock; unless keep, remove the names make made (and the files made in them since). */
void ctf_trace_dir_close(struct ctf_trace_dir *d, bool keep);

/* Lock DIR (an existing trace, not a symlink) for a repair: 0, -EWOULDBLOCK when a recorder
 * (or another repair) holds it and !wait, or -errno; *fd: the directory, close it to unlock. */
int ctf_trace_dir_lock(const char *dir, bool wait, int *fd);

#endif
