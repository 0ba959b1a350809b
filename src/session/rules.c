/* rules.c — a channel's event rules (LTTng's): each enable gives a rule, a spec with or
 * without its own filter, enabled and disabled on its own; the events each rule matches are
 * marked as its spec is enabled (channel_mark, from the sources).  An event is recorded when
 * an enabled rule matching it accepts it: the channel's filters (filters.h) are made from
 * the enabled rules, one expression per event (the OR of its rules' filters; an unfiltered
 * rule: no filter at all), so that an event without filtered rules costs what it costs
 * without any, and an event of one filtered rule what a session filter costs.  Once
 * recording (a daemon's channel: live_filters), a change of rules makes the filters again
 * and flips the syscall fronts at one instant (channel_rules_relive). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "session/user_filter.h"
#include "util/log.h"

void channel_mark(struct scry_channel *c, int id)
{
	struct chan_rule *r = c->marking;
	size_t w = (size_t)id >> 6;

	if (!r || id < 0)
		return;
	if (w >= r->nwords) {
		size_t n = w + 16;
		uint64_t *ids = realloc(r->ids, n * sizeof(*ids));

		if (!ids)
			return;    /* the rule then matches less: its filter is checked on fewer events */
		memset(ids + r->nwords, 0, (n - r->nwords) * sizeof(*ids));
		r->ids = ids;
		r->nwords = n;
	}
	r->ids[w] |= 1ULL << (id & 63);
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

struct chan_rule *channel_rule(struct scry_channel *c, const char *spec, const char *filter)
{
	struct chan_rule *r;

	for (size_t i = 0; i < c->nrules; i++)
		if (!strcmp(c->rules[i].spec, spec) && same(c->rules[i].filter, filter))
			return &c->rules[i];
	if (!(r = realloc(c->rules, (c->nrules + 1) * sizeof(*r))))
		return NULL;
	c->rules = r;
	r = &c->rules[c->nrules];
	*r = (struct chan_rule){ .spec = strdup(spec), .filter = filter ? strdup(filter) : NULL };
	if (!r->spec || (filter && !r->filter)) {
		free(r->spec);
		free(r->filter);
		return NULL;
	}
	c->nrules++;
	return r;
}

bool channel_rules_filtered(const struct scry_channel *c)
{
	for (size_t i = 0; i < c->nrules; i++)
		if (c->rules[i].filter)
			return true;
	return false;
}

int channel_enable_rule(struct scry_channel *c, const char *spec, const char *filter, char *err, size_t errlen)
{
	struct chan_rule *r = channel_rule(c, spec, filter);
	int ret;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->marking = r;
	ret = channel_enable_spec(c, spec, err, errlen);
	c->marking = NULL;
	if (!ret)
		r->enabled = true;
	return ret;
}

/* Event i is in bitmap m of nwords words. */
static bool has(const uint64_t *m, size_t nwords, size_t i)
{
	return (i >> 6) < nwords && (m[i >> 6] & (1ULL << (i & 63)));
}

/* The filters of c's enabled rules (NULL and *ret 0: no rule has a filter). */
static struct scry_filters *rules_filters(struct scry_channel *c, int *ret, char *err, size_t errlen)
{
	size_t words = (c->nevents + 63) / 64 + 1, nf = 0;
	struct scry_filter_rule *fr = calloc(c->nrules + 1, sizeof(*fr));
	uint64_t *bits = calloc((c->nrules + 1) * words, sizeof(uint64_t)), *unf;
	struct scry_filters *f = NULL;

