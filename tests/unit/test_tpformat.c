/* test_tpformat.c — the tracefs format parser (src/catalog/tpformat.c) on real-shaped
 * format texts embedded here (kernel 6.18), and on malformed inputs (errors, no crash). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "catalog/tpformat.h"

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

static const char sched_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s\", REC->prev_comm, REC->prev_pid, REC->next_comm\n";

static const char exec_fmt[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static const char rel_fmt[] =
	"name: foo_rel\n"
	"ID: 2001\n"
	COMMON
	"\tfield:__rel_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc u64[] addrs;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t cpumask;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\", __get_rel_str(msg)\n";

static const char arrays_fmt[] =
	"name: arrays\n"
	"ID: 7\n"
	COMMON
	"\tfield:unsigned long args[6];\toffset:8;\tsize:48;\tsigned:0;\n"
	"\tfield:__u8 saddr[4];\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:72;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:80;\tsize:0;\tsigned:0;\n"
	"\tfield:char name[TASK_COMM_LEN];\toffset:80;\tsize:16;\tsigned:0;\n";

static struct tpformat parse_ok(const char *text)
{
	struct tpformat f;
	char err[256] = "";
	int r = tpformat_parse(text, strlen(text), &f, err, sizeof(err));

	if (r)
		fail_msg("parse failed: %s", err);
	return f;
}

static void test_sched_switch(void **state)
{
	struct tpformat f = parse_ok(sched_switch);

	assert_string_equal(f.name, "sched_switch");
	assert_int_equal(f.id, 372);
	assert_int_equal(f.nfields, 11);
	assert_true(f.fields[0].is_common);
	assert_string_equal(f.fields[0].name, "common_type");
	assert_string_equal(f.fields[0].type, "unsigned short");
	assert_true(f.fields[3].is_signed);
	const struct tpformat_field *c = &f.fields[4];
	assert_string_equal(c->name, "prev_comm");
	assert_string_equal(c->type, "char");
	assert_int_equal(c->array, 16);
	assert_int_equal(c->offset, 8);
	assert_int_equal(c->size, 16);
	assert_false(c->is_common);
	assert_int_equal(c->loc, TPF_PLAIN);
	assert_string_equal(f.fields[5].name, "prev_pid");
	assert_string_equal(f.fields[5].type, "pid_t");
	assert_int_equal(f.fields[5].array, TPF_NOT_ARRAY);
	assert_true(f.fields[5].is_signed);
	assert_string_equal(f.fields[7].type, "long");
	assert_int_equal(f.fields[7].size, 8);
	assert_int_equal(f.fields[10].offset, 60);
	tpformat_free(&f);
	assert_null(f.fields);
}

static void test_data_loc(void **state)
{
	struct tpformat f = parse_ok(exec_fmt);

	assert_int_equal(f.nfields, 7);
	assert_string_equal(f.fields[4].name, "filename");
	assert_string_equal(f.fields[4].type, "char");
	assert_int_equal(f.fields[4].loc, TPF_DATA_LOC);
	assert_int_equal(f.fields[4].array, TPF_ARRAY_DYN);
	assert_int_equal(f.fields[4].size, 4);
	assert_string_equal(f.fields[6].name, "old_pid");
	tpformat_free(&f);
}

static void test_rel_loc(void **state)
{
	struct tpformat f = parse_ok(rel_fmt);

	assert_int_equal(f.nfields, 7);
	assert_int_equal(f.fields[4].loc, TPF_REL_LOC);
	assert_string_equal(f.fields[4].type, "char");
	assert_int_equal(f.fields[5].loc, TPF_REL_LOC);
	assert_string_equal(f.fields[5].type, "u64");
	assert_int_equal(f.fields[5].array, TPF_ARRAY_DYN);
	assert_int_equal(f.fields[6].loc, TPF_DATA_LOC);
	assert_string_equal(f.fields[6].type, "cpumask_t");
	assert_int_equal(f.fields[6].array, TPF_NOT_ARRAY);
	tpformat_free(&f);
}

static void test_arrays_pointers(void **state)
{
	/* no "print fmt:" line and no final newline handling: parsed up to the end */
	struct tpformat f = parse_ok(arrays_fmt);

	assert_int_equal(f.nfields, 10);
	assert_string_equal(f.fields[4].type, "unsigned long");
	assert_int_equal(f.fields[4].array, 6);
	assert_int_equal(f.fields[4].size, 48);
	assert_string_equal(f.fields[5].type, "__u8");
	assert_int_equal(f.fields[5].array, 4);
	assert_string_equal(f.fields[6].type, "const char *");
	assert_string_equal(f.fields[6].name, "filename");
	assert_true(f.fields[6].is_pointer);
	assert_true(f.fields[7].is_pointer);
	assert_string_equal(f.fields[7].type, "void *");
	assert_int_equal(f.fields[8].array, TPF_ARRAY_DYN);
	assert_int_equal(f.fields[8].size, 0);
	assert_int_equal(f.fields[9].array, TPF_ARRAY_EXPR);
	tpformat_free(&f);
}

