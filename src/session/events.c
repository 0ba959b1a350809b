/* events.c — a channel's events (see session.h): each -e spec resolved by the first source
 * that claims it (source.h: syscalls, uprobes, kprobes, statedump, profile, net, tracepoints), with "did you mean" suggestions over every
 * source's names; the verbs enabling and disabling events, before or while recording; the
 * sources asked to bring the channel's BPF object in line (tables, attachments). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/session_int.h"
#include "session/source.h"

/* Every source, in the order they are asked to claim a spec: the last claims the rest. */
static const struct scry_source *const sources[] = { &scry_source_syscalls, &scry_source_uprobes,
						     &scry_source_kprobes, &scry_source_statedump,
						     &scry_source_profile, &scry_source_net,
						     &scry_source_tracepoints };
#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

static const struct scry_source *source_of(const char *spec)
{
	for (size_t i = 0; i < NSOURCES; i++)
		if (sources[i]->claims(spec))
			return sources[i];
	return NULL;
}

int channel_add_event(struct scry_channel *c, const struct scry_event *ev)
{
	if (!ev)
		return -ENOMEM;   /* the catalog could not build it */
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i] == ev) {
			channel_mark(c, (int)i);
			return (int)i;
		}
	if (c->nevents >= NO_EVENT)
		return -E2BIG;
	if (c->nevents == c->capevents) {
		size_t cap = c->capevents ? 2 * c->capevents : 256;
		const struct scry_event **e = realloc(c->events, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->events = e;
		c->capevents = cap;
	}
	c->events[c->nevents] = ev;
	channel_mark(c, (int)c->nevents);
	return (int)c->nevents++;
}

/* "did you mean" over every event name the sources offer. */
static void suggest(struct scry_channel *c, const char *spec, char *err, size_t errlen)
{
	char **owned[NSOURCES] = { 0 };
	size_t nowned[NSOURCES] = { 0 }, n = 0, nb;
	const char **all = NULL, *best[3];

	for (size_t i = 0; i < NSOURCES; i++)
		if (sources[i]->names && sources[i]->names(c, &owned[i], &nowned[i]) == 0)
			n += nowned[i];
	if (!(all = malloc((n ? n : 1) * sizeof(*all))))
		goto out;
	n = 0;
	for (size_t i = 0; i < NSOURCES; i++)
		for (size_t k = 0; k < nowned[i]; k++)
			all[n++] = owned[i][k];
	nb = scry_closest(spec, all, n, best, 3);
	if (nb) {
		size_t len = strlen(err);
		snprintf(err + len, errlen - len, "; did you mean %s%s%s%s%s?", best[0],
			 nb > 1 ? ", " : "", nb > 1 ? best[1] : "", nb > 2 ? ", " : "", nb > 2 ? best[2] : "");
	}
out:
	free(all);
	for (size_t i = 0; i < NSOURCES; i++) {
		for (size_t k = 0; k < nowned[i]; k++)
			free(owned[i][k]);
		free(owned[i]);
	}
}

/* One -e spec: "syscall:GLOB", "SYSTEM:GLOB", or "GLOB" (tracepoint event names). */
int channel_enable_spec(struct scry_channel *c, const char *spec, char *err, size_t errlen)
{
	const struct scry_source *src = source_of(spec);
	size_t matched = 0;
	int ret;

	if (!*spec) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	ret = src->enable(c, spec, &matched, err, errlen);
	if (ret < 0) {
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		else if (ret == -E2BIG)
			snprintf(err, errlen, "too many events (limit %d)", NO_EVENT);
		else if (!err[0])
			snprintf(err, errlen, "cannot enable '%s': %s", spec, strerror(-ret));
		return ret;
	}
	if (!matched) {
		snprintf(err, errlen, "unknown event '%s'", spec);
		suggest(c, spec, err, errlen);
		return -ENOENT;
	}
	return 0;
}

