/* src_profile.c — the profile source: "profile:cpu-clock[:HZ]" (HZ samples a second on each
 * CPU, 99 when left out) records each cpu-clock sample of a target task as an event,
 * profile_cpu_clock (src/bpf/samples.bpf.h, docs/FORMAT.md), beside the other events of
 * the channel; its stacks are the channel's callstack contexts (-c callstack-kernel,
 * callstack-user).  A load-time setting of the channel, as the statedump: its program is
 * loaded only then, its perf events opened at start (src/kernel/samples.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/session_int.h"
#include "session/source.h"

#define PREFIX "profile:"
#define EVENT "profile_cpu_clock"
#define MAX_HZ 100000u          /* perf_event_max_sample_rate's default */

static bool claims(const char *spec)
{
	return !strncmp(spec, PREFIX, strlen(PREFIX)) || !strcmp(spec, EVENT);
}

/* The frequency spec asks for; 0 and err set when it is not "profile:cpu-clock[:HZ]". */
static unsigned parse(const char *spec, char *err, size_t errlen)
{
	const char *ev = spec + strlen(PREFIX), *hz;
	unsigned long v = 99;
	char *end;

	if (!strcmp(spec, EVENT))
		return 99;
	hz = strchr(ev, ':');
	if (strncmp(ev, "cpu-clock", hz ? (size_t)(hz - ev) : strlen(ev)) || (hz ? hz - ev : (long)strlen(ev)) != 9) {
		snprintf(err, errlen, "'%s': only cpu-clock samples are recorded as events (profile:cpu-clock:HZ)", spec);
		return 0;
	}
	if (hz) {
		errno = 0;
		v = strtoul(hz + 1, &end, 10);
		if (errno || end == hz + 1 || *end || hz[1] == '-' || !v || v > MAX_HZ) {
			snprintf(err, errlen, "'%s': expected a frequency of 1 to %u samples a second after "
				 "profile:cpu-clock:", spec, MAX_HZ);
			return 0;
		}
	}
	return (unsigned)v;
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	unsigned hz = parse(spec, err, errlen);
	int id;

	if (!hz)
		return -EINVAL;
	if (c->profile_id != NO_EVENT && c->profile_freq != hz) {
		snprintf(err, errlen, "'%s': the channel already samples at %u Hz", spec, c->profile_freq);
		return -EINVAL;
	}
	if (c->probes && c->profile_id == NO_EVENT) {
		snprintf(err, errlen, "'%s': sampling is a load-time setting: enable it before the session "
			 "is loaded", spec);
		return -ENOTSUP;
	}
	id = channel_add_event(c, scry_catalog_builtin(c->s->cat, EVENT));
	if (id < 0)
		return id;
	c->profile_id = (uint16_t)id;
	c->profile_freq = hz;
	(*matched)++;
	return 0;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	if (c->profile_id == NO_EVENT)
		return 0;
	if (c->probes) {
		snprintf(err, errlen, "'%s': sampling is a load-time setting", spec);
		return -ENOTSUP;
	}
	c->profile_id = NO_EVENT;
	c->profile_freq = 0;
	(*matched)++;
	return 0;
}

static int names(struct scry_channel *c, char ***out, size_t *n)
{
	char **v = calloc(1, sizeof(*v));

	if (!v || !(v[0] = strdup(PREFIX "cpu-clock"))) {
		free(v);
		return -ENOMEM;
	}
	*out = v;
	*n = 1;
	return 0;
}

const struct scry_source scry_source_profile = {
	.name = "profile",
	.claims = claims,
	.enable = enable,
	.disable = disable,
	.names = names,
};
