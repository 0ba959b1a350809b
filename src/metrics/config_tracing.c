/* config_tracing.c — the metrics config's tracing: section (see config.h): the spans asked
 * for (process spans, the kernel's syscall, block_io and sched_wait spans with their minimum
 * duration), the parent probe that marks a thread with its span (usdt or uprobe), and the
 * kernel spans' descriptors, after the metrics. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "metrics/config.h"
#include "metrics/config_int.h"

/* tracing: parent: {usdt: PATH:PROVIDER:NAME} or {uprobe: PATH:FUNCTION} */
static int parse_parent(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c)
{
	const char *k, *v, *colon, *colon2;
	yaml_node_t *kn;
	int ret;

	if ((ret = mcfg_want_kind(w, n, "tracing.parent", YAML_MAPPING_NODE)))
		return ret;
	if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1)
		return mcfg_fail(w, n, "tracing.parent", "expected one key: usdt: PATH:PROVIDER:NAME or uprobe: PATH:FUNCTION");
	kn = mcfg_node(w, n->data.mapping.pairs.start->key);
	k = mcfg_scalar(kn);
	if (!k || (strcmp(k, "usdt") && strcmp(k, "uprobe")))
		return mcfg_fail(w, kn, "tracing.parent", "unknown key (usdt, uprobe)");
	if ((ret = mcfg_want_scalar(w, mcfg_node(w, n->data.mapping.pairs.start->value), "tracing.parent", &v)))
		return ret;
	colon = strrchr(v, ':');
	colon2 = colon && !strcmp(k, "usdt") ? memrchr(v, ':', (size_t)(colon - v)) : colon;
	if (!colon2 || colon2 == v || !colon[1] || colon2 + 1 == colon)
		return mcfg_fail(w, kn, "tracing.parent", "'%.100s': expected %s", v,
			    strcmp(k, "usdt") ? "PATH:FUNCTION" : "PATH:PROVIDER:NAME");
	if (!(c->parent_path = strndup(v, (size_t)(colon2 - v))) || !(c->parent_name = strdup(colon + 1)) ||
	    (colon2 != colon && !(c->parent_provider = strndup(colon2 + 1, (size_t)(colon - colon2 - 1))))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* tracing: spans: [{name: process}], parent: */
int mconfig_parse_tracing(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c)
{
	int ret;

	if ((ret = mcfg_want_kind(w, n, "tracing", YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = mcfg_node(w, p->key), *vn = mcfg_node(w, p->value);
		const char *k = mcfg_scalar(kn);

		if (k && !strcmp(k, "parent")) {
			if (c->parent_path)
				return mcfg_fail(w, kn, "tracing.parent", "given twice");
			if ((ret = parse_parent(w, vn, c)))
				return ret;
			continue;
		}
		if (!k || strcmp(k, "spans"))
			return mcfg_fail(w, kn, "tracing", "unknown key (spans, parent)");
		if ((ret = mcfg_want_kind(w, vn, "tracing.spans", YAML_SEQUENCE_NODE)))
			return ret;
		for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
			yaml_node_t *sn = mcfg_node(w, *it);
			char sub[64];
			const char *name = NULL;

			snprintf(sub, sizeof(sub), "tracing.spans[%d]", (int)(it - vn->data.sequence.items.start));
			if ((ret = mcfg_want_kind(w, sn, sub, YAML_MAPPING_NODE)))
				return ret;
			uint64_t min_us = UINT64_MAX;
			yaml_node_t *min_node = NULL;

			for (yaml_node_pair_t *q = sn->data.mapping.pairs.start; q < sn->data.mapping.pairs.top; q++) {
				const char *sk = mcfg_scalar(mcfg_node(w, q->key));

				if (sk && !strcmp(sk, "min_duration_us")) {
					if ((ret = mcfg_want_uint(w, mcfg_node(w, q->value), sub, 0, UINT64_MAX / 1000, &min_us)))
						return ret;
					min_node = mcfg_node(w, q->key);
					continue;
				}
				if (!sk || strcmp(sk, "name"))
					return mcfg_fail(w, mcfg_node(w, q->key), sub, "unknown key (name, min_duration_us)");
				if ((ret = mcfg_want_scalar(w, mcfg_node(w, q->value), sub, &name)))
					return ret;
			}
			if (!name)
				return mcfg_fail(w, sn, sub, "a span needs a name (process, syscall, block_io, sched_wait)");
			if (!strcmp(name, "process")) {
				if (min_node)
					return mcfg_fail(w, min_node, sub, "min_duration_us is for syscall, block_io and sched_wait spans");
				if (c->process_spans)
					return mcfg_fail(w, sn, sub, "process spans given twice");
				c->process_spans = true;
				continue;
			}
			int ev = !strcmp(name, "syscall") ? SCRY_ME_SYSCALL : !strcmp(name, "block_io") ? SCRY_ME_BLOCK_IO :
				 !strcmp(name, "sched_wait") ? SCRY_ME_RUNQUEUE : -1;
			if (ev < 0)
				return mcfg_fail(w, sn, sub, "unknown span '%.60s' (process, syscall, block_io, sched_wait)", name);
			for (size_t j = 0; j < c->nkspans; j++)
				if (c->kspans[j].event == ev)
					return mcfg_fail(w, sn, sub, "%s spans given twice", name);
			if (min_us == UINT64_MAX)    /* syscalls and waits: 1 ms unless told; every request */
				min_us = ev == SCRY_ME_BLOCK_IO ? 0 : 1000;
			c->kspans[c->nkspans].event = (uint8_t)ev;
			c->kspans[c->nkspans].min_ns = min_us * 1000;
			c->nkspans++;
		}
	}
	return 0;
}

/* The kernel spans as descriptors after the metrics (metrics[nmetrics..nmetrics+nspans)). */
int mconfig_add_kspans(struct walk *w, struct scry_metrics_config *c)
{
	static const char *const names[] = { [SCRY_ME_SYSCALL] = "scry_spans_syscall",
					     [SCRY_ME_RUNQUEUE] = "scry_spans_sched_wait",
					     [SCRY_ME_BLOCK_IO] = "scry_spans_block_io" };

	for (size_t j = 0; j < c->nkspans; j++) {
		struct scry_metric *m;

		if (c->nmetrics + c->nspans >= SCRY_METRICS_MAX)
			return mcfg_fail(w, NULL, "tracing.spans", "more than %d metrics and kernel spans", SCRY_METRICS_MAX);
		m = &c->metrics[c->nmetrics + c->nspans++];
		if (!(m->name = strdup(names[c->kspans[j].event])) || !(m->help = strdup(m->name))) {
			snprintf(w->err, w->errlen, "out of memory");
			return -ENOMEM;
		}
		m->desc.kind = SCRY_METRIC_SPAN;
		m->desc.value = SCRY_MV_LATENCY;
		m->desc.event = c->kspans[j].event;
		m->desc.labels = SCRY_ML_PID | SCRY_ML_TID | SCRY_ML_COMM;
		m->desc.span_min_ns = c->kspans[j].min_ns;
		m->all_syscalls = true;
		m->max_entries = 1;
	}
	return 0;
}
