/* perfctx.c — known amounts of what the perf counter contexts count, between getppid()
 * calls (tests/e2e/test_perf_contexts.py).
 *   perfctx N K   maps N fresh anonymous pages (no huge pages), getppid(); writes one byte
 *                 in each (N minor page faults); getppid(); then K times: sleeps 2 ms (a
 *                 context switch away and back) and getppid(); prints {"pid":P} */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s N K\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[1], NULL, 0), k = strtol(argv[2], NULL, 0), pg = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	if (p == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	madvise((void *)p, (size_t)(n * pg), MADV_NOHUGEPAGE);
	syscall(SYS_getppid);
	for (long i = 0; i < n; i++)
		p[i * pg] = 1;
	syscall(SYS_getppid);
	for (long i = 0; i < k; i++) {
		nanosleep(&ts, NULL);
		syscall(SYS_getppid);
	}
	printf("{\"pid\":%d}\n", getpid());
	return 0;
}
