/* sockdesc.c — see sockdesc.h. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "scry_abi.h"
#include "trace/sockdesc.h"

#define TCP_LISTEN 0x0a

/* "0100007F:1F90" (IPv4) or 32 hex digits (IPv6, four host-order words) and a port, as
 * strace prints them: 127.0.0.1:8080, [::1]:8080.  False for the unspecified address with
 * port 0 (nothing bound or connected). */
static bool put_addr(const char *hex, bool v6, char *out, size_t outlen)
{
	unsigned char a[16];
	unsigned port;
	char ip[INET6_ADDRSTRLEN];
	const char *colon = strchr(hex, ':');
	size_t n = v6 ? 32 : 8;
	bool zero = true;

	if (!colon || (size_t)(colon - hex) != n || sscanf(colon + 1, "%x", &port) != 1)
		return false;
	for (size_t w = 0; w < n / 8; w++) {
		char word[9];
		uint32_t v;

		memcpy(word, hex + 8 * w, 8);
		word[8] = '\0';
		v = (uint32_t)strtoul(word, NULL, 16);    /* a host-order (little-endian) word */
		memcpy(a + 4 * w, &v, 4);
	}
	for (size_t i = 0; i < n / 2; i++)
		zero &= !a[i];
	if (zero && !port)
		return false;
	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip)))
		return false;
	snprintf(out, outlen, v6 ? "[%s]:%u" : "%s:%u", ip, port);
	return true;
}

/* A TCP or UDP socket of table NAME (tcp, tcp6, udp, udp6) with this inode. */
static bool inet(const char *proc_root, int pid, const char *table, const char *label, unsigned long ino,
		 char *out, size_t outlen)
{
	char path[128], line[512], loc[64], rem[64];
	bool v6 = strchr(table, '6') != NULL, found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/net/%s", proc_root, pid, table);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char l[40], r[40];
		unsigned st;
		unsigned long inode;

		/* sl local remote st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*[0-9]: %39s %39s %x %*s %*s %*s %*u %*u %lu", l, r, &st, &inode) != 4 ||
		    inode != ino)
			continue;
		found = true;
		if (!put_addr(l, v6, loc, sizeof(loc)))
			snprintf(out, outlen, "%s:[%lu]", label, ino);
		else if (st != TCP_LISTEN && put_addr(r, v6, rem, sizeof(rem)))
			snprintf(out, outlen, "%s:[%s->%s]", label, loc, rem);
		else
			snprintf(out, outlen, "%s:[%s]", label, loc);
	}
	fclose(f);
	return found;
}

/* The peer of a UNIX socket (sock_diag, UDIAG_SHOW_PEER, in scry's network namespace, as
 * strace asks it), 0 when unknown or not connected. */
static unsigned long unix_peer(unsigned long ino)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_ino = (uint32_t)ino,
		       .udiag_show = UDIAG_SHOW_PEER, .udiag_cookie = { ~0u, ~0u } },
	};
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	} rsp;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	unsigned long peer = 0;
	ssize_t n;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	if (fd < 0)
		return 0;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) == (ssize_t)sizeof(req) &&
	    (n = recv(fd, &rsp, sizeof(rsp), 0)) > 0) {
		for (struct nlmsghdr *h = &rsp.nlh; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int len;

			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || m->udiag_ino != ino)
				continue;
			len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
				if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= 4)
					peer = *(uint32_t *)RTA_DATA(a);
		}
	}
	close(fd);
	return peer;
}

static bool unix_(const char *proc_root, int pid, unsigned long ino, char *out, size_t outlen)
{
	static const char *const types[] = { [1] = "STREAM", [2] = "DGRAM", [5] = "SEQPACKET" };
	char path[128], line[4096 + 128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/net/unix", proc_root, pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned type;
		unsigned long inode, peer;
		int at = 0;
		char *name, ids[48];

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*x %*x %*x %x %*x %lu%n", &type, &inode, &at) != 2 || inode != ino)
			continue;
		found = true;
		name = line + at;
		name += strspn(name, " ");
		name[strcspn(name, "\n")] = '\0';
		peer = unix_peer(ino);
		if (peer)
			snprintf(ids, sizeof(ids), "%lu->%lu", ino, peer);
		else
			snprintf(ids, sizeof(ids), "%lu", ino);
		/* an abstract name: @"name"; a path: "path" */
		snprintf(out, outlen, "UNIX-%s:[%s%s%s%s%s%s]", type < 6 && types[type] ? types[type] : "?", ids,
			 *name ? "," : "", *name == '@' ? "@" : "", *name ? "\"" : "", *name == '@' ? name + 1 : name,
			 *name ? "\"" : "");
	}
	fclose(f);
	return found;
}

