/* writer.h — a writer thread: the jobs given to it (a stream's packets and their index
 * entries, ctf/stream.c) are run one at a time, in the order given, off the thread that
 * drains the rings, so that a write that blocks (the disk's write-back) delays the files,
 * never the draining.  The queue itself is unbounded: its users bound what they give it
 * (a stream counts its queued bytes; the consumer stops draining a ring whose stream has
 * no room, and the ring's losses are then counted by the kernel as always).
 *
 * Test hooks, for the loss tests and the bench: SCRY_TEST_WRITE_STALL_MS=N in the
 * environment makes the process's first packet write sleep N ms (a disk that stalls), and
 * SCRY_TEST_WRITE_STALL_FILE=PATH wait while PATH exists (at most 2 minutes), on
 * the writer thread or, with SCRY_TEST_SYNC_WRITES=1 (consumer.c: no writer thread, the
 * rings' thread writes, as before the writer), on the thread that drains the rings. */
#ifndef SCRY_CTF_WRITER_H
#define SCRY_CTF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctf_writer_job {
	struct ctf_writer_job *next;
	void (*run)(struct ctf_writer_job *j);   /* in the writer thread; owns and frees j */
};

struct ctf_writer;

struct ctf_writer *ctf_writer_new(char *err, size_t errlen);
/* Queue j (never blocks).  Returns its ticket: ctf_writer_done(w) >= ticket once it ran. */
uint64_t ctf_writer_submit(struct ctf_writer *w, struct ctf_writer_job *j);
/* How many jobs have run so far. */
uint64_t ctf_writer_done(struct ctf_writer *w);
/* Block until ready(arg) is true; it is asked again after each job the writer runs. */
void ctf_writer_wait(struct ctf_writer *w, bool (*ready)(void *arg), void *arg);
/* Block until every job given so far has run. */
void ctf_writer_sync(struct ctf_writer *w);
/* Run what is queued, stop the thread, free w.  NULL is allowed. */
void ctf_writer_free(struct ctf_writer *w);
/* The test hook: the first call in the process stalls as the environment says (above). */
void ctf_writer_test_stall(void);

#endif
