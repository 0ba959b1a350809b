/* stepper.c — a long-lived process that makes the syscalls it is told to, one line of stdin
 * at a time, for the per-process event set tests: prints {"pid":P}, then for each line
 *   open PATH     openat(AT_FDCWD, PATH, O_RDONLY) and close
 *   name NAME     prctl(PR_SET_NAME, NAME) (the task:task_rename tracepoint)
 *   getppid       syscall(SYS_getppid)
 * answers "ok" once done; ends at end of input. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	char line[4096];

	printf("{\"pid\":%d}\n", getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "open ", 5)) {
			int fd = openat(AT_FDCWD, line + 5, O_RDONLY);

			if (fd >= 0)
				close(fd);
		} else if (!strncmp(line, "name ", 5)) {
			prctl(PR_SET_NAME, line + 5, 0, 0, 0);
		} else if (!strcmp(line, "getppid")) {
			syscall(SYS_getppid);
		} else {
			printf("unknown\n");
			fflush(stdout);
			continue;
		}
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
