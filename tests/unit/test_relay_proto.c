/* test_relay_proto.c — lttng-relayd's protocol as scry builds and reads it (src/relay/proto.c):
 * URLs (net://, net6://, -C/-D's tcp://, defaults, refusals), the byte layout of the header,
 * CREATE_SESSION (2.11: 59-byte head, names with their NUL), ADD_STREAM, SEND_INDEX, and the
 * replies parsed whole or asked for more. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "relay/proto.h"

static uint64_t be64at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void test_urls(void **state)
{
	struct relay_url u;
	char err[256], buf[300];

	assert_int_equal(relay_url_parse(&u, "net://relay.example", err, sizeof(err)), 0);
	assert_string_equal(u.host, "relay.example");
	assert_int_equal(u.ctrl_port, 5342);
	assert_int_equal(u.data_port, 5343);
	assert_string_equal(u.path, "");
	assert_int_equal(relay_url_parse(&u, "net://10.0.0.1:6000:6001/a/b/", err, sizeof(err)), 0);
	assert_int_equal(u.ctrl_port, 6000);
	assert_int_equal(u.data_port, 6001);
	assert_string_equal(u.path, "a/b");
	relay_url_format(&u, buf, sizeof(buf));
	assert_string_equal(buf, "net://10.0.0.1:6000:6001/a/b");
	assert_int_equal(relay_url_parse(&u, "net6://[::1]:7000", err, sizeof(err)), 0);
	assert_true(u.v6);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.ctrl_port, 7000);
	assert_int_equal(u.data_port, 5343);
	relay_url_format(&u, buf, sizeof(buf));
	assert_string_equal(buf, "net6://[::1]:7000:5343");
	assert_int_equal(relay_url_parse(&u, "net://h:0", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse(&u, "net://h:1:2:3", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too many ports"));
	assert_int_equal(relay_url_parse(&u, "net://h/../x", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse(&u, "file:///tmp", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse(&u, "net://[::1", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse_cd(&u, "tcp://h:1", "tcp://h:2", err, sizeof(err)), 0);
	assert_int_equal(u.ctrl_port, 1);
	assert_int_equal(u.data_port, 2);
	assert_int_equal(relay_url_parse_cd(&u, "tcp://h", "tcp://h", err, sizeof(err)), 0);
	assert_int_equal(u.ctrl_port, 5342);
	assert_int_equal(u.data_port, 5343);
	assert_int_equal(relay_url_parse_cd(&u, "tcp://h:1", "tcp://g:2", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse_cd(&u, "tcp://h:1/p", "tcp://h:2", err, sizeof(err)), -EINVAL);
	assert_true(relay_url_is_net("net://x"));
	assert_true(relay_url_is_net("tcp6://x"));
	assert_false(relay_url_is_net("/tmp/net://x"));
}

static void test_payloads(void **state)
{
	uint8_t b[512], uuid[16];
	struct relay_session_args a = { .name = "web", .hostname = "h1", .base_path = "", .live_timer_us = 1000000,
					.sessiond_uuid = uuid, .session_id = 7, .creation_time = 1700000000 };
	struct relay_index ix = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	long n;

	memset(uuid, 0xab, sizeof(uuid));
	relay_put_hdr(b, RELAY_SEND_INDEX, 80);
	assert_int_equal(be64at(b), 0);
	assert_int_equal(be64at(b + 8), 80);
	assert_int_equal(be32at(b + 16), 13);
	assert_int_equal(be32at(b + 20), 0);
	n = relay_build_create_session(b, sizeof(b), &a);
	assert_int_equal(n, 59 + 4 + 3);
	assert_int_equal(be32at(b), 4);           /* "web" and its NUL */
	assert_int_equal(be32at(b + 4), 3);
	assert_int_equal(be32at(b + 8), 0);       /* no base path */
	assert_int_equal(be32at(b + 12), 1000000);
	assert_memory_equal(b + 18, uuid, 16);
	assert_int_equal(be64at(b + 34), 7);
	assert_int_equal(be64at(b + 42), 1700000000);
	assert_int_equal(b[50], 0);
	assert_string_equal((char *)b + 59, "web");
	assert_string_equal((char *)b + 63, "h1");
	assert_int_equal(relay_build_create_session(b, 60, &a), -ENOSPC);
	n = relay_build_add_stream(b, sizeof(b), "channel0_1", "kernel", 0);
	assert_int_equal(n, 32 + 11 + 7);
	assert_int_equal(be32at(b), 11);
	assert_string_equal((char *)b + 32 + 11, "kernel");
	assert_int_equal(relay_build_index(b, sizeof(b), &ix), 80);
	for (int i = 0; i < 10; i++)
		assert_int_equal(be64at(b + 8 * i), (uint64_t)i + 1);
	relay_put_data_hdr(b, 5, 9, 4096);
	assert_int_equal(be64at(b + 8), 5);
	assert_int_equal(be64at(b + 16), 9);
	assert_int_equal(be32at(b + 24), 4096);
}

