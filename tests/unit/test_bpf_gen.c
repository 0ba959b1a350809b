/* test_bpf_gen.c — the filter compiler's user-space parts (src/filter/bpf_gen.c): glob
 * patterns cut into segments, the segment matching the generated code performs (prefix,
 * suffix, leftmost search of the middle ones) checked against filter_glob_match over random
 * patterns and subjects, and what the compiler refuses (values the kernel cannot read, globs
 * needing bpf_strnstr without it) or emits (a program ending in exit, jumps in range).
 * The programs themselves run in the kernel in tests/e2e/test_filter_diff.py. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "filter/bpf_gen.h"
#include "filter/filter.h"

static void test_segments(void **state)
{
	char buf[64];
	const char *seg[8];
	size_t len[8];

	assert_int_equal(fgen_glob_segments("/etc/*", 6, buf, seg, len, 8), 2);
	assert_string_equal(seg[0], "/etc/");
	assert_int_equal(len[0], 5);
	assert_string_equal(seg[1], "");
	assert_int_equal(fgen_glob_segments("*a\\*b*c", 7, buf, seg, len, 8), 3);
	assert_string_equal(seg[0], "");
	assert_string_equal(seg[1], "a*b");
	assert_string_equal(seg[2], "c");
	/* a trailing lone backslash is literal, as in filter_glob_match */
	assert_int_equal(fgen_glob_segments("x\\", 2, buf, seg, len, 8), 1);
	assert_string_equal(seg[0], "x\\");
	assert_int_equal(fgen_glob_segments("**", 2, buf, seg, len, 8), 3);
	assert_int_equal(fgen_glob_segments("a*b*c*d", 7, buf, seg, len, 3), -1);
}

/* What the generated code computes, in C: prefix, suffix, then middle segments searched
 * leftmost-first in [pos, len - |last|) (bpf_strnstr's contract). */
static bool seg_match(const char *pat, size_t plen, const char *s, size_t slen)
{
	char buf[128];
	const char *seg[64];
	size_t len[64];
	int k = fgen_glob_segments(pat, plen, buf, seg, len, 64);

	assert_true(k >= 1);
	if (k == 1)
		return slen == len[0] && !memcmp(s, seg[0], slen);
	size_t first = len[0], last = len[k - 1];
	if (slen < first + last || memcmp(s, seg[0], first) || memcmp(s + slen - last, seg[k - 1], last))
		return false;
	size_t pos = first, end = slen - last;
	for (int i = 1; i < k - 1; i++) {
		bool found = false;
		for (size_t p = pos; p + len[i] <= end; p++) {
			if (!memcmp(s + p, seg[i], len[i])) {
				pos = p + len[i];
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

static void test_segment_matching_agrees(void **state)
{
	static const char alpha[] = "ab*\\";
	unsigned long long x = 12345;
	char pat[12], s[16];

	for (int it = 0; it < 200000; it++) {
		size_t plen, slen;
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		plen = (x >> 33) % 10;
		for (size_t i = 0; i < plen; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			pat[i] = alpha[(x >> 33) % 4];
		}
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		slen = (x >> 33) % 12;
		for (size_t i = 0; i < slen; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			s[i] = alpha[(x >> 33) % 4];
		}
		if (!memchr(pat, '*', plen))
			continue;   /* no star: compiled as an exact comparison */
		bool want = filter_glob_match(pat, plen, s, slen), got = seg_match(pat, plen, s, slen);
		if (want != got)
			fail_msg("pattern '%.*s' subject '%.*s': glob %d segments %d", (int)plen, pat, (int)slen, s, want, got);
	}
}

/* A one-event schema and IR for text. */
static struct filter *lower(const char *text, struct filter_ir *ir)
{
	static const struct filter_field fields[] = {
		{ .name = "fd", .type = FF_INT, .is_signed = true },
		{ .name = "filename", .type = FF_STRING },
	};
	static const struct filter_schema ev = { .event_name = "e", .nfields = 2, .fields = fields };
	struct filter_error fe;
	struct filter *f = filter_parse(text, &fe);

	assert_non_null(f);
	assert_int_equal(filter_check(f, &ev, 1, &fe), 0);
	assert_int_equal(filter_lower(f, &ev, ir, &fe), 0);
	return f;
}

static void test_compile(void **state)
{
	struct filter_ir ir = { 0 };
	struct fgen_prog prog;
	struct fgen_loc locs[2] = {
		{ .kind = FGEN_ARG, .arg = 0, .ext = FGEN_EXT_S32 },
		{ .kind = FGEN_USTR, .arg = 1, .max = 4096 },
	};
	struct fgen_target t = { .env_fd = 3, .back_fd = 4, .strnstr_btf_id = 0 };
	char why[200];
	struct filter *f = lower("fd == 1 && filename == \"/etc/*\"", &ir);

	/* accesses follow the order of first reference */
	assert_int_equal(ir.naccess, 2);
	assert_int_equal(fgen_compile(&(struct fgen_case){ .ir = &ir, .locs = locs }, 1, &t, &prog, why, sizeof(why)), 0);
	assert_true(prog.n > 20);
	assert_int_equal(prog.insns[prog.n - 1].code, BPF_JMP | BPF_EXIT);
	for (size_t i = 0; i < prog.n; i++) {
		uint8_t cls = prog.insns[i].code & 7;
		if ((cls == BPF_JMP || cls == BPF_JMP32) && (prog.insns[i].code & 0xf0) != BPF_CALL &&
		    (prog.insns[i].code & 0xf0) != BPF_EXIT) {
			assert_true(prog.insns[i].off >= 0);            /* forward only */
			assert_true(i + 1 + (size_t)prog.insns[i].off < prog.n);
		}
	}
	fgen_prog_free(&prog);

	locs[1].kind = FGEN_NONE;   /* e.g. a struct member */
	assert_int_equal(fgen_compile(&(struct fgen_case){ .ir = &ir, .locs = locs }, 1, &t, &prog, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot read"));
	filter_ir_free(&ir);
	filter_free(f);

	/* a star inside needs bpf_strnstr */
	f = lower("filename == \"*a*b\"", &ir);
	locs[0] = (struct fgen_loc){ .kind = FGEN_USTR, .arg = 1, .max = 4096 };
	assert_int_equal(fgen_compile(&(struct fgen_case){ .ir = &ir, .locs = locs }, 1, &t, &prog, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "bpf_strnstr"));
	t.strnstr_btf_id = 1234;
	assert_int_equal(fgen_compile(&(struct fgen_case){ .ir = &ir, .locs = locs }, 1, &t, &prog, why, sizeof(why)), 0);
	bool kfunc = false;
	for (size_t i = 0; i < prog.n; i++)
		kfunc |= prog.insns[i].code == (BPF_JMP | BPF_CALL) && prog.insns[i].src_reg == BPF_PSEUDO_KFUNC_CALL &&
			 prog.insns[i].imm == 1234;
	assert_true(kfunc);
	fgen_prog_free(&prog);
	filter_ir_free(&ir);
	filter_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_segment_matching_agrees),
		cmocka_unit_test(test_compile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
