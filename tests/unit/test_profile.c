/* test_profile.c — src/profile/: a profile built by hand (three stacks of two commands, a
 * kernel frame, a recursive function) written as folded stacks (exact text, merged and
 * sorted, kernel frames "_[k]", root first), perf report's table (self and total shares, a
 * recursive function counted once per sample), an SVG (every count and percentage), a
 * pprof file read back with protobuf-c (ids, string table, values, leaf-first locations),
 * and by scry_prof_read_pprof (the same folded stacks and report, event and frequency). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>
#include "perftools/profiles/profile.pb-c.h"
#include "profile/profile.h"

static uint32_t fr(struct scry_prof *p, const char *name, bool kernel, uint64_t addr, uint32_t map)
{
	struct scry_prof_frame f = { .name = scry_prof_str(p, name), .kernel = kernel, .addr = addr, .mapping = map };
	return scry_prof_frame(p, &f);
}

/* app: main -> work (60), main -> work -> work (recursion, 10), main -> idle -> sys_read [k] (20);
 * other: main -> work (10) */
static void build(struct scry_prof *p)
{
	struct scry_prof_mapping m = { .path = scry_prof_str(p, "/usr/bin/app"), .build_id = scry_prof_str(p, "abcd"),
				       .start = 0x1000, .limit = 0x9000 };
	uint32_t map = scry_prof_mapping(p, &m) + 1;
	uint32_t s1[] = { fr(p, "work", false, 0x1100, map), fr(p, "main", false, 0x1200, map) };
	uint32_t s2[] = { fr(p, "work", false, 0x1100, map), fr(p, "work", false, 0x1150, map), fr(p, "main", false, 0x1200, map) };
	uint32_t s3[] = { fr(p, "sys_read", true, 0xffffffff81000000ULL, 0), fr(p, "idle", false, 0x1300, map),
			  fr(p, "main", false, 0x1200, map) };

	p->freq = 100;
	p->duration_ns = 1000000000;
	assert_int_equal(scry_prof_add(p, 10, 10, "app", 40, s1, 2), 0);
	assert_int_equal(scry_prof_add(p, 11, 10, "app", 20, s1, 2), 0);   /* another thread: merged in folded */
	assert_int_equal(scry_prof_add(p, 10, 10, "app", 10, s2, 3), 0);
	assert_int_equal(scry_prof_add(p, 10, 10, "app", 20, s3, 3), 0);
	assert_int_equal(scry_prof_add(p, 20, 20, "other", 10, s1, 2), 0);
	assert_int_equal(p->total, 100);
}

/* fn's output, malloc'd (a temporary file: open_memstream's buffer confuses gcc's
 * dangling pointer analysis once inlined) */
static char *capture(int (*fn)(const struct scry_prof *, FILE *), const struct scry_prof *p)
{
	FILE *f = tmpfile();
	char *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fn(p, f), 0);
	len = ftell(f);
	assert_true(len >= 0);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

static int write_report(const struct scry_prof *p, FILE *f) { return scry_prof_write_report(p, f, 0); }
static int write_svg(const struct scry_prof *p, FILE *f) { return scry_prof_write_svg(p, f, "t <&>"); }

static void test_folded(void **state)
{
	struct scry_prof p;
	char *s;

	scry_prof_init(&p);
	build(&p);
	s = capture(scry_prof_write_folded, &p);
	assert_string_equal(s, "app;main;idle;sys_read_[k] 20\n"
			       "app;main;work 60\n"
			       "app;main;work;work 10\n"
			       "other;main;work 10\n");
	free(s);
	scry_prof_free(&p);
}

static void test_report(void **state)
{
	struct scry_prof p;
	char *s;

	scry_prof_init(&p);
	build(&p);
	s = capture(write_report, &p);
	/* work: self 60+10+10 = 80, total 80 (the recursive sample once); main: total 100 */
	assert_non_null(strstr(s, "# Samples: 100 of event 'cpu-clock' (100 Hz)\n"));
	assert_non_null(strstr(s, "    80.00%    80.00%  app                   [.] work\n"));
	assert_non_null(strstr(s, "    20.00%    20.00%  [kernel.kallsyms]     [k] sys_read\n"));
	assert_non_null(strstr(s, "   100.00%     0.00%  app                   [.] main\n"));
	assert_true(strstr(s, "] work") < strstr(s, "] sys_read"));
	assert_true(strstr(s, "] sys_read") < strstr(s, "] idle"));
	free(s);
	scry_prof_free(&p);
}

