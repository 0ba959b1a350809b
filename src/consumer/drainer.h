/* drainer.h — a thread that keeps the rings drained while their owner is busy: it moves
 * each CPU's ring records, in order, into a FIFO of that CPU in our memory, from which the
 * owner's poll takes them.  For live output (scry trace), whose printing runs on the
 * owner's thread: a slow terminal, a full pipe or a CPU taken by other work delays the
 * printing, not the draining, until the FIFO's bound; then the ring is left to fill and its
 * overflow is counted by the kernel as always.  The thread itself only copies bytes. */
#ifndef SCRY_DRAINER_H
#define SCRY_DRAINER_H

#include <stddef.h>
#include "consumer/ring.h"

struct scry_drainer;

/* A drainer of n rings (rings[i], valid while it is), each FIFO at most max bytes. */
int scry_drainer_start(struct scry_drainer **out, struct scry_ring **rings, unsigned n, size_t max, char *err,
		       size_t errlen);
/* Ring i drained into its FIFO now, then every record the FIFO holds handed to fn, in
 * order (the caller's thread).  The FIFO's bytes handed out (0: the ring and the FIFO
 * were empty), or -errno. */
long scry_drainer_take(struct scry_drainer *d, unsigned i, scry_ring_fn fn, void *ctx);
/* Stop the thread (what it moved stays for scry_drainer_take). */
void scry_drainer_stop(struct scry_drainer *d);
/* Stop, free.  NULL is allowed. */
void scry_drainer_free(struct scry_drainer *d);

#endif
