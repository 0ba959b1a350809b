/* sock_loop.c — calls getsockname(2) on a UDP socket bound to 127.0.0.1 exactly N times and
 * reports the cost per call, timed inside the program (CLOCK_MONOTONIC) so a tracer's
 * start-up does not count: a socket call for bench/trace_costs.sh (-yy's capture).
 *   sock_loop N     prints {"calls":N,"total_ns":T,"ns_per_call":X,"pid":P} */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timespec t0, t1;
	socklen_t len;
	long n;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("sock_loop: socket");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);   /* vDSO: not a syscall */
	for (long i = 0; i < n; i++) {
		len = sizeof(a);
		getsockname(fd, (struct sockaddr *)&a, &len);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double total = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	printf("{\"calls\":%ld,\"total_ns\":%.0f,\"ns_per_call\":%.2f,\"pid\":%d}\n", n, total, n ? total / n : 0.0,
	       getpid());
	return 0;
}
