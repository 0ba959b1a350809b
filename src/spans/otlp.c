/* otlp.c — OTLP's trace request built with protobuf-c (see otlp.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb-c.h"
#include "spans/otlp.h"

typedef Opentelemetry__Proto__Common__V1__KeyValue KeyValue;
typedef Opentelemetry__Proto__Common__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Trace__V1__Span Span;

void scry_span_attr_int(struct scry_span *s, const char *key, int64_t v)
{
	if (s->nattrs >= SCRY_SPAN_ATTRS_MAX)
		return;
	s->attrs[s->nattrs++] = (struct scry_span_attr){ .key = key, .is_int = true, .i = v };
}

void scry_span_attr_str(struct scry_span *s, const char *key, const char *v, size_t len)
{
	struct scry_span_attr *a;

	if (s->nattrs >= SCRY_SPAN_ATTRS_MAX)
		return;
	a = &s->attrs[s->nattrs++];
	*a = (struct scry_span_attr){ .key = key };
	if (len >= sizeof(a->s))
		len = sizeof(a->s) - 1;
	memcpy(a->s, v, len);
	a->s[len] = 0;
}

static int add_kv(struct scry_otlp_resource *r, const char *k, size_t klen, const char *v, size_t vlen)
{
	char **nk = realloc(r->keys, (r->n + 1) * sizeof(char *)), **nv;

	if (!nk)
		return -ENOMEM;
	r->keys = nk;
	if (!(nv = realloc(r->values, (r->n + 1) * sizeof(char *))))
		return -ENOMEM;
	r->values = nv;
	if (!(r->keys[r->n] = strndup(k, klen)))
		return -ENOMEM;
	if (!(r->values[r->n] = strndup(v, vlen))) {
		free(r->keys[r->n]);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

static bool has_key(const struct scry_otlp_resource *r, const char *k)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->keys[i], k))
			return true;
	return false;
}

const char *scry_otlp_getenv(const char *const *env, const char *name)
{
	size_t n = strlen(name);

	if (!env)
		return getenv(name);
	for (; *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int scry_otlp_resource_from_env(struct scry_otlp_resource *r, const char *const *env, char *err, size_t errlen)
{
	const char *svc = scry_otlp_getenv(env, "OTEL_SERVICE_NAME"),
		   *attrs = scry_otlp_getenv(env, "OTEL_RESOURCE_ATTRIBUTES");
	char host[256];
	int ret;

	memset(r, 0, sizeof(*r));
	if ((ret = add_kv(r, "service.name", 12, svc && *svc ? svc : "scry", svc && *svc ? strlen(svc) : 4)))
		goto oom;
	for (const char *p = attrs; p && *p;) {
		const char *end = strchr(p, ','), *eq;
		size_t n = end ? (size_t)(end - p) : strlen(p);

		eq = memchr(p, '=', n);
		if (!eq || eq == p) {
			snprintf(err, errlen, "OTEL_RESOURCE_ATTRIBUTES: '%.*s' is not key=value", (int)n, p);
			scry_otlp_resource_free(r);
			return -EINVAL;
		}
		char key[256];
		size_t vlen = n - (size_t)(eq + 1 - p);

		snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
		if (!strcmp(key, "service.name")) {
			/* names the service unless OTEL_SERVICE_NAME does */
			if (!(svc && *svc)) {
				free(r->values[0]);
				if (!(r->values[0] = strndup(eq + 1, vlen)))
					goto oom;
			}
		} else if ((ret = add_kv(r, p, (size_t)(eq - p), eq + 1, vlen))) {
			goto oom;
		}
		p = end ? end + 1 : p + n;
	}
	if (!has_key(r, "host.name") && !gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = 0;
		if ((ret = add_kv(r, "host.name", 9, host, strlen(host))))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	scry_otlp_resource_free(r);
	return -ENOMEM;
}

void scry_otlp_resource_free(struct scry_otlp_resource *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->keys[i]);
		free(r->values[i]);
	}
	free(r->keys);
	free(r->values);
	memset(r, 0, sizeof(*r));
}