int channel_describe(struct scry_channel *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < NSOURCES; i++) {
		int ret = sources[i]->describe ? sources[i]->describe(c, err, errlen) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

int channel_attach(struct scry_channel *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < NSOURCES; i++) {
		int ret = sources[i]->attach ? sources[i]->attach(c, err, errlen) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* The channel an enable or disable names, unless it cannot change (a loaded session with a
 * filter, or a filtered rule once loaded, but in a channel whose filters may change while
 * recording: channel_rules_relive): NULL with *ret and the reason. */
static struct scry_channel *verb_channel(struct scry_session *s, const char *channel, const char *verb,
					 const char *spec, const char *filter, int *ret, char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);

	*ret = -ENOENT;
	if (!c)
		return NULL;
	err[0] = 0;
	if (c->probes && !c->live_filters && (c->filters || filter)) {
		snprintf(err, errlen, "cannot %s '%s' on a loaded session with a filter (filters are compiled into "
			 "the kernel when the session loads: change them before start)", verb, spec);
		*ret = -ENOTSUP;
		return NULL;
	}
	return c;
}

int scry_session_disable_event(struct scry_session *s, const char *channel, const char *spec,
			       char *err, size_t errlen)
{
	struct scry_channel *c;
	const struct scry_source *src;
	size_t matched = 0;
	int ret;

	if (!(c = verb_channel(s, channel, "disable", spec, NULL, &ret, err, errlen)))
		return ret;
	src = source_of(spec);
	if ((ret = src->disable(c, spec, &matched, err, errlen)))
		return ret;
	if (!matched) {
		snprintf(err, errlen, "no enabled event matches '%s'", spec);
		return -ENOENT;
	}
	for (size_t i = 0; i < c->nrules; i++)    /* every rule of spec (LTTng's disable-event) */
		if (!strcmp(c->rules[i].spec, spec))
			c->rules[i].enabled = false;
	if (!c->probes && channel_rules_filtered(c) && (ret = channel_rules_prepare(c, err, errlen)))
		return ret;
	if (c->probes && src->describe && (ret = src->describe(c, err, errlen)))
		return ret;
	/* off first, then the fronts flipped: each event sees the old rules or the new */
	return c->probes && c->filters ? channel_rules_relive(c, c->nevents, err, errlen) : 0;
}

int scry_session_disable_rule(struct scry_session *s, const char *channel, const char *spec, const char *filter,
			      char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);
	struct chan_rule *r;
	bool others = false;
	int ret = 0;

	if (!c)
		return -ENOENT;
	if (!(r = channel_rule(c, spec, filter))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->enabled = false;
	for (size_t i = 0; i < c->nrules; i++)
		others |= c->rules[i].enabled && !strcmp(c->rules[i].spec, spec);
	if (!others)
		return scry_session_disable_event(s, channel, spec, err, errlen);
	if (c->probes && (ret = channel_rules_relive(c, c->nevents, err, errlen)))
		r->enabled = true;       /* as it was */
	return c->probes ? ret : channel_rules_prepare(c, err, errlen);
}

int channel_enable(struct scry_channel *c, const char *spec, bool pid_only, bool *changed, char *err,
		   size_t errlen)
{
	struct scry_session *s = c->s;
	size_t before = c->nevents;
	unsigned changes = c->changes;
	uint16_t fork_id = c->fork_id, signal_id = c->signal_id, signal_gen_id = c->signal_gen_id,
		 unknown = c->unknown_entry;
	bool any_syscall = c->any_syscall;
	int ret;

	*changed = false;
	c->enabling_pid = pid_only;
	ret = channel_enable_spec(c, spec, err, errlen);
	c->enabling_pid = false;
	if (ret || (c->nevents == before && c->changes == changes))
		return ret;
	*changed = true;
	if (!c->probes)
		return 0;
	/* loaded: the new events are described (metadata), then their descriptors set or attached */
	if (c->fork_id != fork_id || c->signal_id != signal_id || c->signal_gen_id != signal_gen_id ||
	    c->unknown_entry != unknown ||
	    c->any_syscall != any_syscall) {
		snprintf(err, errlen, "'%s' cannot be enabled once the session is loaded (the fork, signal and "
			 "unknown syscall events, and syscalls in a channel without any, are load-time settings)", spec);
		return -ENOTSUP;
	}
	if (c->nevents != before && (session_has_trace(s) || s->relay) && !s->chunk_closed)
		return session_write_metadata(s, err, errlen);
	return 0;
}

int channel_refresh(struct scry_channel *c, char *err, size_t errlen)
{
	int ret;

	if (!c->probes)
		return 0;
	if ((ret = channel_describe(c, err, errlen)))
		return ret;
	return c->s->started ? channel_attach(c, err, errlen) : 0;
}

int channel_select(struct scry_channel *c, const char *spec, struct pid_sel *sel, char *err, size_t errlen)
{
	const struct scry_source *src = source_of(spec);

	if (!src->select) {
		snprintf(err, errlen, "'%s': per-process event sets take syscalls and tracepoints only (not %s)", spec,
			 src->name);
		return -ENOTSUP;
	}
	return src->select(c, spec, sel);
}

/* A per-process enable of spec would not be a per-process one (checked before anything). */
bool channel_spec_selectable(const char *spec)
{
	return source_of(spec)->select != NULL;
}

int scry_session_enable_rule(struct scry_session *s, const char *channel, const char *spec, const char *filter,
			     char *err, size_t errlen)
{
	struct scry_channel *c;
	struct chan_rule *was, *r;
	bool changed, on;
	size_t na;
	int ret;

	if (!(c = verb_channel(s, channel, "enable", spec, filter, &ret, err, errlen)))
		return ret;
	na = c->nevents;
	was = c->marking;
	if (!(r = c->marking = channel_rule(c, spec, filter))) {
		c->marking = was;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	on = r->enabled;
	ret = channel_enable(c, spec, false, &changed, err, errlen);
	if (!ret)
		r->enabled = true;
	c->marking = was;
	if (!ret && !c->probes && channel_rules_filtered(c))
		ret = channel_rules_prepare(c, err, errlen);
	/* once loaded: the fronts flipped first, then the new events' descriptors set (each
	 * event sees the old rules or the new) */
	if (!ret && c->probes && (filter || c->filters) && (ret = channel_rules_relive(c, na, err, errlen))) {
		bool others = false;

		r->enabled = on;         /* as it was */
		for (size_t i = 0; i < c->nrules; i++)
			others |= c->rules[i].enabled && !strcmp(c->rules[i].spec, spec);
		if (changed && !others) {
			char e2[256];
			size_t matched = 0;

			source_of(spec)->disable(c, spec, &matched, e2, sizeof(e2));
		}
		return ret;
	}
	if (ret || !changed)
		return ret;
	return channel_refresh(c, err, errlen);
}

int scry_session_enable_event(struct scry_session *s, const char *channel, const char *spec,
			      char *err, size_t errlen)
{
	return scry_session_enable_rule(s, channel, spec, NULL, err, errlen);
}
