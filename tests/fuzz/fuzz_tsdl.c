/* fuzz_tsdl.c — libFuzzer target: metadata bytes (plain or packetized TSDL) through
 * tsdl_unpacketize, tsdl_parse and, when they parse, plan compilation of every scope; then
 * as `scry view` loads a trace (view_trace_load) and, when it loads, its JSON Schema
 * (json_schema_write, `scry view --json-schema`) written to /dev/null. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "view/output.h"
#include "view/plan.h"
#include "view/reader.h"
#include "view/tsdl.h"

static void compile_all(struct ctf_metadata *m)
{
	char err[256];
	struct plan ph, pc, eh, ec, ctx, fields;
	struct plan_ctx c = { .arena = &m->arena, .trace_bo = m->bo, .err = err, .errlen = sizeof(err) };
	if (plan_compile(&c, m->packet_header, SCOPE_PACKET_HEADER, &ph))
		return;
	for (size_t s = 0; s < m->nstreams; s++) {
		c.nscopes = 0;
		c.nregs = 0;
		c.scopes[c.nscopes++] = &ph;
		if (plan_compile(&c, m->streams[s].packet_context, SCOPE_PACKET_CONTEXT, &pc))
			continue;
		c.scopes[c.nscopes++] = &pc;
		if (!plan_compile(&c, m->streams[s].event_header, SCOPE_EVENT_HEADER, &eh)) {
			c.scopes[c.nscopes++] = &eh;
			if (!plan_compile(&c, m->streams[s].event_context, SCOPE_OTHER, &ec)) {
				c.scopes[c.nscopes++] = &ec;
				int base = c.nscopes;
				for (size_t e = 0; e < m->nevents; e++) {
					c.nscopes = base;
					if (plan_compile(&c, m->events[e].context, SCOPE_OTHER, &ctx))
						continue;
					c.scopes[c.nscopes++] = &ctx;
					if (!plan_compile(&c, m->events[e].fields, SCOPE_OTHER, &fields))
						plan_free(&fields);
					plan_free(&ctx);
				}
				plan_free(&ec);
			}
			plan_free(&eh);
		}
		plan_free(&pc);
	}
	plan_free(&ph);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	size_t len;
	char *text = tsdl_unpacketize(data, size, &len, err, sizeof(err));
	if (!text)
		return 0;
	struct ctf_metadata *m = tsdl_parse(text, len, err, sizeof(err));
	if (m) {
		compile_all(m);
		tsdl_free(m);
	}
	free(text);

	static FILE *null;
	struct view_trace t;
	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	if (!view_trace_load(&t, "fuzz", data, size, err, sizeof(err))) {
		struct view v = { .traces = &t, .ntraces = 1 };
		json_schema_write(&v, null, err, sizeof(err));
	}
	view_trace_free(&t);
	return 0;
}
