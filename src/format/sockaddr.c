/* sockaddr.c — socket addresses as strace prints them:
 *   {sa_family=AF_UNIX, sun_path="/run/x"}   (abstract: sun_path=@"name")
 *   {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}
 *   {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0),
 *    inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}
 *   {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}
 *   {sa_family=AF_PACKET, sa_data="..."}      (any other family, or too short a length)
 * An address shorter than its family field prints as "{}" (scry_fmt_arg prints the pointer
 * instead, as strace does). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "format/format.h"
#include "format/fmt_internal.h"

static void put_generic(struct outbuf *ob, const uint8_t *p, size_t len)
{
	OB_LIT(ob, ", sa_data=");
	scry_fmt_str(ob, p + 2, len - 2, len - 2, false);
}

static void put_unix(struct outbuf *ob, const uint8_t *p, size_t len)
{
	const uint8_t *path = p + 2;
	size_t n = len - 2;

	if (n > 108)
		n = 108;
	if (!n)
		return;
	OB_LIT(ob, ", sun_path=");
	if (path[0] == 0) {
		ob_putc(ob, '@');
		scry_fmt_str(ob, path + 1, n - 1, n - 1, false);
		return;
	}
	const uint8_t *nul = memchr(path, 0, n);
	if (nul)
		n = (size_t)(nul - path);
	scry_fmt_str(ob, path, n, n, false);
}

/* -X raw: a network-order field as its bytes, "\x00\x50"; verbose: and what it means in a
 * comment, "\x00\x50" / * htons(80) * / (strace's print_inet_addr in those styles). */
static bool raw_bytes(struct outbuf *ob, const uint8_t *p, size_t n)
{
	if (fmt_xlat_style == SCRY_XLAT_ABBREV)
		return false;
	scry_fmt_str_hex(ob, p, n, n, false);
	if (fmt_xlat_style == SCRY_XLAT_VERBOSE)
		OB_LIT(ob, " /* ");
	return true;
}

static void raw_end(struct outbuf *ob)
{
	if (fmt_xlat_style == SCRY_XLAT_VERBOSE)
		OB_LIT(ob, " */");
}

/* "htons(80)": the name and the number, unless -X raw prints the bytes alone. */
static void net_num(struct outbuf *ob, const uint8_t *p, size_t n, const char *fn)
{
	uint64_t v = 0;
	bool raw = raw_bytes(ob, p, n);

	if (raw && fmt_xlat_style == SCRY_XLAT_RAW)
		return;
	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	ob_puts(ob, fn);
	ob_putc(ob, '(');
	ob_u64(ob, v);
	ob_putc(ob, ')');
	if (raw)
		raw_end(ob);
}

static void put_inet(struct outbuf *ob, const uint8_t *p)
{
	char a[INET_ADDRSTRLEN];
	bool raw;

	OB_LIT(ob, ", sin_port=");
	net_num(ob, p + 2, 2, "htons");
	OB_LIT(ob, ", sin_addr=");
	raw = raw_bytes(ob, p + 4, 4);
	if (raw && fmt_xlat_style == SCRY_XLAT_RAW)
		return;
	OB_LIT(ob, "inet_addr(\"");
	inet_ntop(AF_INET, p + 4, a, sizeof(a));
	ob_puts(ob, a);
	OB_LIT(ob, "\")");
	if (raw)
		raw_end(ob);
}

static void put_inet6(struct outbuf *ob, const uint8_t *p, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	OB_LIT(ob, ", sin6_port=");
	net_num(ob, p + 2, 2, "htons");
	OB_LIT(ob, ", sin6_flowinfo=");
	net_num(ob, p + 4, 4, "htonl");
	inet_ntop(AF_INET6, p + 8, a, sizeof(a));
	if (fmt_xlat_style != SCRY_XLAT_ABBREV) {   /* sin6_addr="\x00..." [/ * inet_pton(AF_INET6, "::1") * /] */
		OB_LIT(ob, ", sin6_addr=");
		raw_bytes(ob, p + 8, 16);
		if (fmt_xlat_style == SCRY_XLAT_VERBOSE) {
			OB_LIT(ob, "inet_pton(AF_INET6, \"");
			ob_puts(ob, a);
			OB_LIT(ob, "\")");
			raw_end(ob);
		}
	} else {
		OB_LIT(ob, ", inet_pton(AF_INET6, \"");
		ob_puts(ob, a);
		OB_LIT(ob, "\", &sin6_addr)");
	}
	if (len > 24) {
		OB_LIT(ob, ", sin6_scope_id=");
		ob_u64(ob, len >= 28 ? fmt_get(p + 24, 4) : 0);
	}
}

static void put_netlink(struct outbuf *ob, const uint8_t *p)
{
	char g[16];

	OB_LIT(ob, ", nl_pid=");
	ob_i64(ob, fmt_gets(p + 4, 4));
	OB_LIT(ob, ", nl_groups=");
	snprintf(g, sizeof(g), "%#08x", (unsigned)fmt_get(p + 8, 4));
	ob_puts(ob, g);
}

void scry_fmt_sockaddr(struct outbuf *ob, const uint8_t *p, size_t len)
{
	unsigned family;

	if (!p || len < 2) {
		OB_LIT(ob, "{}");
		return;
	}
	family = (unsigned)fmt_get(p, 2);
	OB_LIT(ob, "{sa_family=");
	scry_fmt_enum(ob, "af", family);
	switch (family) {
	case AF_UNIX:
		put_unix(ob, p, len);
		break;
	case AF_INET:
		if (len >= 16)
			put_inet(ob, p);
		else
			put_generic(ob, p, len);
		break;
	case AF_INET6:
		if (len >= 24)
			put_inet6(ob, p, len);
		else
			put_generic(ob, p, len);
		break;
	case AF_NETLINK:
		if (len >= 12)
			put_netlink(ob, p);
		else
			put_generic(ob, p, len);
		break;
	default:
		put_generic(ob, p, len);
		break;
	}
	ob_putc(ob, '}');
}