static void test_replies(void **state)
{
	const uint8_t sess[] = { 0, 0, 0, 0, 0, 0, 0, 42, 0, 0, 0, 10, 0, 0, 0, 4, 'a', '/', 'b', 0 };
	uint64_t id;
	uint32_t ret, major, minor;
	char path[64];

	for (size_t k = 0; k < sizeof(sess); k++)   /* every prefix asks for more */
		assert_int_equal(relay_parse_create_session(sess, k, &id, &ret, path, sizeof(path)), 0);
	assert_int_equal(relay_parse_create_session(sess, sizeof(sess), &id, &ret, path, sizeof(path)), 20);
	assert_int_equal(id, 42);
	assert_int_equal(ret, RELAY_LTTNG_OK);
	assert_string_equal(path, "a/b");
	assert_int_equal(relay_parse_create_session(sess, sizeof(sess), &id, &ret, path, 2), 20);
	assert_string_equal(path, "a");
	const uint8_t huge[] = { 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 10, 0, 1, 0, 0 };
	assert_int_equal(relay_parse_create_session(huge, sizeof(huge), &id, &ret, path, sizeof(path)), -EPROTO);
	const uint8_t ver[] = { 0, 0, 0, 2, 0, 0, 0, 13 };
	assert_int_equal(relay_parse_version(ver, 7, &major, &minor), 0);
	assert_int_equal(relay_parse_version(ver, 8, &major, &minor), 8);
	assert_int_equal(major, 2);
	assert_int_equal(minor, 13);
	const uint8_t st[] = { 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 11 };
	assert_int_equal(relay_parse_add_stream(st, 12, &id, &ret), 12);
	assert_int_equal(id, 256);
	assert_int_equal(ret, 11);
	assert_int_equal(relay_parse_generic(st + 8, 3, &ret), 0);
	/* CLOSE_TRACE_CHUNK: {ret, path_len, path}; TRACE_CHUNK_EXISTS: {ret, u8} */
	const uint8_t cl[] = { 0, 0, 0, 10, 0, 0, 0, 4, 'a', '/', 'b', 0 };
	assert_int_equal(relay_parse_close_chunk(cl, 11, &ret, path, sizeof(path)), 0);
	assert_int_equal(relay_parse_close_chunk(cl, 12, &ret, path, sizeof(path)), 12);
	assert_int_equal(ret, RELAY_LTTNG_OK);
	assert_string_equal(path, "a/b");
	const uint8_t clbig[] = { 0, 0, 0, 10, 0, 1, 0, 1 };
	assert_int_equal(relay_parse_close_chunk(clbig, 8, &ret, path, sizeof(path)), -EPROTO);
	const uint8_t ex[] = { 0, 0, 0, 10, 1 };
	bool exists = false;
	assert_int_equal(relay_parse_chunk_exists(ex, 4, &ret, &exists), 0);
	assert_int_equal(relay_parse_chunk_exists(ex, 5, &ret, &exists), 5);
	assert_true(exists);
}