	*ret = 0;
	if (!channel_rules_filtered(c))
		goto out;
	if (!fr || !bits) {
		*ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	unf = bits + c->nrules * words;
	for (size_t i = 0; i < c->nrules; i++) {
		const struct chan_rule *r = &c->rules[i];
		uint64_t *m = r->filter ? bits + nf * words : unf;

		if (!r->enabled)
			continue;
		for (size_t e = 0; e < c->nevents; e++)
			if (has(r->ids, r->nwords, e))
				m[e >> 6] |= 1ULL << (e & 63);
		if (r->filter)
			fr[nf++] = (struct scry_filter_rule){ .name = r->spec, .text = r->filter, .events = m };
	}
	f = scry_filters_prepare_rules(fr, nf, unf, (const struct scry_event *const *)c->events, c->nevents,
				       c->s->opts.filter_entries_only, err, errlen);
	if (!f)
		*ret = -EINVAL;
out:
	free(fr);
	free(bits);
	return f;
}

int channel_rules_prepare(struct scry_channel *c, char *err, size_t errlen)
{
	int ret;

	if (c->s->opts.filter || c->opts.kind != SCRY_CHANNEL_EVENTS)
		return 0;                     /* the session's filter (channel_new), or none */
	scry_user_filter_free(c->ufilter);
	scry_filters_free(c->filters);
	c->ufilter = NULL;
	c->filters = rules_filters(c, &ret, err, errlen);
	if (!c->filters)
		return ret;
	return scry_user_filter_new(&c->ufilter, c->filters, (const struct scry_event *const *)c->events,
				    c->nevents, c->opts.ctx_mask, err, errlen);
}

/* Some enabled rule of c matches event e. */
static bool matched(const struct scry_channel *c, size_t e)
{
	for (size_t i = 0; i < c->nrules; i++)
		if (c->rules[i].enabled && has(c->rules[i].ids, c->rules[i].nwords, e))
			return true;
	return false;
}

/* The front on tracepoint e's own hook (kept there while it is disabled), or -1. */
static int hook_front(const struct scry_channel *c, size_t e)
{
	for (size_t i = 0; i < c->ntps; i++)
		if (c->tps[i].id == (int)e && c->tps[i].front)
			return c->tps[i].front_fd;
	return -1;
}

/* Can the filters go from a to b while recording (events 0..na existed before)?  Only the
 * syscalls' fronts change (the doors flip them); every other event keeps what it had, or
 * is new (attached with its front), or is off. */
static int relive_check(struct scry_channel *c, const struct scry_filters *a, const struct scry_filters *b,
			size_t na, char *err, size_t errlen)
{
	for (size_t e = 0; b && e < c->nevents; e++) {
		const struct scry_event *ev = c->events[e];
		enum scry_filter_use ub = scry_filters_use(b, e);

		if (ub == SCRY_FILTER_USER) {
			snprintf(err, errlen, "the filter of %s cannot run in this kernel (%s): such a rule cannot "
				 "change once recording; change it before start", ev->tp ? ev->tp : "an event",
				 scry_filters_user_why(b, e) ? scry_filters_user_why(b, e) : "decided in user space");
			return -ENOTSUP;
		}
	}
	for (size_t e = 0; e < c->nevents; e++) {
		const struct scry_event *ev = c->events[e];
		enum scry_filter_use ua = a ? scry_filters_use(a, e) : SCRY_FILTER_NONE,
				     ub = b ? scry_filters_use(b, e) : SCRY_FILTER_NONE;

		if (scry_filter_env_kind(ev) <= SCRY_FENV_EXIT || e >= na || !matched(c, e))
			continue;
		int hook = hook_front(c, e);

		if (hook >= 0 && ub == SCRY_FILTER_KERNEL && scry_filters_front_fd(b, e) == hook)
			continue;   /* the front its hook holds (also enabled again after a disable) */
		if (hook >= 0 || ua != ub || (ub == SCRY_FILTER_KERNEL && a && scry_filters_front_fd(a, e) != scry_filters_front_fd(b, e))) {
			snprintf(err, errlen, "the filters of %s cannot change once recording (a syscall's can: a "
				 "tracepoint's or a probe's front is attached on its own hook); change them before start",
				 ev->tp ? ev->tp : "this event");
			return -ENOTSUP;
		}
	}
	return 0;
}

int channel_rules_relive(struct scry_channel *c, size_t na, char *err, size_t errlen)
{
	struct scry_filters *f;
	int keep[2], ret;
	size_t moved = 0;

	if (!c->live_filters) {
		snprintf(err, errlen, "the filters of channel '%s' cannot change once loaded (it was loaded with a "
			 "session filter, or without syscalls); change them before start", c->name);
		return -ENOTSUP;
	}
	if (c->ufilter) {
		snprintf(err, errlen, "channel '%s' has filters decided in user space: its filters cannot change once "
			 "loaded; change them before start", c->name);
		return -ENOTSUP;
	}
	if (c->s->npsets) {
		snprintf(err, errlen, "per-process event sets cannot be combined with filters yet (disable them first)");
		return -ENOTSUP;
	}
	f = rules_filters(c, &ret, err, errlen);
	if (ret)
		return ret;
	scry_probes_forget_fronts(c->probes, keep);
	if (f)
		ret = scry_filters_install(f, c->probes, scry_log_verbose(), &moved, err, errlen);
	if (!ret)    /* (what moved to user space is refused there) */
		ret = relive_check(c, c->filters, f, na, err, errlen);
	if (!ret && (ret = scry_probes_flip_fronts(c->probes)))
		snprintf(err, errlen, "cannot change the syscall filters: %s", strerror(-ret));
	if (ret) {
		scry_probes_restore_fronts(c->probes, keep);
		scry_filters_free(f);
		return ret;
	}
	scry_filters_free(c->filters);   /* its fronts stay loaded (the probes own them) */
	c->filters = f;
	/* a call in flight now has its entry and exit decided by different rules: when, said */
	scry_log(SCRY_LOG_VERBOSE, "scry: channel %s: syscall filters changed at %llu (trace clock): a call in flight "
		 "then has its entry and its exit decided by the rules of their own times", c->name,
		 (unsigned long long)session_now(c->s));
	return 0;
}

void channel_rules_free(struct scry_channel *c)
{
	for (size_t i = 0; i < c->nrules; i++) {
		free(c->rules[i].spec);
		free(c->rules[i].filter);
		free(c->rules[i].ids);
	}
	free(c->rules);
	c->rules = NULL;
	c->nrules = 0;
}
