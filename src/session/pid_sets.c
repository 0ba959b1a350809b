/* pid_sets.c — per-process event sets (see session.h): a process's own events beside the
 * session's, as rules (channel, spec) whose syscalls and tracepoints are enabled in their
 * channel for per-process sets only (their descriptors say SCRY_*_PIDSET: looked up by tgid
 * in the kernel, kernel/pid_sets.c), a slot per set in every channel's maps, the least
 * recently used set evicted beyond the session's bound (counted), a set removed when its
 * process ends (a pidfd polled at each verb and each flush: its pid may be reused). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "kernel/probes.h"
#include "session/session_int.h"
#include "util/proc.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static struct pid_set *find_set(struct scry_session *s, pid_t tgid)
{
	for (size_t i = 0; i < s->npsets; i++)
		if (s->psets[i].pid == tgid)
			return &s->psets[i];
	return NULL;
}

/* What set's rules of channel c select there (into sel, cleared first). */
static void set_sel(struct scry_channel *c, const struct pid_set *set, struct pid_sel *sel)
{
	char err[256];

	memset(sel, 0, sizeof(*sel));
	for (size_t i = 0; i < set->nrules; i++)
		if (!strcmp(set->rules[i].channel, c->name))
			channel_select(c, set->rules[i].spec, sel, err, sizeof(err));
}

/* Channel c's union of every set (its descriptors' SCRY_*_PIDSET), described again. */
static int channel_union(struct scry_session *s, struct scry_channel *c, char *err, size_t errlen)
{
	struct pid_sel one;

	memset(&c->psel, 0, sizeof(c->psel));
	for (size_t i = 0; i < s->npsets; i++) {
		set_sel(c, &s->psets[i], &one);
		for (size_t w = 0; w < SCRY_MAX_SYSCALLS / 64; w++)
			c->psel.sc[w] |= one.sc[w];
		for (size_t w = 0; w < SCRY_MAX_TP / 64; w++)
			c->psel.tp[w] |= one.tp[w];
	}
	return channel_refresh(c, err, errlen);
}

/* The set into every loaded channel's maps: its bits (tracepoints by their slot once
 * attached), then its process pointed at them. */
