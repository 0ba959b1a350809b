/* recover.h — make a trace whose recorder died (SIGKILL, OOM kill, crash, power loss)
 * readable again: each stream keeps its complete packets, the unfinished one at its end is
 * cut, and its packet index is rebuilt from the packet headers so that it covers the whole
 * stream file (babeltrace2 refuses a stream that ends inside a packet).  Run by the
 * guardian of a recording (session/guard.c) and by `scry recover DIR`. */
#ifndef SCRY_CTF_RECOVER_H
#define SCRY_CTF_RECOVER_H

#include <stddef.h>
#include <stdint.h>

struct ctf_recover_report {
	unsigned streams;            /* stream files seen */
	unsigned streams_cut;        /* ... that ended inside a packet */
	unsigned indexes_rebuilt;    /* index files that did not match their stream */
	uint64_t packets;            /* complete packets kept */
	uint64_t bytes_cut;          /* bytes of unfinished packets removed */
};

/* Recover the trace at dir (a trace directory, or its kernel/ directory; not a symlink).
 * The caller holds the trace's lock (ctf_trace_dir_lock).  0, or -errno with a reason in
 * err (-ENOENT: no metadata, not a trace, or one whose recorder died before it began).
 * Nothing is followed by name: every stream, index and directory opened relative to the
 * one above, without following a symlink, so a trace directory of another user cannot send
 * a truncation or a write elsewhere. */
int ctf_trace_recover(const char *dir, struct ctf_recover_report *rep, char *err, size_t errlen);
/* The same for the directory dfd (label: its name in messages). */
int ctf_trace_recover_at(int dfd, const char *label, struct ctf_recover_report *rep, char *err, size_t errlen);

#endif
