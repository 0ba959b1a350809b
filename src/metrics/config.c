/* config.c — the metrics config (see config.h): the YAML document loaded by libyaml, walked
 * by the schema (each key known, each value checked, its line kept for the error: the walk's
 * helpers in config_int.h) from its root through the metrics lists to each metric's keys;
 * the config freed; what the kernel is given (scry_metrics_abi).  A metric's labels are
 * config_labels.c's, the tracing: section config_tracing.c's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <yaml.h>
#include "metrics/config.h"
#include "metrics/config_int.h"

#define CONFIG_MAX_BYTES (1u << 20)

static const char *value_names[] = { [SCRY_MV_COUNT] = "count", [SCRY_MV_RET] = "ret", [SCRY_MV_LATENCY] = "latency" };
static const char *when_names[] = { [SCRY_MW_ANY] = "any", [SCRY_MW_ERROR] = "error", [SCRY_MW_SUCCESS] = "success" };
static const char *event_names[] = { [SCRY_ME_SYSCALL] = "syscall", [SCRY_ME_RUNQUEUE] = "runqueue",
				     [SCRY_ME_OFFCPU] = "offcpu", [SCRY_ME_BLOCK_IO] = "block_io" };

static int pick(struct walk *w, yaml_node_t *vn, const char *sub, const char **names, size_t n, size_t first,
		const char *choices, int *out)
{
	const char *v;
	int ret = mcfg_want_scalar(w, vn, sub, &v);

	if (ret)
		return ret;
	for (size_t i = first; i < n; i++)
		if (names[i] && !strcmp(v, names[i])) {
			*out = (int)i;
			return 0;
		}
	return mcfg_fail(w, vn, sub, "'%s' is not one of %s", v, choices);
}

static int parse_syscalls(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric *m)
{
	int ret;

	if ((ret = mcfg_want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	if (!(m->syscalls = calloc(SCRY_MAX_SYSCALLS, 1))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	m->all_syscalls = false;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = mcfg_node(w, *it);
		const char *name;
		int nr;

		if ((ret = mcfg_want_scalar(w, e, path, &name)))
			return ret;
		nr = w->sn->nr(w->sn->ctx, name);
		if (nr < 0 || nr >= SCRY_MAX_SYSCALLS)
			return mcfg_fail(w, e, path, "unknown syscall '%s'", name);
		m->syscalls[nr] = 1;
	}
	if (n->data.sequence.items.top == n->data.sequence.items.start)
		return mcfg_fail(w, n, path, "an empty list (leave it out for every syscall)");
	return 0;
}

static int parse_metric(struct walk *w, yaml_node_t *n, const char *path, bool hist, struct scry_metric *m)
{
	char sub[320];
	bool have_min = false, have_max = false, have_width = false, have_type = false, have_mult = false;
	bool have_keys = false, have_value = false, have_when = false;
	uint64_t u;
	int ret, e = 0;

	m->desc.kind = hist ? SCRY_METRIC_HISTOGRAM : SCRY_METRIC_COUNTER;
	m->desc.value = hist ? SCRY_MV_LATENCY : SCRY_MV_COUNT;
	m->desc.when = SCRY_MW_ANY;
	m->desc.bucket_type = SCRY_HB_EXP2;
	m->max_entries = SCRY_METRIC_DEFAULT_MAX_ENTRIES;
	m->multiplier = 1;
	m->all_syscalls = true;
	memset(&m->bounds, 0xff, sizeof(m->bounds));
	if ((ret = mcfg_want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = mcfg_node(w, p->key), *vn = mcfg_node(w, p->value);
		const char *k = mcfg_scalar(kn), *v;

		if (!k)
			return mcfg_fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		if (!strcmp(k, "name")) {
			if ((ret = mcfg_want_scalar(w, vn, sub, &v)))
				return ret;
			if (!mcfg_valid_name(v, true))
				return mcfg_fail(w, vn, sub, "'%s' is not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", v);
			if (m->name)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = mcfg_dup_str(w, vn, sub, v, &m->name)))
				return ret;
		} else if (!strcmp(k, "help")) {
			if ((ret = mcfg_want_scalar(w, vn, sub, &v)))
				return ret;
			free(m->help);
			if ((ret = mcfg_dup_str(w, vn, sub, v, &m->help)))
				return ret;
		} else if (!strcmp(k, "value")) {
			if ((ret = pick(w, vn, sub, value_names, 4, 1, "count, ret, latency", &e)))
				return ret;
			m->desc.value = e;
			have_value = true;
		} else if (!strcmp(k, "event")) {
			if ((ret = pick(w, vn, sub, event_names, 4, 0, "syscall, runqueue, offcpu, block_io", &e)))
				return ret;
			m->desc.event = e;
		} else if (!strcmp(k, "when")) {
			if ((ret = pick(w, vn, sub, when_names, 3, 0, "any, error, success", &e)))
				return ret;
			m->desc.when = e;
			have_when = true;
		} else if (!strcmp(k, "syscalls")) {
			if (m->syscalls)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = parse_syscalls(w, vn, sub, m)))
				return ret;
		} else if (!strcmp(k, "max_entries")) {
			if ((ret = mcfg_want_uint(w, vn, sub, 1, SCRY_METRIC_MAX_MAX_ENTRIES, &u)))
				return ret;
			m->max_entries = (uint32_t)u;
		} else if (!strcmp(k, "labels")) {
			size_t cap;

			if (m->labels)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = mcfg_want_kind(w, vn, sub, YAML_SEQUENCE_NODE)))
				return ret;
			cap = vn->data.sequence.items.top - vn->data.sequence.items.start;
			if (cap > SCRY_METRIC_MAX_LABELS)
				return mcfg_fail(w, vn, sub, "more than %d labels", SCRY_METRIC_MAX_LABELS);
			if (!(m->labels = calloc(cap ? cap : 1, sizeof(*m->labels)))) {
				snprintf(w->err, w->errlen, "out of memory");
				return -ENOMEM;
			}
			for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
				yaml_node_t *ln = mcfg_node(w, *it);

				snprintf(sub, sizeof(sub), "%.200s.labels[%zu]", path, m->nlabels);
				ret = mconfig_parse_label(w, ln, sub, &m->labels[m->nlabels]);
				m->nlabels++;
				if (ret)
					return ret;
				for (size_t j = 0; j + 1 < m->nlabels; j++) {
					if (!strcmp(m->labels[j].name, m->labels[m->nlabels - 1].name))
						return mcfg_fail(w, ln, sub, "label '%s' given twice", m->labels[j].name);
					if (m->labels[j].source == m->labels[m->nlabels - 1].source)
						return mcfg_fail(w, ln, sub, "two labels of one source");
				}
				if (hist && !strcmp(m->labels[m->nlabels - 1].name, "le"))
					return mcfg_fail(w, ln, sub, "'le' is the bucket label of a histogram");
				m->desc.labels |= m->labels[m->nlabels - 1].source;
			}
		} else if (hist && !strcmp(k, "bucket_keys")) {
			size_t nk = 0;

			if (have_keys)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = mcfg_want_kind(w, vn, sub, YAML_SEQUENCE_NODE)))
				return ret;
			for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
				if (nk >= SCRY_HIST_BUCKETS)
					return mcfg_fail(w, vn, sub, "more than %d bucket keys", SCRY_HIST_BUCKETS);
				if ((ret = mcfg_want_uint(w, mcfg_node(w, *it), sub, 0, UINT64_MAX - 1, &u)))
					return ret;
				if (nk && u <= m->bounds.b[nk - 1])
					return mcfg_fail(w, mcfg_node(w, *it), sub, "bucket keys must ascend (%llu after %llu)",
						    (unsigned long long)u, (unsigned long long)m->bounds.b[nk - 1]);
				m->bounds.b[nk++] = u;
			}
			if (!nk)
				return mcfg_fail(w, vn, sub, "an empty list");
			m->desc.bucket_min = 0;
			m->desc.bucket_max = (uint32_t)nk - 1;
			have_keys = true;
		} else if (hist && !strcmp(k, "bucket_type")) {
			static const char *types[] = { [SCRY_HB_EXP2] = "exp2", [SCRY_HB_LINEAR] = "linear",
						       [SCRY_HB_FIXED] = "fixed" };

			if ((ret = pick(w, vn, sub, types, 4, 1, "exp2, linear, fixed", &e)))
				return ret;
			m->desc.bucket_type = e;
			have_type = true;
		} else if (hist && !strcmp(k, "bucket_min")) {
			if ((ret = mcfg_want_uint(w, vn, sub, 0, UINT32_MAX, &u)))
				return ret;
			m->desc.bucket_min = (uint32_t)u;
			have_min = true;
		} else if (hist && !strcmp(k, "bucket_max")) {
			if ((ret = mcfg_want_uint(w, vn, sub, 0, UINT32_MAX, &u)))
				return ret;
			m->desc.bucket_max = (uint32_t)u;
			have_max = true;
		} else if (hist && !strcmp(k, "bucket_width")) {
			if ((ret = mcfg_want_uint(w, vn, sub, 1, UINT64_MAX, &u)))
				return ret;
			m->desc.bucket_width = u;
			have_width = true;
		} else if (hist && !strcmp(k, "bucket_multiplier")) {
			char *end;

			if ((ret = mcfg_want_scalar(w, vn, sub, &v)))
				return ret;
			m->multiplier = strtod(v, &end);
			if (!*v || *end || !isfinite(m->multiplier) || m->multiplier <= 0)
				return mcfg_fail(w, vn, sub, "'%s' is not a positive number", v);
			have_mult = true;
		} else {
			return mcfg_fail(w, kn, sub, hist ? "unknown key (name, help, event, value, when, syscalls, max_entries, labels, "
						       "bucket_type, bucket_min, bucket_max, bucket_width, bucket_keys, bucket_multiplier)" :
						       "unknown key (name, help, event, value, when, syscalls, max_entries, labels)");
		}
	}
	(void)have_mult;
	if (!m->name)
		return mcfg_fail(w, n, path, "a metric needs a name");
	if (!m->help && (ret = mcfg_dup_str(w, n, path, m->name, &m->help)))
		return ret;
	if (hist && m->desc.bucket_type == SCRY_HB_FIXED) {
		if (!have_keys)
			return mcfg_fail(w, n, path, "fixed buckets need bucket_keys");
		if (have_min || have_max || have_width)
			return mcfg_fail(w, n, path, "fixed buckets take bucket_keys, not bucket_min/bucket_max/bucket_width");
	} else if (hist) {
		if (have_keys)
			return mcfg_fail(w, n, path, "bucket_keys are for bucket_type: fixed");
		if (!have_min || !have_max)
			return mcfg_fail(w, n, path, "histogram '%s' needs bucket_min and bucket_max", m->name);
		if (m->desc.bucket_max < m->desc.bucket_min || m->desc.bucket_max - m->desc.bucket_min >= SCRY_HIST_BUCKETS)
			return mcfg_fail(w, n, path, "bucket_min..bucket_max must hold 1 to %d buckets", SCRY_HIST_BUCKETS);
		if (m->desc.bucket_type == SCRY_HB_EXP2 && m->desc.bucket_max > 63)
			return mcfg_fail(w, n, path, "exp2 buckets end at 63 (2^63)");
		if (m->desc.bucket_type == SCRY_HB_LINEAR && !have_width)
			return mcfg_fail(w, n, path, "linear buckets need bucket_width");
		if (m->desc.bucket_type != SCRY_HB_LINEAR && have_width)
			return mcfg_fail(w, n, path, "bucket_width is for linear buckets");
		if (m->desc.bucket_type == SCRY_HB_LINEAR &&
		    (double)m->desc.bucket_max * (double)m->desc.bucket_width > 1.8e19)
			return mcfg_fail(w, n, path, "bucket_max * bucket_width exceeds 2^64");
		(void)have_type;
	}
	if (m->desc.event != SCRY_ME_SYSCALL) {
		const char *ev = event_names[m->desc.event];

		if (m->syscalls)
			return mcfg_fail(w, n, path, "syscalls: is for syscall metrics, not %s", ev);
		if (have_when)
			return mcfg_fail(w, n, path, "when: is for syscall metrics, not %s", ev);
		if (m->desc.value == SCRY_MV_RET)
			return mcfg_fail(w, n, path, "value ret is for syscall metrics: %s counts (count) or times (latency)", ev);
		if (m->desc.labels & (SCRY_ML_SYSCALL | SCRY_ML_ERRNO))
			return mcfg_fail(w, n, path, "syscall and errno labels are for syscall metrics, not %s", ev);
		if ((m->desc.labels & SCRY_ML_DEV) && m->desc.event != SCRY_ME_BLOCK_IO)
			return mcfg_fail(w, n, path, "the dev label is for block_io metrics");
		if (m->desc.labels & SCRY_ML_ADDR)
			return mcfg_fail(w, n, path, "the addr label is for syscall metrics");
		if ((m->desc.labels & SCRY_ML_WCHAN) && m->desc.event != SCRY_ME_OFFCPU)
			return mcfg_fail(w, n, path, "the wchan label is for offcpu metrics");
		(void)have_value;
	} else if (m->desc.labels & SCRY_ML_DEV) {
		return mcfg_fail(w, n, path, "the dev label is for block_io metrics");
	} else if (m->desc.labels & SCRY_ML_WCHAN) {
		return mcfg_fail(w, n, path, "the wchan label is for offcpu metrics");
	}
	if (m->desc.value == SCRY_MV_RET && m->desc.when == SCRY_MW_ERROR)
		return mcfg_fail(w, n, path, "value ret counts successful calls only: when: error gives nothing");
	/* Keyed by the syscall alone (or nothing): a per-CPU array, one slot per syscall number,
	 * when every syscall fits in max_entries, a series exists only once it has a nonzero
	 * value (not ret: a 0-byte read would add 0), and, for histograms, the array's per-CPU
	 * copies stay under 32 MiB. */
	if (m->desc.event == SCRY_ME_SYSCALL && !(m->desc.labels & ~(uint32_t)SCRY_ML_SYSCALL) &&
	    m->desc.value != SCRY_MV_RET && (!m->desc.labels || m->max_entries >= SCRY_MAX_SYSCALLS) &&
	    (!hist || (uint64_t)get_nprocs_conf() * SCRY_MAX_SYSCALLS * sizeof(struct scry_metric_hist) <= (32u << 20)))
		m->desc.dense = 1;
	m->desc.wide = (m->desc.labels & (SCRY_ML_CGROUP | SCRY_ML_ADDR | SCRY_ML_WCHAN)) != 0;
	if ((m->desc.labels & SCRY_ML_ERRNO) && m->desc.when == SCRY_MW_SUCCESS)
		return mcfg_fail(w, n, path, "an errno label on successful calls only is always 0");
	return 0;
}

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
		if ((ret = parse_metric(w, mn, sub, hist, m)))
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
