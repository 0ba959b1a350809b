/* config_metric.c — one metric of the metrics config (see config_int.h): its keys as one
 * table (name, whether only histograms take it, the function that reads its value into the
 * metric), walked by mconfig_parse_metric, which then checks the keys against each other (a
 * histogram's buckets, what each event allows) and chooses the kernel's layout (dense, wide). */
#include <math.h>
#include <sys/sysinfo.h>
#include "metrics/config_int.h"

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

/* A metric being read: the walk, where it is, the metric, and which keys were given. */
struct mparse {
	struct walk *w;
	const char *path;
	bool hist;
	struct scry_metric *m;
	bool have_min, have_max, have_width, have_keys, have_when;
};

static int key_name(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	const char *v;
	int ret;

	if ((ret = mcfg_want_scalar(p->w, vn, sub, &v)))
		return ret;
	if (!mcfg_valid_name(v, true))
		return mcfg_fail(p->w, vn, sub, "'%s' is not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", v);
	if (p->m->name)
		return mcfg_fail(p->w, kn, sub, "given twice");
	return mcfg_dup_str(p->w, vn, sub, v, &p->m->name);
}

static int key_help(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	const char *v;
	int ret;

	if ((ret = mcfg_want_scalar(p->w, vn, sub, &v)))
		return ret;
	free(p->m->help);
	p->m->help = NULL;
	return mcfg_dup_str(p->w, vn, sub, v, &p->m->help);
}

static int key_event(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	int e = 0, ret = pick(p->w, vn, sub, event_names, 4, 0, "syscall, runqueue, offcpu, block_io", &e);

	if (!ret)
		p->m->desc.event = e;
	return ret;
}

static int key_value(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	int e = 0, ret = pick(p->w, vn, sub, value_names, 4, 1, "count, ret, latency", &e);

	if (!ret)
		p->m->desc.value = e;
	return ret;
}

static int key_when(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	int e = 0, ret = pick(p->w, vn, sub, when_names, 3, 0, "any, error, success", &e);

	if (!ret) {
		p->m->desc.when = e;
		p->have_when = true;
	}
	return ret;
}

static int key_syscalls(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	if (p->m->syscalls)
		return mcfg_fail(p->w, kn, sub, "given twice");
	return parse_syscalls(p->w, vn, sub, p->m);
}

static int key_max_entries(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	uint64_t u;
	int ret = mcfg_want_uint(p->w, vn, sub, 1, SCRY_METRIC_MAX_MAX_ENTRIES, &u);

	if (!ret)
		p->m->max_entries = (uint32_t)u;
	return ret;
}

static int key_labels(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	struct walk *w = p->w;
	struct scry_metric *m = p->m;
	char lsub[320];
	size_t cap;
	int ret;

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

		snprintf(lsub, sizeof(lsub), "%.200s.labels[%zu]", p->path, m->nlabels);
		ret = mconfig_parse_label(w, ln, lsub, &m->labels[m->nlabels]);
		m->nlabels++;
		if (ret)
			return ret;
		for (size_t j = 0; j + 1 < m->nlabels; j++) {
			if (!strcmp(m->labels[j].name, m->labels[m->nlabels - 1].name))
				return mcfg_fail(w, ln, lsub, "label '%s' given twice", m->labels[j].name);
			if (m->labels[j].source == m->labels[m->nlabels - 1].source)
				return mcfg_fail(w, ln, lsub, "two labels of one source");
		}
		if (p->hist && !strcmp(m->labels[m->nlabels - 1].name, "le"))
			return mcfg_fail(w, ln, lsub, "'le' is the bucket label of a histogram");
		m->desc.labels |= m->labels[m->nlabels - 1].source;
	}
	return 0;
}

static int key_bucket_type(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	static const char *types[] = { [SCRY_HB_EXP2] = "exp2", [SCRY_HB_LINEAR] = "linear", [SCRY_HB_FIXED] = "fixed" };
	int e = 0, ret = pick(p->w, vn, sub, types, 4, 1, "exp2, linear, fixed", &e);

	if (!ret)
		p->m->desc.bucket_type = e;
	return ret;
}

static int key_bucket_min(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	uint64_t u;
	int ret = mcfg_want_uint(p->w, vn, sub, 0, UINT32_MAX, &u);

	if (!ret) {
		p->m->desc.bucket_min = (uint32_t)u;
		p->have_min = true;
	}
	return ret;
}

static int key_bucket_max(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	uint64_t u;
	int ret = mcfg_want_uint(p->w, vn, sub, 0, UINT32_MAX, &u);

	if (!ret) {
		p->m->desc.bucket_max = (uint32_t)u;
		p->have_max = true;
	}
	return ret;
}

static int key_bucket_width(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	uint64_t u;
	int ret = mcfg_want_uint(p->w, vn, sub, 1, UINT64_MAX, &u);

	if (!ret) {
		p->m->desc.bucket_width = u;
		p->have_width = true;
	}
	return ret;
}

static int key_bucket_keys(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	struct walk *w = p->w;
	struct scry_metric *m = p->m;
	size_t nk = 0;
	uint64_t u;
	int ret;

	if (p->have_keys)
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
	p->have_keys = true;
	return 0;
}

static int key_bucket_multiplier(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub)
{
	const char *v;
	char *end;
	int ret;

	if ((ret = mcfg_want_scalar(p->w, vn, sub, &v)))
		return ret;
	p->m->multiplier = strtod(v, &end);
	if (!*v || *end || !isfinite(p->m->multiplier) || p->m->multiplier <= 0)
		return mcfg_fail(p->w, vn, sub, "'%s' is not a positive number", v);
	return 0;
}

