/* config.c — the metrics config (see config.h): the YAML document loaded by libyaml, walked
 * by the schema (each key known, each value checked, its line kept for the error), then
 * what the kernel is given and the label decoders. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <yaml.h>
#include "format/format.h"
#include "metrics/config.h"
#include "metrics/sysnames.h"

#define CONFIG_MAX_BYTES (1u << 20)
#define DECODERS_MAX     8
#define STATIC_MAP_MAX   4096
#define REGEXPS_MAX      64

struct walk {
	yaml_document_t *doc;
	const char *file;
	const struct scry_syscall_names *sn;
	char *err;
	size_t errlen;
};

static int fail(struct walk *w, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(w->err, w->errlen, "%s:%zu: %s: %s", w->file, n ? n->start_mark.line + 1 : 1, path, msg);
	for (char *c = w->err; *c; c++)   /* one line, whatever the values quoted */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

static yaml_node_t *node(struct walk *w, int i)
{
	return yaml_document_get_node(w->doc, i);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A scalar's text (no NUL inside), or an error naming path. */
static int want_scalar(struct walk *w, const yaml_node_t *n, const char *path, const char **out)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return fail(w, n, path, "expected a value, not a %s",
			    n && n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return fail(w, n, path, "a NUL byte in the value");
	*out = (const char *)n->data.scalar.value;
	return 0;
}

static int want_uint(struct walk *w, const yaml_node_t *n, const char *path, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	const char *s;
	char *end;
	unsigned long long v;
	int ret = want_scalar(w, n, path, &s);

	if (ret)
		return ret;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max)
		return fail(w, n, path, "'%s' is not an integer from %" PRIu64 " to %" PRIu64, s, min, max);
	*out = v;
	return 0;
}

static int want_bool(struct walk *w, const yaml_node_t *n, const char *path, bool *out)
{
	const char *s;
	int ret = want_scalar(w, n, path, &s);

	if (ret)
		return ret;
	if (!strcmp(s, "true") || !strcmp(s, "yes"))
		*out = true;
	else if (!strcmp(s, "false") || !strcmp(s, "no"))
		*out = false;
	else
		return fail(w, n, path, "'%s' is not true or false", s);
	return 0;
}

static int want_kind(struct walk *w, const yaml_node_t *n, const char *path, yaml_node_type_t t)
{
	if (!n || n->type != t)
		return fail(w, n, path, "expected a %s", t == YAML_MAPPING_NODE ? "mapping" : "list");
	return 0;
}

