/* test_trace_flow.c — `scry trace --flow` (src/trace/flow.c) on hand-built probe events:
 * the indented tree, recursion, two threads interleaved kept apart, a return whose entry
 * was not seen (marked, not paired), a return closing calls left open (longjmp), and the
 * plain probe lines without --flow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "catalog/catalog.h"
#include "trace/printer.h"

#define US 1000LL

static struct scry_field f_v = { .name = "v", .type = SCRY_F_INT, .size = 4, .is_signed = true, .base = 10 };
static struct scry_field f_s = { .name = "name", .type = SCRY_F_STRING, .size = 1 };
static struct scry_field f_ret = { .name = "ret", .type = SCRY_F_INT, .size = 4, .is_signed = true, .base = 10 };
static struct scry_field f_p = { .name = "ptr", .type = SCRY_F_INT, .size = 8, .base = 16 };

static struct scry_event ev_entry(const char *func, struct scry_field *f, unsigned n)
{
	return (struct scry_event){ .name = "uprobe_x", .system = "uprobe", .tp = (char *)func,
				    .kind = SCRY_EV_UPROBE, .nr = -1, .nfields = n, .fields = f,
				    .emf_uri = "uprobe:/usr/bin/wl:f" };
}

static struct scry_event ev_ret(const char *func)
{
	return (struct scry_event){ .name = "uretprobe_x", .system = "uretprobe", .tp = (char *)func,
				    .kind = SCRY_EV_UPROBE, .nr = -1, .nfields = 1, .fields = &f_ret,
				    .emf_uri = "uretprobe:/usr/bin/wl:f" };
}

struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct trace_printer *p;
};

static void open_printer_json(struct out *o, bool flow, bool json)
{
	struct trace_opts opts;

	trace_opts_init(&opts);
	opts.flow = flow ? "wl:*" : NULL;
	opts.json = json;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	o->p = trace_printer_new(&opts, o->f, NULL);
	assert_non_null(o->p);
}

static void open_printer(struct out *o, bool flow)
{
	open_printer_json(o, flow, false);
}

static void close_expect(struct out *o, const char *want)
{
	assert_int_equal(trace_printer_finish(o->p), 0);
	trace_printer_free(o->p);
	fclose(o->f);
	assert_string_equal(o->buf, want);
	free(o->buf);
}

static void call(struct out *o, int tid, int64_t ts, const char *func, int64_t v)
{
	struct scry_event e = ev_entry(func, &f_v, 1);
	struct scry_fieldval val = { .v = (uint64_t)v };

	trace_printer_probe(o->p, 100, tid, ts, &e, &val);
}

static void ret(struct out *o, int tid, int64_t ts, const char *func, int64_t v)
{
	struct scry_event e = ev_ret(func);
	struct scry_fieldval val = { .v = (uint64_t)(uint32_t)v };

	trace_printer_probe(o->p, 100, tid, ts, &e, &val);
}

static void test_tree_and_recursion(void **state)
{
	struct out o;

	open_printer(&o, true);
	call(&o, 100, 1000 * US, "main", 1);
	call(&o, 100, 1010 * US, "rec", 2);
	call(&o, 100, 1020 * US, "rec", 1);
	ret(&o, 100, 1025 * US, "rec", 0);
	ret(&o, 100, 1040 * US, "rec", -1);
	ret(&o, 100, 1100 * US, "main", 0);
	close_expect(&o,
		"     0 -> main(v=1)\n"
		"    10   -> rec(v=2)\n"
		"    20     -> rec(v=1)\n"
		"    25     <- rec = 0 <0.000005>\n"
		"    40   <- rec = -1 <0.000030>\n"
		"   100 <- main = 0 <0.000100>\n");
}

static void test_threads_kept_apart(void **state)
{
	struct out o;

	open_printer(&o, true);
	call(&o, 100, 1000 * US, "work", 1);
	call(&o, 101, 1500 * US, "work", 2);     /* its own clock and depth */
	ret(&o, 100, 1600 * US, "work", 10);
	call(&o, 101, 1700 * US, "inner", 3);
	ret(&o, 101, 1800 * US, "inner", 30);
	ret(&o, 101, 1900 * US, "work", 20);
	close_expect(&o,
		"     0 -> work(v=1)\n"
		"[pid   101]      0 -> work(v=2)\n"
		"[pid   100]    600 <- work = 10 <0.000600>\n"
		"[pid   101]    200   -> inner(v=3)\n"
		"[pid   101]    300   <- inner = 30 <0.000100>\n"
		"[pid   101]    400 <- work = 20 <0.000400>\n");
}

static void test_return_without_entry(void **state)
{
	struct out o;

	open_printer(&o, true);
	call(&o, 100, 1000 * US, "a", 1);
	ret(&o, 100, 1010 * US, "b", 5);         /* b's entry came before: never paired with a */
	call(&o, 100, 1020 * US, "c", 2);
	call(&o, 100, 1030 * US, "d", 3);
	ret(&o, 100, 1050 * US, "a", 7);         /* c and d left open (longjmp): closed with a */
	close_expect(&o,
		"     0 -> a(v=1)\n"
		"    10   <- b = 5 [entry not seen]\n"
		"    20   -> c(v=2)\n"
		"    30     -> d(v=3)\n"
		"    50 <- a = 7 <0.000050>\n");
}

static void test_probe_lines(void **state)
{
	struct out o;
	struct scry_field f[3] = { f_v, f_s, f_p };
	struct scry_event e = ev_entry("f", f, 3);
	struct scry_fieldval vals[3] = { { .v = 0xfffffffbu }, { .p = (const uint8_t *)"hello", .len = 5 },
					 { .v = 0x1234 } };

	open_printer(&o, false);
	trace_printer_probe(o.p, 100, 100, 1000 * US, &e, vals);
	ret(&o, 100, 1010 * US, "f", -3);
	close_expect(&o,
		"uprobe:wl:f(v=-5, name=\"hello\", ptr=0x1234)\n"
		"uretprobe:wl:f = -3\n");
}

static void test_flow_json(void **state)
{
	struct out o;

	open_printer_json(&o, true, true);
	call(&o, 100, 1000 * US, "a", 1);
	call(&o, 101, 1001 * US, "a", 2);
	ret(&o, 100, 1010 * US, "b", 5);
	ret(&o, 100, 1020 * US, "a", -1);
	close_expect(&o,
		"{\"event\":\"call\",\"ts\":\"1000000\",\"pid\":100,\"tid\":100,\"depth\":0,\"func\":\"a\",\"args\":{\"v\":1}}\n"
		"{\"event\":\"call\",\"ts\":\"1001000\",\"pid\":100,\"tid\":101,\"depth\":0,\"func\":\"a\",\"args\":{\"v\":2}}\n"
		"{\"event\":\"return\",\"ts\":\"1010000\",\"pid\":100,\"tid\":100,\"depth\":1,\"func\":\"b\",\"ret\":5,"
		"\"entry_seen\":false}\n"
		"{\"event\":\"return\",\"ts\":\"1020000\",\"pid\":100,\"tid\":100,\"depth\":0,\"func\":\"a\",\"ret\":-1,"
		"\"duration_ns\":\"20000\"}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_and_recursion),
		cmocka_unit_test(test_threads_kept_apart),
		cmocka_unit_test(test_return_without_entry),
		cmocka_unit_test(test_probe_lines),
		cmocka_unit_test(test_flow_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
