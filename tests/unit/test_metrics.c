/* test_metrics.c — the metrics config (src/metrics/config.c: what each key sets, the
 * errors naming file, line and key, the decoders), the Prometheus/OpenMetrics text of a
 * snapshot (expose.c) and histogram quantiles (read.c), and scry top's rows (table.c). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "metrics/config.h"
#include "metrics/expose.h"
#include "metrics/read.h"
#include "metrics/table.h"

static int nr_of(void *ctx, const char *name)
{
	if (!strcmp(name, "nosuch"))
		return -1;
	/* scry top's config names more: any other name is some number above 200 */
	return !strcmp(name, "read") ? 0 : !strcmp(name, "write") ? 1 : !strcmp(name, "getppid") ? 110 :
	       200 + (int)strlen(name);
}

static const char *name_of(void *ctx, unsigned nr)
{
	return nr == 0 ? "read" : nr == 1 ? "write" : nr == 110 ? "getppid" : NULL;
}

static const struct scry_syscall_names sn = { .nr = nr_of, .name = name_of };

static struct scry_metrics_config *parse_ok(const char *text)
{
	struct scry_metrics_config *c = NULL;
	char err[512] = "";

	if (scry_metrics_config_parse(text, strlen(text), "t.yaml", &sn, &c, err, sizeof(err)))
		fail_msg("unexpected error: %s", err);
	return c;
}

static void parse_err(const char *text, const char *want)
{
	struct scry_metrics_config *c = NULL;
	char err[512] = "";

	assert_int_equal(scry_metrics_config_parse(text, strlen(text), "t.yaml", &sn, &c, err, sizeof(err)), -EINVAL);
	assert_null(c);
	if (strncmp(err, want, strlen(want)))
		fail_msg("error '%s', expected it to start with '%s'", err, want);
}

static const char cfg[] =
	"metrics:\n"
	"  counters:\n"
	"    - name: c_total\n"
	"      help: \"calls\"\n"
	"      when: error\n"
	"      syscalls: [read, getppid]\n"
	"      max_entries: 7\n"
	"      labels:\n"
	"        - {name: sc, source: syscall}\n"
	"        - name: e\n"
	"          source: errno\n"
	"          decoders:\n"
	"            - name: errno\n"
	"            - name: static_map\n"
	"              static_map: {ENOENT: missing}\n"
	"              allow_unknown: true\n"
	"  histograms:\n"
	"    - name: h_seconds\n"
	"      bucket_type: exp2\n"
	"      bucket_min: 2\n"
	"      bucket_max: 4\n"
	"      bucket_multiplier: 0.5\n"
	"      labels:\n"
	"        - name: comm\n"
	"          source: comm\n"
	"          decoders: [{name: string}, {name: regexp, regexps: [\"^wl\"]}]\n";

/* Kernel spans are descriptors after the metrics: SPAN kind, latency, their event and
 * threshold (syscall: 1 ms unless told; block_io: every request). */
static void test_kernel_spans(void **state)
{
	struct scry_metrics_config *c = parse_ok("tracing:\n  spans:\n    - name: block_io\n    - name: syscall\n"
						 "    - name: sched_wait\n      min_duration_us: 7\n"
						 "metrics:\n  counters:\n    - name: a_total\n");
	struct scry_metric_desc d[SCRY_METRICS_MAX];
	uint32_t me[SCRY_METRICS_MAX], masks[SCRY_MAX_SYSCALLS];

	assert_int_equal(c->nmetrics, 1);
	assert_int_equal(c->nspans, 3);
	assert_false(c->process_spans);
	scry_metrics_abi(c, d, me, masks, NULL);
	assert_int_equal(d[0].kind, SCRY_METRIC_COUNTER);
	assert_int_equal(d[1].kind, SCRY_METRIC_SPAN);
	assert_int_equal(d[1].event, SCRY_ME_BLOCK_IO);
	assert_int_equal(d[1].span_min_ns, 0);
	assert_int_equal(d[2].event, SCRY_ME_SYSCALL);
	assert_int_equal(d[2].span_min_ns, 1000000);
	assert_int_equal(d[2].value, SCRY_MV_LATENCY);
	assert_int_equal(d[3].event, SCRY_ME_RUNQUEUE);
	assert_int_equal(d[3].span_min_ns, 7000);
	/* the syscall spans feed on every syscall; the other events on none */
	assert_int_equal(masks[0], 1u << 0 | 1u << 2);
	assert_string_equal(c->metrics[2].name, "scry_spans_syscall");
	scry_metrics_config_free(c);
}

