/* bench/timeit.c — `timeit CMD ARGS...`: runs CMD, waits, and prints its wall time as
 * {"wall_ns":T,"status":S} on stderr, so a tracer's own start-up is not counted. */
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	int status;
	if (argc < 2) {
		fprintf(stderr, "usage: timeit CMD ARGS...\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "{\"wall_ns\":%lld,\"status\":%d}\n",
		(long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec),
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