/* A metric's keys, in the order the unknown-key message lists them. */
static const struct metric_key {
	const char *name;
	bool hist_only;
	int (*read)(struct mparse *p, yaml_node_t *kn, yaml_node_t *vn, const char *sub);
} metric_keys[] = {
	{ "name", false, key_name },
	{ "help", false, key_help },
	{ "event", false, key_event },
	{ "value", false, key_value },
	{ "when", false, key_when },
	{ "syscalls", false, key_syscalls },
	{ "max_entries", false, key_max_entries },
	{ "labels", false, key_labels },
	{ "bucket_type", true, key_bucket_type },
	{ "bucket_min", true, key_bucket_min },
	{ "bucket_max", true, key_bucket_max },
	{ "bucket_width", true, key_bucket_width },
	{ "bucket_keys", true, key_bucket_keys },
	{ "bucket_multiplier", true, key_bucket_multiplier },
};

static int unknown_key(struct mparse *p, yaml_node_t *kn, const char *sub)
{
	char list[256];
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < sizeof(metric_keys) / sizeof(metric_keys[0]); i++)
		if (p->hist || !metric_keys[i].hist_only)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
						metric_keys[i].name);
	return mcfg_fail(p->w, kn, sub, "unknown key (%s)", list);
}

/* The keys given, against each other and the metric's event; then the kernel's layout. */
static int metric_check(struct mparse *p, yaml_node_t *n)
{
	struct walk *w = p->w;
	const char *path = p->path;
	struct scry_metric *m = p->m;
	int ret;

	if (!m->name)
		return mcfg_fail(w, n, path, "a metric needs a name");
	if (!m->help && (ret = mcfg_dup_str(w, n, path, m->name, &m->help)))
		return ret;
	if (p->hist && m->desc.bucket_type == SCRY_HB_FIXED) {
		if (!p->have_keys)
			return mcfg_fail(w, n, path, "fixed buckets need bucket_keys");
		if (p->have_min || p->have_max || p->have_width)
			return mcfg_fail(w, n, path, "fixed buckets take bucket_keys, not bucket_min/bucket_max/bucket_width");
	} else if (p->hist) {
		if (p->have_keys)
			return mcfg_fail(w, n, path, "bucket_keys are for bucket_type: fixed");
		if (!p->have_min || !p->have_max)
			return mcfg_fail(w, n, path, "histogram '%s' needs bucket_min and bucket_max", m->name);
		if (m->desc.bucket_max < m->desc.bucket_min || m->desc.bucket_max - m->desc.bucket_min >= SCRY_HIST_BUCKETS)
			return mcfg_fail(w, n, path, "bucket_min..bucket_max must hold 1 to %d buckets", SCRY_HIST_BUCKETS);
		if (m->desc.bucket_type == SCRY_HB_EXP2 && m->desc.bucket_max > 63)
			return mcfg_fail(w, n, path, "exp2 buckets end at 63 (2^63)");
		if (m->desc.bucket_type == SCRY_HB_LINEAR && !p->have_width)
			return mcfg_fail(w, n, path, "linear buckets need bucket_width");
		if (m->desc.bucket_type != SCRY_HB_LINEAR && p->have_width)
			return mcfg_fail(w, n, path, "bucket_width is for linear buckets");
		if (m->desc.bucket_type == SCRY_HB_LINEAR &&
		    (double)m->desc.bucket_max * (double)m->desc.bucket_width > 1.8e19)
			return mcfg_fail(w, n, path, "bucket_max * bucket_width exceeds 2^64");
	}
	if (m->desc.event != SCRY_ME_SYSCALL) {
		const char *ev = event_names[m->desc.event];

		if (m->syscalls)
			return mcfg_fail(w, n, path, "syscalls: is for syscall metrics, not %s", ev);
		if (p->have_when)
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
	    (!p->hist || (uint64_t)get_nprocs_conf() * SCRY_MAX_SYSCALLS * sizeof(struct scry_metric_hist) <= (32u << 20)))
		m->desc.dense = 1;
	m->desc.wide = (m->desc.labels & (SCRY_ML_CGROUP | SCRY_ML_ADDR | SCRY_ML_WCHAN)) != 0;
	if ((m->desc.labels & SCRY_ML_ERRNO) && m->desc.when == SCRY_MW_SUCCESS)
		return mcfg_fail(w, n, path, "an errno label on successful calls only is always 0");
	return 0;
}
int mconfig_parse_metric(struct walk *w, yaml_node_t *n, const char *path, bool hist, struct scry_metric *m)
{
	struct mparse p = { .w = w, .path = path, .hist = hist, .m = m };
	char sub[320];
	int ret;

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
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = mcfg_node(w, pr->key), *vn = mcfg_node(w, pr->value);
		const char *k = mcfg_scalar(kn);
		size_t i = 0;

		if (!k)
			return mcfg_fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		while (i < sizeof(metric_keys) / sizeof(metric_keys[0]) &&
		       (strcmp(metric_keys[i].name, k) || (metric_keys[i].hist_only && !hist)))
			i++;
		if (i == sizeof(metric_keys) / sizeof(metric_keys[0]))
			return unknown_key(&p, kn, sub);
		if ((ret = metric_keys[i].read(&p, kn, vn, sub)))
			return ret;
	}
	return metric_check(&p, n);
}
