/* sd_files.c — a process whose open files and threads are known before a trace starts, for
 * the statedump test.  In DIR it creates and opens: "ro" read-only, "wa" write-only append,
 * "rw" read-write close-on-exec; plus a pipe; starts a thread named "sd_worker"; then prints
 * {"pid":P,"worker":TID,"fds":{"FD":"PATH",...},"flags":{"FD":FLAGS,...}} (FLAGS as fcntl
 * F_GETFL says, O_CLOEXEC added from F_GETFD) and sleeps until stdin is closed.
 *   sd_files DIR */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long worker_tid;

static void *worker(void *arg)
{
	worker_tid = syscall(SYS_gettid);
	for (;;)
		pause();
	return arg;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; int flags; } files[] = {
		{ "ro", O_RDONLY }, { "wa", O_WRONLY | O_APPEND }, { "rw", O_RDWR | O_CLOEXEC },
	};
	int fds[5], p[2], n = 0;
	char path[4096], real[4096];
	pthread_t t;

	if (argc < 2)
		return 2;
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[1], files[i].name);
		close(open(path, O_CREAT | O_WRONLY, 0644));
		if ((fds[n++] = open(path, files[i].flags)) < 0)
			return 1;
	}
	if (pipe(p))
		return 1;
	fds[n++] = p[0];
	fds[n++] = p[1];
	pthread_create(&t, NULL, worker, NULL);
	pthread_setname_np(t, "sd_worker");
	while (!worker_tid)
		usleep(1000);
	usleep(20000);   /* the name is set */
	printf("{\"pid\":%d,\"worker\":%ld,\"fds\":{", getpid(), worker_tid);
	for (int i = 0; i < n; i++) {
		char link[64];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fds[i]);
		len = readlink(link, real, sizeof(real) - 1);
		real[len > 0 ? len : 0] = 0;
		printf("%s\"%d\":\"%s\"", i ? "," : "", fds[i], real);
	}
	printf("},\"flags\":{");
	for (int i = 0; i < n; i++)
		printf("%s\"%d\":%d", i ? "," : "", fds[i],
		       fcntl(fds[i], F_GETFL) | ((fcntl(fds[i], F_GETFD) & FD_CLOEXEC) ? O_CLOEXEC : 0));
	printf("}}\n");
	fflush(stdout);
	while (read(0, path, sizeof(path)) > 0)
		;
	return 0;
}