static void test_not_nul_terminated(void **state)
{
	/* Only len bytes are read: cut the text inside a field line -> error, no overread. */
	size_t len = strlen(sched_switch);
	char *copy = malloc(len);
	struct tpformat f;
	char err[128];

	memcpy(copy, sched_switch, len);
	assert_int_equal(tpformat_parse(copy, len, &f, err, sizeof(err)), 0);
	tpformat_free(&f);
	const char *cut = strstr(sched_switch, "offset:28");
	assert_int_equal(tpformat_parse(copy, (size_t)(cut - sched_switch) + 3, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "prev_prio"));
	free(copy);
}

struct bad {
	const char *text;
	const char *msg;   /* expected substring of the error */
};

static void test_malformed(void **state)
{
	static const struct bad bad[] = {
		{ "", "no 'name:'" },
		{ "name: x\nID: 1\n", "no 'format:'" },
		{ "ID: 1\nformat:\n", "no 'name:'" },
		{ "name: x\nID: abc\nformat:\n", "bad 'ID:'" },
		{ "name: x\nID: 99999999999999999999\nformat:\n", "bad 'ID:'" },
		{ "name: x\nname: y\nformat:\n", "second 'name:'" },
		{ "name: x\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", "before 'format:'" },
		{ "name: x\nformat:\n\tfield:int a\toffset:0;\n", "line 3:" },
		{ "name: x\nformat:\n\tfield:int a;\tsize:4;\n", "bad or missing offset" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:0;\n", "bad or missing size" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:-4;\tsize:4;\tsigned:1;\n", "offset" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:7;\n", "signed" },
		{ "name: x\nformat:\n\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n", "no type" },
		{ "name: x\nformat:\n\tfield:;\toffset:0;\tsize:4;\tsigned:1;\n", "without a name" },
		{ "name: x\nformat:\n\tfield:int a];\toffset:0;\tsize:4;\tsigned:1;\n", "unbalanced" },
		{ "name: x\nformat:\n\tfield:int a[3];\toffset:0;\tsize:4;\tsigned:1;\n", "multiple" },
		{ "name: x\nformat:\n\tfield:__data_loc char[] s;\toffset:0;\tsize:8;\tsigned:0;\n", "dynamic" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n"
		  "\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n", "duplicate" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:4294967295;\tsize:4;\tsigned:1;\n", "offset" },
		{ "name: x\nformat:\n\tfield:int a;\toffset:16000000;\tsize:800000;\tsigned:1;\n", "too large" },
		{ "name: x\nformat:\ngarbage here\n", "unrecognised" },
		{ "name: x y\nformat:\n", "invalid event name" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tpformat f;
		char err[256] = "";

		if (tpformat_parse(bad[i].text, strlen(bad[i].text), &f, err, sizeof(err)) != -1)
			fail_msg("case %zu parsed: %s", i, bad[i].text);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: error '%s' lacks '%s'", i, err, bad[i].msg);
		assert_null(f.fields);
		assert_null(f.name);
	}
}

static void test_nul_and_binary(void **state)
{
	static const char bin[] = "name: x\nformat:\n\tfield:int\0a;\toffset:0;\tsize:4;\tsigned:1;\n";
	struct tpformat f;
	char err[128];

	assert_int_equal(tpformat_parse(bin, sizeof(bin) - 1, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "NUL"));
	/* NULL text, zero-length error buffer: still no crash */
	assert_int_equal(tpformat_parse(NULL, 10, &f, NULL, 0), -1);
	unsigned char junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131u + 7u);
	assert_int_equal(tpformat_parse((const char *)junk, sizeof(junk), &f, err, sizeof(err)), -1);
	/* tiny error buffer: truncated, NUL-terminated */
	char small[8];
	assert_int_equal(tpformat_parse("name: x\n", 8, &f, small, sizeof(small)), -1);
	assert_int_equal(strlen(small), 7);
}

static void test_too_many_fields(void **state)
{
	size_t cap = 64 + (TPF_MAX_FIELDS + 2) * 64, n;
	char *t = malloc(cap);
	struct tpformat f;
	char err[128];

	n = (size_t)snprintf(t, cap, "name: big\nformat:\n");
	for (int i = 0; i < TPF_MAX_FIELDS + 1; i++)
		n += (size_t)snprintf(t + n, cap - n, "\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n", i, i * 4);
	assert_int_equal(tpformat_parse(t, n, &f, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_data_loc),
		cmocka_unit_test(test_rel_loc),
		cmocka_unit_test(test_arrays_pointers),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_and_binary),
		cmocka_unit_test(test_too_many_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
