/* syscalls.c — a known sequence of syscalls for the decoding tests (issue 3): files,
 * stat, pipe, sockets on loopback, mmap, a failing call, fork + execve.  Prints what it saw
 * (fds, sizes, port, addresses) as one JSON line on stdout at the end, so that tests can
 * check every traced value exactly.
 *   syscalls DIR    (files are created in DIR) */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char path[4096], buf[64];
	struct stat st;
	struct sockaddr_in a = { .sin_family = AF_INET }, peer;
	socklen_t alen = sizeof(a), plen = sizeof(peer);
	int fd, fd2, pfd[2], ls, cs, as, nr, status = 0, bad;
	void *map;
	pid_t child;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/data.txt", argv[1]);
	fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, "hello scry\n", 11) != 11 || close(fd))
		return 1;
	fd2 = open(path, O_RDONLY);
	nr = (int)read(fd2, buf, sizeof(buf));
	close(fd2);
	if (fstatat(AT_FDCWD, path, &st, 0))
		return 1;
	if (pipe2(pfd, O_CLOEXEC))
		return 1;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || getsockname(ls, (struct sockaddr *)&a, &alen) ||
	    listen(ls, 1))
		return 1;
	cs = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(cs, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	as = accept(ls, (struct sockaddr *)&peer, &plen);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bad = openat(AT_FDCWD, "/nonexistent/scry-test", O_RDONLY);
	child = fork();
	if (child == 0) {
		char *args[] = { "true", "arg1", NULL };
		char *envp[] = { "SCRY_TEST=1", NULL };
		execve("/bin/true", args, envp);
		_exit(127);
	}
	waitpid(child, &status, 0);
	printf("{\"path\": \"%s\", \"fd\": %d, \"fd2\": %d, \"read\": %d, \"size\": %lld, \"mode\": %u, "
	       "\"pipe\": [%d, %d], \"listen\": %d, \"connect\": %d, \"accept\": %d, \"port\": %d, "
	       "\"peer_port\": %d, \"map\": %llu, \"bad\": %d, \"child\": %d, \"status\": %d}\n",
	       path, fd, fd2, nr, (long long)st.st_size, st.st_mode, pfd[0], pfd[1], ls, cs, as,
	       ntohs(a.sin_port), ntohs(peer.sin_port), (unsigned long long)(uintptr_t)map, bad, child, status);
	return 0;
}
