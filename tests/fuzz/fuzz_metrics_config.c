/* fuzz_metrics_config.c — libFuzzer target: input bytes as a metrics config (YAML) through
 * scry_metrics_config_parse with a small syscall table: it parses or refuses with one line
 * "FILE:LINE: ..." (no newline); a parsed config is checked (names set, metrics within
 * SCRY_METRICS_MAX with the kernel spans (none: tracing only), kernel spans after them, histogram ranges within SCRY_HIST_BUCKETS), turned into what the kernel
 * is given, and every label of every metric decoded for a few keys. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "metrics/config.h"

static const char *const names[] = { "read", "write", "open", "close", "stat", "getppid", "openat" };
#define NNAMES (sizeof(names) / sizeof(names[0]))

static int nr_of(void *ctx, const char *name)
{
	for (size_t i = 0; i < NNAMES; i++)
		if (!strcmp(names[i], name))
			return (int)(i == NNAMES - 1 ? 257 : i);
	return -1;
}

static const char *name_of(void *ctx, unsigned nr)
{
	return nr < NNAMES - 1 ? names[nr] : nr == 257 ? "openat" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scry_syscall_names sn = { .nr = nr_of, .name = name_of };
	struct scry_metrics_config *c = NULL;
	static struct scry_metric_desc descs[SCRY_METRICS_MAX];
	static uint32_t max_entries[SCRY_METRICS_MAX], masks[SCRY_MAX_SYSCALLS];
	char err[512], buf[256];
	int ret = scry_metrics_config_parse((const char *)data, size, "fuzz.yaml", &sn, &c, err, sizeof(err));

	if (ret) {
		if (c || strncmp(err, "fuzz.yaml", 9) || strchr(err, '\n'))
			abort();
		return 0;
	}
	if (!c || (!c->nmetrics && !c->process_spans && !c->nspans) || c->nmetrics + c->nspans > SCRY_METRICS_MAX)
		abort();
	scry_metrics_abi(c, descs, max_entries, masks, NULL);
	for (size_t i = c->nmetrics; i < c->nmetrics + c->nspans; i++)   /* kernel spans: after the metrics */
		if (descs[i].kind != SCRY_METRIC_SPAN || descs[i].value != SCRY_MV_LATENCY || !c->metrics[i].name)
			abort();
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct scry_metric *m = &c->metrics[i];

		if (!m->name || !m->help || !m->max_entries)
			abort();
		if (m->desc.kind == SCRY_METRIC_HISTOGRAM &&
		    (m->desc.bucket_max < m->desc.bucket_min || m->desc.bucket_max - m->desc.bucket_min >= SCRY_HIST_BUCKETS))
			abort();
		for (int k = 0; k < 4; k++) {
			struct scry_metric_key key = { .nr = k == 3 ? 257 : (uint32_t)k * 2, .err = k, .pid = 100u * k,
						       .tid = 7, .uid = (uint32_t)k, .dev = k ? 7u << 20 | (uint32_t)k : 0 };

			memcpy(key.comm, k ? "workload" : "a\"b\\c\n", k ? 9 : 7);
			for (size_t l = 0; l < m->nlabels; l++)
				if (scry_metric_decode(&m->labels[l], &key, &sn, buf, sizeof(buf)) > 0 &&
				    strlen(buf) >= sizeof(buf))
					abort();
		}
	}
	scry_metrics_config_free(c);
	return 0;
}