int scry_otlp_encode(const struct scry_span *spans, size_t n, const struct scry_otlp_resource *r,
		     uint8_t **out, size_t *len)
{
	Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest req =
		OPENTELEMETRY__PROTO__COLLECTOR__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	Opentelemetry__Proto__Trace__V1__ResourceSpans rs = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT,
						       *rsp = &rs;
	Opentelemetry__Proto__Resource__V1__Resource res = OPENTELEMETRY__PROTO__RESOURCE__V1__RESOURCE__INIT;
	Opentelemetry__Proto__Trace__V1__ScopeSpans ss = OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT, *ssp = &ss;
	Opentelemetry__Proto__Common__V1__InstrumentationScope scope =
		OPENTELEMETRY__PROTO__COMMON__V1__INSTRUMENTATION_SCOPE__INIT;
	Opentelemetry__Proto__Trace__V1__Status *status = calloc(n ? n : 1, sizeof(*status));
	size_t nattrs = r->n;
	KeyValue *kvs, **kvps;
	AnyValue *avs;
	Span *sp = calloc(n ? n : 1, sizeof(*sp));
	Span **spp = calloc(n ? n : 1, sizeof(*spp));
	size_t k = 0;
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		nattrs += spans[i].nattrs;
	kvs = calloc(nattrs ? nattrs : 1, sizeof(*kvs));
	kvps = calloc(nattrs ? nattrs : 1, sizeof(*kvps));
	avs = calloc(nattrs ? nattrs : 1, sizeof(*avs));
	if (!status || !sp || !spp || !kvs || !kvps || !avs) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nattrs; i++) {
		opentelemetry__proto__common__v1__key_value__init(&kvs[i]);
		opentelemetry__proto__common__v1__any_value__init(&avs[i]);
		kvs[i].value = &avs[i];
		kvps[i] = &kvs[i];
	}
	for (size_t i = 0; i < r->n; i++, k++) {
		kvs[k].key = r->keys[i];
		avs[k].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
		avs[k].string_value = r->values[i];
	}
	res.attributes = kvps;
	res.n_attributes = r->n;
	for (size_t i = 0; i < n; i++) {
		const struct scry_span *s = &spans[i];
		Span *p = &sp[i];

		opentelemetry__proto__trace__v1__span__init(p);
		p->trace_id = (ProtobufCBinaryData){ 16, (uint8_t *)s->trace_id };
		p->span_id = (ProtobufCBinaryData){ 8, (uint8_t *)s->span_id };
		if (s->has_parent)
			p->parent_span_id = (ProtobufCBinaryData){ 8, (uint8_t *)s->parent_id };
		p->name = (char *)s->name;
		p->kind = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__SPAN_KIND__SPAN_KIND_INTERNAL;
		p->start_time_unix_nano = s->start_ns;
		p->end_time_unix_nano = s->end_ns;
		p->attributes = &kvps[k];
		p->n_attributes = s->nattrs;
		for (unsigned a = 0; a < s->nattrs; a++, k++) {
			kvs[k].key = (char *)s->attrs[a].key;
			if (s->attrs[a].is_int) {
				avs[k].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_INT_VALUE;
				avs[k].int_value = s->attrs[a].i;
			} else {
				avs[k].value_case = OPENTELEMETRY__PROTO__COMMON__V1__ANY_VALUE__VALUE_STRING_VALUE;
				avs[k].string_value = (char *)s->attrs[a].s;
			}
		}
		opentelemetry__proto__trace__v1__status__init(&status[i]);
		status[i].code = s->error ? OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_ERROR :
					    OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_UNSET;
		p->status = &status[i];
		spp[i] = p;
	}
	scope.name = "scry";
	ss.scope = &scope;
	ss.spans = spp;
	ss.n_spans = n;
	rs.resource = &res;
	rs.scope_spans = &ssp;
	rs.n_scope_spans = 1;
	req.resource_spans = &rsp;
	req.n_resource_spans = 1;
	*len = opentelemetry__proto__collector__trace__v1__export_trace_service_request__get_packed_size(&req);
	if (!(*out = malloc(*len ? *len : 1))) {
		ret = -ENOMEM;
		goto out;
	}
	opentelemetry__proto__collector__trace__v1__export_trace_service_request__pack(&req, *out);
out:
	free(status);
	free(sp);
	free(spp);
	free(kvs);
	free(kvps);
	free(avs);
	return ret;
}