static void test_svg(void **state)
{
	struct scry_prof p;
	char *s;

	scry_prof_init(&p);
	build(&p);
	s = capture(write_svg, &p);
	assert_non_null(strstr(s, "t &lt;&amp;&gt;"));
	assert_non_null(strstr(s, "<title>all (100 samples, 100.00%)</title>"));
	assert_non_null(strstr(s, "<title>app (90 samples, 90.00%)</title>"));
	assert_null(strstr(s, "<title>work (80 samples"));   /* frames merge by path, not by name */
	assert_non_null(strstr(s, "<title>work (70 samples, 70.00%)</title>"));   /* app;main;work */
	assert_non_null(strstr(s, "<title>work (10 samples, 10.00%)</title>"));
	assert_non_null(strstr(s, "<title>sys_read_[k] (20 samples, 20.00%)</title>"));
	/* all: 1180 px for 100 samples; app: 90% of it */
	assert_non_null(strstr(strstr(s, "<title>all (100 samples"), "<rect x=\"10.00\" y=\"104.0\" width=\"1180.00\""));
	assert_non_null(strstr(s, "width=\"1062.00\""));
	free(s);
	scry_prof_free(&p);
}

static void test_pprof(void **state)
{
	struct scry_prof p;
	char path[] = "/tmp/test_profile_XXXXXX", err[256];
	uint8_t buf[65536];
	int fd, n;
	gzFile gz;
	Perftools__Profiles__Profile *pr;

	scry_prof_init(&p);
	build(&p);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(scry_prof_write_pprof(&p, path, err, sizeof(err)), 0);
	gz = gzopen(path, "rb");
	assert_non_null(gz);
	n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	unlink(path);
	assert_true(n > 0);
	pr = perftools__profiles__profile__unpack(NULL, (size_t)n, buf);
	assert_non_null(pr);
	assert_string_equal(pr->string_table[0], "");
	assert_int_equal(pr->period, 10000000);
	assert_int_equal(pr->n_sample, 5);
	assert_int_equal(pr->n_mapping, 1);
	assert_string_equal(pr->string_table[pr->mapping[0]->build_id], "abcd");
	int64_t tot = 0;
	for (size_t i = 0; i < pr->n_sample; i++) {
		tot += pr->sample[i]->value[0];
		assert_int_equal(pr->sample[i]->value[1], pr->sample[i]->value[0] * 10000000);
	}
	assert_int_equal(tot, 100);
	/* sample 3 (s3): leaf first: sys_read, idle, main */
	const Perftools__Profiles__Sample *s3 = pr->sample[3];
	const char *want[] = { "sys_read", "idle", "main" };
	assert_int_equal(s3->n_location_id, 3);
	for (size_t k = 0; k < 3; k++) {
		const Perftools__Profiles__Location *l = pr->location[s3->location_id[k] - 1];
		const Perftools__Profiles__Function *f = pr->function[l->line[0]->function_id - 1];

		assert_int_equal(l->id, s3->location_id[k]);
		assert_int_equal(f->id, l->line[0]->function_id);
		assert_string_equal(pr->string_table[f->name], want[k]);
		assert_int_equal(l->mapping_id, k == 0 ? 0 : 1);
	}
	perftools__profiles__profile__free_unpacked(pr, NULL);
	scry_prof_free(&p);
}

static void test_pprof_read(void **state)
{
	struct scry_prof p, q;
	char path[] = "/tmp/test_profile_XXXXXX", err[256];
	char *a, *b;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	scry_prof_init(&p);
	build(&p);
	p.event = "cycles";
	assert_int_equal(scry_prof_write_pprof(&p, path, err, sizeof(err)), 0);
	scry_prof_init(&q);
	assert_int_equal(scry_prof_read_pprof(&q, path, err, sizeof(err)), 0);
	assert_string_equal(q.event, "cycles");
	assert_int_equal(q.freq, 100);
	assert_int_equal(q.total, 100);
	assert_int_equal(q.duration_ns, 1000000000);
	a = capture(scry_prof_write_folded, &p);
	b = capture(scry_prof_write_folded, &q);
	assert_string_equal(a, b);
	free(a);
	free(b);
	a = capture(write_report, &p);
	b = capture(write_report, &q);
	assert_string_equal(a, b);
	free(a);
	free(b);
	scry_prof_free(&q);
	/* not a profile ('n': field 13 of wire type 6, which protobuf has not): refused, named */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	scry_prof_init(&q);
	assert_int_equal(scry_prof_read_pprof(&q, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ": not a pprof profile"));
	assert_non_null(strstr(err, path));
	unlink(path);
	scry_prof_free(&q);
	scry_prof_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_pprof_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
