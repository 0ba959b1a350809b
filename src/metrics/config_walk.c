/* config_walk.c — the metrics config's schema walk: its value checkers (see config_int.h),
 * each failure one line naming the file, the line and the key. */
#include "metrics/config_int.h"

int mcfg_fail(struct walk *w, const yaml_node_t *n, const char *path, const char *fmt, ...)
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

yaml_node_t *mcfg_node(struct walk *w, int i)
{
	return yaml_document_get_node(w->doc, i);
}

const char *mcfg_scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A scalar's text (no NUL inside), or an error naming path. */
int mcfg_want_scalar(struct walk *w, const yaml_node_t *n, const char *path, const char **out)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return mcfg_fail(w, n, path, "expected a value, not a %s",
			    n && n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return mcfg_fail(w, n, path, "a NUL byte in the value");
	*out = (const char *)n->data.scalar.value;
	return 0;
}

int mcfg_want_uint(struct walk *w, const yaml_node_t *n, const char *path, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	const char *s;
	char *end;
	unsigned long long v;
	int ret = mcfg_want_scalar(w, n, path, &s);

	if (ret)
		return ret;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max)
		return mcfg_fail(w, n, path, "'%s' is not an integer from %" PRIu64 " to %" PRIu64, s, min, max);
	*out = v;
	return 0;
}

int mcfg_want_bool(struct walk *w, const yaml_node_t *n, const char *path, bool *out)
{
	const char *s;
	int ret = mcfg_want_scalar(w, n, path, &s);

	if (ret)
		return ret;
	if (!strcmp(s, "true") || !strcmp(s, "yes"))
		*out = true;
	else if (!strcmp(s, "false") || !strcmp(s, "no"))
		*out = false;
	else
		return mcfg_fail(w, n, path, "'%s' is not true or false", s);
	return 0;
}

int mcfg_want_kind(struct walk *w, const yaml_node_t *n, const char *path, yaml_node_type_t t)
{
	if (!n || n->type != t)
		return mcfg_fail(w, n, path, "expected a %s", t == YAML_MAPPING_NODE ? "mapping" : "list");
	return 0;
}

int mcfg_dup_str(struct walk *w, const yaml_node_t *n, const char *path, const char *s, char **out)
{
	if (!(*out = strdup(s))) {
		snprintf(w->err, w->errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Prometheus names: metric [a-zA-Z_:][a-zA-Z0-9_:]*, label [a-zA-Z_][a-zA-Z0-9_]*. */
bool mcfg_valid_name(const char *s, bool metric)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9') || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      (metric && *s == ':')))
			return false;
	return true;
}
