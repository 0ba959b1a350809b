/* test_live_proto.c — lttng-relayd's live viewer protocol as `scry view net://…` builds and
 * reads it (src/relay/live_proto.c): the viewer URL (default port, IPv6, refusals), the
 * 16-byte command header and the request layouts, and the replies (sessions, streams with
 * their fixed-size names, indexes, packet and metadata headers) parsed whole, asked for
 * more, or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "relay/live_proto.h"

static void put64(uint8_t *p, uint64_t v) { for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v; }

static void test_url(void **state)
{
	struct live_url u;
	char err[256];

	assert_int_equal(live_url_parse(&u, "net://relay.example/host/web1/prod", err, sizeof(err)), 0);
	assert_string_equal(u.host, "relay.example");
	assert_int_equal(u.port, 5344);
	assert_string_equal(u.hostname, "web1");
	assert_string_equal(u.session, "prod");
	assert_int_equal(live_url_parse(&u, "net6://[::1]:6000/host/h/s", err, sizeof(err)), 0);
	assert_true(u.v6);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 6000);
	assert_int_equal(live_url_parse(&u, "net://h/host/a/b/c", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "viewer URL 'net://h/host/a/b/c': give net://HOST[:PORT]/host/HOSTNAME/SESSION");
	assert_int_equal(live_url_parse(&u, "net://h:0/host/a/b", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "viewer URL 'net://h:0/host/a/b': the port is not a number from 1 to 65535");
	assert_int_equal(live_url_parse(&u, "tcp://h/host/a/b", err, sizeof(err)), -EINVAL);
	assert_int_equal(live_url_parse(&u, "net://h/host//b", err, sizeof(err)), -EINVAL);
	assert_true(live_url_is_net("net://x") && live_url_is_net("net6://x") && !live_url_is_net("/tmp/x"));
}

static void test_requests(void **state)
{
	uint8_t b[64];

	assert_int_equal(live_build_connect(b), 36);
	static const uint8_t connect[36] = { 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 1 };
	assert_memory_equal(b, connect, 36);
	assert_int_equal(live_build_attach(b, 7, LIVE_SEEK_LAST), 36);
	assert_int_equal(b[11], LIVE_ATTACH_SESSION);
	assert_int_equal(b[23], 7);
	assert_int_equal(b[35], LIVE_SEEK_LAST);
	assert_int_equal(live_build_get_packet(b, 3, 0x1122, 4096), 36);
	assert_int_equal(b[11], LIVE_GET_PACKET);
	assert_int_equal(b[30] << 8 | b[31], 0x1122);
	assert_int_equal(b[34] << 8 | b[35], 4096);
	assert_int_equal(live_build_id(b, LIVE_GET_NEXT_INDEX, 9), 24);
	assert_int_equal(b[7], 8);
	assert_int_equal(b[23], 9);
	assert_int_equal(live_build_simple(b, LIVE_LIST_SESSIONS), 16);
	assert_int_equal(b[7], 0);
}

static void test_replies(void **state)
{
	uint8_t b[LIVE_STREAM_LEN];
	struct live_session s;
	struct live_stream st;
	struct live_index ix;
	uint32_t status, count, len, flags;
	uint64_t mlen;

	memset(b, 0, sizeof(b));
	put64(b, 42);
	put32(b + 8, 200000);
	put32(b + 16, 5);
	memset(b + 20, 'h', 64);                 /* a host name filling its field, no NUL */
	strcpy((char *)b + 84, "web");
	assert_int_equal(live_parse_session(b, LIVE_SESSION_LEN - 1, &s), 0);
	assert_int_equal(live_parse_session(b, LIVE_SESSION_LEN, &s), LIVE_SESSION_LEN);
	assert_int_equal(s.id, 42);
	assert_int_equal(s.live_timer, 200000);
	assert_int_equal(strlen(s.hostname), 64);
	assert_string_equal(s.name, "web");

	memset(b, 0, sizeof(b));
	put64(b, 3);
	put64(b + 8, 1);
	put32(b + 16, 1);
	strcpy((char *)b + 20, "vh1/lv-20250101-000000/kernel");
	strcpy((char *)b + 4116, "metadata");
	assert_int_equal(live_parse_stream(b, sizeof(b), &st), LIVE_STREAM_LEN);
	assert_true(st.metadata);
	assert_string_equal(st.path, "vh1/lv-20250101-000000/kernel");
	assert_string_equal(st.channel, "metadata");
	put32(b + 16, 2);
	assert_int_equal(live_parse_stream(b, sizeof(b), &st), -EPROTO);

	put32(b, LIVE_STREAMS_OK);
	put32(b + 4, 70000);
	assert_int_equal(live_parse_streams_hdr(b, 8, &status, &count), -EPROTO);
	put32(b + 4, 2);
	assert_int_equal(live_parse_streams_hdr(b, 8, &status, &count), 8);
	assert_int_equal(count, 2);

	memset(b, 0, 64);
	put64(b, 4096);
	put64(b + 8, 8192);
	put64(b + 16, 8000);
	put64(b + 32, 1234);
	put32(b + 56, LIVE_INDEX_OK);
	put32(b + 60, LIVE_FLAG_NEW_METADATA);
	assert_int_equal(live_parse_index(b, 63, &ix), 0);
	assert_int_equal(live_parse_index(b, 64, &ix), 64);
	assert_int_equal(ix.offset, 4096);
	assert_int_equal(ix.packet_size, 8192);
	assert_int_equal(ix.ts_end, 1234);
	assert_int_equal(ix.flags, LIVE_FLAG_NEW_METADATA);
	put64(b + 8, 8193);                      /* a packet size in bits that is no byte count */
	assert_int_equal(live_parse_index(b, 64, &ix), -EPROTO);
	put32(b + 56, LIVE_INDEX_INACTIVE);      /* a beacon's sizes are not looked at */
	assert_int_equal(live_parse_index(b, 64, &ix), 64);

	put32(b, LIVE_PACKET_OK);
	put32(b + 4, 4096);
	put32(b + 8, 0);
	assert_int_equal(live_parse_packet_hdr(b, 12, &status, &len, &flags), 12);
	assert_int_equal(len, 4096);
	put32(b, LIVE_PACKET_ERR);
	assert_int_equal(live_parse_packet_hdr(b, 12, &status, &len, &flags), -EPROTO);
	put64(b, (uint64_t)LIVE_MAX_LEN + 1);
	put32(b + 8, LIVE_METADATA_OK);
	assert_int_equal(live_parse_metadata_hdr(b, 12, &mlen, &status), -EPROTO);
	put64(b, 100);
	assert_int_equal(live_parse_metadata_hdr(b, 11, &mlen, &status), 0);
	assert_int_equal(live_parse_metadata_hdr(b, 12, &mlen, &status), 12);
	assert_int_equal(mlen, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_replies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
