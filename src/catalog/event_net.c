/* event_net.c — the net source's event, net_connection (a name lttng-modules does not use):
 * one finished TCP connection, as src/bpf/net.bpf.h writes it (NET_OFF_*): family (enum:
 * AF_INET, AF_INET6), direction (enum: passive, active), saddr, sport, daddr, dport (the
 * local side first; addresses as text), the owner's pid, tid and procname, bytes_sent (sent
 * and acknowledged), bytes_received, segs_out, segs_in, total_retrans, duration_ns. */
#include <stdlib.h>
#include <string.h>
#include "catalog/event.h"
#include "catalog/internal.h"

struct net_enum {
	const char *name;
	int64_t value;
};

static const struct net_enum families[] = { { "AF_INET", 2 }, { "AF_INET6", 10 } };
static const struct net_enum directions[] = { { "passive", SCRY_NET_PASSIVE }, { "active", SCRY_NET_ACTIVE } };

static struct scry_field *add_enum(struct builder *b, const char *name, uint8_t size, const struct net_enum *e,
				   unsigned n)
{
	struct scry_field *f = scry_event_add(b, name, SCRY_F_INT, size, false);

	if (!f || !(f->enums = calloc(n, sizeof(*f->enums))))
		return NULL;
	for (unsigned k = 0; k < n; k++) {
		if (!(f->enums[k].name = strdup(e[k].name)))
			return NULL;
		f->enums[k].value = e[k].value;
		f->nenums++;
	}
	return f;
}

struct scry_event *scry_event_net_connection(void)
{
	static const struct { const char *name; uint8_t size; bool is_signed; } tail[] = {
		{ "bytes_sent", 8, false }, { "bytes_received", 8, false }, { "segs_out", 4, false },
		{ "segs_in", 4, false }, { "total_retrans", 4, false }, { "duration_ns", 8, false },
	};
	struct builder b = { 0 };

	if (!(b.ev = scry_event_new("net_connection", "net", "connections", SCRY_EV_BUILTIN, -1)))
		return NULL;
	if (!add_enum(&b, "family", 2, families, 2) || !add_enum(&b, "direction", 1, directions, 2) ||
	    !scry_event_add_text(&b, "saddr", SCRY_NET_ADDR_LEN) || !scry_event_add(&b, "sport", SCRY_F_INT, 2, false) ||
	    !scry_event_add_text(&b, "daddr", SCRY_NET_ADDR_LEN) || !scry_event_add(&b, "dport", SCRY_F_INT, 2, false) ||
	    !scry_event_add(&b, "pid", SCRY_F_INT, 4, true) || !scry_event_add(&b, "tid", SCRY_F_INT, 4, true) ||
	    !scry_event_add_text(&b, "procname", SCRY_COMM_LEN))
		goto fail;
	for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		if (!scry_event_add(&b, tail[i].name, SCRY_F_INT, tail[i].size, tail[i].is_signed))
			goto fail;
	return b.ev;
fail:
	scry_event_free(b.ev);
	return NULL;
}
