/* config_labels.c — a metric's labels (see config.h): their schema (name, the source the
 * kernel keys the series by, the decoders with their static maps and regular expressions)
 * and, once the series are read, their decoding into the label's text (scry_metric_decode,
 * scry_metric_majorminor). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>
#include "format/format.h"
#include "metrics/config.h"
#include "metrics/config_int.h"
#include "metrics/sysnames.h"
#include "util/cgroup.h"

#define DECODERS_MAX     8
#define STATIC_MAP_MAX   4096
#define REGEXPS_MAX      64

static const struct { const char *name; uint32_t bit; enum scry_decoder_kind dec; } sources[] = {
	{ "syscall", SCRY_ML_SYSCALL, SCRY_DEC_SYSCALL },
	{ "errno", SCRY_ML_ERRNO, SCRY_DEC_ERRNO },
	{ "comm", SCRY_ML_COMM, SCRY_DEC_STRING },
	{ "pid", SCRY_ML_PID, SCRY_DEC_UINT },
	{ "tid", SCRY_ML_TID, SCRY_DEC_UINT },
	{ "uid", SCRY_ML_UID, SCRY_DEC_UINT },
	{ "dev", SCRY_ML_DEV, SCRY_DEC_MAJORMINOR },
	{ "cgroup", SCRY_ML_CGROUP, SCRY_DEC_CGROUP },
	{ "container", SCRY_ML_CGROUP, SCRY_DEC_CONTAINER },   /* the cgroup's, by its path */
	{ "addr", SCRY_ML_ADDR, SCRY_DEC_INET_IP },
	{ "wchan", SCRY_ML_WCHAN, SCRY_DEC_KSYM },
};

#define SOURCE_NAMES "syscall, errno, comm, pid, tid, uid, dev, cgroup, container, addr, wchan"


static const struct { const char *name; enum scry_decoder_kind kind; } decoder_names[] = {
	{ "uint", SCRY_DEC_UINT }, { "string", SCRY_DEC_STRING }, { "syscall", SCRY_DEC_SYSCALL },
	{ "errno", SCRY_DEC_ERRNO }, { "static_map", SCRY_DEC_STATIC_MAP }, { "regexp", SCRY_DEC_REGEXP },
	{ "majorminor", SCRY_DEC_MAJORMINOR }, { "cgroup", SCRY_DEC_CGROUP }, { "ksym", SCRY_DEC_KSYM },
	{ "inet_ip", SCRY_DEC_INET_IP }, { "container", SCRY_DEC_CONTAINER },
};

