/* forker.c — processes for the follow-set tests.
 *   forker N          N children one after the other, each calls getppid once and exits
 *   forker N --live   N children alive at once (each waits for the last one to be forked),
 *                     then each calls getppid once and exits
 * Prints {"children":N,"pid":P} at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int gate[2];
	char c;

	if (argc < 2) {
		fprintf(stderr, "usage: %s N [--live]\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[1], NULL, 0);
	int live = argc > 2 && !strcmp(argv[2], "--live");

	if (pipe(gate))
		return 1;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			if (live) {
				close(gate[1]);
				if (read(gate[0], &c, 1) < 0)   /* EOF once the parent closes it */
					_exit(1);
			}
			syscall(SYS_getppid);
			_exit(0);
		}
		if (!live && waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	close(gate[1]);
	while (live && wait(NULL) > 0)
		;
	printf("{\"children\":%ld,\"pid\":%d}\n", n, getpid());
	return 0;
}
