/* src_net.c — the net source: "net:connections" (or its event's name, "net_connection")
 * records one net_connection event per TCP connection of a target, written when it closes
 * (src/bpf/net.bpf.h: its 4-tuple, owner, bytes each way and duration; docs/FORMAT.md).  A
 * load-time setting of the channel, as the profile source: its programs (the
 * sock:inet_sock_set_state BTF tracepoint, the accept and accept4 exits) and its map are
 * loaded only then.  No per-process sets: a connection's events are written in softirq too,
 * where no process's set applies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session/session_int.h"
#include "session/source.h"

#define SPEC "net:connections"
#define EVENT "net_connection"

static bool claims(const char *spec)
{
	return !strcmp(spec, SPEC) || !strcmp(spec, EVENT);
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	int id;

	if (c->enabling_pid) {
		snprintf(err, errlen, "'%s' cannot be in a per-process event set", spec);
		return -ENOTSUP;
	}
	if (c->probes && c->net_conn_id == NO_EVENT) {
		snprintf(err, errlen, "'%s': connections are a load-time setting: enable them before the session "
			 "is loaded", spec);
		return -ENOTSUP;
	}
	id = channel_add_event(c, scry_catalog_builtin(c->s->cat, EVENT));
	if (id < 0)
		return id;
	c->net_conn_id = (uint16_t)id;
	(*matched)++;
	return 0;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	if (c->net_conn_id == NO_EVENT)
		return 0;
	if (c->probes) {
		snprintf(err, errlen, "'%s': connections are a load-time setting", spec);
		return -ENOTSUP;
	}
	c->net_conn_id = NO_EVENT;
	(*matched)++;
	return 0;
}

static int names(struct scry_channel *c, char ***out, size_t *n)
{
	char **v = calloc(1, sizeof(*v));

	if (!v || !(v[0] = strdup(SPEC))) {
		free(v);
		return -ENOMEM;
	}
	*out = v;
	*n = 1;
	return 0;
}

const struct scry_source scry_source_net = {
	.name = "net",
	.claims = claims,
	.enable = enable,
	.disable = disable,
	.names = names,
};