/* <net_output>'s URIs: lttng's tcp4://HOST:PORT/PATH, back and forth. */
static void test_uris(void **state)
{
	struct relay_url u;
	char err[256], c[300], d[300];

	assert_int_equal(relay_url_parse_uris(&u, "tcp4://10.0.0.1:6000/a/b/", "tcp4://10.0.0.1:6001/a/b", err, sizeof(err)), 0);
	assert_string_equal(u.host, "10.0.0.1");
	assert_int_equal(u.ctrl_port, 6000);
	assert_int_equal(u.data_port, 6001);
	assert_string_equal(u.path, "a/b");
	relay_url_format_uris(&u, c, sizeof(c), d, sizeof(d));
	assert_string_equal(c, "tcp4://10.0.0.1:6000/a/b");
	assert_string_equal(d, "tcp4://10.0.0.1:6001/a/b");
	assert_int_equal(relay_url_parse_uris(&u, "tcp6://[::1]:5342/", "tcp6://[::1]:5343/", err, sizeof(err)), 0);
	assert_true(u.v6);
	relay_url_format_uris(&u, c, sizeof(c), d, sizeof(d));
	assert_string_equal(c, "tcp6://[::1]:5342/");
	assert_int_equal(relay_url_parse_uris(&u, "tcp4://a:1/", "tcp4://b:2/", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse_uris(&u, "tcp4://a:1/../x", "tcp4://a:2/", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse_uris(&u, "a", "b", err, sizeof(err)), -EINVAL);
	assert_int_equal(relay_url_parse_uris(&u, "tcp4://", "tcp4://a/", err, sizeof(err)), -EINVAL);
}

/* ROTATE_STREAMS packed (13-byte head), CLOSE_TRACE_CHUNK with its command set. */
static void test_chunk_payloads(void **state)
{
	uint8_t b[64];
	const uint64_t h[2] = { 7, 9 }, at[2] = { 0, 5 };

	assert_int_equal(relay_build_rotate_streams(b, sizeof(b), h, at, 2, true, 3), 45);
	const uint8_t head[13] = { 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 3 };
	assert_memory_equal(b, head, 13);
	assert_int_equal(b[13 + 7], 7);
	assert_int_equal(b[13 + 16 + 7], 9);
	assert_int_equal(b[13 + 16 + 15], 5);
	assert_int_equal(relay_build_rotate_streams(b, 44, h, at, 2, true, 3), -ENOSPC);
	assert_int_equal(relay_build_rotate_streams(b, sizeof(b), h, at, 1, false, 3), 29);
	assert_int_equal(b[4], 0);
	assert_int_equal(b[12], 0);
	assert_int_equal(relay_build_close_chunk(b, sizeof(b), 2, 100, RELAY_CHUNK_NO_OPERATION), 21);
	const uint8_t cl[21] = { 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 100, 1, 0, 0, 0, 1 };
	assert_memory_equal(b, cl, 21);
	assert_int_equal(relay_build_chunk_exists(b, 7, 2), -ENOSPC);
	/* CREATE_TRACE_CHUNK: a snapshot's named chunk (length with its NUL), or none */
	assert_int_equal(relay_build_create_chunk(b, sizeof(b), 1, 5, "snap-1"), 27);
	assert_int_equal(b[19], 7);
	assert_string_equal((char *)b + 20, "snap-1");
	assert_int_equal(relay_build_create_chunk(b, 26, 1, 5, "snap-1"), -ENOSPC);
	assert_int_equal(relay_build_create_chunk(b, sizeof(b), 1, 5, NULL), 20);
	assert_int_equal(b[19], 0);
	assert_int_equal(relay_cmd_name(RELAY_ROTATE_STREAMS)[0], 'R');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_payloads),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_chunk_payloads),
		cmocka_unit_test(test_uris),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
