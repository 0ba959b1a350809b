/* sockdesc.h — `scry trace -yy`: a socket descriptor as strace 6 names it, from the tables
 * of the process's network namespace (/proc/PID/net/{tcp,tcp6,udp,udp6,unix}):
 * TCP:[127.0.0.1:5432->127.0.0.1:41234] (connected), TCP:[127.0.0.1:5432] (bound or
 * listening), TCP:[INODE] (neither), TCPv6:[[::1]:80->[::1]:41234], UDP:[...] likewise,
 * UNIX-STREAM:[INODE->PEER,"path"] (the peer from sock_diag; a name when bound, @"name" when
 * abstract) (src/trace/sockdesc.c).  The tables are
 * read when the line is printed: a socket closed by then keeps its socket:[INODE] name;
 * hence sockdesc_from_rec, from what BPF read of the socket at the call itself. */
#ifndef SCRY_TRACE_SOCKDESC_H
#define SCRY_TRACE_SOCKDESC_H

#include <stdbool.h>
#include <stddef.h>

struct scry_sock_rec;

/* The same name from what the kernel said at the call (SCRY_SOP_SOCK): TCP, UDP (v4, v6)
 * and UNIX sockets; false for other families (then named from /proc). */
bool sockdesc_from_rec(const struct scry_sock_rec *r, char *out, size_t outlen);

/* link: what /proc/PID/fd/N says ("socket:[12345]").  true with the name in out. */
bool sockdesc_name(const char *proc_root, int pid, const char *link, char *out, size_t outlen);

#endif /* SCRY_TRACE_SOCKDESC_H */
