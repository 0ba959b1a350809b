/* metadata_file.c — turn a `metadata` file into TSDL text: plain text is copied, packetized
 * metadata (CTF 1.8 §7.1: packets with magic 0x75D11D57, a 37-byte header and content_size/
 * packet_size in bits, in either byte order) is concatenated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "view/tsdl.h"

#define TSDL_MAGIC 0x75D11D57u
#define MD_HDR 37

static uint32_t rd32(const uint8_t *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

char *tsdl_unpacketize(const uint8_t *data, size_t len, size_t *outlen, char *err, size_t errlen)
{
	char *out = NULL;
	int be = -1;
	if (len >= 4 && rd32(data, 0) == TSDL_MAGIC)
		be = 0;
	else if (len >= 4 && rd32(data, 1) == TSDL_MAGIC)
		be = 1;
	if (be < 0) {
		out = malloc(len + 1);
		if (!out)
			goto oom;
		memcpy(out, data, len);
		out[len] = '\0';
		*outlen = len;
		return out;
	}
	out = malloc(len + 1);
	if (!out)
		goto oom;
	size_t n = 0, off = 0;
	while (off < len) {
		if (len - off < MD_HDR) {
			snprintf(err, errlen, "metadata packet at offset %zu: truncated header", off);
			goto fail;
		}
		const uint8_t *h = data + off;
		if (rd32(h, be) != TSDL_MAGIC) {
			snprintf(err, errlen, "metadata packet at offset %zu: bad magic", off);
			goto fail;
		}
		uint32_t content = rd32(h + 24, be), packet = rd32(h + 28, be);
		uint8_t compression = h[32], encryption = h[33];
		if (content % 8 || packet % 8 || content < MD_HDR * 8 || packet < content ||
		    packet / 8 > len - off) {
			snprintf(err, errlen, "metadata packet at offset %zu: bad content_size %u / packet_size %u",
				 off, content, packet);
			goto fail;
		}
		if (compression || encryption) {
			snprintf(err, errlen, "metadata packet at offset %zu: compressed or encrypted metadata", off);
			goto fail;
		}
		size_t body = content / 8 - MD_HDR;
		memcpy(out + n, h + MD_HDR, body);
		n += body;
		off += packet / 8;
	}
	out[n] = '\0';
	*outlen = n;
	return out;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(out);
	return NULL;
}
