/* hotspots.c — CPU time in known functions at known ratios, for scry profile's tests
 * (tests/e2e/test_profile.py): main calls burn_a and burn_b in turn, burn_a running the same
 * loop three times as long as burn_b, so that burn_a has 75% of the samples and burn_b 25%
 * (the loop's timing calls are a fraction of a percent).  Built at -O2 with frame pointers
 * (hotspots) and without (hotspots-nofp).
 *   hotspots [MS] [fork|threads]   burn for MS ms (default 1000); fork: in a child that
 *                                   exits (the parent waits, idle); threads: in two threads
 *   hotspots N work                N rounds of burn_a and burn_b, then the milliseconds they
 *                                   took (bench/profile.py: a profiler's cost to the program)
 *   hotspots N sleep               block, not burn: N rounds of wait_a asleep 30 ms then
 *                                   wait_b asleep 10 ms (for --off-cpu: 75% / 25% of the
 *                                   time blocked), each a nanosleep system call made in the
 *                                   function itself, so that it is the user stack's leaf */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNIT 25000UL

/* The work of one step: four dependent multiply-adds (~16 cycles), so that a sample of a
 * loop of steps lands on them, not on the loop's own compare and branch, on any CPU */
#define MIX(x) do { (x) = (x) * 2862933555777941757UL + 3037000493UL; __asm__ volatile("" : "+r"(x)); } while (0)
#define MIX4(x) do { MIX(x); MIX(x); MIX(x); MIX(x); } while (0)

/* burn_a's step, inlined into it (scry profile --inline shows it as a frame of its own) */
static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
{
	MIX4(x);   /* step's line */
	return x;
}

__attribute__((noinline)) unsigned long burn_a(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < 3 * n; i++)
		x = step(x);                             /* burn_a's call of step */
	return x;
}

__attribute__((noinline)) unsigned long burn_b(unsigned long n)
{
	unsigned long x = n;

	for (unsigned long i = 0; i < n; i++) {
		MIX4(x);
	}
	return x;
}

/* nanosleep(ms) made here: inlined into its caller, which is then the leaf of the user stack
 * (libc's wrapper, built without frame pointers, would hide it from a frame-pointer walk) */
static inline __attribute__((always_inline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"((long)SYS_nanosleep), "D"(&ts), "S"(0L) : "rcx", "r11", "memory");
}

__attribute__((noinline)) void wait_a(void)
{
	nap(30);
}

__attribute__((noinline)) void wait_b(void)
{
	nap(10);
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static long ms = 1000;
static volatile unsigned long sink;

static void *burn(void *arg)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		sink += burn_a(UNIT);
		sink += burn_b(UNIT);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		ms = atol(argv[1]);
	if (argc > 2 && !strcmp(argv[2], "work")) {
		double t0 = now_ms();

		for (long i = 0; i < ms; i++) {
			sink += burn_a(UNIT);
			sink += burn_b(UNIT);
		}
		printf("%.3f ms\n", now_ms() - t0);
	} else if (argc > 2 && !strcmp(argv[2], "sleep")) {
		for (long i = 0; i < ms; i++) {
			wait_a();
			wait_b();
		}
	} else if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			burn(NULL);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	} else if (argc > 2 && !strcmp(argv[2], "threads")) {
		pthread_t t[2];

		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, burn, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	} else {
		burn(NULL);
	}
	printf("%lu\n", sink & 1);
	return 0;
}
