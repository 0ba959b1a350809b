/* netports.c — known socket calls on loopback for the user-space filter tests.
 *
 *   netports [A B]
 *       binds two UDP receivers to 127.0.0.1 on ports A and B (default: ports the kernel
 *       picks), then on a
 *       sender socket: sendto(A, "alpha"), sendto(B, "bravo!"), sendto(A, "charlie"),
 *       sendto(B, "delta"); connect(A) and connect(B) on two more sockets; poll (the
 *       syscall) of {ra, POLLIN}, then of {rb, POLLIN}, {ra, POLLOUT}, with no wait.
 *       Prints one JSON line: pid, the ports, the receivers' and sender's fds, and the
 *       sends as [port, bytes, first byte]. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int receiver(unsigned short *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(*port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

int main(int argc, char **argv)
{
	static const char *const msgs[4] = { "alpha", "bravo!", "charlie", "delta" };
	unsigned short port[2] = { argc > 2 ? (unsigned short)atoi(argv[1]) : 0,
				   argc > 2 ? (unsigned short)atoi(argv[2]) : 0 };
	int ra = receiver(&port[0]), rb = receiver(&port[1]);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct pollfd p1[1], p2[2];

	if (ra < 0 || rb < 0 || s < 0)
		return 1;
	for (int i = 0; i < 4; i++) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port[i % 2]),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		if (sendto(s, msgs[i], strlen(msgs[i]), 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)strlen(msgs[i]))
			return 1;
	}
	for (int i = 0; i < 2; i++) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port[i]),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int c = socket(AF_INET, SOCK_DGRAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&to, sizeof(to)))
			return 1;
	}
	p1[0] = (struct pollfd){ .fd = ra, .events = POLLIN };
	p2[0] = (struct pollfd){ .fd = rb, .events = POLLIN };
	p2[1] = (struct pollfd){ .fd = ra, .events = POLLOUT };
	if (syscall(SYS_poll, p1, 1, 0) < 0 || syscall(SYS_poll, p2, 2, 0) < 0)
		return 1;
	printf("{\"pid\":%d,\"ports\":[%u,%u],\"ra\":%d,\"rb\":%d,\"s\":%d,\"sends\":[", (int)getpid(),
	       port[0], port[1], ra, rb, s);
	for (int i = 0; i < 4; i++)
		printf("%s[%u,%zu,%d]", i ? "," : "", port[i % 2], strlen(msgs[i]), msgs[i][0]);
	printf("]}\n");
	return 0;
}
