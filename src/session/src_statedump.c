/* src_statedump.c — the statedump source: lttng-modules' lttng_statedump_* events
 * ("lttng_statedump_*", "lttng_statedump:GLOB"), load-time settings of the channel (their
 * ids in the BPF object's rodata; its iterator programs are loaded only then), and the dump
 * itself, run by scry_session_start once the switch is on: what is created or opened while
 * the dump runs is recorded by the ordinary events, so nothing between the dump and the
 * start of recording goes unseen.  The dump describes the whole machine whatever the
 * session's target, as LTTng's does. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/statedump.h"
#include "consumer/consumer.h"
#include "kernel/probes.h"
#include "session/session_int.h"
#include "session/source.h"
#include "session/statedump_items.h"

#define PREFIX "lttng_statedump"

static bool claims(const char *spec)
{
	return !strncmp(spec, PREFIX, strlen(PREFIX));
}

/* spec's glob over event names ("lttng_statedump_*" or "lttng_statedump:GLOB") */
static bool matches(const char *spec, const char *name)
{
	if (!strncmp(spec, PREFIX ":", strlen(PREFIX) + 1))
		spec += strlen(PREFIX) + 1;
	return !fnmatch(spec, name, 0);
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	for (int k = 0; k < SCRY_SD_NR; k++) {
		int id;

		if (!matches(spec, scry_sd_specs[k].name))
			continue;
		if (c->probes) {
			snprintf(err, errlen, "'%s': the statedump is a load-time setting: enable it before the "
				 "session is loaded", spec);
			return -ENOTSUP;
		}
		id = channel_add_event(c, scry_catalog_builtin(c->s->cat, scry_sd_specs[k].name));
		if (id < 0)
			return id;
		c->sd_ids[k] = (uint16_t)id;
		c->statedump = true;
		(*matched)++;
	}
	return 0;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	for (int k = 0; k < SCRY_SD_NR; k++) {
		if (!matches(spec, scry_sd_specs[k].name) || c->sd_ids[k] == NO_EVENT)
			continue;
		if (c->probes) {
			snprintf(err, errlen, "'%s': the statedump is a load-time setting", spec);
			return -ENOTSUP;
		}
		c->sd_ids[k] = NO_EVENT;
		(*matched)++;
	}
	c->statedump = false;
	for (int k = 0; k < SCRY_SD_NR; k++)
		c->statedump |= c->sd_ids[k] != NO_EVENT;
	return 0;
}

static int names(struct scry_channel *c, char ***out, size_t *n)
{
	char **v = calloc(SCRY_SD_NR, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int k = 0; k < SCRY_SD_NR; k++)
		if (!(v[k] = strdup(scry_sd_specs[k].name))) {
			for (int i = 0; i < k; i++)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	*out = v;
	*n = SCRY_SD_NR;
	return 0;
}

const struct scry_source scry_source_statedump = {
	.name = "statedump",
	.claims = claims,
	.enable = enable,
	.disable = disable,
	.names = names,
};

static void drain(void *arg)
{
	struct scry_channel *c = arg;

	if (c->consumer)
		scry_consumer_poll(c->consumer);
}

int channel_statedump_prepare(struct scry_channel *c, char *err, size_t errlen)
{
	if (!c->statedump || !c->probes || c->sd_items)
		return 0;
	return scry_statedump_items(c->sd_ids, &c->sd_items, &c->sd_n, &c->sd_nhead, err, errlen);
}

int channel_statedump(struct scry_channel *c, char *err, size_t errlen)
{
	int ret;

	if (!c->statedump || !c->probes)
		return 0;
	if ((ret = channel_statedump_prepare(c, err, errlen)))
		return ret;
	ret = scry_probes_statedump(c->probes, c->sd_items, c->sd_n, c->sd_nhead, drain, c, err, errlen);
	free(c->sd_items);
	c->sd_items = NULL;
	return ret;
}