static void test_config_fields(void **state)
{
	struct scry_metrics_config *c = parse_ok(cfg);
	static uint32_t masks[SCRY_MAX_SYSCALLS];
	struct scry_metric_desc d[SCRY_METRICS_MAX];
	uint32_t max[SCRY_METRICS_MAX];

	assert_int_equal(c->nmetrics, 2);
	assert_string_equal(c->metrics[0].name, "c_total");
	assert_string_equal(c->metrics[0].help, "calls");
	assert_int_equal(c->metrics[0].desc.kind, SCRY_METRIC_COUNTER);
	assert_int_equal(c->metrics[0].desc.value, SCRY_MV_COUNT);
	assert_int_equal(c->metrics[0].desc.when, SCRY_MW_ERROR);
	assert_int_equal(c->metrics[0].desc.labels, SCRY_ML_SYSCALL | SCRY_ML_ERRNO);
	assert_int_equal(c->metrics[0].max_entries, 7);
	assert_int_equal(c->metrics[1].desc.kind, SCRY_METRIC_HISTOGRAM);
	assert_int_equal(c->metrics[1].desc.value, SCRY_MV_LATENCY);
	assert_int_equal(c->metrics[1].desc.bucket_min, 2);
	assert_int_equal(c->metrics[1].desc.bucket_max, 4);
	assert_int_equal(c->metrics[1].max_entries, SCRY_METRIC_DEFAULT_MAX_ENTRIES);
	assert_true(c->metrics[1].multiplier == 0.5);
	assert_string_equal(c->metrics[1].help, "h_seconds");
	scry_metrics_abi(c, d, max, masks, NULL);
	assert_int_equal(masks[0], 3);      /* read: both */
	assert_int_equal(masks[1], 2);      /* write: the histogram (every syscall) */
	assert_int_equal(masks[110], 3);
	assert_int_equal(max[0], 7);

	/* decoders */
	struct scry_metric_key k = { .nr = 110, .err = 2 };
	char buf[64];
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "getppid");
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[1], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "missing");
	k.err = 13;
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[1], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "EACCES");       /* allow_unknown */
	k.nr = 500;
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), -1);
	memcpy(k.comm, "wl-1", 5);
	assert_int_equal(scry_metric_decode(&c->metrics[1].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "wl-1");
	memcpy(k.comm, "bash", 5);
	assert_int_equal(scry_metric_decode(&c->metrics[1].labels[0], &k, &sn, buf, sizeof(buf)), 0);
	scry_metrics_config_free(c);
}

static void test_config_errors(void **state)
{
	parse_err("", "t.yaml:1: metrics: the file is empty");
	parse_err("metric: {}\n", "t.yaml:1: metric: unknown key (metrics, tracing)");
	parse_err("tracing:\n  spans:\n    - name: sycall\n", "t.yaml:3: tracing.spans[0]: unknown span 'sycall'");
	parse_err("tracing:\n  spans:\n    - name: process\n      min_duration_us: 3\n",
		  "t.yaml:4: tracing.spans[0]: min_duration_us is for syscall, block_io and sched_wait spans");
	parse_err("metrics:\n  counters:\n    - name: a\n      event: offcpu\n      syscalls: [read]\n",
		  "t.yaml:3: metrics.counters[0]: syscalls: is for syscall metrics, not offcpu");
	parse_err("tracing: {}\n", "t.yaml:1: metrics: missing (and no tracing: spans:)");
	parse_err("metrics:\n  counters:\n    - name: a\n      max_entries: 0\n",
		  "t.yaml:4: metrics.counters[0].max_entries: '0' is not an integer from 1 to 1048576");
	parse_err("metrics:\n  counters:\n    - name: a\n      labels:\n        - {name: x, source: pid}\n"
		  "        - {name: x, source: uid}\n",
		  "t.yaml:6: metrics.counters[0].labels[1]: label 'x' given twice");
	parse_err("metrics:\n  counters:\n    - name: a\n    - name: a\n", "t.yaml:4: metrics.counters[1]: metric 'a' defined twice");
	parse_err("metrics:\n  histograms:\n    - name: h\n      bucket_min: 0\n      bucket_max: 64\n",
		  "t.yaml:3: metrics.histograms[0]: bucket_min..bucket_max must hold 1 to 64 buckets");
	parse_err("metrics:\n  histograms:\n    - {name: h, bucket_min: 0, bucket_max: 3, labels: [{name: le, source: pid}]}\n",
		  "t.yaml:3: metrics.histograms[0].labels[0]: 'le' is the bucket label of a histogram");
	parse_err("metrics:\n  counters:\n    - name: a\n      labels:\n        - name: x\n          source: comm\n"
		  "          decoders: [{name: regexp, regexps: [\"a++\"]}]\n",
		  "t.yaml:7: metrics.counters[0].labels[0].decoders[0].regexps: regular expression 'a++' refused");
	parse_err("metrics:\n  counters:\n    - name: a\n      value: ret\n      when: error\n",
		  "t.yaml:3: metrics.counters[0]: value ret counts successful calls only");
	parse_err("metrics:\n  counters:\n    - name: \"a\\nb\"\n", "t.yaml:3: metrics.counters[0].name: 'a?b' is not a metric name");
	parse_err("metrics:\n  counters:\n    - name: a\n      syscalls: [read, nosuch]\n",
		  "t.yaml:4: metrics.counters[0].syscalls: unknown syscall 'nosuch'");
}

