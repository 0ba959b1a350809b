/* test_otlp.c — spans encoded as an OTLP ExportTraceServiceRequest (src/spans/otlp.c) read
 * back with protobuf-c's unpacker: ids, parent, name, times, attributes, status, resource
 * (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and its errors). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb-c.h"
#include "spans/otlp.h"

static void test_encode(void **state)
{
	struct scry_otlp_resource r;
	struct scry_span s[2];
	char err[256];
	uint8_t *buf;
	size_t len;

	setenv("OTEL_SERVICE_NAME", "svc", 1);
	setenv("OTEL_RESOURCE_ATTRIBUTES", "a=1,service.name=ignored,b=x=y", 1);
	assert_int_equal(scry_otlp_resource_from_env(&r, NULL, err, sizeof(err)), 0);
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 2; i++) {
		memset(s[i].trace_id, 0xab, 16);
		memset(s[i].span_id, i + 1, 8);
		s[i].start_ns = 1000 + i;
		s[i].end_ns = 2000 + i;
	}
	strcpy(s[0].name, "root");
	strcpy(s[1].name, "child");
	memset(s[1].parent_id, 1, 8);
	s[1].has_parent = true;
	s[1].error = true;
	scry_span_attr_int(&s[1], "process.pid", 42);
	scry_span_attr_str(&s[1], "process.executable.path", "/bin/true", 9);
	assert_int_equal(scry_otlp_encode(s, 2, &r, &buf, &len), 0);

	Opentelemetry__Proto__Collector__Trace__V1__ExportTraceServiceRequest *req =
		opentelemetry__proto__collector__trace__v1__export_trace_service_request__unpack(NULL, len, buf);
	assert_non_null(req);
	assert_int_equal(req->n_resource_spans, 1);
	Opentelemetry__Proto__Trace__V1__ResourceSpans *rs = req->resource_spans[0];
	assert_string_equal(rs->resource->attributes[0]->key, "service.name");
	assert_string_equal(rs->resource->attributes[0]->value->string_value, "svc");
	assert_string_equal(rs->resource->attributes[1]->key, "a");
	assert_string_equal(rs->resource->attributes[1]->value->string_value, "1");
	assert_string_equal(rs->resource->attributes[2]->key, "b");
	assert_string_equal(rs->resource->attributes[2]->value->string_value, "x=y");
	assert_string_equal(rs->resource->attributes[3]->key, "host.name");
	assert_int_equal(rs->n_scope_spans, 1);
	assert_string_equal(rs->scope_spans[0]->scope->name, "scry");
	assert_int_equal(rs->scope_spans[0]->n_spans, 2);
	Opentelemetry__Proto__Trace__V1__Span *a = rs->scope_spans[0]->spans[0], *b = rs->scope_spans[0]->spans[1];
	assert_string_equal(a->name, "root");
	assert_int_equal(a->parent_span_id.len, 0);
	assert_int_equal(a->trace_id.len, 16);
	assert_int_equal(a->trace_id.data[15], 0xab);
	assert_int_equal(a->start_time_unix_nano, 1000);
	assert_int_equal(a->end_time_unix_nano, 2000);
	assert_int_equal(a->status->code, OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_UNSET);
	assert_string_equal(b->name, "child");
	assert_int_equal(b->parent_span_id.len, 8);
	assert_memory_equal(b->parent_span_id.data, a->span_id.data, 8);
	assert_int_equal(b->n_attributes, 2);
	assert_string_equal(b->attributes[0]->key, "process.pid");
	assert_int_equal(b->attributes[0]->value->int_value, 42);
	assert_string_equal(b->attributes[1]->value->string_value, "/bin/true");
	assert_int_equal(b->status->code, OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_ERROR);
	opentelemetry__proto__collector__trace__v1__export_trace_service_request__free_unpacked(req, NULL);
	free(buf);
	scry_otlp_resource_free(&r);

	setenv("OTEL_RESOURCE_ATTRIBUTES", "ok=1,bad", 1);
	assert_int_equal(scry_otlp_resource_from_env(&r, NULL, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "OTEL_RESOURCE_ATTRIBUTES: 'bad' is not key=value");
	unsetenv("OTEL_RESOURCE_ATTRIBUTES");
	unsetenv("OTEL_SERVICE_NAME");
	assert_int_equal(scry_otlp_resource_from_env(&r, NULL, err, sizeof(err)), 0);
	assert_string_equal(r.values[0], "scry");
	scry_otlp_resource_free(&r);
}

/* A daemon's session: the variables of the command that configured it, not the process's. */
static void test_env_list(void **state)
{
	const char *const env[] = { "OTEL_SERVICE_NAMEX=no", "OTEL_SERVICE_NAME=from-list",
				    "OTEL_RESOURCE_ATTRIBUTES=k=v", NULL };
	struct scry_otlp_resource r;
	char err[256];

	setenv("OTEL_SERVICE_NAME", "from-process", 1);
	assert_string_equal(scry_otlp_getenv(env, "OTEL_SERVICE_NAME"), "from-list");
	assert_null(scry_otlp_getenv(env, "OTEL_EXPORTER_OTLP_ENDPOINT"));
	assert_string_equal(scry_otlp_getenv(NULL, "OTEL_SERVICE_NAME"), "from-process");
	assert_int_equal(scry_otlp_resource_from_env(&r, env, err, sizeof(err)), 0);
	assert_string_equal(r.values[0], "from-list");
	assert_string_equal(r.keys[1], "k");
	assert_string_equal(r.values[1], "v");
	scry_otlp_resource_free(&r);
	unsetenv("OTEL_SERVICE_NAME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_env_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
