/* profile_ctf.c — see profile_ctf.h.  One channel of the record engine's: the profile source
 * (src/session/src_profile.c) alone, its cpu-clock perf events its own (the profiler's
 * events count the same CPUs at the same frequency: the counts agree within the sampling's
 * noise, not sample for sample), the contexts pid, tid, procname and both call stacks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli/profile_ctf.h"
#include "cli/report.h"

#define CTF_CTX ((1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) | (1ULL << SCRY_CTX_PROCNAME) | \
		 (1ULL << SCRY_CTX_CALLSTACK_KERNEL) | (1ULL << SCRY_CTX_CALLSTACK_USER))

int prof_ctf_open(struct prof_ctf *c, const char *dir, unsigned freq, bool all, const char *const *cgroups,
		  size_t ncgroups, char *err, size_t errlen)
{
	char spec[64];
	const char *events[1] = { spec };
	struct scry_channel_opts ch = { .events = events, .nevents = 1, .ctx_mask = CTF_CTX };
	struct scry_session_opts so = { .output = dir, .channels = &ch, .nchannels = 1, .target_all = all,
					.fixed_events = true, .track_cgroups = cgroups, .ntrack_cgroups = ncgroups };
	int r;

	memset(c, 0, sizeof(*c));
	snprintf(spec, sizeof(spec), "profile:cpu-clock:%u", freq);
	if ((r = scry_session_create(&c->s, &so, err, errlen)) || (r = scry_session_load(c->s, err, errlen)))
		return r;
	return 0;
}

int prof_ctf_track(struct prof_ctf *c, pid_t tgid, char *err, size_t errlen)
{
	return scry_session_track(c->s, tgid, err, errlen);
}

int prof_ctf_start(struct prof_ctf *c, char *err, size_t errlen)
{
	int r = scry_session_start(c->s, err, errlen);

	c->started = !r;
	return r;
}

int prof_ctf_pump(struct prof_ctf *c, struct scry_loop *l, char *err, size_t errlen)
{
	int r = scry_session_pump_start(c->s, l, 0, NULL, NULL, &c->pump);

	if (r)
		snprintf(err, errlen, "%s: %s", scry_session_dir(c->s), strerror(-r));
	return r;
}

void prof_ctf_unpump(struct prof_ctf *c)
{
	if (c->pump)
		scry_session_pump_stop(c->pump);
	c->pump = NULL;
}

int prof_ctf_stop(struct prof_ctf *c, char *err, size_t errlen)
{
	prof_ctf_unpump(c);
	c->stopped = true;
	return scry_session_stop(c->s, &c->sum, err, errlen);
}

void prof_ctf_report(const struct prof_ctf *c)
{
	cli_report_recording(&c->sum, scry_session_dir(c->s));
}

void prof_ctf_free(struct prof_ctf *c)
{
	prof_ctf_unpump(c);
	scry_session_destroy(c->s);
	c->s = NULL;
}
