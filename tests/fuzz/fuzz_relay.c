/* fuzz_relay.c — libFuzzer target: input bytes as what a relay answers (src/relay/proto.c),
 * read the way relay.c reads it: each reply parser over every prefix of the input (a
 * parser asks for more, or takes a whole reply no longer than what it was given, or calls
 * the bytes a protocol error: never reads past them; a longer input never turns a whole
 * reply back into "more"); then the input as a relay URL, net:// and as -C/-D: parsed or
 * refused on one line, and a parsed URL formatted and parsed again to the same. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "relay/proto.h"

static void replies(const uint8_t *p, size_t size)
{
	long prev[6] = { 0 };

	for (size_t len = 0; len <= size; len++) {
		uint8_t *copy = malloc(len ? len : 1);      /* exactly len bytes: ASan sees an overread */
		uint64_t id;
		uint32_t a, b;
		char path[64];
		long k[6];
		bool ex;

		memcpy(copy, p, len);
		k[0] = relay_parse_version(copy, len, &a, &b);
		k[1] = relay_parse_create_session(copy, len, &id, &a, path, sizeof(path));
		k[2] = relay_parse_add_stream(copy, len, &id, &a);
		k[3] = relay_parse_generic(copy, len, &a);
		k[4] = relay_parse_close_chunk(copy, len, &a, path, sizeof(path));
		if (k[4] > 0)
			assert(strlen(path) < sizeof(path));
		k[5] = relay_parse_chunk_exists(copy, len, &a, &ex);
		for (int i = 0; i < 6; i++) {
			assert(k[i] == 0 || k[i] == -EPROTO || (k[i] > 0 && (size_t)k[i] <= len));
			if (prev[i] > 0)
				assert(k[i] == prev[i]);     /* a whole reply stays whole */
			prev[i] = k[i];
		}
		if (k[1] > 0)
			assert(strlen(path) < sizeof(path));
		free(copy);
	}
}

static void urls(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[512], buf[300];
	struct relay_url u, u2;

	memcpy(s, data, size);
	s[size] = 0;
	err[0] = 0;
	if (relay_url_parse(&u, s, err, sizeof(err)) == 0) {
		assert(u.ctrl_port && u.data_port && u.host[0]);
		relay_url_format(&u, buf, sizeof(buf));
		if (strlen(buf) < sizeof(buf) - 1) {
			assert(relay_url_parse(&u2, buf, err, sizeof(err)) == 0);
			assert(!strcmp(u.host, u2.host) && u.ctrl_port == u2.ctrl_port && u.data_port == u2.data_port &&
			       !strcmp(u.path, u2.path));
		}
	} else {
		assert(err[0] && !strchr(err, '\n'));
	}
	char *mid = strchr(s, ' ');
	if (mid) {
		*mid = 0;
		err[0] = 0;
		if (relay_url_parse_cd(&u, s, mid + 1, err, sizeof(err)))
			assert(err[0] && !strchr(err, '\n'));
		err[0] = 0;
		if (relay_url_parse_uris(&u, s, mid + 1, err, sizeof(err)) == 0) {   /* a <net_output>: round trip */
			char c[600], d[600];

			relay_url_format_uris(&u, c, sizeof(c), d, sizeof(d));
			assert(relay_url_parse_uris(&u2, c, d, err, sizeof(err)) == 0);
			assert(!strcmp(u.host, u2.host) && u.ctrl_port == u2.ctrl_port && !strcmp(u.path, u2.path));
		} else {
			assert(err[0] && !strchr(err, '\n'));
		}
	}
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096 + 32)
		return 0;
	replies(data, size);
	urls(data, size);
	return 0;
}
