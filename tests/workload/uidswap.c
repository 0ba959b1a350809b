/* uidswap.c — tasks whose credentials change under the trackers' per-CPU memo (issue 4):
 * the memo keeps the last task's answer and must notice a new uid, and a new task that
 * got a dead task's kernel stack (and so the same saved-registers address).
 * swap runs pinned to CPU 0.  children runs the parent on CPU 1 and the children's calls on
 * CPU 0; each child goes back to CPU 1 to exit, so that its kernel stack is cached where the
 * next child is forked, and that child's calls on CPU 0 meet the memo its sibling left.
 *
 *   uidswap swap
 *       prints {"pid":P} and waits for "go" on stdin; then getppid() once as root, switches
 *       to uid/gid 65534 keeping root as saved uid (setresuid), getppid() twice, back to
 *       root, getppid() 3 times, to 65534 again, getppid() 4 times; prints {"done":1}.
 *   uidswap children N K
 *       prints {"pid":P} and waits for "go"; then forks N children one after the other
 *       (each reaped, and its memory freed, before the next starts): child i (1-based)
 *       switches to uid/gid 65534 when i is odd, then calls getppid() K times; prints
 *       {"children":[...]} in order.  A child mostly gets its sibling's kernel stack (the
 *       same saved-registers address) but another task_struct. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void become(uid_t uid, gid_t gid, uid_t saved)
{
	if (setresgid(gid, gid, 0) || setresuid(uid, uid, saved))
		die("setresuid");
}

static void getppids(int n)
{
	for (int i = 0; i < n; i++)
		getppid();
}

static void pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof one, &one))
		die("sched_setaffinity");
}

static void wait_go(void)
{
	char line[16];

	printf("{\"pid\":%d}\n", getpid());
	fflush(stdout);
	if (!fgets(line, sizeof line, stdin) || strcmp(line, "go\n"))
		die("waiting for go");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "swap")) {
		pin(0);
		wait_go();
		getppids(1);
		become(NOBODY, NOBODY, 0);
		getppids(2);
		become(0, 0, 0);
		getppids(3);
		become(NOBODY, NOBODY, 0);
		getppids(4);
		printf("{\"done\":1}\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "children")) {
		int n = atoi(argv[2]), k = atoi(argv[3]);
		pid_t *kids = calloc(n > 0 ? (size_t)n : 1, sizeof(*kids));

		if (n <= 0 || k <= 0 || !kids) {
			fprintf(stderr, "uidswap: bad N or K\n");
			return 2;
		}
		pin(1);
		wait_go();
		for (int i = 1; i <= n; i++) {
			int st;
			pid_t c = fork();

			if (c < 0)
				die("fork");
			if (c == 0) {
				pin(0);
				if (i % 2)
					become(NOBODY, NOBODY, NOBODY);
				getppids(k);
				pin(1);   /* die where the next child is made: it gets this stack */
				_exit(0);
			}
			if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
				die("child");
			kids[i - 1] = c;
			usleep(20000);   /* the reaped child's stack and task memory freed (RCU) for the next */
		}
		printf("{\"children\":[");
		for (int i = 0; i < n; i++)
			printf("%s%d", i ? "," : "", kids[i]);
		printf("]}\n");
		free(kids);
		return 0;
	}
	fprintf(stderr, "usage: uidswap swap | uidswap children N K\n");
	return 2;
}