/* The sources cgroup, addr, wchan: wide keys; inet_ip's text, cgroup's text for an id no
 * directory has, ksym's error for an address in no function. */
static void test_wide_labels(void **state)
{
	struct scry_metrics_config *c = parse_ok(
		"metrics:\n  counters:\n"
		"    - {name: a_total, labels: [{name: a, source: addr}, {name: s, source: syscall}]}\n"
		"    - {name: b_total, labels: [{name: g, source: cgroup}]}\n"
		"    - {name: c_total, event: offcpu, labels: [{name: w, source: wchan}]}\n"
		"    - {name: d_total, labels: [{name: s, source: syscall}, {name: p, source: pid}]}\n");
	struct scry_metric_key k = { .dev = 2, .addr = { [10] = 0xff, [11] = 0xff, 127, 0, 0, 9 },
				     .cgroup = 0xfffffffffff1ULL };
	char buf[64];

	assert_true(c->metrics[0].desc.wide && c->metrics[1].desc.wide && c->metrics[2].desc.wide);
	assert_false(c->metrics[3].desc.wide);
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "127.0.0.9");
	k.dev = 10;
	memset(k.addr, 0, sizeof(k.addr));
	k.addr[0] = 0xfe;
	k.addr[1] = 0x80;
	k.addr[15] = 1;
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "fe80::1");
	k.dev = 0;      /* no IP address */
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "");
	k.dev = 1;      /* AF_UNIX: not for inet_ip */
	assert_int_equal(scry_metric_decode(&c->metrics[0].labels[0], &k, &sn, buf, sizeof(buf)), -1);
	assert_int_equal(scry_metric_decode(&c->metrics[1].labels[0], &k, &sn, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "unknown_cgroup_id:281474976710641");
	memset(k.addr, 0, sizeof(k.addr));      /* address 0: in no function */
	assert_int_equal(scry_metric_decode(&c->metrics[2].labels[0], &k, &sn, buf, sizeof(buf)), -1);
	scry_metrics_config_free(c);
	parse_err("metrics:\n  counters:\n    - {name: a, labels: [{name: w, source: wchan}]}\n",
		  "t.yaml:3: metrics.counters[0]: the wchan label is for offcpu metrics");
	parse_err("metrics:\n  counters:\n    - {name: a, labels: [{name: w, source: addr, decoders: [{name: ksym}]}]}\n",
		  "t.yaml:3: metrics.counters[0].labels[0].decoders[0]: the ksym decoder reads a kernel address");
}

static void test_fixed_buckets(void **state)
{
	struct scry_metrics_config *c = parse_ok("metrics:\n  histograms:\n    - name: h\n      bucket_type: fixed\n"
						 "      bucket_keys: [5, 50, 500]\n      bucket_multiplier: 2\n");
	struct scry_metric_bounds b[1];
	static uint32_t masks[SCRY_MAX_SYSCALLS];
	struct scry_metric_desc d[1];
	uint32_t max[1];

	assert_int_equal(c->metrics[0].desc.bucket_type, SCRY_HB_FIXED);
	assert_int_equal(c->metrics[0].desc.bucket_min, 0);
	assert_int_equal(c->metrics[0].desc.bucket_max, 2);
	scry_metrics_abi(c, d, max, masks, b);
	assert_int_equal(b[0].b[0], 5);
	assert_int_equal(b[0].b[2], 500);
	assert_true(b[0].b[3] == ~0ULL);
	assert_true(scry_metric_bucket_le(&c->metrics[0], 1) == 50.0);
	scry_metrics_config_free(c);
	parse_err("metrics:\n  histograms:\n    - name: h\n      bucket_type: fixed\n      bucket_keys: [5, 5]\n",
		  "t.yaml:5: metrics.histograms[0].bucket_keys: bucket keys must ascend (5 after 5)");
	parse_err("metrics:\n  histograms:\n    - name: h\n      bucket_type: fixed\n",
		  "t.yaml:3: metrics.histograms[0]: fixed buckets need bucket_keys");
	parse_err("metrics:\n  histograms:\n    - {name: h, bucket_min: 0, bucket_max: 3, bucket_keys: [1]}\n",
		  "t.yaml:3: metrics.histograms[0]: bucket_keys are for bucket_type: fixed");
}

