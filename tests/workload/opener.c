/* opener.c — a workload for libscry's examples (tests/e2e/test_libscry.py): reads one byte
 * from stdin (the tracer is ready), then ROUNDS times opens each PATH (closing what opened)
 * and calls getppid, then exits: the same calls every run.
 *   usage: opener ROUNDS PATH... */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char go;
	int rounds = argc > 1 ? atoi(argv[1]) : 0;

	if (read(0, &go, 1) != 1)
		return 2;
	for (int r = 0; r < rounds; r++) {
		for (int i = 2; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY);

			if (fd >= 0)
				close(fd);
		}
		getppid();
	}
	return 0;
}
