/* rules.c — a channel's event rules (LTTng's): each enable gives a rule, a spec with or
 * without its own filter, enabled and disabled on its own; the events each rule matches are
 * marked as its spec is enabled (channel_mark, from the sources).  An event is recorded when
 * an enabled rule matching it accepts it: the channel's filters (filters.h) are made from
 * the enabled rules, one expression per event (the OR of its rules' filters; an unfiltered
 * rule: no filter at all), so that an event without filtered rules costs what it costs
 * without any, and an event of one filtered rule what a session filter costs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/filters.h"
#include "session/session_int.h"
#include "session/user_filter.h"

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

int channel_rules_prepare(struct scry_channel *c, char *err, size_t errlen)
{
	size_t words = (c->nevents + 63) / 64 + 1, nf = 0;
	struct scry_filter_rule *fr = calloc(c->nrules + 1, sizeof(*fr));
	uint64_t *bits = calloc((c->nrules + 1) * words, sizeof(uint64_t)), *unf;
	int ret = -ENOMEM;

	if (c->s->opts.filter || c->opts.kind != SCRY_CHANNEL_EVENTS)
		ret = 0;                     /* the session's filter (channel_new), or none */
	if (!ret || !fr || !bits)
		goto out;
	scry_user_filter_free(c->ufilter);
	scry_filters_free(c->filters);
	c->ufilter = NULL;
	c->filters = NULL;
	ret = 0;
	if (!channel_rules_filtered(c))
		goto out;
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
	c->filters = scry_filters_prepare_rules(fr, nf, unf, (const struct scry_event *const *)c->events, c->nevents,
						c->s->opts.filter_entries_only, err, errlen);
	if (!c->filters)
		ret = -EINVAL;
	else
		ret = scry_user_filter_new(&c->ufilter, c->filters, (const struct scry_event *const *)c->events,
					   c->nevents, c->opts.ctx_mask, err, errlen);
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(fr);
	free(bits);
	return ret;
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
