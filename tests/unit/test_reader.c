/* test_reader.c — `scry view` reader and sinks on generated traces (tests/unit/view_gen.h):
 * exact decoded values, merge order across CPUs, text output byte-for-byte against
 * babeltrace2, JSON validity (parsed back by Python), discarded-event warnings, corrupt
 * packets and bad directories reported as errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli/commands.h"
#include "view/output.h"
#include "view/reader.h"
#include "view_gen.h"

#define NEV 30

static char tdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tdir, sizeof(tdir), "/tmp/scry-test-reader-%d", (int)getpid());
	return gen_trace(tdir, 2, NEV);
}

static int teardown(void **state)
{
	(void)state;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	return system(cmd) ? -1 : 0;
}

/* Render the whole trace at dir with the text or JSON sink into a malloc'd string. */
static char *render(const char *dir, int json, int gmt, char **errout, int *errors)
{
	struct view v;
	char err[512];
	char *mem = NULL, *emem = NULL;
	size_t memlen = 0, emlen = 0;
	FILE *f = open_memstream(&mem, &memlen);
	FILE *ef = open_memstream(&emem, &emlen);
	if (view_open(&v, dir, ef, err, sizeof(err)))
		fail_msg("%s", err);
	v.gmt = gmt;
	struct outbuf ob;
	assert_int_equal(ob_init(&ob, f), 0);
	struct text_out to;
	struct json_out jo;
	text_out_init(&to, &ob, gmt);
	json_out_init(&jo, &ob);
	struct view_stream *s;
	while ((s = view_next(&v))) {
		if (json)
			json_event(&jo, s);
		else
			text_event(&to, s);
	}
	ob_free(&ob);
	if (errors)
		*errors = v.errors;
	view_close(&v);
	fclose(f);
	fclose(ef);
	if (errout)
		*errout = emem;
	else
		free(emem);
	return mem;
}

static void test_values_and_order(void **state)
{
	(void)state;
	struct view v;
	char err[512];
	assert_int_equal(view_open(&v, tdir, stderr, err, sizeof(err)), 0);
	assert_int_equal(v.ntraces, 1);
	assert_int_equal(v.nstreams, 2);
	unsigned seen[2] = { 0, 0 };
	int64_t last = INT64_MIN;
	struct view_stream *s;
	unsigned total = 0;
	while ((s = view_next(&v))) {
		unsigned cpu = (unsigned)s->cpu_id;
		assert_true(cpu < 2);
		unsigned i = seen[cpu]++;
		/* per-CPU order is preserved, global order is by time */
		assert_int_equal(s->cycles, gen_ts(cpu, i));
		assert_true(s->ts_ns >= last);
		last = s->ts_ns;
		assert_int_equal(s->ts_ns, GEN_OFFSET_S * 1000000000LL + (int64_t)GEN_OFFSET_NS + (int64_t)gen_ts(cpu, i));
		const struct val *x = s->vals.v;
		/* context: pid, tid, procname */
		assert_int_equal(s->nv_ectx, 3);
		assert_int_equal((int64_t)x[0].u, 100 + cpu);
		assert_int_equal((int64_t)x[1].u, 200 + i % 3);
		char pn[16];
		snprintf(pn, sizeof(pn), "proc%u", cpu);
		assert_string_equal((const char *)x[2].p, pn);
		x += 3;
		switch (i % 4) {
		case 0: {
			char fn[64];
			assert_string_equal(s->ev->name, "syscall_entry_openat");
			assert_int_equal((int64_t)x[0].u, -100);
			gen_filename(i, fn, sizeof(fn));
			assert_int_equal(x[1].u, strlen(fn));
			assert_memory_equal(x[1].p, fn, strlen(fn));
			assert_int_equal(x[2].u, i);
			assert_int_equal(x[3].u, 0644);
			break;
		}
		case 1:
			assert_string_equal(s->ev->name, "syscall_exit_openat");
			assert_int_equal((int64_t)x[0].u, (i % 2) ? -2 : 3);
			break;
		case 2:
			assert_string_equal(s->ev->name, "sched_switch");
			assert_int_equal((int64_t)x[5].u, 1000 + i);
			assert_string_equal((const char *)x[4].p, "bash");
			break;
		case 3:
			assert_string_equal(s->ev->name, "my_seq");
			assert_int_equal(x[0].u, i % 4);   /* length field */
			assert_int_equal(x[1].u, i % 4);   /* sequence length */
			for (unsigned k = 0; k < i % 4; k++)
				assert_int_equal((int64_t)x[2 + k].u, -(int64_t)(k * i));
			assert_int_equal(x[2 + i % 4].u, 0xffff0000ULL + i);
			assert_int_equal(x[3 + i % 4].u, i % 5);
			break;
		}
		total++;
	}
	assert_int_equal(seen[0], NEV);
	assert_int_equal(seen[1], NEV);
	assert_int_equal(total, 2 * NEV);
	assert_int_equal(v.errors, 0);
	view_close(&v);
}

