/* fuzz_live.c — libFuzzer target: input bytes as what lttng-relayd's live port answers
 * (src/relay/live_proto.c), read the way src/view/live.c reads it: each reply parser over
 * every prefix of the input (it asks for more, or takes a whole reply no longer than what it
 * was given, or calls the bytes a protocol error: never reads past them; a longer input
 * never turns a whole reply back into "more"; the lengths and counts it lets through are
 * bounded); then the input as a viewer URL: parsed or refused on one line. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "relay/live_proto.h"

static void replies(const uint8_t *p, size_t size)
{
	long prev[9] = { 0 };

	for (size_t len = 0; len <= size; len++) {
		uint8_t *copy = malloc(len ? len : 1);      /* exactly len bytes: ASan sees an overread */
		uint32_t a, b, c;
		uint64_t id;
		struct live_session s;
		struct live_stream st;
		struct live_index ix;
		long k[9];

		memcpy(copy, p, len);
		k[0] = live_parse_connect(copy, len, &a, &b, &id);
		k[1] = live_parse_status(copy, len, &a);
		k[2] = live_parse_list_hdr(copy, len, &a);
		if (k[2] > 0)
			assert(a <= LIVE_MAX_COUNT);
		k[3] = live_parse_session(copy, len, &s);
		if (k[3] > 0)
			assert(strlen(s.hostname) < sizeof(s.hostname) && strlen(s.name) < sizeof(s.name));
		k[4] = live_parse_streams_hdr(copy, len, &a, &b);
		if (k[4] > 0)
			assert(b <= LIVE_MAX_COUNT);
		k[5] = live_parse_stream(copy, len, &st);
		if (k[5] > 0)
			assert(strlen(st.path) < sizeof(st.path) && strlen(st.channel) < sizeof(st.channel));
		k[6] = live_parse_index(copy, len, &ix);
		if (k[6] > 0 && ix.status == LIVE_INDEX_OK)
			assert(ix.packet_size % 8 == 0 && ix.packet_size && ix.packet_size / 8 <= LIVE_MAX_LEN &&
			       ix.content_size <= ix.packet_size);
		k[7] = live_parse_packet_hdr(copy, len, &a, &b, &c);
		if (k[7] > 0)
			assert(b <= LIVE_MAX_LEN && (a == LIVE_PACKET_OK || b == 0));
		k[8] = live_parse_metadata_hdr(copy, len, &id, &a);
		if (k[8] > 0)
			assert(id <= LIVE_MAX_LEN && (a == LIVE_METADATA_OK || id == 0));
		for (int i = 0; i < 9; i++) {
			assert(k[i] == 0 || k[i] == -EPROTO || (k[i] > 0 && (size_t)k[i] <= len));
			if (prev[i] > 0)
				assert(k[i] == prev[i]);     /* a whole reply stays whole */
			prev[i] = k[i];
		}
		free(copy);
	}
}

static void url(const uint8_t *p, size_t size)
{
	char *s = malloc(size + 1), err[512];
	struct live_url u;

	memcpy(s, p, size);
	s[size] = 0;
	if (live_url_parse(&u, s, err, sizeof(err)) == 0) {
		assert(u.port && u.host[0] && u.hostname[0] && u.session[0]);
		assert(!strchr(u.hostname, '/') && !strchr(u.session, '/'));
	} else {
		assert(err[0] && !strchr(err, '\n'));
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	replies(data, size < 4500 ? size : 4500);
	url(data, size);
	return 0;
}
