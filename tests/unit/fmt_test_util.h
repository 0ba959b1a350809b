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

#endif
