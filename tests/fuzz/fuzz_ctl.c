/* fuzz_ctl.c — libFuzzer target: input bytes as a control message (src/ctl/proto.c), the
 * way scryd reads one off its socket: the header alone first (refused at once when bad or
 * oversized), then the whole message.  A message that parses is built again from its
 * strings: the copy must parse to the same type and strings, byte for byte the same
 * message.  A refusal must say why on one line. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ctl/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scry_ctl_header h;
	struct scry_ctl_msg m, m2;
	struct scry_ctl_builder b;
	char err[512];

	err[0] = 0;
	if (scry_ctl_header_parse(data, size, &h, err, sizeof(err))) {
		assert(err[0] && !strchr(err, '\n'));
		assert(scry_ctl_parse(data, size, &m, err, sizeof(err)) != 0);
		return 0;
	}
	assert(h.length <= SCRY_CTL_MAX_PAYLOAD);
	err[0] = 0;
	if (scry_ctl_parse(data, size, &m, err, sizeof(err))) {
		assert(err[0] && !strchr(err, '\n'));
		return 0;
	}
	assert(m.nkv <= SCRY_CTL_MAX_STRINGS);
	scry_ctl_builder_init(&b, (enum scry_ctl_type)m.type);
	for (size_t i = 0; i < m.nkv; i++)
		scry_ctl_add(&b, m.kv[i].key, m.kv[i].value);
	assert(scry_ctl_finish(&b) == 0);
	assert(b.len == size && !memcmp(b.buf, data, size));
	assert(scry_ctl_parse((const uint8_t *)b.buf, b.len, &m2, err, sizeof(err)) == 0);
	assert(m2.nkv == m.nkv && m2.type == m.type);
	for (size_t i = 0; i < m.nkv; i++)
		assert(!strcmp(m.kv[i].key, m2.kv[i].key) && !strcmp(m.kv[i].value, m2.kv[i].value));
	if (m.nkv)
		assert(scry_ctl_get(&m, m.kv[0].key) == m.kv[0].value);
	scry_ctl_msg_free(&m2);
	scry_ctl_builder_free(&b);
	scry_ctl_msg_free(&m);
	return 0;
}
