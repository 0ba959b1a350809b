/* map_lookups.c — holds a CPU's BPF instrumentation off again and again: a bpf() map
 * lookup from user space runs with the CPU's bpf_prog_active raised, so a tracepoint
 * program that an interrupt would run meanwhile is skipped by the kernel and counted as
 * one of its recursion misses.  For the discard tests: such misses must reach the trace.
 *   map_lookups SECONDS      prints {"lookups":N} at the end */
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	union bpf_attr a;
	struct timespec start, now;
	unsigned key = 0;
	static unsigned long long value[4096];   /* a value per possible CPU */
	unsigned long long n = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0) {
		perror("map_lookups: BPF_MAP_CREATE");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 1000; i++, n++) {
			memset(&a, 0, sizeof(a));
			a.map_fd = (unsigned)fd;
			a.key = (unsigned long)&key;
			a.value = (unsigned long)value;
			sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	printf("{\"lookups\":%llu}\n", n);
	return 0;
}
