/* test_json.c — util/json.c: strings escaped strictly, bytes that are not UTF-8 as U+DC80 +
 * byte (recovered exactly by Python's surrogateescape), integers as numbers up to 2^53 and
 * as exact strings beyond; the output checked by Python's json module and jq. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "util/json.h"

struct mem {
	char *buf;
	size_t len;
	FILE *f;
	struct outbuf ob;
};

static void mem_open(struct mem *m)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	assert_int_equal(ob_init(&m->ob, m->f), 0);
}

static char *mem_close(struct mem *m)
{
	ob_free(&m->ob);
	fclose(m->f);
	return m->buf;
}

static const char in[] = "a\"\\\n\t\r\b\f\001\037 \x7f" "\xc3\xa9" "\xe2\x82\xac" "\xf0\x9f\x98\x80"
			 "\xff" "\xc0\xaf" "\xed\xa0\x80" "\xe2\x82";

static void test_strings(void **state)
{
	struct mem m;
	char *out;

	mem_open(&m);
	json_str(&m.ob, in, sizeof(in) - 1);
	OB_LIT(&m.ob, " ");
	json_cstr(&m.ob, NULL);
	out = mem_close(&m);
	assert_string_equal(out, "\"a\\\"\\\\\\n\\t\\r\\b\\f\\u0001\\u001f \x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				 "\\udcff\\udcc0\\udcaf\\udced\\udca0\\udc80\\udce2\\udc82\" null");
	free(out);
}

static void test_integers(void **state)
{
	struct mem m;
	char *out;

	mem_open(&m);
	json_u64(&m.ob, 0);
	OB_LIT(&m.ob, " ");
	json_u64(&m.ob, 1ULL << 53);
	OB_LIT(&m.ob, " ");
	json_u64(&m.ob, (1ULL << 53) + 1);
	OB_LIT(&m.ob, " ");
	json_u64(&m.ob, UINT64_MAX);
	OB_LIT(&m.ob, " ");
	json_i64(&m.ob, -(int64_t)(1ULL << 53));
	OB_LIT(&m.ob, " ");
	json_i64(&m.ob, -(int64_t)(1ULL << 53) - 1);
	OB_LIT(&m.ob, " ");
	json_i64(&m.ob, INT64_MIN);
	out = mem_close(&m);
	assert_string_equal(out, "0 9007199254740992 \"9007199254740993\" \"18446744073709551615\" "
				 "-9007199254740992 \"-9007199254740993\" \"-9223372036854775808\"");
	free(out);
}

/* Readers nobody here wrote: Python gets the bytes back exactly, jq parses every value. */
static void test_readers(void **state)
{
	struct mem m;
	char *out, path[] = "/tmp/scry_json_XXXXXX", cmd[600];
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	mem_open(&m);
	OB_LIT(&m.ob, "{\"s\":");
	json_str(&m.ob, in, sizeof(in) - 1);
	OB_LIT(&m.ob, ",\"big\":");
	json_u64(&m.ob, UINT64_MAX);
	OB_LIT(&m.ob, ",\"ts\":");
	json_i64(&m.ob, 1700000005123456789LL);
	OB_LIT(&m.ob, "}\n");
	out = mem_close(&m);
	f = fdopen(fd, "w");
	fputs(out, f);
	fclose(f);
	free(out);
	{
		/* the input's bytes in hex for Python to compare with */
		char hex[2 * sizeof(in) + 1];

		for (size_t i = 0; i < sizeof(in) - 1; i++)
			sprintf(hex + 2 * i, "%02x", (unsigned char)in[i]);
		snprintf(cmd, sizeof(cmd),
			 "/usr/bin/python3 -c 'import json,sys\n"
			 "o=json.load(open(sys.argv[1]))\n"
			 "assert o[\"s\"].encode(\"utf-8\",\"surrogateescape\")==bytes.fromhex(sys.argv[2]), o\n"
			 "assert int(o[\"big\"])==2**64-1 and int(o[\"ts\"])==1700000005123456789\n' '%s' '%s'",
			 path, hex);
	}
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "jq -e '.big == \"18446744073709551615\" and .ts == \"1700000005123456789\"' "
		 "'%s' >/dev/null", path);
	assert_int_equal(system(cmd), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
