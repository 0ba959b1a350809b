/* filterwl.c — known syscalls for the in-kernel filter and tracker tests (issue 4).
 *
 *   filterwl files DIR
 *       openat: DIR/alpha.txt (O_WRONLY|O_CREAT|O_TRUNC, 0644), DIR/beta-mid-dle.log
 *       (O_WRONLY|O_CREAT|O_APPEND, 0600), /etc/hostname (O_RDONLY), then three failing ones:
 *       /nonexistent-scry/zzz (ENOENT), DIR/alpha.txt with O_CREAT|O_EXCL (EEXIST), DIR with
 *       O_WRONLY (EISDIR); alpha and beta are moved to fds 10 and 11 (dup2), then
 *       write(10, 50) write(10, 150) write(11, 300) write(11, 80) write(10, 101),
 *       write(99, 7) (EBADF), write(hostname fd, 5) (EBADF).  Prints one JSON line at the end.
 *   filterwl fork N
 *       prints {"pid":P,"vpid":V} and waits for a line on stdin ("go"); then forks N children,
 *       each calls getppid() 3 times and exits; the parent waits for them, calls getppid()
 *       once and prints {"pid":P,"children":[...]} (pids as seen in its own namespace). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[512];

static int files(const char *dir)
{
	char alpha[4096], beta[4096];
	int fa, fb, fc, e1, e2, e3, w[7], x[7];
	static const int wfd[7] = { 10, 10, 11, 11, 10, 99, -1 };
	static const int wcount[7] = { 50, 150, 300, 80, 101, 7, 5 };

	snprintf(alpha, sizeof(alpha), "%s/alpha.txt", dir);
	snprintf(beta, sizeof(beta), "%s/beta-mid-dle.log", dir);
	memset(buf, 'x', sizeof(buf));
	fa = openat(AT_FDCWD, alpha, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fb = openat(AT_FDCWD, beta, O_WRONLY | O_CREAT | O_APPEND, 0600);
	fc = openat(AT_FDCWD, "/etc/hostname", O_RDONLY);
	if (fa < 0 || fb < 0 || fc < 0)
		return 1;
	e1 = openat(AT_FDCWD, "/nonexistent-scry/zzz", O_RDONLY) < 0 ? errno : 0;
	e2 = openat(AT_FDCWD, alpha, O_WRONLY | O_CREAT | O_EXCL, 0644) < 0 ? errno : 0;
	e3 = openat(AT_FDCWD, dir, O_WRONLY) < 0 ? errno : 0;
	if (dup2(fa, 10) != 10 || dup2(fb, 11) != 11)
		return 1;
	for (int i = 0; i < 7; i++) {
		int fd = wfd[i] < 0 ? fc : wfd[i];
		w[i] = (int)write(fd, buf, wcount[i]);
		x[i] = w[i] < 0 ? errno : 0;
	}
	printf("{\"pid\":%d,\"alpha\":\"%s\",\"beta\":\"%s\",\"fds\":[%d,%d,%d],\"errno\":[%d,%d,%d],"
	       "\"writes\":[", getpid(), alpha, beta, fa, fb, fc, e1, e2, e3);
	for (int i = 0; i < 7; i++)
		printf("%s[%d,%d,%d,%d]", i ? "," : "", wfd[i] < 0 ? fc : wfd[i], wcount[i], w[i], x[i]);
	printf("]}\n");
	return 0;
}

static int forks(int n)
{
	char line[64];
	pid_t kids[64];

	if (n < 0 || n > 64)
		return 2;
	printf("{\"pid\":%d}\n", getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			return 1;
		if (kids[i] == 0) {
			for (int k = 0; k < 3; k++)
				syscall(SYS_getppid);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	syscall(SYS_getppid);
	printf("{\"pid\":%d,\"children\":[", getpid());
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", kids[i]);
	printf("]}\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "files"))
		return files(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return forks(atoi(argv[2]));
	fprintf(stderr, "usage: filterwl files DIR | filterwl fork N\n");
	return 2;
}
