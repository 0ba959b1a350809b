/* config_int.h — what the metrics config's files share (config.c: libyaml, the document's
 * root, the metrics and their keys; config_labels.c: the labels, their sources and decoders;
 * config_tracing.c: the tracing: section and the kernel spans' descriptors): the schema
 * walk's state and its value checkers (each failure one line naming file, line and key),
 * and the parts one file offers the others.  Private to src/metrics/. */
#ifndef SCRY_METRICS_CONFIG_INT_H
#define SCRY_METRICS_CONFIG_INT_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "metrics/config.h"

/* The schema walk: the document, the file its errors name, the syscalls' names, the error. */
struct walk {
	yaml_document_t *doc;
	const char *file;
	const struct scry_syscall_names *sn;
	char *err;
	size_t errlen;
};

/* The walk's helpers: each file's own static functions, as they were in one file (not
 * inline: GCC 12 would then inline want_scalar into its callers and warn of values "maybe
 * uninitialized" after fail), unused by some of the files. */
static int fail(struct walk *w, const yaml_node_t *n, const char *path, const char *fmt, ...) __attribute__((unused));
static yaml_node_t *node(struct walk *w, int i) __attribute__((unused));
static const char *scalar(const yaml_node_t *n) __attribute__((unused));
static int want_scalar(struct walk *w, const yaml_node_t *n, const char *path, const char **out)
	__attribute__((unused));
static int want_uint(struct walk *w, const yaml_node_t *n, const char *path, uint64_t min, uint64_t max,
		     uint64_t *out) __attribute__((unused));
static int want_bool(struct walk *w, const yaml_node_t *n, const char *path, bool *out) __attribute__((unused));
static int want_kind(struct walk *w, const yaml_node_t *n, const char *path, yaml_node_type_t t)
	__attribute__((unused));
static int dup_str(struct walk *w, const yaml_node_t *n, const char *path, const char *s, char **out)
	__attribute__((unused));
static bool valid_name(const char *s, bool metric) __attribute__((unused));

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

/* config_labels.c: a metric's label (name, source, decoders) at path, into l. */
int mconfig_parse_label(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric_label *l);

/* config_tracing.c: the tracing: section (spans, parent) into c. */
int mconfig_parse_tracing(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c);
/* config_tracing.c: the kernel spans as descriptors after the metrics
 * (metrics[nmetrics..nmetrics+nspans)). */
int mconfig_add_kspans(struct walk *w, struct scry_metrics_config *c);

#endif /* SCRY_METRICS_CONFIG_INT_H */