static char *run_cmd(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	char *mem = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&mem, &len);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	int st = pclose(p);
	fclose(m);
	if (st != 0) {
		free(mem);
		return NULL;
	}
	return mem;
}

static void test_text_matches_babeltrace2(void **state)
{
	(void)state;
	if (system("command -v babeltrace2 >/dev/null 2>&1")) {
		skip();
		return;
	}
	for (int gmt = 0; gmt < 2; gmt++) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "TZ=America/Montreal babeltrace2 %s '%s' 2>/dev/null",
			 gmt ? "--clock-gmt" : "", tdir);
		char *oldtz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
		setenv("TZ", "America/Montreal", 1);
		tzset();
		char *bt = run_cmd(cmd);
		assert_non_null(bt);
		char *mine = render(tdir, 0, gmt, NULL, NULL);
		if (oldtz) {
			setenv("TZ", oldtz, 1);
			free(oldtz);
		} else {
			unsetenv("TZ");
		}
		tzset();
		/* byte-for-byte, line by line for a readable failure */
		char *a = mine, *b = bt;
		unsigned line = 1;
		while (*a || *b) {
			char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
			size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
			if (la != lb || memcmp(a, b, la))
				fail_msg("line %u differs:\nscry: %.*s\nbt2:  %.*s", line, (int)la, a, (int)lb, b);
			a += la + (ea ? 1 : 0);
			b += lb + (eb ? 1 : 0);
			line++;
		}
		assert_int_equal(line - 1, 2 * NEV);
		free(bt);
		free(mine);
	}
}

static void test_discarded_warning(void **state)
{
	(void)state;
	char *errs = NULL;
	int nerr = -1;
	char *out = render(tdir, 0, 1, &errs, &nerr);
	assert_int_equal(nerr, 0);
	assert_non_null(strstr(errs, "WARNING: Tracer discarded 5 events between ["));
	assert_non_null(strstr(errs, "channel0_1\" (stream class ID: 0, stream ID: 1)"));
	/* exactly one warning */
	assert_null(strstr(strstr(errs, "WARNING") + 1, "WARNING"));
	free(errs);
	free(out);
}

static void test_json_valid(void **state)
{
	(void)state;
	char *out = render(tdir, 1, 0, NULL, NULL);
	char path[300];
	snprintf(path, sizeof(path), "%s/out.json", tdir);
	FILE *f = fopen(path, "w");
	fputs(out, f);
	fclose(f);
	char cmd[1400];
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 -c 'import json,sys\n"
		 "n=0\n"
		 "for l in open(sys.argv[1], encoding=\"utf-8\"):\n"
		 "  o=json.loads(l); n+=1\n"
		 "  assert set(o)=={\"timestamp\",\"time\",\"name\",\"cpu_id\",\"context\",\"payload\"}, o\n"
		 "  assert isinstance(o[\"timestamp\"], str) and int(o[\"timestamp\"]) > 2**53 and o[\"time\"].endswith(\"Z\")\n"
		 "  assert o[\"context\"][\"pid\"]==100+o[\"cpu_id\"]\n"
		 "  if o[\"name\"]==\"syscall_entry_openat\" and o[\"payload\"][\"flags\"]==8:\n"
		 "    assert o[\"payload\"][\"filename\"]==\"/tmp/we\\\"ird\\\\8\\n\\t\\x01\", o\n"
		 "  if o[\"name\"]==\"my_seq\" and o[\"payload\"][\"ptr\"]==0xffff0007:\n"
		 "    assert o[\"payload\"][\"vals\"]==[0,-7,-14] and o[\"payload\"][\"state\"]==\"SLEEPING\", o\n"
		 "assert n==%d, n\n"
		 "print(\"ok\")' '%s'",
		 2 * NEV, path);
	char *res = run_cmd(cmd);
	assert_non_null(res);
	assert_string_equal(res, "ok\n");
	free(res);
	free(out);
	/* first line exactly */
	char *nl = strchr(out = render(tdir, 1, 0, NULL, NULL), '\n');
	*nl = '\0';
	assert_string_equal(out, "{\"timestamp\":\"1700000005123456789\",\"time\":\"2023-11-14T22:13:25.123456789Z\","
				 "\"name\":\"syscall_entry_openat\",\"cpu_id\":0,\"context\":{\"pid\":100,\"tid\":200,"
				 "\"procname\":\"proc0\"},\"payload\":{\"dfd\":-100,\"filename\":"
				 "\"/tmp/we\\\"ird\\\\0\\n\\t\\u0001\",\"flags\":0,\"mode\":420}}");
	free(out);
}

/* copy the generated trace to a new dir and damage one stream */
static void make_copy(const char *dst)
{
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", dst, tdir, dst);
	assert_int_equal(system(cmd), 0);
}

