/* fault_strings.c — syscall strings in pages the process has not touched yet (issue 3).
 * fork copies no page table of a file-backed mapping, so a child right after fork has
 * none of the program's or glibc's rodata mapped: the kernel side of a tracer cannot read
 * a string there at syscall entry, the syscall itself faults it in.
 *   fault_strings DIR       opens DIR/data (created), then a child makes DIR/link a symlink
 *                           to a literal, fstat()s that fd (glibc passes "" from its rodata)
 *                           and execs /bin/true with a path and argv that are literals the
 *                           child never read.  Prints one JSON line:
 *                           {"child": PID, "fd": FD, "link": PATH, "envc": N, "status": S}
 *   fault_strings -b DIR    a child opens the FIFO DIR/fifo by a literal relative path and
 *                           blocks there; killed after 2 s.  Prints {"child": PID} */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Each fills 64 KiB of its own, so that nothing the child does first maps them: a read
 * fault maps the file's pages around it too, 64 KiB by default (fault_around_bytes). */
#define PAGE_STR(name, text) static const char name[65536] __attribute__((aligned(65536))) = text
PAGE_STR(exec_path, "/bin/true");
PAGE_STR(exec_arg0, "true");
PAGE_STR(exec_arg1, "x");
PAGE_STR(fifo_name, "fifo");
PAGE_STR(link_target, "scry-link-target");

/* Right after fork: only the stack and what the parent wrote are mapped. */
static int run_child(int fd, const char *link)
{
	char *args[] = { (char *)exec_arg0, (char *)exec_arg1, NULL };
	struct stat st;

	if (symlink(link_target, link) || fstat(fd, &st))
		return 1;
	execve(exec_path, args, environ);
	return 127;
}

static int exec_case(const char *dir)
{
	char path[4096], link[4096];
	int status = 0, envc = 0, fd;
	pid_t child;

	snprintf(path, sizeof(path), "%s/data", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	child = fork();
	if (child == 0)
		_exit(run_child(fd, link));
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	while (environ[envc])
		envc++;
	printf("{\"child\": %d, \"fd\": %d, \"link\": \"%s\", \"envc\": %d, \"status\": %d}\n",
	       child, fd, link, envc, status);
	return 0;
}

static int block_case(const char *dir)
{
	char path[4096];
	pid_t child;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (mkfifo(path, 0600))
		return 1;
	child = fork();
	if (child == 0) {
		if (chdir(dir))
			_exit(1);
		_exit(open(fifo_name, O_RDONLY) < 0);
	}
	if (child < 0)
		return 1;
	sleep(2);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	printf("{\"child\": %d}\n", child);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return exec_case(argv[1]);
	if (argc == 3 && !strcmp(argv[1], "-b"))
		return block_case(argv[2]);
	fprintf(stderr, "usage: fault_strings DIR | fault_strings -b DIR\n");
	return 2;
}
