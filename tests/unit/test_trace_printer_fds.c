/* test_trace_printer_fds.c — `scry trace` output (src/trace/printer.c, printer_json.c,
 * fdtrack.c, imap.c): fds decoded as -y does, the fd tracker, JSON lines parsed back, and
 * the integer map */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "printer_test_util.h"

/* ---- -y ---- */

static void decode_fds(struct trace_opts *o)
{
	o->decode_fds = true;
}

static void test_decode_fds(void **state)
{
	struct run r;
	struct trace_call c;
	static const int32_t fds[2] = { 6, 7 };

	start(&r, decode_fds);
	openat_call(&r, NOPID, NOPID, T0, -100, "/nonexistent-scry/f", 01 | 0100 | 02000000, 0600, 3);
	c = entry("write", NOPID, NOPID, T0 + 1);
	in_int(&c, 0, 3);
	in_str(&c, 1, "hi");
	in_int(&c, 2, 2);
	trace_printer_entry(r.p, &c);
	c = exit_of("write", NOPID, NOPID, T0 + 2, 2);
	trace_printer_exit(r.p, &c);
	c = entry("dup2", NOPID, NOPID, T0 + 3);
	in_int(&c, 0, 3);
	in_int(&c, 1, 10);
	trace_printer_entry(r.p, &c);
	c = exit_of("dup2", NOPID, NOPID, T0 + 4, 10);
	trace_printer_exit(r.p, &c);
	openat_call(&r, NOPID, NOPID, T0 + 5, -100, "/nonexistent-scry", 0200000 | 0100, 0700, 4);
	openat_call(&r, NOPID, NOPID, T0 + 6, 4, "sub/x", 0100, 0644, 5);
	simple(&r, "close", NOPID, NOPID, T0 + 7, 4, 0);
	c = entry("pipe2", NOPID, NOPID, T0 + 8);
	in_ptr(&c, 0, BUFPTR);
	in_int(&c, 1, 0);
	trace_printer_entry(r.p, &c);
	c = exit_of("pipe2", NOPID, NOPID, T0 + 9, 0);
	out_bytes(&c, 0, fds, sizeof(fds), 2);
	trace_printer_exit(r.p, &c);
	/* execve closes the close-on-exec fd 3, not 10 */
	c = entry("execve", NOPID, NOPID, T0 + 10);
	in_str(&c, 0, "/bin/true");
	in_ptr(&c, 1, 0);
	in_ptr(&c, 2, 0);
	trace_printer_entry(r.p, &c);
	c = exit_of("execve", NOPID, NOPID, T0 + 11, -2);
	trace_printer_exit(r.p, &c);
	simple(&r, "close", NOPID, NOPID, T0 + 12, 3, 0);
	c = exit_of("execve", NOPID, NOPID, T0 + 13, 0);     /* a successful one */
	trace_printer_exit(r.p, &c);
	simple(&r, "close", NOPID, NOPID, T0 + 14, 3, -9);
	simple(&r, "close", NOPID, NOPID, T0 + 15, 10, 0);
	expect(&r,
	       "openat(AT_FDCWD, \"/nonexistent-scry/f\", O_WRONLY|O_CREAT|O_CLOEXEC, 0600) = 3</nonexistent-scry/f>\n"
	       "write(3</nonexistent-scry/f>, \"hi\", 2)  = 2\n"
	       "dup2(3</nonexistent-scry/f>, 10)        = 10</nonexistent-scry/f>\n"
	       "openat(AT_FDCWD, \"/nonexistent-scry\", O_RDONLY|O_CREAT|O_DIRECTORY, 0700) = 4</nonexistent-scry>\n"
	       "openat(4</nonexistent-scry>, \"sub/x\", O_RDONLY|O_CREAT, 0644) = 5</nonexistent-scry/sub/x>\n"
	       "close(4</nonexistent-scry>)             = 0\n"
	       "pipe2([6, 7], 0)                        = 0\n"
	       "execve(\"/bin/true\", NULL, NULL)         = -1 ENOENT (No such file or directory)\n"
	       "close(3</nonexistent-scry/f>)           = 0\n"
	       "<... execve resumed>)                   = 0\n"
	       "close(3)                                = -1 EBADF (Bad file descriptor)\n"
	       "close(10</nonexistent-scry/f>)          = 0\n");
}

