/* uprobe_loop.c — calls hit(i, 2 * i, "probe") exactly N times and reports the cost per call,
 * timed inside the program, for the uprobe benchmark (bench/uprobes.sh): the cost of a
 * uprobe hit on hit() over the call itself.
 *   uprobe_loop N     prints {"calls":N,"total_ns":T,"ns_per_call":X,"pid":P} */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile long sink;

__attribute__((noipa)) long hit(int a, long b, const char *s)
{
	return a + b + s[0];
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[1], NULL, 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		sink = hit((int)i, 2 * i, "probe");
	clock_gettime(CLOCK_MONOTONIC, &b);
	double total = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("{\"calls\":%ld,\"total_ns\":%.0f,\"ns_per_call\":%.2f,\"pid\":%d}\n",
	       n, total, n ? total / n : 0.0, getpid());
	return 0;
}
