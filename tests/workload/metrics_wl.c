/* metrics_wl.c — a workload of known syscall counts for the metrics tests:
 *   metrics_wl N M W B   N getppid calls, M openat of a missing path (ENOENT), W writes of
 *                        B bytes each to /dev/null (opened once, before them) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	long n, m, w, b;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: %s N M W B\n", argv[0]);
		return 2;
	}
	n = strtol(argv[1], NULL, 0);
	m = strtol(argv[2], NULL, 0);
	w = strtol(argv[3], NULL, 0);
	b = strtol(argv[4], NULL, 0);
	if (b < 0 || b > (long)sizeof(buf))
		return 2;
	memset(buf, 'x', sizeof(buf));
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	for (long i = 0; i < m; i++)
		if (syscall(SYS_openat, AT_FDCWD, "/nonexistent-scry-metrics/missing", O_RDONLY) >= 0)
			return 1;
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	for (long i = 0; i < w; i++)
		if (syscall(SYS_write, fd, buf, (size_t)b) != b)
			return 1;
	return 0;
}
