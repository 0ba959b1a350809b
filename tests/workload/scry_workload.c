/* scry_workload.c — a workload with exactly known syscalls, for the end-to-end tests.
 *   scry_workload PATH1 N PATH2 M [PROG [ARGS...]]
 * 1. openat(AT_FDCWD, PATH1, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640), write N bytes in one
 *    write(2), close;
 * 2. fork: the child does the same with PATH2 and M bytes, then exits 0; the parent waits;
 * 3. a thread calls faccessat(AT_FDCWD, PATH1 ".thread", F_OK) (fails with -ENOENT);
 * 4. prints one JSON line describing everything observed, then execs PROG (default /bin/true).
 * Raw syscall(2) is used so the arguments the kernel sees are exactly the ones printed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define OPEN_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)
#define OPEN_MODE  0640

struct file_result {
	long fd, written, close_ret;
};

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct file_result write_file(const char *path, size_t n)
{
	struct file_result r;
	char *buf = malloc(n ? n : 1);
	if (!buf)
		die("malloc");
	for (size_t i = 0; i < n; i++)
		buf[i] = 'a' + i % 26;
	r.fd = syscall(SYS_openat, AT_FDCWD, path, OPEN_FLAGS, OPEN_MODE);
	if (r.fd < 0)
		die(path);
	r.written = syscall(SYS_write, r.fd, buf, n);
	if (r.written != (long)n)
		die("write");
	r.close_ret = syscall(SYS_close, r.fd);
	free(buf);
	return r;
}

static char thread_path[4096];
static long thread_tid, thread_ret;

static void *thread_main(void *arg)
{
	thread_tid = syscall(SYS_gettid);
	thread_ret = syscall(SYS_faccessat, AT_FDCWD, thread_path, F_OK);
	if (thread_ret < 0)
		thread_ret = -errno;
	return NULL;
}

static void json_str(const char *key, const char *s)
{
	printf("\"%s\":\"", key);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	printf("\"");
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s PATH1 N PATH2 M [PROG [ARGS...]]\n", argv[0]);
		return 2;
	}
	const char *path1 = argv[1], *path2 = argv[3];
	size_t n = strtoul(argv[2], NULL, 0), m = strtoul(argv[4], NULL, 0);
	char *default_prog[] = { "/bin/true", NULL };
	char **prog = argc > 5 ? argv + 5 : default_prog;

	long pid = getpid(), tid = syscall(SYS_gettid);
	struct file_result f1 = write_file(path1, n);

	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		die("pipe");
	pid_t child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		struct file_result f2 = write_file(path2, m);
		long info[3] = { getpid(), syscall(SYS_gettid), f2.fd };
		if (write(pfd[1], info, sizeof info) != sizeof info)
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	long cinfo[3] = { -1, -1, -1 };
	if (read(pfd[0], cinfo, sizeof cinfo) != sizeof cinfo)
		die("read child info");
	close(pfd[0]);
	int status;
	if (waitpid(child, &status, 0) != child)
		die("waitpid");

	snprintf(thread_path, sizeof thread_path, "%s.thread", path1);
	pthread_t th;
	if (pthread_create(&th, NULL, thread_main, NULL))
		die("pthread_create");
	pthread_join(th, NULL);

	printf("{\"pid\":%ld,\"tid\":%ld,\"ppid\":%ld,", pid, tid, (long)getppid());
	printf("\"flags\":%d,\"mode\":%d,", OPEN_FLAGS, OPEN_MODE);
	printf("\"file1\":{");
	json_str("path", path1);
	printf(",\"fd\":%ld,\"count\":%zu,\"written\":%ld,\"close_ret\":%ld},",
	       f1.fd, n, f1.written, f1.close_ret);
	printf("\"child\":{\"pid\":%ld,\"tid\":%ld,\"fork_ret\":%ld,\"status\":%d,",
	       cinfo[0], cinfo[1], (long)child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	json_str("path", path2);
	printf(",\"fd\":%ld,\"count\":%zu},", cinfo[2], m);
	printf("\"thread\":{\"tid\":%ld,\"syscall\":\"faccessat\",", thread_tid);
	json_str("path", thread_path);
	printf(",\"ret\":%ld},", thread_ret);
	json_str("exec", prog[0]);
	printf("}\n");
	fflush(stdout);

	execv(prog[0], prog);
	die("execv");
}
