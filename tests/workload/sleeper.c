/* sleeper.c — blocks a known number of times, for the scheduler metrics and spans tests:
 * N nanosleeps of USEC microseconds each, then exits.
 *   sleeper N USEC */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long us = argc > 2 ? atol(argv[2]) : 1000;
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	for (int i = 0; i < n; i++)
		nanosleep(&t, NULL);
	return 0;
}
