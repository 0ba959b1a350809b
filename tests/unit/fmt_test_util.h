/* fmt_test_util.h — the output buffer the format tests print into (src/format): setup and
 * teardown for cmocka groups, took() for what was printed since the last call, and
 * EXPECT(statement, "expected text").  Include after <cmocka.h> and format/format.h. */
#ifndef SCRY_FMT_TEST_UTIL_H
#define SCRY_FMT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct outbuf ob;
static FILE *devnull;

static int setup(void **state)
{
	setenv("TZ", "UTC", 1);   /* time printers */
	tzset();
	devnull = fopen("/dev/null", "w");
	return !devnull || ob_init(&ob, devnull) ? -1 : 0;
}

static int teardown(void **state)
{
	ob_free(&ob);
	fclose(devnull);
	return 0;
}

/* What was printed since the last call. */
static const char *took(void)
{
	static char s[65536];
	size_t n = ob.n < sizeof(s) - 1 ? ob.n : sizeof(s) - 1;

	memcpy(s, ob.buf, n);
	s[n] = 0;
	ob.n = 0;
	return s;
}

#define EXPECT(stmt, str) do { ob.n = 0; stmt; assert_string_equal(took(), (str)); } while (0)

/* Shared by the test_format_*.c files: expectations on one printer, the options, and
 * argument values built by hand. */
#define FLAGS(set, v, str) EXPECT(assert_true(scry_fmt_flags(&ob, set, (v))), str)
#define ENUM(set, v, str) EXPECT(assert_true(scry_fmt_enum(&ob, set, (v))), str)
#define RET(name, r, str) EXPECT(scry_fmt_ret(&ob, name, (r)), str)

static const struct scry_fmt_opts opts = { .strsize = 32 };
static const struct scry_fmt_opts vopts = { .strsize = 32, .verbose = true };

#define STRUCT(type, ptr, o, str) \
	EXPECT(scry_fmt_struct(&ob, type, (const uint8_t *)(ptr), sizeof(*(ptr)), o), str)

static inline uint64_t ksigset(const sigset_t *s)
{
	uint64_t v;

	memcpy(&v, s, 8);       /* the C library's sigset_t starts with the kernel's 64 bits */
	return v;
}

static inline struct scry_argval val(uint64_t v)
{
	struct scry_argval a = { .have = true, .v = v };
	return a;
}

static inline struct scry_argspec kind(enum scry_akind k)
{
	struct scry_argspec s = { .kind = k };
	return s;
}

static inline struct scry_argval capture(const void *p, uint32_t len, uint32_t n, uint64_t ptr)
{
	struct scry_argval a = val(ptr);

	a.have_ptr = true;
	a.p = p;
	a.len = len;
	a.n = n;
	return a;
}

#define ARG(spec, a, str) do { \
	struct scry_argspec s_ = (spec); \
	struct scry_argval a_ = (a); \
	EXPECT(scry_fmt_arg(&ob, &s_, &a_, NULL, 0, false, &opts), str); \
} while (0)

static inline const char *fdpath(void *ctx, int pid, int fd)
{
	assert_int_equal(pid, 1234);
	assert_string_equal((const char *)ctx, "ctx");
	return fd == 3 ? "/etc/passwd" : NULL;
}

/* back-to-back NUL-terminated strings */
static inline struct scry_argval strv(const char *const *s, unsigned n, char *store, uint64_t ptr)
{
	struct scry_argval a = val(ptr);
	size_t len = 0;

	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(s[i]) + 1;

		memcpy(store + len, s[i], l);
		len += l;
	}
	a.have_ptr = true;
	a.p = (const uint8_t *)store;
	a.len = (uint32_t)len;
	a.n = n;
	return a;
}

/* Argument i of a parsed spec, inside its call's spec array (the formatter looks at the
 * other arguments' specs for some kinds, as it does in a real call). */
static inline const struct scry_argspec *parse1(const char *spec, const char *const *names, unsigned n, unsigned i)
{
	static struct scry_argspec pool[32][SCRY_MAX_ARGS];
	static unsigned next;
	struct scry_argspec *out = pool[next++ % 32];
	char err[128];

	if (scry_argspec_parse(spec, names, n, out, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	return &out[i];
}

#endif