static void poke(const char *path, long off, const void *data, size_t n)
{
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, off, SEEK_SET);
	fwrite(data, 1, n, f);
	fclose(f);
}

static void test_corrupt_packets(void **state)
{
	(void)state;
	char dst[300], path[400];
	struct {
		long off;
		uint64_t val;
		size_t n;
		const char *what;
	} cases[] = {
		{ 0, 0xdeadbeef, 4, "bad magic" },
		{ 4, 0x1111, 2, "uuid differs" },
		{ 20, 7, 4, "unknown stream class" },
		{ 48, 1ULL << 40, 8, "bad sizes" },          /* content_size huge */
		{ 48, 100, 8, "bad sizes" },                 /* content_size < header */
		{ 84, 99, 2, "unknown event id" },           /* first event's id */
		{ 84 + 10 + 24 + 8 + 12, 0x41414141, 4, NULL },  /* overwrite filename NUL region: still decodes or errs */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(dst, sizeof(dst), "%s-bad", tdir);
		make_copy(dst);
		snprintf(path, sizeof(path), "%s/kernel/channel0_1", dst);
		poke(path, cases[c].off, &cases[c].val, cases[c].n);
		char *errs = NULL;
		int nerr = 0;
		char *out = render(dst, 0, 0, &errs, &nerr);
		if (cases[c].what) {
			assert_int_equal(nerr, 1);
			if (!strstr(errs, cases[c].what) || !strstr(errs, "channel0_1: corrupt packet at offset 0"))
				fail_msg("case %zu: %s", c, errs);
		}
		/* cpu 0 is intact: all its events are printed */
		unsigned cpu0 = 0;
		for (char *p = out; (p = strstr(p, "{ cpu_id = 0 }")); p++)
			cpu0++;
		assert_int_equal(cpu0, NEV);
		free(errs);
		free(out);
	}
	/* truncated file: the last packet is cut (a recorder that died writing it) */
	snprintf(dst, sizeof(dst), "%s-bad", tdir);
	make_copy(dst);
	snprintf(path, sizeof(path), "%s/kernel/channel0_0", dst);
	struct stat st;
	stat(path, &st);
	assert_int_equal(truncate(path, st.st_size - 3), 0);
	char *errs = NULL;
	int nerr = 0;
	char *out = render(dst, 0, 0, &errs, &nerr);
	assert_int_equal(nerr, 1);
	assert_non_null(strstr(errs, "incomplete: "));
	assert_non_null(strstr(errs, "`scry recover` cuts it"));
	free(errs);
	free(out);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dst);
	assert_int_equal(system(cmd), 0);
}

static void test_bad_dirs_and_cli(void **state)
{
	(void)state;
	struct view v;
	char err[512];
	assert_int_equal(view_open(&v, "/nonexistent/scry", stderr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(view_open(&v, "/proc/self/status", stderr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a directory"));
	char empty[300];
	snprintf(empty, sizeof(empty), "%s-empty", tdir);
	mkdir(empty, 0755);
	assert_int_equal(view_open(&v, empty, stderr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no CTF trace"));
	/* bad metadata */
	char md[400];
	snprintf(md, sizeof(md), "%s/metadata", empty);
	FILE *f = fopen(md, "w");
	fputs("/* CTF 1.8 */ trace { major = 1; minor = 8; ", f);
	fclose(f);
	assert_int_equal(view_open(&v, empty, stderr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "metadata line"));
	unlink(md);
	rmdir(empty);

	char *argv1[] = { "view", "/nonexistent/scry", NULL };
	assert_int_equal(cmd_view(2, argv1), 1);
	char *argv2[] = { "view", "--help", NULL };
	assert_int_equal(cmd_view(2, argv2), 0);
	char *argv3[] = { "view", NULL };
	assert_int_equal(cmd_view(1, argv3), 1);
	/* --limit and the exit status through a child (stdout redirected) */
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "%s/lim.txt", tdir);
	fflush(stdout);
	int saved = dup(1);
	FILE *o = fopen(cmd, "w");
	dup2(fileno(o), 1);
	char *argv4[] = { "view", "-n", "5", "--clock-gmt", tdir, NULL };
	int rc = cmd_view(5, argv4);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fclose(o);
	assert_int_equal(rc, 0);
	f = fopen(cmd, "r");
	unsigned lines = 0;
	int ch;
	while ((ch = fgetc(f)) != EOF)
		lines += ch == '\n';
	fclose(f);
	assert_int_equal(lines, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_and_order),
		cmocka_unit_test(test_text_matches_babeltrace2),
		cmocka_unit_test(test_discarded_warning),
		cmocka_unit_test(test_json_valid),
		cmocka_unit_test(test_corrupt_packets),
		cmocka_unit_test(test_bad_dirs_and_cli),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