static int write_set(struct scry_session *s, const struct pid_set *set, char *err, size_t errlen)
{
	struct scry_pid_set k;
	struct pid_sel sel;
	int ret;

	for (size_t i = 0; i < s->nchans; i++) {
		struct scry_channel *c = s->chans[i];

		if (!c->probes || c->opts.kind != SCRY_CHANNEL_EVENTS)
			continue;
		set_sel(c, set, &sel);
		memset(&k, 0, sizeof(k));
		memcpy(k.sc, sel.sc, sizeof(k.sc));
		for (size_t t = 0; t < c->ntps && t < SCRY_MAX_TP; t++)
			if ((sel.tp[t / 64] >> (t % 64) & 1) && c->tps[t].slot >= 0 && c->tps[t].slot < SCRY_MAX_TP)
				k.tp[c->tps[t].slot / 64] |= 1ULL << (c->tps[t].slot % 64);
		if ((ret = scry_probes_pid_set(c->probes, set->slot, set->pid, &k))) {
			snprintf(err, errlen, "cannot set the events of process %d in channel '%s': %s", (int)set->pid,
				 c->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void free_rules(struct pid_set *set)
{
	for (size_t i = 0; i < set->nrules; i++)
		free(set->rules[i].spec);
	free(set->rules);
	set->rules = NULL;
	set->nrules = 0;
}

/* Remove set i: its process forgotten by every kernel first, then the channels described
 * again without its events. */
static int remove_set(struct scry_session *s, size_t i, char *err, size_t errlen)
{
	struct pid_set *set = &s->psets[i];
	int ret = 0;

	for (size_t k = 0; k < s->nchans; k++)
		if (s->chans[k]->probes && s->chans[k]->opts.kind == SCRY_CHANNEL_EVENTS)
			scry_probes_pid_set_clear(s->chans[k]->probes, set->slot, set->pid);
	free_rules(set);
	if (set->pidfd >= 0)
		close(set->pidfd);
	memmove(set, set + 1, (s->npsets - i - 1) * sizeof(*set));
	s->npsets--;
	for (size_t k = 0; k < s->nchans && !ret; k++)
		if (s->chans[k]->opts.kind == SCRY_CHANNEL_EVENTS)
			ret = channel_union(s, s->chans[k], err, errlen);
	return ret;
}

/* Each set's use from its kernel counts: one that recorded an event since the last look
 * was used now. */
static void refresh_use(struct scry_session *s)
{
	bool bumped = false;

	for (size_t i = 0; i < s->npsets; i++) {
		uint64_t hits = 0, h;

		for (size_t k = 0; k < s->nchans; k++)
			if (s->chans[k]->probes && s->chans[k]->opts.kind == SCRY_CHANNEL_EVENTS &&
			    !scry_probes_pid_set_hits(s->chans[k]->probes, s->psets[i].slot, &h))
				hits += h;
		if (hits != s->psets[i].hits) {
			if (!bumped)
				s->pset_clock++;
			bumped = true;
			s->psets[i].hits = hits;
			s->psets[i].used = s->pset_clock;
		}
	}
}

void session_pid_sets_reap(struct scry_session *s)
{
	char err[256];

	for (size_t i = 0; i < s->npsets;) {
		struct pollfd p = { .fd = s->psets[i].pidfd, .events = POLLIN };

		if (p.fd >= 0 && poll(&p, 1, 0) == 1) {
			remove_set(s, i, err, sizeof(err));
			s->psets_ended++;
		} else {
			i++;
		}
	}
}

int session_pid_sets_sync(struct scry_session *s, char *err, size_t errlen)
{
	int ret;

	for (size_t i = 0; i < s->npsets; i++)
		if ((ret = write_set(s, &s->psets[i], err, errlen)))
			return ret;
	return 0;
}

void session_pid_sets_free(struct scry_session *s)
{
	for (size_t i = 0; i < s->npsets; i++) {
		free_rules(&s->psets[i]);
		if (s->psets[i].pidfd >= 0)
			close(s->psets[i].pidfd);
	}
	free(s->psets);
	s->psets = NULL;
	s->npsets = 0;
}

/* The channel of a per-process verb, checked: events, no filter, sets allowed. */
static struct scry_channel *pid_channel(struct scry_session *s, const char *channel, const char *spec, char *err,
					size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);
	struct pid_sel sel;

	if (!c)
		return NULL;
	err[0] = 0;
	if (!s->max_psets)
		snprintf(err, errlen, "this session keeps no per-process event sets");
	else if (c->opts.kind != SCRY_CHANNEL_EVENTS)
		snprintf(err, errlen, "channel '%s' does not record events: no per-process event set", c->name);
	else if (s->opts.filter || c->filters)
		snprintf(err, errlen, "per-process event sets cannot be combined with filters yet");
	else if (channel_select(c, spec, &sel, err, errlen) == 0)
		return c;
	return NULL;
}

/* A new set for tgid in a free slot, the least recently used evicted when all are taken. */
static struct pid_set *new_set(struct scry_session *s, pid_t tgid, pid_t *evicted, char *err, size_t errlen)
{
	struct pid_set *v, *set;
	int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	unsigned slot;

	if (pidfd < 0) {
		snprintf(err, errlen, "no process %d", (int)tgid);
		return NULL;
	}
	if (s->npsets >= s->max_psets) {
		size_t lru = 0;

		refresh_use(s);
		for (size_t i = 1; i < s->npsets; i++)
			if (s->psets[i].used < s->psets[lru].used)
				lru = i;
		*evicted = s->psets[lru].pid;
		if (remove_set(s, lru, err, errlen)) {
			close(pidfd);
			return NULL;
		}
		s->psets_evicted++;
	}
	for (slot = 0; slot < s->max_psets; slot++) {
		size_t i;

		for (i = 0; i < s->npsets && s->psets[i].slot != slot; i++)
			;
		if (i == s->npsets)
			break;
	}
	if (!(v = realloc(s->psets, (s->npsets + 1) * sizeof(*v)))) {
		close(pidfd);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->psets = v;
	set = &v[s->npsets++];
	*set = (struct pid_set){ .pid = tgid, .pidfd = pidfd, .slot = slot };
	return set;
}

int scry_session_enable_event_pid(struct scry_session *s, const char *channel, const char *spec, pid_t pid,
				  pid_t *evicted, char *err, size_t errlen)
{
	struct scry_channel *c;
	struct pid_set *set;
	struct scry_pid_rule *r;
	pid_t tgid;
	bool changed;
	int ret;

	*evicted = 0;
	err[0] = 0;
	if (!session_channel(s, channel, err, errlen))
		return -ENOENT;
	if (!(c = pid_channel(s, channel, spec, err, errlen)))
		return -ENOTSUP;
	if ((tgid = scry_process_of(pid)) <= 0) {
		snprintf(err, errlen, "no process %d", (int)pid);
		return -ESRCH;
	}
	session_pid_sets_reap(s);
	if ((ret = channel_enable(c, spec, true, &changed, err, errlen)))
		return ret;
	if (!(set = find_set(s, tgid)) && !(set = new_set(s, tgid, evicted, err, errlen)))
		return -ESRCH;
	for (size_t i = 0; i < set->nrules; i++)
		if (!strcmp(set->rules[i].channel, c->name) && !strcmp(set->rules[i].spec, spec))
			goto described;      /* given before: nothing new */
	if (!(r = realloc(set->rules, (set->nrules + 1) * sizeof(*r))))
		goto oom;
	set->rules = r;
	r[set->nrules] = (struct scry_pid_rule){ .channel = c->name, .spec = strdup(spec) };
	if (!r[set->nrules].spec)
		goto oom;
	set->nrules++;
described:
	set->used = ++s->pset_clock;
	/* the channel's descriptors and attachments first (the set's events are off for every
	 * other process), then the set's bits and its process pointed at them */
	if ((ret = channel_union(s, c, err, errlen)))
		return ret;
	return write_set(s, set, err, errlen);
oom:
	snprintf(err, errlen, "out of memory");
	if (!set->nrules)
		remove_set(s, (size_t)(set - s->psets), err, errlen);
	return -ENOMEM;
}

int scry_session_disable_event_pid(struct scry_session *s, const char *channel, const char *spec, pid_t pid,
				   char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);
	struct pid_set *set;
	pid_t tgid = scry_process_of(pid);
	size_t i;
	int ret;

	if (!c)
		return -ENOENT;
	session_pid_sets_reap(s);
	if (tgid <= 0)
		tgid = pid;          /* a thread names its process; an ended one, its set is gone */
	if (!(set = find_set(s, tgid))) {
		snprintf(err, errlen, "no per-process event set for process %d", (int)pid);
		return -ENOENT;
	}
	for (i = 0; i < set->nrules; i++)
		if (!strcmp(set->rules[i].channel, c->name) && !strcmp(set->rules[i].spec, spec))
			break;
	if (i == set->nrules) {
		snprintf(err, errlen, "no rule '%s' in channel '%s' of the per-process event set of process %d", spec,
			 c->name, (int)tgid);
		return -ENOENT;
	}
	free(set->rules[i].spec);
	memmove(&set->rules[i], &set->rules[i + 1], (set->nrules - i - 1) * sizeof(set->rules[0]));
	set->nrules--;
	if (!set->nrules)
		return remove_set(s, (size_t)(set - s->psets), err, errlen);
	set->used = ++s->pset_clock;
	if ((ret = write_set(s, set, err, errlen)))     /* its bits first, then the descriptors */
		return ret;
	return channel_union(s, c, err, errlen);
}

static int by_use(const void *a, const void *b)
{
	const struct pid_set *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

size_t scry_session_pid_sets(struct scry_session *s, struct scry_pid_set_info *out, size_t max,
			     struct scry_pid_sets_stats *st)
{
	size_t n = 0;

	session_pid_sets_reap(s);
	refresh_use(s);
	if (s->npsets)
		qsort(s->psets, s->npsets, sizeof(s->psets[0]), by_use);
	for (size_t i = 0; i < s->npsets && n < max; i++)
		out[n++] = (struct scry_pid_set_info){ .pid = s->psets[i].pid, .events = s->psets[i].hits,
						       .rules = s->psets[i].rules, .nrules = s->psets[i].nrules };
	if (st)
		*st = (struct scry_pid_sets_stats){ .n = s->npsets, .max = s->max_psets, .evicted = s->psets_evicted,
						    .ended = s->psets_ended };
	return n;
}