static void test_tracing_only(void **state)
{
	struct scry_metrics_config *c = parse_ok("tracing:\n  spans:\n    - name: process\n");

	assert_int_equal(c->nmetrics, 0);
	assert_true(c->process_spans);
	scry_metrics_config_free(c);
}

/* tracing: parent: the application's probe (usdt: PATH:PROVIDER:NAME, uprobe: PATH:FUNCTION). */
static void test_tracing_parent(void **state)
{
	struct scry_metrics_config *c = parse_ok("tracing:\n  parent:\n    usdt: /opt/a:b:app:mark\n"
						 "  spans:\n    - name: syscall\n");

	assert_string_equal(c->parent_path, "/opt/a:b");
	assert_string_equal(c->parent_provider, "app");
	assert_string_equal(c->parent_name, "mark");
	scry_metrics_config_free(c);
	c = parse_ok("tracing:\n  spans:\n    - name: sched_wait\n  parent: {uprobe: server:set_span}\n");
	assert_string_equal(c->parent_path, "server");
	assert_null(c->parent_provider);
	assert_string_equal(c->parent_name, "set_span");
	scry_metrics_config_free(c);
	parse_err("tracing:\n  parent:\n    usdt: server:mark\n  spans:\n    - name: syscall\n",
		  "t.yaml:3: tracing.parent: 'server:mark': expected PATH:PROVIDER:NAME");
	parse_err("tracing:\n  parent:\n    uprobe: server\n  spans:\n    - name: syscall\n",
		  "t.yaml:3: tracing.parent: 'server': expected PATH:FUNCTION");
	parse_err("tracing:\n  parent: {usdt: a:b:c, uprobe: a:b}\n  spans:\n    - name: syscall\n",
		  "t.yaml:2: tracing.parent: expected one key");
	parse_err("tracing:\n  parent: {usdt: a:b:c}\n  spans:\n    - name: process\n",
		  "t.yaml:2: tracing.parent: needs kernel spans (syscall, block_io or sched_wait)");
	parse_err("tracing:\n  parents: {usdt: a:b:c}\n", "t.yaml:2: tracing: unknown key (spans, parent)");
}