static int parse_static_map(struct walk *w, yaml_node_t *n, const char *path, struct scry_decoder *d)
{
	size_t cap;
	int ret;

	if ((ret = mcfg_want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	cap = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	if (cap > STATIC_MAP_MAX)
		return mcfg_fail(w, n, path, "more than %d entries", STATIC_MAP_MAX);
	d->map_keys = calloc(cap ? cap : 1, sizeof(char *));
	d->map_values = calloc(cap ? cap : 1, sizeof(char *));
	if (!d->map_keys || !d->map_values) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		const char *k, *v;

		if ((ret = mcfg_want_scalar(w, mcfg_node(w, p->key), path, &k)) ||
		    (ret = mcfg_want_scalar(w, mcfg_node(w, p->value), path, &v)))
			return ret;
		if ((ret = mcfg_dup_str(w, n, path, k, &d->map_keys[d->nmap])))
			return ret;
		if ((ret = mcfg_dup_str(w, n, path, v, &d->map_values[d->nmap]))) {
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

	if ((ret = mcfg_want_kind(w, n, path, YAML_SEQUENCE_NODE)))
		return ret;
	cap = n->data.sequence.items.top - n->data.sequence.items.start;
	if (!cap || cap > REGEXPS_MAX)
		return mcfg_fail(w, n, path, "expected 1 to %d regular expressions", REGEXPS_MAX);
	if (!(d->res = calloc(cap, sizeof(regex_t)))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = mcfg_node(w, *it);
		const char *re;
		int rc;

		if ((ret = mcfg_want_scalar(w, e, path, &re)))
			return ret;
		if (!regexp_tame(re))
			return mcfg_fail(w, e, path, "regular expression '%.60s' refused (stacked quantifiers, or longer than %d)",
				    re, REGEXP_MAX_LEN);
		if ((rc = regcomp(&d->res[d->nres], re, REG_EXTENDED | REG_NOSUB))) {
			char msg[128];

			regerror(rc, &d->res[d->nres], msg, sizeof(msg));
			return mcfg_fail(w, e, path, "bad regular expression '%s': %s", re, msg);
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

	if ((ret = mcfg_want_kind(w, n, path, YAML_MAPPING_NODE)))
		return ret;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = mcfg_node(w, p->key), *vn = mcfg_node(w, p->value);
		const char *k = mcfg_scalar(kn), *v;

		if (!k)
			return mcfg_fail(w, kn, path, "a key must be a plain value");
		snprintf(sub, sizeof(sub), "%.200s.%.60s", path, k);
		if (!strcmp(k, "name")) {
			size_t i;

			if ((ret = mcfg_want_scalar(w, vn, sub, &v)))
				return ret;
			for (i = 0; i < sizeof(decoder_names) / sizeof(decoder_names[0]); i++)
				if (!strcmp(v, decoder_names[i].name))
					break;
			if (i == sizeof(decoder_names) / sizeof(decoder_names[0]))
				return mcfg_fail(w, vn, sub, "unknown decoder '%s' (uint, string, syscall, errno, static_map, regexp, "
					    "majorminor, cgroup, ksym, inet_ip, container)", v);
			d->kind = decoder_names[i].kind;
			have_name = true;
		} else if (!strcmp(k, "static_map")) {
			if (d->map_keys)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = parse_static_map(w, vn, sub, d)))
				return ret;
		} else if (!strcmp(k, "regexps")) {
			if (d->res)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = parse_regexps(w, vn, sub, d)))
				return ret;
		} else if (!strcmp(k, "allow_unknown")) {
			if ((ret = mcfg_want_bool(w, vn, sub, &d->allow_unknown)))
				return ret;
		} else {
			return mcfg_fail(w, kn, sub, "unknown key (name, static_map, regexps, allow_unknown)");
		}
	}
	if (!have_name)
		return mcfg_fail(w, n, path, "a decoder needs a name");
	if (d->kind == SCRY_DEC_STATIC_MAP && !d->map_keys)
		return mcfg_fail(w, n, path, "static_map decoder without its static_map");
	if (d->kind == SCRY_DEC_REGEXP && !d->res)
		return mcfg_fail(w, n, path, "regexp decoder without its regexps");
	if (d->kind != SCRY_DEC_STATIC_MAP && d->map_keys)
		return mcfg_fail(w, n, path, "static_map given to a decoder that is not static_map");
	if (d->kind != SCRY_DEC_REGEXP && d->res)
		return mcfg_fail(w, n, path, "regexps given to a decoder that is not regexp");
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

int mconfig_parse_label(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric_label *l)
{
	char sub[320];
	yaml_node_t *decs = NULL, *decs_key = NULL;
	int ret;

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
			if (!mcfg_valid_name(v, false) || !strncmp(v, "__", 2))
				return mcfg_fail(w, vn, sub, "'%s' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not __*)", v);
			if (l->name)
				return mcfg_fail(w, kn, sub, "given twice");
			if ((ret = mcfg_dup_str(w, vn, sub, v, &l->name)))
				return ret;
		} else if (!strcmp(k, "source")) {
			size_t i;

			if ((ret = mcfg_want_scalar(w, vn, sub, &v)))
				return ret;
			for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
				if (!strcmp(v, sources[i].name))
					break;
			if (i == sizeof(sources) / sizeof(sources[0]))
				return mcfg_fail(w, vn, sub, "unknown source '%s' (" SOURCE_NAMES ")", v);
			l->source = sources[i].bit;
			l->base = sources[i].dec;
		} else if (!strcmp(k, "decoders")) {
			decs = vn;
			decs_key = kn;
		} else {
			return mcfg_fail(w, kn, sub, "unknown key (name, source, decoders)");
		}
	}
	if (!l->name)
		return mcfg_fail(w, n, path, "a label needs a name");
	if (!l->source)
		return mcfg_fail(w, n, path, "label '%s' needs a source (" SOURCE_NAMES ")", l->name);
	if (decs) {
		size_t cap;

		snprintf(sub, sizeof(sub), "%.200s.decoders", path);
		if ((ret = mcfg_want_kind(w, decs, sub, YAML_SEQUENCE_NODE)))
			return ret;
		cap = decs->data.sequence.items.top - decs->data.sequence.items.start;
		if (!cap || cap > DECODERS_MAX)
			return mcfg_fail(w, decs_key, sub, "expected 1 to %d decoders", DECODERS_MAX);
		if (!(l->decoders = calloc(cap, sizeof(*l->decoders)))) {
			snprintf(w->err, w->errlen, "out of memory");
			return -ENOMEM;
		}
		for (yaml_node_item_t *it = decs->data.sequence.items.start; it < decs->data.sequence.items.top; it++) {
			snprintf(sub, sizeof(sub), "%.200s.decoders[%zu]", path, l->ndecoders);
			ret = parse_decoder(w, mcfg_node(w, *it), sub, &l->decoders[l->ndecoders]);
			l->ndecoders++;
			if (ret)
				return ret;
		}
		/* the first decoder reads the raw value: a number or a string */
		enum scry_decoder_kind first = l->decoders[0].kind;
		if (first == SCRY_DEC_STATIC_MAP || first == SCRY_DEC_REGEXP) {
			/* it reads the source's default text */
		} else if (first == SCRY_DEC_MAJORMINOR && l->source != SCRY_ML_DEV) {
			return mcfg_fail(w, decs, sub, "the majorminor decoder reads dev only");
		} else if ((first == SCRY_DEC_CGROUP || first == SCRY_DEC_CONTAINER) && l->source != SCRY_ML_CGROUP) {
			return mcfg_fail(w, decs, sub, "the %s decoder reads cgroup only",
					 first == SCRY_DEC_CGROUP ? "cgroup" : "container");
		} else if (first == SCRY_DEC_KSYM && l->source != SCRY_ML_WCHAN) {
			return mcfg_fail(w, decs, sub, "the ksym decoder reads a kernel address: wchan only");
		} else if (first == SCRY_DEC_INET_IP && l->source != SCRY_ML_ADDR) {
			return mcfg_fail(w, decs, sub, "the inet_ip decoder reads addr only");
		} else if ((l->source & (SCRY_ML_ADDR | SCRY_ML_WCHAN)) && first != sources_dec(l->source)) {
			return mcfg_fail(w, decs, sub, "%s is decoded by %s first", l->source == SCRY_ML_ADDR ? "addr" : "wchan",
				    l->source == SCRY_ML_ADDR ? "inet_ip" : "ksym");
		} else if (first == SCRY_DEC_STRING && l->source != SCRY_ML_COMM) {
			return mcfg_fail(w, decs, sub, "the string decoder reads comm only");
		} else if (first != SCRY_DEC_STRING && l->source == SCRY_ML_COMM) {
			return mcfg_fail(w, decs, sub, "comm is a string: decode it with string, static_map or regexp");
		}
		for (size_t i = 1; i < l->ndecoders; i++)
			if (l->decoders[i].kind != SCRY_DEC_STATIC_MAP && l->decoders[i].kind != SCRY_DEC_REGEXP) {
				snprintf(sub, sizeof(sub), "%.200s.decoders[%zu]", path, i);
				return mcfg_fail(w, decs, sub, "only static_map and regexp can follow the first decoder");
			}
	}
	return 0;
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
	case SCRY_DEC_CONTAINER: {
		struct scry_container c;
		char path[4096];

		scry_metric_cgroup_path(v, path, sizeof(path));
		if (scry_container_of_cgroup(path, &c))
			scry_container_label(&c, buf, buflen);
		else
			buf[0] = '\0';
		return 1;
	}
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
		first = l->base ? l->base : sources_dec(l->source);
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
