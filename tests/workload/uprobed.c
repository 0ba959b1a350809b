/* uprobed.c — functions with known arguments and return values, for the uprobe tests
 * (test_uprobes.py): integers of each size and sign, an enum, a pointer, a string, a
 * struct and a double by value (which the ABI registers cannot hold), three handle_*
 * functions for globs, USDT probes (<sys/sdt.h>; scrywl:guarded fires only while its
 * semaphore is set), and libc's malloc and open.
 *   uprobed [N [slow]]  calls each function N times (default 3), i = 0..N-1; slow: 200 ms
 *                       between rounds (to attach with -p while main runs)
 *   uprobed N threads   4 threads each calling recurse(3) N times, at once
 * Prints {"pid":P} first.  Built -O1 -g (and -O0, stripped: the Makefile). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define _SDT_HAS_SEMAPHORES 1   /* the USDT probes have semaphores, set by the tracer */
#include <sys/sdt.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

enum color { RED = 1, GREEN = 2, BLUE = 40 };
struct pair { long x, y; };

volatile long sink;
unsigned short scrywl_tick_semaphore __attribute__((section(".probes")));
unsigned short scrywl_guarded_semaphore __attribute__((section(".probes")));

NOIPA long add3(int a, long b, unsigned char c)
{
	return a + b + c;
}

NOIPA int greet(const char *name, int times)
{
	return (int)strlen(name) * times;
}

/* two strings: the event is built in the per-CPU area, not the stage (uprobes.bpf.h) */
NOIPA int two_names(const char *first, int n, const char *second)
{
	return (int)(strlen(first) + strlen(second)) + n;
}

NOIPA enum color paint(enum color c, void *where, short level, unsigned long long big)
{
	sink = (long)where + level + (long)big;
	return c == RED ? BLUE : GREEN;
}

NOIPA long sum_pair(struct pair p, double scale, int k)
{
	return (long)((p.x + p.y) * scale) + k;
}

NOIPA long many(int a, int b, int c, int d, int e, int f, int g, const char *h, long i)
{
	return a + b + c + d + e + f + g + (long)strlen(h) + i;
}

NOIPA struct pair mkpair(long x, long y)
{
	struct pair p = { x * 2, y - 1 };
	return p;
}

struct big { long a, b, c; };

NOIPA struct big mkbig(int k, const char *tag)
{
	struct big r = { k, (long)strlen(tag), 3 };
	return r;
}

/* Locals for statement probes: read at the LOCALS line from a register or the frame, as
 * DWARF locates them there. */
NOIPA long locals_at_line(int n, const char *tag)
{
	int doubled = n * 2;
	long total = doubled + 1000L;
	const char *label = tag;

	sink = total + (long)strlen(label);   /* LOCALS */
	return total + doubled;
}

/* A request by pointer, for --fetch: req->hdr.len at the entry (through the pointer in
 * rdi), copy.len at the REQUEST line (within a struct in the frame at -O0). */
struct hdr { int kind; unsigned len; };
struct request { long id; struct hdr hdr; const char *path; };

NOIPA long do_request(const struct request *req)
{
	struct hdr copy = req->hdr;

	sink = copy.len + req->id;   /* REQUEST */
	return (long)copy.len * 2;
}

NOIPA int handle_alpha(int v) { return v + 1; }
NOIPA int handle_beta(int v) { return v + 2; }
NOIPA int handle_gamma(int v) { return v + 3; }

NOIPA int recurse(int depth)
{
	return depth <= 0 ? 0 : 1 + recurse(depth - 1);
}

static int rounds;

static void *worker(void *arg)
{
	for (int i = 0; i < rounds; i++)
		sink = recurse(3);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int slow = argc > 2 && !strcmp(argv[2], "slow");

	printf("{\"pid\":%d}\n", getpid());
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "threads")) {
		pthread_t th[4];

		rounds = n;
		for (int k = 0; k < 4; k++)
			pthread_create(&th[k], NULL, worker, NULL);
		for (int k = 0; k < 4; k++)
			pthread_join(th[k], NULL);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct pair p = { 10 + i, 20 };
		void *m;
		int fd;

		sink = add3(7 + i, -100000000000L, 200);
		sink = greet("scry-probe", 3 + i);
		sink = two_names("first-name", i, "second-name-longer");
		sink = paint(RED, (void *)0x1234, -5, 0xfedcba9876543210ULL);
		sink = sum_pair(p, 0.5, i);
		sink = handle_alpha(i) + handle_beta(i) + handle_gamma(i);
		sink = recurse(2);
		sink = many(1, 2, 3, 4, 5, 6, -7 - i, "eighth", 9000000000L + i);
		p = mkpair(100 + i, -50);
		sink = mkbig(i, "big").b;
		sink = locals_at_line(i, "local-tag");
		struct request rq = { 100 + i, { 7, 64u * (i + 1) }, "/index" };
		sink = do_request(&rq);
		sink = p.x + p.y;
		DTRACE_PROBE3(scrywl, tick, i, 42 + i, -7);
		if (scrywl_guarded_semaphore)   /* only reached while a tracer probes it */
			DTRACE_PROBE2(scrywl, guarded, (long)i * 10, "guarded");
		m = malloc(12345 + i);
		sink = (long)m;
		free(m);
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
		if (slow)
			usleep(200 * 1000);
	}
	return 0;
}
