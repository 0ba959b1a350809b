/* config_int.h — what the metrics config's files share (config_walk.c: the schema walk's
 * value checkers; config.c: libyaml, the document's root, the metrics and their keys;
 * config_labels.c: the labels, their sources and decoders; config_tracing.c: the tracing:
 * section and the kernel spans' descriptors): the walk's state, its checkers (each failure
 * one line naming file, line and key), and the parts one file offers the others.  Private
 * to src/metrics/. */
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

/* The walk's value checkers (config_walk.c): each failure one line naming the file, the line
 * and the key (mcfg_fail); mcfg_node: the document's node i; mcfg_scalar: a scalar's text, or
 * NULL; mcfg_valid_name: a Prometheus metric (or label) name. */
int mcfg_fail(struct walk *w, const yaml_node_t *n, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
yaml_node_t *mcfg_node(struct walk *w, int i);
const char *mcfg_scalar(const yaml_node_t *n);
int mcfg_want_scalar(struct walk *w, const yaml_node_t *n, const char *path, const char **out);
int mcfg_want_uint(struct walk *w, const yaml_node_t *n, const char *path, uint64_t min, uint64_t max, uint64_t *out);
int mcfg_want_bool(struct walk *w, const yaml_node_t *n, const char *path, bool *out);
int mcfg_want_kind(struct walk *w, const yaml_node_t *n, const char *path, yaml_node_type_t t);
int mcfg_dup_str(struct walk *w, const yaml_node_t *n, const char *path, const char *s, char **out);
bool mcfg_valid_name(const char *s, bool metric);

/* config_metric.c: the metric at n (a histogram's when hist) into m; its keys one table. */
int mconfig_parse_metric(struct walk *w, yaml_node_t *n, const char *path, bool hist, struct scry_metric *m);

/* config_labels.c: a metric's label (name, source, decoders) at path, into l. */
int mconfig_parse_label(struct walk *w, yaml_node_t *n, const char *path, struct scry_metric_label *l);

/* config_tracing.c: the tracing: section (spans, parent) into c. */
int mconfig_parse_tracing(struct walk *w, yaml_node_t *n, struct scry_metrics_config *c);
/* config_tracing.c: the kernel spans as descriptors after the metrics
 * (metrics[nmetrics..nmetrics+nspans)). */
int mconfig_add_kspans(struct walk *w, struct scry_metrics_config *c);

#endif /* SCRY_METRICS_CONFIG_INT_H */