static void test_expose(void **state)
{
	struct scry_metrics_config *c = parse_ok(cfg);
	char *v0[] = { "read", "missing" }, *v1[] = { "wl\"x" };
	uint64_t buckets[3] = { 1, 0, 2 };
	struct scry_series s0 = { .values = v0, .value = 5 }, s1 = { .values = v1, .count = 4, .sum = 100, .buckets = buckets };
	struct scry_metric_snap ms[2] = { { .m = &c->metrics[0], .series = &s0, .n = 1 },
					  { .m = &c->metrics[1], .series = &s1, .n = 1 } };
	struct scry_metrics_snap snap = { .m = ms, .n = 2 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(scry_metrics_expose(f, &snap, NULL, false), 0);
	fclose(f);
	assert_string_equal(out,
		"# HELP c_total calls\n# TYPE c_total counter\nc_total{sc=\"read\",e=\"missing\"} 5\n"
		"# HELP h_seconds h_seconds\n# TYPE h_seconds histogram\n"
		"h_seconds_bucket{comm=\"wl\\\"x\",le=\"2\"} 1\n"
		"h_seconds_bucket{comm=\"wl\\\"x\",le=\"4\"} 1\n"
		"h_seconds_bucket{comm=\"wl\\\"x\",le=\"8\"} 3\n"
		"h_seconds_bucket{comm=\"wl\\\"x\",le=\"+Inf\"} 4\n"
		"h_seconds_sum{comm=\"wl\\\"x\"} 50\nh_seconds_count{comm=\"wl\\\"x\"} 4\n");
	free(out);
	f = open_memstream(&out, &len);
	assert_int_equal(scry_metrics_expose(f, &snap, NULL, true), 0);
	fclose(f);
	assert_non_null(strstr(out, "# TYPE c counter\nc_total{sc=\"read\",e=\"missing\"} 5\n"));
	assert_non_null(strstr(out, "\n# EOF\n"));
	free(out);
	/* quantiles: the bucket bound (raw) holding the rank; beyond the last: -1 */
	assert_true(scry_metric_quantile(&c->metrics[1], &s1, 0.25) == 4.0);
	assert_true(scry_metric_quantile(&c->metrics[1], &s1, 0.5) == 16.0);
	assert_true(scry_metric_quantile(&c->metrics[1], &s1, 0.99) == -1);
	scry_metrics_config_free(c);
}

static void test_top_table(void **state)
{
	struct scry_metrics_config *c = parse_ok(scry_top_config);
	char *a[] = { "10", "wl", "getppid", "", "10" }, *a2[] = { "10", "wl", "getppid", "", "12" },
	     *b[] = { "10", "wl", "openat", "", "10" }, *z[] = { "11", "sh", "read", "0123456789ab", "11" };
	struct scry_series calls[] = { { .values = a, .value = 60 }, { .values = a2, .value = 40 },
				       { .values = b, .value = 7 } };
	struct scry_series errs[] = { { .values = b, .value = 5 } };
	struct scry_series bytes[] = { { .values = z, .value = 4096 } };
	struct scry_metric_snap ms[4] = { { .m = &c->metrics[0], .series = calls, .n = 3 },
					  { .m = &c->metrics[1], .series = errs, .n = 1 },
					  { .m = &c->metrics[2], .series = bytes, .n = 1 },
					  { .m = &c->metrics[3] } };
	struct scry_metrics_snap snap = { .m = ms, .n = 4 };
	struct scry_top_table prev = { .t_ns = 1000000000 }, t;

	assert_int_equal(c->nmetrics, SCRY_TOP_NMETRICS);
	assert_int_equal(scry_top_table_build(&t, &snap, 3000000000ULL, &prev, false), 0);
	assert_int_equal(t.n, 3);                /* the two threads' getppid in one row */
	scry_top_table_sort(&t, SCRY_TOP_BY_ERRORS);
	assert_string_equal(t.rows[0].syscall, "openat");
	assert_int_equal(t.rows[0].errors, 5);
	assert_true(t.rows[0].errors_rate == 2.5);
	assert_int_equal(t.rows[0].calls, 7);
	scry_top_table_sort(&t, SCRY_TOP_BY_BYTES);
	assert_string_equal(t.rows[0].comm, "sh");
	assert_string_equal(t.rows[0].container, "0123456789ab");
	assert_int_equal(t.rows[0].bytes, 4096);
	scry_top_table_sort(&t, SCRY_TOP_BY_CALLS);
	assert_string_equal(t.rows[0].syscall, "getppid");
	assert_true(t.rows[0].calls_rate == 50.0);
	assert_true(t.rows[0].p50_ns == -1);
	assert_int_equal(t.rows[0].calls, 100);
	scry_top_table_free(&t);
	/* threads: a row each, grouped by thread in the process view */
	assert_int_equal(scry_top_table_build(&t, &snap, 3000000000ULL, NULL, true), 0);
	assert_int_equal(t.n, 4);
	{
		struct scry_top_procs pr;

		assert_int_equal(scry_top_procs_build(&pr, &t, NULL, NULL), 0);
		assert_int_equal(pr.n, 3);
		assert_true(pr.threads);
		scry_top_procs_sort(&pr, SCRY_TOP_BY_CALLS);
		assert_string_equal(pr.p[0].pid, "10");      /* thread 10: getppid 60 + openat 7 */
		assert_int_equal(pr.p[0].calls, 67);
		assert_string_equal(pr.p[1].pid, "12");
		assert_int_equal(pr.p[1].calls, 40);
		scry_top_procs_free(&pr);
	}
	scry_top_table_free(&t);
	scry_metrics_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_fields),
		cmocka_unit_test(test_kernel_spans),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_fixed_buckets),
		cmocka_unit_test(test_wide_labels),
		cmocka_unit_test(test_tracing_only),
		cmocka_unit_test(test_tracing_parent),
		cmocka_unit_test(test_expose),
		cmocka_unit_test(test_top_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
