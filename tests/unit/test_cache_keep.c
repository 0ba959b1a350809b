/* test_cache_keep.c — the build-id keyed file copies of src/util/cache.c: the name of a
 * build id's copy (none for what is not a hex build id, nor in a directory that is not
 * scry's own), a copy made whole and kept, never made again, and the oldest copies removed
 * when all of them would pass 512 MiB (sparse files of that size: no disk used). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>
#include "util/cache.h"

static char dir[] = "/tmp/scry-cache-keep-XXXXXX";
static char src[300];

static void put(const char *path, off_t size, time_t mtime)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct timeval tv[2] = { { mtime, 0 }, { mtime, 0 } };

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	assert_int_equal(utimes(path, tv), 0);
}

static void test_names(void **state)
{
	char p[600], want[600];

	assert_true(scry_cache_elf_path("0a1b2c", p, sizeof(p)));
	snprintf(want, sizeof(want), "%s/elf-0a1b2c", dir);
	assert_string_equal(p, want);
	assert_false(scry_cache_elf_path("-", p, sizeof(p)));
	assert_false(scry_cache_elf_path("../../etc/x", p, sizeof(p)));
	assert_false(scry_cache_elf_path("0A1B", p, sizeof(p)));
	chmod(dir, 0777);          /* another user could plant a copy: none used */
	assert_false(scry_cache_elf_path("0a1b2c", p, sizeof(p)));
	chmod(dir, 0700);
}

static void test_keep_once(void **state)
{
	char p[600];
	struct stat st;
	FILE *f = fopen(src, "w");

	fputs("the file's bytes", f);
	fclose(f);
	assert_true(scry_cache_elf_path("aa", p, sizeof(p)));
	assert_int_equal(scry_cache_keep(src, p), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 16);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(src, "w");       /* the same build id: the copy stays as it is */
	fputs("x", f);
	fclose(f);
	assert_int_equal(scry_cache_keep(src, p), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 16);
	unlink(p);
	assert_int_not_equal(scry_cache_keep("/dev/null", p), 0);   /* not a regular file */
	assert_int_not_equal(stat(p, &st), 0);
	unlink(p);
}

static void test_oldest_removed(void **state)
{
	char a[600], b[600], c[600];
	struct stat st;

	assert_true(scry_cache_elf_path("a1", a, sizeof(a)));
	assert_true(scry_cache_elf_path("b2", b, sizeof(b)));
	assert_true(scry_cache_elf_path("c3", c, sizeof(c)));
	put(a, 300 << 20, 1000);   /* the oldest */
	put(b, 200 << 20, 2000);
	put(src, 100, 3000);
	assert_int_equal(scry_cache_keep(src, c), 0);   /* 500 MiB + 100 bytes: all fit */
	assert_int_equal(stat(a, &st), 0);
	unlink(c);
	put(src, 20 << 20, 3000);  /* 520 MiB: the oldest goes */
	assert_int_equal(scry_cache_keep(src, c), 0);
	assert_int_not_equal(stat(a, &st), 0);
	assert_int_equal(stat(b, &st), 0);
	assert_int_equal(stat(c, &st), 0);
	assert_int_equal(st.st_size, 20 << 20);
	unlink(b);
	unlink(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_keep_once),
		cmocka_unit_test(test_oldest_removed),
	};
	int ret;

	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0700);
	setenv("SCRY_CACHE_DIR", dir, 1);
	unsetenv("SCRY_NO_CACHE");
	snprintf(src, sizeof(src), "%s/../scry-cache-keep-src-%d", dir, (int)getpid());
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(src);
	rmdir(dir);
	return ret;
}