/* fdtrack on its own, with a fake /proc */
static void test_fdtrack(void **state)
{
	char root[] = "/tmp/scry-fdtrack-XXXXXX", path[256];
	struct fdtrack t;
	struct trace_call c;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/777", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/777/fd", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/777/fd/5", root);
	assert_int_equal(symlink("socket:[4242]", path), 0);
	snprintf(path, sizeof(path), "%s/777/cwd", root);
	assert_int_equal(symlink("/nonexistent-cwd", path), 0);

	fdtrack_init(&t);
	t.proc_root = root;
	/* no call seen: /proc's link */
	assert_string_equal(fdtrack_path(&t, 777, 5), "socket:[4242]");
	assert_null(fdtrack_path(&t, 777, 6));
	/* openat relative to the cwd */
	c = entry("openat", 777, 777, T0);
	c.have_exit = true;
	c.ret = 6;
	in_int(&c, 0, -100);
	in_str(&c, 1, "rel/file");
	in_int(&c, 2, 0);
	fdtrack_apply(&t, &c, c.in);
	assert_string_equal(fdtrack_path(&t, 777, 6), "/nonexistent-cwd/rel/file");
	/* a child inherits the table; the parent's later changes are its own */
	fdtrack_fork(&t, 777, 778);
	assert_string_equal(fdtrack_path(&t, 778, 6), "/nonexistent-cwd/rel/file");
	c = entry("close", 777, 777, T0);
	c.have_exit = true;
	in_int(&c, 0, 6);
	fdtrack_apply(&t, &c, c.in);
	assert_null(fdtrack_path(&t, 777, 6));
	assert_string_equal(fdtrack_path(&t, 778, 6), "/nonexistent-cwd/rel/file");
	fdtrack_drop(&t, 778);
	assert_null(fdtrack_path(&t, 778, 6));
	/* a huge fd is not kept; negative fds have no path */
	fdtrack_set(&t, 777, 1 << 20, "/x", false);
	assert_null(fdtrack_path(&t, 777, 1 << 20));
	assert_null(fdtrack_path(&t, 777, -1));
	fdtrack_free(&t);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* ---- JSON ---- */

static void json(struct trace_opts *o)
{
	o->json = true;
}

/* A small JSON checker: one value per line, objects, arrays, strings with escapes,
 * numbers, true/false/null; no trailing bytes. */
static const char *jvalue(const char *s);

static const char *jws(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static const char *jstring(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		unsigned char c = (unsigned char)*s;

		if (!c || c < 0x20)
			return NULL;
		if (c == '\\') {
			s++;
			if (*s == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
						return NULL;
				s += 5;
				continue;
			}
			if (!*s || !strchr("\"\\/bfnrt", *s))
				return NULL;
		}
		s++;
	}
	return s + 1;
}

static const char *jnumber(const char *s)
{
	const char *b;

	if (*s == '-')
		s++;
	b = s;
	while (*s >= '0' && *s <= '9')
		s++;
	if (s == b || (b[0] == '0' && s - b > 1))
		return NULL;
	if (*s == '.') {
		b = ++s;
		while (*s >= '0' && *s <= '9')
			s++;
		if (s == b)
			return NULL;
	}
	return s;
}

static const char *jvalue(const char *s)
{
	s = jws(s);
	if (*s == '"')
		return jstring(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';

		s = jws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				if (!(s = jstring(jws(s))))
					return NULL;
				s = jws(s);
				if (*s++ != ':')
					return NULL;
			}
			if (!(s = jvalue(s)))
				return NULL;
			s = jws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (!strncmp(s, "true", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	if (!strncmp(s, "null", 4))
		return s + 4;
	return jnumber(s);
}

static void assert_json_lines(const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n'), *end;

		assert_non_null(nl);
		end = jvalue(text);
		assert_true(end == nl);
		text = nl + 1;
	}
}

static void test_json(void **state)
{
	struct run r;
	struct trace_call c;
	char *got;

	start(&r, json);
	trace_printer_task(r.p, 100, 100, 101);
	read_in(&r, 100, 101, T0 + 5, 3, 8);
	openat_call(&r, 100, 100, T0 + 1000, -100, "/tmp/a\"b\\c\n\001\377é", 0100, 0644, -2);
	read_out(&r, 100, 101, T0 + 20000, "x\ty", 3);
	signal_at(&r, 100, 100, T0 + 30000, 17, 2, 0, (const uint64_t[4]){ 7 | 1000ULL << 32, 9, 4, 0x7fffffffffffffffLL });
	c = entry("close", 100, 101, T0 + 40000);
	in_int(&c, 0, 3);
	trace_printer_entry(r.p, &c);
	simple(&r, "exit_group", 100, 100, T0 + 50000, 3, 0);
	trace_printer_exited(r.p, 100, T0 + 60000, 3 << 8);
	got = finish(&r);
	assert_string_equal(got,
		"{\"event\":\"syscall\",\"ts\":\"1700000000000001000\",\"pid\":100,\"tid\":100,\"syscall\":\"openat\","
		"\"args\":[{\"name\":\"dfd\",\"type\":\"dirfd\",\"value\":-100,\"text\":\"AT_FDCWD\"},"
		"{\"name\":\"filename\",\"type\":\"path\",\"ptr\":\"2147291136\","
		"\"value\":\"/tmp/a\\\"b\\\\c\\n\\u0001\\udcff\xc3\xa9\","
		"\"text\":\"\\\"/tmp/a\\\\\\\"b\\\\\\\\c\\\\n\\\\1\\\\377\\\\303\\\\251\\\"\"},"
		"{\"name\":\"flags\",\"type\":\"flags\",\"value\":64,\"names\":[\"O_RDONLY\",\"O_CREAT\"],"
		"\"text\":\"O_RDONLY|O_CREAT\"},{\"name\":\"mode\",\"type\":\"mode\",\"value\":420,\"text\":\"0644\"}],"
		"\"ret\":\"-2\",\"error\":\"ENOENT\",\"duration_ns\":\"12000\"}\n"
		"{\"event\":\"syscall\",\"ts\":\"1700000000000000005\",\"pid\":100,\"tid\":101,\"syscall\":\"read\","
		"\"args\":[{\"name\":\"fd\",\"type\":\"fd\",\"value\":3,\"text\":\"3\"},"
		"{\"name\":\"buf\",\"type\":\"bytes\",\"ptr\":\"2147291136\",\"value\":\"x\\ty\",\"text\":\"\\\"x\\\\ty\\\"\"},"
		"{\"name\":\"count\",\"type\":\"uint\",\"value\":\"8\",\"text\":\"8\"}],"
		"\"ret\":\"3\",\"error\":null,\"duration_ns\":\"19995\"}\n"
		"{\"event\":\"signal\",\"ts\":\"1700000000000030000\",\"pid\":100,\"tid\":100,\"signal\":\"SIGCHLD\","
		"\"signo\":17,\"si_code\":\"CLD_KILLED\",\"code\":2,\"si_errno\":null,\"si_pid\":7,\"si_uid\":1000,"
		"\"si_status\":\"SIGKILL\",\"si_utime\":\"4\",\"si_stime\":\"9223372036854775807\"}\n"
		"{\"event\":\"syscall\",\"ts\":\"1700000000000050000\",\"pid\":100,\"tid\":100,\"syscall\":\"exit_group\","
		"\"args\":[{\"name\":\"error_code\",\"type\":\"int\",\"value\":3,\"text\":\"3\"}],"
		"\"ret\":null,\"error\":null,\"unfinished\":true}\n"
		"{\"event\":\"syscall\",\"ts\":\"1700000000000040000\",\"pid\":100,\"tid\":101,\"syscall\":\"close\","
		"\"args\":[{\"name\":\"fd\",\"type\":\"fd\",\"value\":3,\"text\":\"3\"}],"
		"\"ret\":null,\"error\":null,\"unfinished\":true}\n"
		"{\"event\":\"exit\",\"ts\":\"1700000000000060000\",\"pid\":100,\"tid\":101,\"exit_code\":3}\n"
		"{\"event\":\"exit\",\"ts\":\"1700000000000060000\",\"pid\":100,\"tid\":100,\"exit_code\":3}\n");
	assert_json_lines(got);
	free(got);
}

/* the task and fd maps: many keys, deletions in a scrambled order (backward shift) */
static void test_imap(void **state)
{
	struct imap m = { 0 };
	enum { N = 5000 };
	static char vals[N + 1];

	for (int k = 1; k <= N; k++)
		assert_int_equal(imap_put(&m, k * 7, &vals[k]), 0);
	assert_int_equal(m.n, N);
	assert_int_equal(imap_put(&m, 7, &vals[2]), 0);     /* replace */
	assert_int_equal(m.n, N);
	assert_ptr_equal(imap_get(&m, 7), &vals[2]);
	for (int i = 0; i < N; i++) {
		int k = i * 1237 % N + 1;      /* 1237 prime to N: a permutation of 1..N */

		if (k % 2)
			assert_non_null(imap_del(&m, k * 7));
	}
	for (int k = 1; k <= N; k++) {
		void *v = imap_get(&m, k * 7);

		if (k % 2)
			assert_null(v);
		else
			assert_ptr_equal(v, &vals[k]);
	}
	assert_int_equal(m.n, N / 2);
	assert_null(imap_get(&m, 3));
	assert_null(imap_del(&m, 3));
	assert_int_equal(imap_put(&m, 0, vals), -1);        /* keys are > 0 */
	imap_free(&m);
	assert_null(imap_get(&m, 14));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_fds),
		cmocka_unit_test(test_fdtrack),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_imap),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
