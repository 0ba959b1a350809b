/* config.c — the metrics config (see config.h): the YAML document loaded by libyaml, walked
 * by the schema (each key known, each value checked, its line kept for the error: the walk's
 * helpers in config_int.h) from its root through the metrics lists to each metric; the
 * config freed; what the kernel is given (scry_metrics_abi).  A metric's keys are
 * config_metric.c's, its labels config_labels.c's, the tracing: section config_tracing.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "metrics/config.h"
#include "metrics/config_int.h"

#define CONFIG_MAX_BYTES (1u << 20)

static int parse_list(struct walk *w, yaml_node_t *n, const char *path, bool hist, struct scry_metrics_config *c)
{
	char sub[320];
	int ret;

	if ((ret = mcfg_want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *mn = mcfg_node(w, *it);
		struct scry_metric *m;
		size_t idx = (size_t)(it - n->data.sequence.items.start);

		snprintf(sub, sizeof(sub), "%.200s[%zu]", path, idx);
		if (c->nmetrics >= SCRY_METRICS_MAX)
			return mcfg_fail(w, mn, sub, "more than %d metrics", SCRY_METRICS_MAX);
		m = &c->metrics[c->nmetrics++];
		if ((ret = mconfig_parse_metric(w, mn, sub, hist, m)))
			return ret;
		for (size_t j = 0; j + 1 < c->nmetrics; j++)
			if (!strcmp(c->metrics[j].name, m->name))
				return mcfg_fail(w, mn, sub, "metric '%s' defined twice", m->name);
	}
	return 0;
}

static int parse_root(struct walk *w, yaml_node_t *root, struct scry_metrics_config *c)
{
	yaml_node_t *metrics = NULL, *tracing = NULL;
	int ret;

	if (!root)
		return mcfg_fail(w, NULL, "metrics", "the file is empty");
	if ((ret = mcfg_want_kind(w, root, "(top)", YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = mcfg_node(w, p->key);
		const char *k = mcfg_scalar(kn);

		if (!k)
			return mcfg_fail(w, kn, "(top)", "a key must be a plain value");
		if (strcmp(k, "metrics") && strcmp(k, "tracing"))
			return mcfg_fail(w, kn, k, "unknown key (metrics, tracing)");
		if (!strcmp(k, "tracing")) {
			if (tracing)
				return mcfg_fail(w, kn, k, "given twice");
			tracing = mcfg_node(w, p->value);
			continue;
		}
		if (metrics)
			return mcfg_fail(w, kn, k, "given twice");
		metrics = mcfg_node(w, p->value);
	}
	if (tracing && (ret = mconfig_parse_tracing(w, tracing, c)))
		return ret;
	if (c->parent_path && !c->nkspans)
		return mcfg_fail(w, tracing, "tracing.parent", "needs kernel spans (syscall, block_io or sched_wait)");
	if (!metrics && !c->process_spans && !c->nkspans)
		return mcfg_fail(w, root, "metrics", "missing (and no tracing: spans:)");
	if (!metrics)
		return mconfig_add_kspans(w, c);
	if ((ret = mcfg_want_kind(w, metrics, "metrics", YAML_MAPPING_NODE)))
		return ret;
	bool seen[2] = { false, false };
	for (yaml_node_pair_t *p = metrics->data.mapping.pairs.start; p < metrics->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = mcfg_node(w, p->key);
		const char *k = mcfg_scalar(kn);
		char sub[64];
		bool hist;

		if (!k)
			return mcfg_fail(w, kn, "metrics", "a key must be a plain value");
		snprintf(sub, sizeof(sub), "metrics.%.40s", k);
		if (strcmp(k, "counters") && strcmp(k, "histograms"))
			return mcfg_fail(w, kn, sub, "unknown key (counters, histograms)");
		hist = !strcmp(k, "histograms");
		if (seen[hist])
			return mcfg_fail(w, kn, sub, "given twice");
		seen[hist] = true;
		if ((ret = parse_list(w, mcfg_node(w, p->value), sub, hist, c)))
			return ret;
	}
	if (!c->nmetrics)
		return mcfg_fail(w, metrics, "metrics", "no counter nor histogram");
	return mconfig_add_kspans(w, c);
}

int scry_metrics_config_parse(const char *text, size_t len, const char *file, const struct scry_syscall_names *sn,
			      struct scry_metrics_config **out, char *err, size_t errlen)
{
	struct scry_metrics_config *c = calloc(1, sizeof(*c));
	yaml_parser_t parser;
	yaml_document_t doc;
	struct walk w = { .doc = &doc, .file = file, .sn = sn, .err = err, .errlen = errlen };
	int ret;

	*out = NULL;
	if (!c || !(c->file = strdup(file)) || !(c->metrics = calloc(SCRY_METRICS_MAX, sizeof(*c->metrics)))) {
		scry_metrics_config_free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (len > CONFIG_MAX_BYTES) {
		scry_metrics_config_free(c);
		snprintf(err, errlen, "%s: larger than %u bytes", file, CONFIG_MAX_BYTES);
		return -EINVAL;
	}
	if (!yaml_parser_initialize(&parser)) {
		scry_metrics_config_free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "%s:%zu: %s%s%s", file, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML", parser.context ? " " : "",
			 parser.context ? parser.context : "");
		for (char *p = err; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = '?';
		yaml_parser_delete(&parser);
		scry_metrics_config_free(c);
		return -EINVAL;
	}
	ret = parse_root(&w, yaml_document_get_root_node(&doc), c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (ret) {
		scry_metrics_config_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int scry_metrics_config_load(const char *path, const struct scry_syscall_names *sn,
			     struct scry_metrics_config **out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	int ret;

	*out = NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!(buf = malloc(CONFIG_MAX_BYTES + 1))) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = fread(buf, 1, CONFIG_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ret = -EIO;
	} else {
		ret = scry_metrics_config_parse(buf, n, path, sn, out, err, errlen);
	}
	fclose(f);
	free(buf);
	return ret;
}

void scry_metrics_config_free(struct scry_metrics_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; c->metrics && i < SCRY_METRICS_MAX; i++) {
		struct scry_metric *m = &c->metrics[i];

		for (size_t j = 0; j < m->nlabels; j++) {
			struct scry_metric_label *l = &m->labels[j];

			for (size_t k = 0; k < l->ndecoders; k++) {
				struct scry_decoder *d = &l->decoders[k];

				for (size_t e = 0; e < d->nmap; e++) {
					free(d->map_keys[e]);
					free(d->map_values[e]);
				}
				free(d->map_keys);
				free(d->map_values);
				for (size_t e = 0; e < d->nres; e++)
					regfree(&d->res[e]);
				free(d->res);
			}
			free(l->decoders);
			free(l->name);
		}
		free(m->labels);
		free(m->name);
		free(m->help);
		free(m->syscalls);
	}
	free(c->metrics);
	free(c->file);
	free(c->parent_path);
	free(c->parent_provider);
	free(c->parent_name);
	free(c);
}

void scry_metrics_abi(const struct scry_metrics_config *c, struct scry_metric_desc *descs, uint32_t *max_entries,
		      uint32_t *sc_masks, struct scry_metric_bounds *bounds)
{
	memset(sc_masks, 0, SCRY_MAX_SYSCALLS * sizeof(*sc_masks));
	for (size_t i = 0; i < c->nmetrics + c->nspans; i++) {
		descs[i] = c->metrics[i].desc;
		if (bounds)
			bounds[i] = c->metrics[i].bounds;
		max_entries[i] = c->metrics[i].max_entries;
		for (unsigned nr = 0; nr < SCRY_MAX_SYSCALLS && c->metrics[i].desc.event == SCRY_ME_SYSCALL; nr++)
			if (c->metrics[i].all_syscalls || c->metrics[i].syscalls[nr])
				sc_masks[nr] |= 1u << i;
	}
}
