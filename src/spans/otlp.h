/* otlp.h — spans encoded as an OTLP ExportTraceServiceRequest (protobuf, with protobuf-c's
 * code generated from opentelemetry-proto's .proto files in proto/), under one resource. */
#ifndef SCRY_SPANS_OTLP_H
#define SCRY_SPANS_OTLP_H

#include <stddef.h>
#include <stdint.h>
#include "spans/span.h"

struct scry_otlp_resource {
	char **keys, **values;           /* string attributes: service.name first */
	size_t n;
};

/* Variable name's value in env ("NAME=value" strings, NULL-terminated), or in the process's
 * environment when env is NULL; NULL when unset. */
const char *scry_otlp_getenv(const char *const *env, const char *name);
/* The resource from OTEL_SERVICE_NAME (default "scry") and OTEL_RESOURCE_ATTRIBUTES
 * ("k=v,k2=v2") of env (as scry_otlp_getenv), plus host.name.  0, or -ENOMEM / -EINVAL
 * with err. */
int scry_otlp_resource_from_env(struct scry_otlp_resource *r, const char *const *env, char *err, size_t errlen);
void scry_otlp_resource_free(struct scry_otlp_resource *r);

/* The request's bytes in *out (malloc'd). */
int scry_otlp_encode(const struct scry_span *spans, size_t n, const struct scry_otlp_resource *r,
		     uint8_t **out, size_t *len);

#endif /* SCRY_SPANS_OTLP_H */
