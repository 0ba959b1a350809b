/* credns.c — a process in its own UTS and user namespaces with distinct real, effective and
 * saved ids, for the credential and namespace contexts (tests/e2e/test_contexts_lttng.py).
 *   credns N
 *       forks a child that enters a new UTS namespace named "scry-ctx-uts" and a new user
 *       namespace, which the parent maps (ns ids 0..65535 = kernel ids 100000..165535).  The
 *       child, still kernel root (an id the namespace does not map), calls getppid() once;
 *       then setresgid(11, 12, 13) and setresuid(21, 22, 23) (kernel ids 1000xx), prints
 *       {"pid":P,"ruid":..,"euid":..,"suid":..,"rgid":..,"egid":..,"sgid":..,
 *        "hostname":"..","uts_ns":I,"time_ns":I,"user_ns":I} as it sees them, and calls
 *       getppid() N times. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOST "scry-ctx-uts"

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void write_map(pid_t pid, const char *which, const char *line)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, which);
	if ((fd = open(path, O_WRONLY)) < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		die(path);
	close(fd);
}

static unsigned long ns_ino(const char *name)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return stat(path, &st) ? 0 : (unsigned long)st.st_ino;
}

int main(int argc, char **argv)
{
	int go[2], ready[2];
	char c = 0;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: %s N\n", argv[0]);
		return 2;
	}
	long n = strtol(argv[1], NULL, 0);
	if (pipe(go) || pipe(ready))
		die("pipe");
	if ((pid = fork()) < 0)
		die("fork");
	if (pid) {
		int st;

		if (read(ready[0], &c, 1) != 1)
			die("read");
		write_map(pid, "uid_map", "0 100000 65536\n");
		write_map(pid, "gid_map", "0 100000 65536\n");
		if (write(go[1], &c, 1) != 1)
			die("write");
		if (waitpid(pid, &st, 0) < 0)
			die("waitpid");
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (unshare(CLONE_NEWUTS) || sethostname(HOST, strlen(HOST)))
		die("uts namespace");
	if (unshare(CLONE_NEWUSER))
		die("user namespace");
	if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
		die("pipe");
	syscall(SYS_getppid);   /* kernel root: unmapped in this namespace */
	if (setresgid(11, 12, 13) || setresuid(21, 22, 23))
		die("setres*id");

	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	struct utsname u;

	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) || uname(&u))
		die("getres*id");
	printf("{\"pid\":%d,\"ruid\":%u,\"euid\":%u,\"suid\":%u,\"rgid\":%u,\"egid\":%u,\"sgid\":%u,"
	       "\"hostname\":\"%s\",\"uts_ns\":%lu,\"time_ns\":%lu,\"user_ns\":%lu}\n",
	       getpid(), ru, eu, su, rg, eg, sg, u.nodename, ns_ino("uts"), ns_ino("time"), ns_ino("user"));
	fflush(stdout);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