static int dup_str(struct walk *w, const yaml_node_t *n, const char *path, const char *s, char **out)
{
	if (!(*out = strdup(s))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Prometheus names: metric [a-zA-Z_:][a-zA-Z0-9_:]*, label [a-zA-Z_][a-zA-Z0-9_]*. */
static bool valid_name(const char *s, bool metric)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9') || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (metric && *s == ':')))
			return false;
	return true;
}

static const struct { const char *name; uint32_t bit; enum scry_decoder_kind dec; } sources[] = {
	{ "syscall", SCRY_ML_SYSCALL, SCRY_DEC_SYSCALL },
	{ "errno", SCRY_ML_ERRNO, SCRY_DEC_ERRNO },
	{ "comm", SCRY_ML_COMM, SCRY_DEC_STRING },
	{ "pid", SCRY_ML_PID, SCRY_DEC_UINT },
	{ "tid", SCRY_ML_TID, SCRY_DEC_UINT },
	{ "uid", SCRY_ML_UID, SCRY_DEC_UINT },
	{ "dev", SCRY_ML_DEV, SCRY_DEC_MAJORMINOR },
	{ "cgroup", SCRY_ML_CGROUP, SCRY_DEC_CGROUP },
	{ "addr", SCRY_ML_ADDR, SCRY_DEC_INET_IP },
	{ "wchan", SCRY_ML_WCHAN, SCRY_DEC_KSYM },
};

#define SOURCE_NAMES "syscall, errno, comm, pid, tid, uid, dev, cgroup, addr, wchan"


static const struct { const char *name; enum scry_decoder_kind kind; } decoder_names[] = {
	{ "uint", SCRY_DEC_UINT }, { "string", SCRY_DEC_STRING }, { "syscall", SCRY_DEC_SYSCALL },
	{ "errno", SCRY_DEC_ERRNO }, { "static_map", SCRY_DEC_STATIC_MAP }, { "regexp", SCRY_DEC_REGEXP },
	{ "majorminor", SCRY_DEC_MAJORMINOR }, { "cgroup", SCRY_DEC_CGROUP }, { "ksym", SCRY_DEC_KSYM },
	{ "inet_ip", SCRY_DEC_INET_IP },
};

static int parse_static_map(struct walk *w, yaml_node_t *n, const char *path, struct scry_decoder *d)
{
	size_t cap;
	int ret;

	if ((ret = want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	cap = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (cap > STATIC_MAP_MAX)
		return fail(w, n, path, "more than %d entries", STATIC_MAP_MAX);
	d->map_keys = calloc(cap ? cap : 1, sizeof(char *));
	d->map_values = calloc(cap ? cap : 1, sizeof(char *));
	if (!d->map_keys || !d->map_values) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k, *v;

		if ((ret = want_scalar(w, node(w, p->key), path, &k)) ||
		    (ret = want_scalar(w, node(w, p->value), path, &v)))
			return ret;
		if ((ret = dup_str(w, n, path, k, &d->map_keys[d->nmap])))
			return ret;
		if ((ret = dup_str(w, n, path, v, &d->map_values[d->nmap]))) {
			free(d->map_keys[d->nmap]);
			return ret;
		}
		d->nmap++;
	}
	return 0;
}

/* glibc's regcomp takes exponential time on stacked quantifiers ("a+++++"): refused, as
 * are expressions longer than REGEXP_MAX_LEN. */
#define REGEXP_MAX_LEN 512

static bool regexp_tame(const char *re)
{
	bool after_quant = false, in_bracket = false;

	if (strlen(re) > REGEXP_MAX_LEN)
		return false;
	for (const char *c = re; *c; c++) {
		bool quant = false;

		if (*c == '\\' && c[1]) {
			c++;
		} else if (in_bracket) {
			if (*c == ']')
				in_bracket = false;
		} else if (*c == '[') {
			in_bracket = true;
			if (c[1] == '^')
				c++;
			if (c[1] == ']')
				c++;
		} else if (*c == '+' || *c == '*' || *c == '?' || *c == '{') {
			if (after_quant)
				return false;
			quant = true;
			if (*c == '{')
				while (c[1] && *c != '}')
					c++;
		}
		after_quant = quant;
	}
	return true;
}

static int parse_regexps(struct walk *w, yaml_node_t *n, const char *path, struct scry_decoder *d)
{
	size_t cap;
	int ret;

	if ((ret = want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	cap = n->data.sequence.items.top - n->data.sequence.items.start;
	if (!cap || cap > REGEXPS_MAX)
		return fail(w, n, path, "expected 1 to %d regular expressions", REGEXPS_MAX);
	if (!(d->res = calloc(cap, sizeof(regex_t)))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(w, *it);
		const char *re;
		int rc;

		if ((ret = want_scalar(w, e, path, &re)))
			return ret;
		if (!regexp_tame(re))
			return fail(w, e, path, "regular expression '%.60s' refused (stacked quantifiers, or longer than %d)",
				    re, REGEXP_MAX_LEN);
		if ((rc = regcomp(&d->res[d->nres], re, REG_EXTENDED | REG_NOSUB))) {
			char msg[128];

			regerror(rc, &d->res[d->nres], msg, sizeof(msg));
			return fail(w, e, path, "bad regular expression '%s': %s", re, msg);
		}
		d->nres++;
	}
	return 0;
}

static int parse_decoder(struct walk *w, yaml_node_t *n, const char *path, struct scry_decoder *d)
{
	char sub[320];
	bool have_name = false;
	int ret;

	if ((ret = want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key), *vn = node(w, p->value);
		const char *k = scalar(kn), *v;

		if (!k)
			return fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		if (!strcmp(k, "name")) {
			size_t i;

			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			for (i = 0; i < sizeof(decoder_names) / sizeof(decoder_names[0]); i++)
				if (!strcmp(v, decoder_names[i].name))
					break;
			if (i == sizeof(decoder_names) / sizeof(decoder_names[0]))
				return fail(w, vn, sub, "unknown decoder '%s' (uint, string, syscall, errno, static_map, regexp, "
					    "majorminor, cgroup, ksym, inet_ip)", v);
			d->kind = decoder_names[i].kind;
			have_name = true;
		} else if (!strcmp(k, "static_map")) {
			if (d->map_keys)
				return fail(w, kn, sub, "given twice");
			if ((ret = parse_static_map(w, vn, sub, d)))
				return ret;
		} else if (!strcmp(k, "regexps")) {
			if (d->res)
				return fail(w, kn, sub, "given twice");
			if ((ret = parse_regexps(w, vn, sub, d)))
				return ret;
		} else if (!strcmp(k, "allow_unknown")) {
			if ((ret = want_bool(w, vn, sub, &d->allow_unknown)))
				return ret;
		} else {
			return fail(w, kn, sub, "unknown key (name, static_map, regexps, allow_unknown)");
		}
	}
	if (!have_name)
		return fail(w, n, path, "a decoder needs a name");
	if (d->kind == SCRY_DEC_STATIC_MAP && !d->map_keys)
		return fail(w, n, path, "static_map decoder without its static_map");
	if (d->kind == SCRY_DEC_REGEXP && !d->res)
		return fail(w, n, path, "regexp decoder without its regexps");
	if (d->kind != SCRY_DEC_STATIC_MAP && d->map_keys)
		return fail(w, n, path, "static_map given to a decoder that is not static_map");
	if (d->kind != SCRY_DEC_REGEXP && d->res)
		return fail(w, n, path, "regexps given to a decoder that is not regexp");
	return 0;
}

/* The source's own decoder. */
static enum scry_decoder_kind sources_dec(uint32_t bit)
{
	for (size_t s = 0; s < sizeof(sources) / sizeof(sources[0]); s++)
		if (sources[s].bit == bit)
			return sources[s].dec;
	return SCRY_DEC_UINT;
}

static int parse_label(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric_label *l)
{
	char sub[320];
	yaml_node_t *decs = NULL, *decs_key = NULL;
	int ret;

	if ((ret = want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key), *vn = node(w, p->value);
		const char *k = scalar(kn), *v;

		if (!k)
			return fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		if (!strcmp(k, "name")) {
			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			if (!valid_name(v, false) || !strncmp(v, "__", 2))
				return fail(w, vn, sub, "'%s' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not __*)", v);
			if (l->name)
				return fail(w, kn, sub, "given twice");
			if ((ret = dup_str(w, vn, sub, v, &l->name)))
				return ret;
		} else if (!strcmp(k, "source")) {
			size_t i;

			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
				if (!strcmp(v, sources[i].name))
					break;
			if (i == sizeof(sources) / sizeof(sources[0]))
				return fail(w, vn, sub, "unknown source '%s' (" SOURCE_NAMES ")", v);
			l->source = sources[i].bit;
		} else if (!strcmp(k, "decoders")) {
			decs = vn;
			decs_key = kn;
		} else {
			return fail(w, kn, sub, "unknown key (name, source, decoders)");
		}
	}
	if (!l->name)
		return fail(w, n, path, "a label needs a name");
	if (!l->source)
		return fail(w, n, path, "label '%s' needs a source (" SOURCE_NAMES ")", l->name);
	if (decs) {
		size_t cap;

		snprintf(sub, sizeof(sub), "%.200s.decoders", path);
		if ((ret = want_kind(w, decs, sub, YAML_SEQUENCE_NODE)))
			return ret;
		cap = decs->data.sequence.items.top - decs->data.sequence.items.start;
		if (!cap || cap > DECODERS_MAX)
			return fail(w, decs_key, sub, "expected 1 to %d decoders", DECODERS_MAX);
		if (!(l->decoders = calloc(cap, sizeof(*l->decoders)))) {
			snprintf(w->err, w->errlen, "out of memory");
			return -ENOMEM;
		}
		for (yaml_node_item_t *it = decs->data.sequence.items.start; it < decs->data.sequence.items.top; it++) {
			snprintf(sub, sizeof(sub), "%.200s.decoders[%zu]", path, l->ndecoders);
			ret = parse_decoder(w, node(w, *it), sub, &l->decoders[l->ndecoders]);
			l->ndecoders++;
			if (ret)
				return ret;
		}
		/* the first decoder reads the raw value: a number or a string */
		enum scry_decoder_kind first = l->decoders[0].kind;
		if (first == SCRY_DEC_STATIC_MAP || first == SCRY_DEC_REGEXP) {
			/* it reads the source's default text */
		} else if (first == SCRY_DEC_MAJORMINOR && l->source != SCRY_ML_DEV) {
			return fail(w, decs, sub, "the majorminor decoder reads dev only");
		} else if (first == SCRY_DEC_CGROUP && l->source != SCRY_ML_CGROUP) {
			return fail(w, decs, sub, "the cgroup decoder reads cgroup only");
		} else if (first == SCRY_DEC_KSYM && l->source != SCRY_ML_WCHAN) {
			return fail(w, decs, sub, "the ksym decoder reads a kernel address: wchan only");
		} else if (first == SCRY_DEC_INET_IP && l->source != SCRY_ML_ADDR) {
			return fail(w, decs, sub, "the inet_ip decoder reads addr only");
		} else if ((l->source & (SCRY_ML_ADDR | SCRY_ML_WCHAN)) && first != sources_dec(l->source)) {
			return fail(w, decs, sub, "%s is decoded by %s first", l->source == SCRY_ML_ADDR ? "addr" : "wchan",
				    l->source == SCRY_ML_ADDR ? "inet_ip" : "ksym");
		} else if (first == SCRY_DEC_STRING && l->source != SCRY_ML_COMM) {
			return fail(w, decs, sub, "the string decoder reads comm only");
		} else if (first != SCRY_DEC_STRING && l->source == SCRY_ML_COMM) {
			return fail(w, decs, sub, "comm is a string: decode it with string, static_map or regexp");
		}
		for (size_t i = 1; i < l->ndecoders; i++)
			if (l->decoders[i].kind != SCRY_DEC_STATIC_MAP && l->decoders[i].kind != SCRY_DEC_REGEXP) {
				snprintf(sub, sizeof(sub), "%.200s.decoders[%zu]", path, i);
				return fail(w, decs, sub, "only static_map and regexp can follow the first decoder");
			}
	}
	return 0;
}

static const char *value_names[] = { [SCRY_MV_COUNT] = "count", [SCRY_MV_RET] = "ret", [SCRY_MV_LATENCY] = "latency" };
static const char *when_names[] = { [SCRY_MW_ANY] = "any", [SCRY_MW_ERROR] = "error", [SCRY_MW_SUCCESS] = "success" };
static const char *event_names[] = { [SCRY_ME_SYSCALL] = "syscall", [SCRY_ME_RUNQUEUE] = "runqueue",
				     [SCRY_ME_OFFCPU] = "offcpu", [SCRY_ME_BLOCK_IO] = "block_io" };

static int pick(struct walk *w, yaml_node_t *vn, const char *sub, const char **names, size_t n, size_t first,
		const char *choices, int *out)
{
	const char *v;
	int ret = want_scalar(w, vn, sub, &v);

	if (ret)
		return ret;
	for (size_t i = first; i < n; i++)
		if (names[i] && !strcmp(v, names[i])) {
			*out = (int)i;
			return 0;
		}
	return fail(w, vn, sub, "'%s' is not one of %s", v, choices);
}

static int parse_syscalls(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric *m)
{
	int ret;

	if ((ret = want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	if (!(m->syscalls = calloc(SCRY_MAX_SYSCALLS, 1))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	m->all_syscalls = false;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = node(w, *it);
		const char *name;
		int nr;

		if ((ret = want_scalar(w, e, path, &name)))
			return ret;
		nr = w->sn->nr(w->sn->ctx, name);
		if (nr < 0 || nr >= SCRY_MAX_SYSCALLS)
			return fail(w, e, path, "unknown syscall '%s'", name);
		m->syscalls[nr] = 1;
	}
	if (n->data.sequence.items.top == n->data.sequence.items.start)
		return fail(w, n, path, "an empty list (leave it out for every syscall)");
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
	if ((ret = want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key), *vn = node(w, p->value);
		const char *k = scalar(kn), *v;

		if (!k)
			return fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		if (!strcmp(k, "name")) {
			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			if (!valid_name(v, true))
				return fail(w, vn, sub, "'%s' is not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", v);
			if (m->name)
				return fail(w, kn, sub, "given twice");
			if ((ret = dup_str(w, vn, sub, v, &m->name)))
				return ret;
		} else if (!strcmp(k, "help")) {
			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			free(m->help);
			if ((ret = dup_str(w, vn, sub, v, &m->help)))
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
				return fail(w, kn, sub, "given twice");
			if ((ret = parse_syscalls(w, vn, sub, m)))
				return ret;
		} else if (!strcmp(k, "max_entries")) {
			if ((ret = want_uint(w, vn, sub, 1, SCRY_METRIC_MAX_MAX_ENTRIES, &u)))
				return ret;
			m->max_entries = (uint32_t)u;
		} else if (!strcmp(k, "labels")) {
			size_t cap;

			if (m->labels)
				return fail(w, kn, sub, "given twice");
			if ((ret = want_kind(w, vn, sub, YAML_SEQUENCE_NODE)))
				return ret;
			cap = vn->data.sequence.items.top - vn->data.sequence.items.start;
			if (cap > SCRY_METRIC_MAX_LABELS)
				return fail(w, vn, sub, "more than %d labels", SCRY_METRIC_MAX_LABELS);
			if (!(m->labels = calloc(cap ? cap : 1, sizeof(*m->labels)))) {
				snprintf(w->err, w->errlen, "out of memory");
				return -ENOMEM;
			}
			for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
				yaml_node_t *ln = node(w, *it);

				snprintf(sub, sizeof(sub), "%.200s.labels[%zu]", path, m->nlabels);
				ret = parse_label(w, ln, sub, &m->labels[m->nlabels]);
				m->nlabels++;
				if (ret)
					return ret;
				for (size_t j = 0; j + 1 < m->nlabels; j++) {
					if (!strcmp(m->labels[j].name, m->labels[m->nlabels - 1].name))
						return fail(w, ln, sub, "label '%s' given twice", m->labels[j].name);
					if (m->labels[j].source == m->labels[m->nlabels - 1].source)
						return fail(w, ln, sub, "two labels of one source");
				}
				if (hist && !strcmp(m->labels[m->nlabels - 1].name, "le"))
					return fail(w, ln, sub, "'le' is the bucket label of a histogram");
				m->desc.labels |= m->labels[m->nlabels - 1].source;
			}
		} else if (hist && !strcmp(k, "bucket_keys")) {
			size_t nk = 0;

			if (have_keys)
				return fail(w, kn, sub, "given twice");
			if ((ret = want_kind(w, vn, sub, YAML_SEQUENCE_NODE)))
				return ret;
			for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
				if (nk >= SCRY_HIST_BUCKETS)
					return fail(w, vn, sub, "more than %d bucket keys", SCRY_HIST_BUCKETS);
				if ((ret = want_uint(w, node(w, *it), sub, 0, UINT64_MAX - 1, &u)))
					return ret;
				if (nk && u <= m->bounds.b[nk - 1])
					return fail(w, node(w, *it), sub, "bucket keys must ascend (%llu after %llu)",
						    (unsigned long long)u, (unsigned long long)m->bounds.b[nk - 1]);
				m->bounds.b[nk++] = u;
			}
			if (!nk)
				return fail(w, vn, sub, "an empty list");
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
			if ((ret = want_uint(w, vn, sub, 0, UINT32_MAX, &u)))
				return ret;
			m->desc.bucket_min = (uint32_t)u;
			have_min = true;
		} else if (hist && !strcmp(k, "bucket_max")) {
			if ((ret = want_uint(w, vn, sub, 0, UINT32_MAX, &u)))
				return ret;
			m->desc.bucket_max = (uint32_t)u;
			have_max = true;
		} else if (hist && !strcmp(k, "bucket_width")) {
			if ((ret = want_uint(w, vn, sub, 1, UINT64_MAX, &u)))
				return ret;
			m->desc.bucket_width = u;
			have_width = true;
		} else if (hist && !strcmp(k, "bucket_multiplier")) {
			char *end;

			if ((ret = want_scalar(w, vn, sub, &v)))
				return ret;
			m->multiplier = strtod(v, &end);
			if (!*v || *end || !isfinite(m->multiplier) || m->multiplier <= 0)
				return fail(w, vn, sub, "'%s' is not a positive number", v);
			have_mult = true;
		} else {
			return fail(w, kn, sub, hist ? "unknown key (name, help, event, value, when, syscalls, max_entries, labels, "
						       "bucket_type, bucket_min, bucket_max, bucket_width, bucket_keys, bucket_multiplier)" :
						       "unknown key (name, help, event, value, when, syscalls, max_entries, labels)");
		}
	}
	(void)have_mult;
	if (!m->name)
		return fail(w, n, path, "a metric needs a name");
	if (!m->help && (ret = dup_str(w, n, path, m->name, &m->help)))
		return ret;
	if (hist && m->desc.bucket_type == SCRY_HB_FIXED) {
		if (!have_keys)
			return fail(w, n, path, "fixed buckets need bucket_keys");
		if (have_min || have_max || have_width)
			return fail(w, n, path, "fixed buckets take bucket_keys, not bucket_min/bucket_max/bucket_width");
	} else if (hist) {
		if (have_keys)
			return fail(w, n, path, "bucket_keys are for bucket_type: fixed");
		if (!have_min || !have_max)
			return fail(w, n, path, "histogram '%s' needs bucket_min and bucket_max", m->name);
		if (m->desc.bucket_max < m->desc.bucket_min || m->desc.bucket_max - m->desc.bucket_min >= SCRY_HIST_BUCKETS)
			return fail(w, n, path, "bucket_min..bucket_max must hold 1 to %d buckets", SCRY_HIST_BUCKETS);
		if (m->desc.bucket_type == SCRY_HB_EXP2 && m->desc.bucket_max > 63)
			return fail(w, n, path, "exp2 buckets end at 63 (2^63)");
		if (m->desc.bucket_type == SCRY_HB_LINEAR && !have_width)
			return fail(w, n, path, "linear buckets need bucket_width");
		if (m->desc.bucket_type != SCRY_HB_LINEAR && have_width)
			return fail(w, n, path, "bucket_width is for linear buckets");
		if (m->desc.bucket_type == SCRY_HB_LINEAR &&
		    (double)m->desc.bucket_max * (double)m->desc.bucket_width > 1.8e19)
			return fail(w, n, path, "bucket_max * bucket_width exceeds 2^64");
		(void)have_type;
	}
	if (m->desc.event != SCRY_ME_SYSCALL) {
		const char *ev = event_names[m->desc.event];

		if (m->syscalls)
			return fail(w, n, path, "syscalls: is for syscall metrics, not %s", ev);
		if (have_when)
			return fail(w, n, path, "when: is for syscall metrics, not %s", ev);
		if (m->desc.value == SCRY_MV_RET)
			return fail(w, n, path, "value ret is for syscall metrics: %s counts (count) or times (latency)", ev);
		if (m->desc.labels & (SCRY_ML_SYSCALL | SCRY_ML_ERRNO))
			return fail(w, n, path, "syscall and errno labels are for syscall metrics, not %s", ev);
		if ((m->desc.labels & SCRY_ML_DEV) && m->desc.event != SCRY_ME_BLOCK_IO)
			return fail(w, n, path, "the dev label is for block_io metrics");
		if (m->desc.labels & SCRY_ML_ADDR)
			return fail(w, n, path, "the addr label is for syscall metrics");
		if ((m->desc.labels & SCRY_ML_WCHAN) && m->desc.event != SCRY_ME_OFFCPU)
			return fail(w, n, path, "the wchan label is for offcpu metrics");
		(void)have_value;
	} else if (m->desc.labels & SCRY_ML_DEV) {
		return fail(w, n, path, "the dev label is for block_io metrics");
	} else if (m->desc.labels & SCRY_ML_WCHAN) {
		return fail(w, n, path, "the wchan label is for offcpu metrics");
	}
	if (m->desc.value == SCRY_MV_RET && m->desc.when == SCRY_MW_ERROR)
		return fail(w, n, path, "value ret counts successful calls only: when: error gives nothing");
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
		return fail(w, n, path, "an errno label on successful calls only is always 0");
	return 0;
}

static int parse_list(struct walk *w, yaml_node_t *n, const char *path, bool hist, struct scry_metrics_config *c)
{
	char sub[320];
	int ret;

	if ((ret = want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *mn = node(w, *it);
		struct scry_metric *m;
		size_t idx = (size_t)(it - n->data.sequence.items.start);

		snprintf(sub, sizeof(sub), "%.200s[%zu]", path, idx);
		if (c->nmetrics >= SCRY_METRICS_MAX)
			return fail(w, mn, sub, "more than %d metrics", SCRY_METRICS_MAX);
		m = &c->metrics[c->nmetrics++];
		if ((ret = parse_metric(w, mn, sub, hist, m)))
			return ret;
		for (size_t j = 0; j + 1 < c->nmetrics; j++)
			if (!strcmp(c->metrics[j].name, m->name))
				return fail(w, mn, sub, "metric '%s' defined twice", m->name);
	}
	return 0;
}

/* tracing: parent: {usdt: PATH:PROVIDER:NAME} or {uprobe: PATH:FUNCTION} */
static int parse_parent(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c)
{
	const char *k, *v, *colon, *colon2;
	yaml_node_t *kn;
	int ret;

	if ((ret = want_kind(w, n, "tracing.parent", YAML_MAPPING_NODE)))
		return ret;
	if (n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1)
		return fail(w, n, "tracing.parent", "expected one key: usdt: PATH:PROVIDER:NAME or uprobe: PATH:FUNCTION");
	kn = node(w, n->data.mapping.pairs.start->key);
	k = scalar(kn);
	if (!k || (strcmp(k, "usdt") && strcmp(k, "uprobe")))
		return fail(w, kn, "tracing.parent", "unknown key (usdt, uprobe)");
	if ((ret = want_scalar(w, node(w, n->data.mapping.pairs.start->value), "tracing.parent", &v)))
		return ret;
	colon = strrchr(v, ':');
	colon2 = colon && !strcmp(k, "usdt") ? memrchr(v, ':', (size_t)(colon - v)) : colon;
	if (!colon2 || colon2 == v || !colon[1] || colon2 + 1 == colon)
		return fail(w, kn, "tracing.parent", "'%.100s': expected %s", v,
			    strcmp(k, "usdt") ? "PATH:FUNCTION" : "PATH:PROVIDER:NAME");
	if (!(c->parent_path = strndup(v, (size_t)(colon2 - v))) || !(c->parent_name = strdup(colon + 1)) ||
	    (colon2 != colon && !(c->parent_provider = strndup(colon2 + 1, (size_t)(colon - colon2 - 1))))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* tracing: spans: [{name: process}], parent: */
static int parse_tracing(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c)
{
	int ret;

	if ((ret = want_kind(w, n, "tracing", YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key), *vn = node(w, p->value);
		const char *k = scalar(kn);

		if (k && !strcmp(k, "parent")) {
			if (c->parent_path)
				return fail(w, kn, "tracing.parent", "given twice");
			if ((ret = parse_parent(w, vn, c)))
				return ret;
			continue;
		}
		if (!k || strcmp(k, "spans"))
			return fail(w, kn, "tracing", "unknown key (spans, parent)");
		if ((ret = want_kind(w, vn, "tracing.spans", YAML_SEQUENCE_NODE)))
			return ret;
		for (yaml_node_item_t *it = vn->data.sequence.items.start; it < vn->data.sequence.items.top; it++) {
			yaml_node_t *sn = node(w, *it);
			char sub[64];
			const char *name = NULL;

			snprintf(sub, sizeof(sub), "tracing.spans[%d]", (int)(it - vn->data.sequence.items.start));
			if ((ret = want_kind(w, sn, sub, YAML_MAPPING_NODE)))
				return ret;
			uint64_t min_us = UINT64_MAX;
			yaml_node_t *min_node = NULL;

			for (yaml_node_pair_t *q = sn->data.mapping.pairs.start; q < sn->data.mapping.pairs.top; q++) {
				const char *sk = scalar(node(w, q->key));

				if (sk && !strcmp(sk, "min_duration_us")) {
					if ((ret = want_uint(w, node(w, q->value), sub, 0, UINT64_MAX / 1000, &min_us)))
						return ret;
					min_node = node(w, q->key);
					continue;
				}
				if (!sk || strcmp(sk, "name"))
					return fail(w, node(w, q->key), sub, "unknown key (name, min_duration_us)");
				if ((ret = want_scalar(w, node(w, q->value), sub, &name)))
					return ret;
			}
			if (!name)
				return fail(w, sn, sub, "a span needs a name (process, syscall, block_io, sched_wait)");
			if (!strcmp(name, "process")) {
				if (min_node)
					return fail(w, min_node, sub, "min_duration_us is for syscall, block_io and sched_wait spans");
				if (c->process_spans)
					return fail(w, sn, sub, "process spans given twice");
				c->process_spans = true;
				continue;
			}
			int ev = !strcmp(name, "syscall") ? SCRY_ME_SYSCALL : !strcmp(name, "block_io") ? SCRY_ME_BLOCK_IO :
				 !strcmp(name, "sched_wait") ? SCRY_ME_RUNQUEUE : -1;
			if (ev < 0)
				return fail(w, sn, sub, "unknown span '%.60s' (process, syscall, block_io, sched_wait)", name);
			for (size_t j = 0; j < c->nkspans; j++)
				if (c->kspans[j].event == ev)
					return fail(w, sn, sub, "%s spans given twice", name);
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
static int add_kspans(struct walk *w, struct scry_metrics_config *c)
{
	static const char *const names[] = { [SCRY_ME_SYSCALL] = "scry_spans_syscall",
					     [SCRY_ME_RUNQUEUE] = "scry_spans_sched_wait",
					     [SCRY_ME_BLOCK_IO] = "scry_spans_block_io" };

	for (size_t j = 0; j < c->nkspans; j++) {
		struct scry_metric *m;

		if (c->nmetrics + c->nspans >= SCRY_METRICS_MAX)
			return fail(w, NULL, "tracing.spans", "more than %d metrics and kernel spans", SCRY_METRICS_MAX);
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

static int parse_root(struct walk *w, yaml_node_t *root, struct scry_metrics_config *c)
{
	yaml_node_t *metrics = NULL, *tracing = NULL;
	int ret;

	if (!root)
		return fail(w, NULL, "metrics", "the file is empty");
	if ((ret = want_kind(w, root, "(top)", YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key);
		const char *k = scalar(kn);

		if (!k)
			return fail(w, kn, "(top)", "a key must be a plain value");
		if (strcmp(k, "metrics") && strcmp(k, "tracing"))
			return fail(w, kn, k, "unknown key (metrics, tracing)");
		if (!strcmp(k, "tracing")) {
			if (tracing)
				return fail(w, kn, k, "given twice");
			tracing = node(w, p->value);
			continue;
		}
		if (metrics)
			return fail(w, kn, k, "given twice");
		metrics = node(w, p->value);
	}
	if (tracing && (ret = parse_tracing(w, tracing, c)))
		return ret;
	if (c->parent_path && !c->nkspans)
		return fail(w, tracing, "tracing.parent", "needs kernel spans (syscall, block_io or sched_wait)");
	if (!metrics && !c->process_spans && !c->nkspans)
		return fail(w, root, "metrics", "missing (and no tracing: spans:)");
	if (!metrics)
		return add_kspans(w, c);
	if ((ret = want_kind(w, metrics, "metrics", YAML_MAPPING_NODE)))
		return ret;
	bool seen[2] = { false, false };
	for (yaml_node_pair_t *p = metrics->data.mapping.pairs.start; p < metrics->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = node(w, p->key);
		const char *k = scalar(kn);
		char sub[64];
		bool hist;

		if (!k)
			return fail(w, kn, "metrics", "a key must be a plain value");
		snprintf(sub, sizeof(sub), "metrics.%.40s", k);
		if (strcmp(k, "counters") && strcmp(k, "histograms"))
			return fail(w, kn, sub, "unknown key (counters, histograms)");
		hist = !strcmp(k, "histograms");
		if (seen[hist])
			return fail(w, kn, sub, "given twice");
		seen[hist] = true;
		if ((ret = parse_list(w, node(w, p->value), sub, hist, c)))
			return ret;
	}
	if (!c->nmetrics)
		return fail(w, metrics, "metrics", "no counter nor histogram");
	return add_kspans(w, c);
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

int scry_metric_majorminor(uint32_t dev, char *buf, size_t buflen)
{
	char path[64], target[512];
	unsigned maj = dev >> 20, min = dev & 0xfffff;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		snprintf(buf, buflen, "%s", strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	} else {
		snprintf(buf, buflen, "%u:%u", maj, min);
	}
	return 1;
}

/* The raw value of source as text (the first decoder, or the source's default one). */
static int decode_first(enum scry_decoder_kind kind, uint32_t source, const struct scry_metric_key *k,
			const struct scry_syscall_names *sn, char *buf, size_t buflen)
{
	uint64_t v = source == SCRY_ML_SYSCALL ? k->nr : source == SCRY_ML_ERRNO ? (uint32_t)k->err :
		     source == SCRY_ML_PID ? k->pid : source == SCRY_ML_TID ? k->tid :
		     source == SCRY_ML_DEV ? k->dev : source == SCRY_ML_CGROUP ? k->cgroup : k->uid;
	const char *s;

	switch (kind) {
	case SCRY_DEC_STRING:
		snprintf(buf, buflen, "%.*s", (int)sizeof(k->comm), k->comm);
		return 1;
	case SCRY_DEC_SYSCALL:
		if (!(s = sn->name(sn->ctx, (unsigned)v)))
			return -1;
		snprintf(buf, buflen, "%s", s);
		return 1;
	case SCRY_DEC_ERRNO:
		if (v == 0) {
			snprintf(buf, buflen, "0");
			return 1;
		}
		if (!(s = scry_errno_name((int)v)))
			return -1;
		snprintf(buf, buflen, "%s", s);
		return 1;
	case SCRY_DEC_MAJORMINOR:
		return scry_metric_majorminor((uint32_t)v, buf, buflen);
	case SCRY_DEC_CGROUP:
		return scry_metric_cgroup_path(v, buf, buflen);
	case SCRY_DEC_KSYM: {
		uint64_t a;

		memcpy(&a, k->addr, sizeof(a));
		return scry_metric_ksym(a, buf, buflen);
	}
	case SCRY_DEC_INET_IP:
		return scry_metric_inet_ip(k->dev, k->addr, buf, buflen);
	default:
		snprintf(buf, buflen, "%" PRIu64, v);
		return 1;
	}
}

int scry_metric_decode(const struct scry_metric_label *l, const struct scry_metric_key *k,
		       const struct scry_syscall_names *sn, char *buf, size_t buflen)
{
	enum scry_decoder_kind first = l->ndecoders ? l->decoders[0].kind : 0;
	size_t i = 1;
	int ret;

	if (!first || first == SCRY_DEC_STATIC_MAP || first == SCRY_DEC_REGEXP) {
		first = sources_dec(l->source);
		i = 0;
	}
	if ((ret = decode_first(first, l->source, k, sn, buf, buflen)) <= 0)
		return ret;
	for (; i < l->ndecoders; i++) {
		const struct scry_decoder *d = &l->decoders[i];
		bool hit = false;

		if (d->kind == SCRY_DEC_STATIC_MAP) {
			for (size_t e = 0; e < d->nmap && !hit; e++)
				if (!strcmp(buf, d->map_keys[e])) {
					snprintf(buf, buflen, "%s", d->map_values[e]);
					hit = true;
				}
			if (!hit && !d->allow_unknown)
				return -1;
		} else if (d->kind == SCRY_DEC_REGEXP) {
			for (size_t e = 0; e < d->nres && !hit; e++)
				hit = !regexec(&d->res[e], buf, 0, NULL, 0);
			if (!hit)
				return 0;
		}
	}
	return 1;
}
