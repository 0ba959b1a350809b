/* iocalls.c — a known sequence of the syscalls whose decoding follows user pointers
 * (issue 3): writev/readv on a pipe, pwritev/preadv on a file, sendmsg/recvmsg on a
 * socketpair and on loopback UDP (with an address), select and pselect6 on a pipe,
 * getdents64 of a directory with known entries.  Prints what it saw (fds, port, the
 * directory entries in the order the kernel returned them) as one JSON line on stdout.
 *   iocalls DIR    (files are created in DIR) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct dent64 {
	uint64_t d_ino;
	int64_t d_off;
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

static int vectors(int p[2], const char *file, int *ffd)
{
	struct iovec w[2] = { { "hello\n", 6 }, { "x", 1 } };
	char a[4], b[10], c[16];
	struct iovec r[2] = { { a, 4 }, { b, 10 } }, f[1] = { { c, 16 } };
	int fd;

	if (writev(p[1], w, 2) != 7 || readv(p[0], r, 2) != 7)
		return -1;
	*ffd = fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || pwritev(fd, w, 2, 0) != 7 || preadv(fd, f, 1, 0) != 7)
		return -1;
	return close(fd);
}

/* sendmsg/recvmsg: a socketpair (no address), then UDP to itself on loopback. */
static int messages(int sv[2], int *udp, int *port)
{
	struct iovec si[1] = { { "abc", 3 } }, ri[2];
	struct msghdr m = { .msg_iov = si, .msg_iovlen = 1 };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_storage from;
	socklen_t alen = sizeof(a);
	char r1[4], r2[16];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) || sendmsg(sv[0], &m, MSG_NOSIGNAL) != 3)
		return -1;
	ri[0] = (struct iovec){ r2, sizeof(r2) };
	m = (struct msghdr){ .msg_iov = ri, .msg_iovlen = 1 };
	if (recvmsg(sv[1], &m, 0) != 3)
		return -1;
	*udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(*udp, (struct sockaddr *)&a, sizeof(a)) || getsockname(*udp, (struct sockaddr *)&a, &alen))
		return -1;
	*port = ntohs(a.sin_port);
	m = (struct msghdr){ .msg_name = &a, .msg_namelen = sizeof(a), .msg_iov = si, .msg_iovlen = 1 };
	if (sendmsg(*udp, &m, 0) != 3)
		return -1;
	ri[0] = (struct iovec){ r1, sizeof(r1) };
	ri[1] = (struct iovec){ r2, sizeof(r2) };
	m = (struct msghdr){ .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = ri, .msg_iovlen = 2 };
	return recvmsg(*udp, &m, 0) == 3 ? 0 : -1;
}

/* select and pselect6 on a pipe holding one byte: ready at once. */
static int waits(int p[2])
{
	struct timeval tv = { 1, 0 };
	struct timespec ts = { 1, 0 };
	fd_set rs, ws;

	if (write(p[1], "z", 1) != 1)
		return -1;
	FD_ZERO(&rs);
	FD_ZERO(&ws);
	FD_SET(p[0], &rs);
	if (syscall(SYS_select, p[0] + 1, &rs, &ws, NULL, &tv) != 1)
		return -1;
	FD_SET(p[0], &rs);
	FD_SET(p[1], &ws);
	return syscall(SYS_pselect6, p[1] + 1, &rs, &ws, NULL, &ts, NULL) == 2 ? 0 : -1;
}

/* A directory with alpha, beta and sub/ read with getdents64; its entries as JSON. */
static int listing(const char *base, char *json, size_t size, int *dfd, long *nread)
{
	char dir[4096], path[4200], buf[32768];
	size_t n = 0;
	long len;

	snprintf(dir, sizeof(dir), "%s/dir", base);
	if (mkdir(dir, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/alpha", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof(path), "%s/beta", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	snprintf(path, sizeof(path), "%s/sub", dir);
	if (mkdir(path, 0755) || (*dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if ((len = syscall(SYS_getdents64, *dfd, buf, sizeof(buf))) <= 0 ||
	    syscall(SYS_getdents64, *dfd, buf + len, sizeof(buf) - (size_t)len) != 0)
		return -1;
	*nread = len;
	n += (size_t)snprintf(json + n, size - n, "[");
	for (long off = 0; off < len;) {
		struct dent64 *d = (struct dent64 *)(buf + off);

		n += (size_t)snprintf(json + n, size - n, "%s[%llu, %lld, %u, %u, \"%s\"]", off ? ", " : "",
				      (unsigned long long)d->d_ino, (long long)d->d_off, d->d_reclen, d->d_type,
				      d->d_name);
		off += d->d_reclen;
	}
	snprintf(json + n, size - n, "]");
	close(*dfd);
	return 0;
}

int main(int argc, char **argv)
{
	char file[4096], dents[8192];
	int p[2], sv[2], udp = -1, port = 0, dfd = -1, ffd = -1;
	long nread = 0;

	if (argc != 2)
		return 2;
	snprintf(file, sizeof(file), "%s/vec.txt", argv[1]);
	if (pipe2(p, O_CLOEXEC) || vectors(p, file, &ffd) || messages(sv, &udp, &port) ||
	    waits(p) || listing(argv[1], dents, sizeof(dents), &dfd, &nread))
		return 1;
	printf("{\"pipe\": [%d, %d], \"file_fd\": %d, \"sv\": [%d, %d], \"udp\": %d, \"port\": %d, "
	       "\"dir_fd\": %d, \"dents_len\": %ld, \"dents\": %s}\n", p[0], p[1], ffd, sv[0], sv[1], udp, port,
	       dfd, nread, dents);
	return 0;
}
