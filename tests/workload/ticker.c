/* ticker.c — a long-lived process with a steady, recognisable syscall pattern, for the `-p PID`
 * and "unrelated process" tests.  Prints {"pid":P} once, then every 20 ms calls
 * getppid() and nanosleep() until SECONDS (default 60) have passed or it is killed.
 *   ticker [SECONDS] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	struct timespec start, now, tick = { 0, 20 * 1000 * 1000 };
	printf("{\"pid\":%d}\n", getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		syscall(SYS_getppid);
		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	return 0;
}