bool sockdesc_name(const char *proc_root, int pid, const char *link, char *out, size_t outlen)
{
	static const struct { const char *table, *label; } inets[] = {
		{ "tcp", "TCP" }, { "tcp6", "TCPv6" }, { "udp", "UDP" }, { "udp6", "UDPv6" },
	};
	unsigned long ino;

	if (!link || sscanf(link, "socket:[%lu]", &ino) != 1)
		return false;
	for (size_t i = 0; i < sizeof(inets) / sizeof(inets[0]); i++)
		if (inet(proc_root, pid, inets[i].table, inets[i].label, ino, out, outlen))
			return true;
	return unix_(proc_root, pid, ino, out, outlen);
}

/* addr:port as strace prints it (127.0.0.1:80, [::1]:80); false when unspecified with port 0. */
static bool rec_addr(const uint8_t *a, bool v6, unsigned port, char *out, size_t outlen)
{
	char ip[INET6_ADDRSTRLEN];
	bool zero = true;

	for (int i = 0; i < (v6 ? 16 : 4); i++)
		zero &= !a[i];
	if ((zero && !port) || !inet_ntop(v6 ? AF_INET6 : AF_INET, a, ip, sizeof(ip)))
		return false;
	snprintf(out, outlen, v6 ? "[%s]:%u" : "%s:%u", ip, port);
	return true;
}

bool sockdesc_from_rec(const struct scry_sock_rec *r, char *out, size_t outlen)
{
	static const char *const types[] = { [1] = "STREAM", [2] = "DGRAM", [5] = "SEQPACKET" };

	if (r->family == AF_INET || r->family == AF_INET6) {
		bool v6 = r->family == AF_INET6;
		const char *proto = r->protocol == IPPROTO_TCP ? "TCP" : r->protocol == IPPROTO_UDP ? "UDP" : NULL;
		char loc[64], rem[64];

		if (!proto)
			return false;
		if (!rec_addr(r->laddr, v6, r->lport, loc, sizeof(loc)))
			snprintf(out, outlen, "%s%s:[%llu]", proto, v6 ? "v6" : "", (unsigned long long)r->ino);
		else if (r->state != TCP_LISTEN && rec_addr(r->raddr, v6, r->rport, rem, sizeof(rem)))
			snprintf(out, outlen, "%s%s:[%s->%s]", proto, v6 ? "v6" : "", loc, rem);
		else
			snprintf(out, outlen, "%s%s:[%s]", proto, v6 ? "v6" : "", loc);
		return true;
	}
	if (r->family == AF_UNIX) {
		char ids[48], name[SCRY_SOCK_PATH + 1];
		size_t n = r->path_len < SCRY_SOCK_PATH ? r->path_len : SCRY_SOCK_PATH;
		bool abstract = n && !r->path[0];

		if (abstract) {
			memcpy(name, r->path + 1, n - 1);
			name[n - 1] = '\0';
		} else {
			memcpy(name, r->path, n);
			name[n] = '\0';
		}
		if (r->peer_ino)
			snprintf(ids, sizeof(ids), "%llu->%llu", (unsigned long long)r->ino, (unsigned long long)r->peer_ino);
		else
			snprintf(ids, sizeof(ids), "%llu", (unsigned long long)r->ino);
		snprintf(out, outlen, "UNIX-%s:[%s%s%s%s%s%s]", r->type < 6 && types[r->type] ? types[r->type] : "?", ids,
			 n ? "," : "", abstract ? "@" : "", n ? "\"" : "", name, n ? "\"" : "");
		return true;
	}
	return false;
}
