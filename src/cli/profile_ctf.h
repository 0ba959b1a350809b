/* profile_ctf.h — `scry profile`'s CTF output (src/cli/profile_ctf.c): the same samples'
 * trace, written by the record engine (src/session) as `scry record -e
 * profile:cpu-clock:HZ -c pid,tid,procname,callstack-kernel,callstack-user` writes it —
 * LTTng's kernel layout, each sample a profile_cpu_clock event with LTTng's callstack
 * contexts — beside the folded stacks, the SVG and pprof, pumped by the profile's loop. */
#ifndef SCRY_CLI_PROFILE_CTF_H
#define SCRY_CLI_PROFILE_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "session/session.h"

struct scry_loop;

struct prof_ctf {
	struct scry_session *s;
	struct scry_session_pump *pump;
	struct scry_session_summary sum;
	bool started, stopped;
};

/* The session made and loaded (dir checked: it must not exist, or be empty), sampling at
 * freq Hz every process (all) or the ones tracked, in cgroups[0..ncgroups) when given.  0, or -errno with a reason in err. */
int prof_ctf_open(struct prof_ctf *c, const char *dir, unsigned freq, bool all, const char *const *cgroups,
		  size_t ncgroups, char *err, size_t errlen);
int prof_ctf_track(struct prof_ctf *c, pid_t tgid, char *err, size_t errlen);
/* Attach, and pump the rings from loop l (the profile's). */
int prof_ctf_start(struct prof_ctf *c, char *err, size_t errlen);
int prof_ctf_pump(struct prof_ctf *c, struct scry_loop *l, char *err, size_t errlen);
void prof_ctf_unpump(struct prof_ctf *c);
/* Detach, the last events written, the trace closed; c->sum filled.  0 or -errno. */
int prof_ctf_stop(struct prof_ctf *c, char *err, size_t errlen);
/* record's lines: events, discarded, bytes, where. */
void prof_ctf_report(const struct prof_ctf *c);
void prof_ctf_free(struct prof_ctf *c);

#endif
