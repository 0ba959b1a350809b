/* span_marks.c — an application that marks its threads with its own spans, for the
 * kernel-spans-in-the-application's-trace tests (test_spans_parent.py): mark(trace id high,
 * low, span id) is both a function (a uprobe's target) and a USDT probe in it
 * (scry_app:span_mark); a zero span id clears the mark.
 *   span_marks N US TRACE_HI TRACE_LO S1 S2 S3 [DEV] (hex ids)
 *     main: N sleeps of US µs unmarked; marked (TRACE, S1): N sleeps; (TRACE, S2): N sleeps
 *     (and N direct 4 KiB writes to block device DEV); cleared: N sleeps (and N direct writes).
 *     A thread, during main's S1 phase: marked (TRACE_LO, TRACE_HI, S3): N sleeps, cleared,
 *     exits.  Prints {"pid":P,"tid":T,"thread":T2}. */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long n, us;
static uint64_t hi, lo, s1, s2, s3;
static pid_t thread_tid;
static int dev_fd = -1;
static void *block;

__attribute__((noipa)) void mark(uint64_t trace_hi, uint64_t trace_lo, uint64_t span)
{
	STAP_PROBE3(scry_app, span_mark, trace_hi, trace_lo, span);
}

static void sleeps(void)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

/* N direct writes to DEV: one request each, issued by this thread */
static int writes(void)
{
	for (long i = 0; dev_fd >= 0 && i < n; i++)
		if (pwrite(dev_fd, block, 4096, i * 4096) != 4096)
			return -1;
	return 0;
}

static void *thread(void *arg)
{
	thread_tid = (pid_t)syscall(SYS_gettid);
	mark(lo, hi, s3);
	sleeps();
	mark(0, 0, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc != 8 && argc != 9) {
		fprintf(stderr, "usage: %s N US TRACE_HI TRACE_LO S1 S2 S3 [DEV]\n", argv[0]);
		return 2;
	}
	if (argc == 9 && ((dev_fd = open(argv[8], O_WRONLY | O_DIRECT)) < 0 ||
			  posix_memalign(&block, 4096, 4096))) {
		perror(argv[8]);
		return 1;
	}
	if (block)
		memset(block, 'x', 4096);
	n = strtol(argv[1], NULL, 0);
	us = strtol(argv[2], NULL, 0);
	hi = strtoull(argv[3], NULL, 16);
	lo = strtoull(argv[4], NULL, 16);
	s1 = strtoull(argv[5], NULL, 16);
	s2 = strtoull(argv[6], NULL, 16);
	s3 = strtoull(argv[7], NULL, 16);
	sleeps();
	mark(hi, lo, s1);
	if (pthread_create(&th, NULL, thread, NULL))
		return 1;
	sleeps();
	pthread_join(th, NULL);
	mark(hi, lo, s2);
	sleeps();
	if (writes())
		return 1;
	mark(0, 0, 0);
	sleeps();
	if (writes())
		return 1;
	printf("{\"pid\":%d,\"tid\":%d,\"thread\":%d}\n", getpid(), (int)syscall(SYS_gettid), thread_tid);
	return 0;
}
