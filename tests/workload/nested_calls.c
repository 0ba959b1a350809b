/* nested_calls.c — a syscall made three known functions deep, for the call stack contexts
 * (tests/e2e/test_callstack.py).  Built with frame pointers (the kernel walks user stacks
 * by them); the syscall instruction is inline in the innermost function, so the first user
 * frame is that function itself.
 *   nested_calls [MS]   calls scry_outer -> scry_middle -> scry_leaf -> getppid (raw
 *                       syscall), prints {"pid":P,"ret":R}, then sleeps MS ms (default 0) and
 *                       exits */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) long scry_leaf(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_getppid) : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) long scry_middle(void)
{
	long r = scry_leaf();
	__asm__ volatile("" ::: "memory");   /* no tail call */
	return r + 0;
}

__attribute__((noinline)) long scry_outer(void)
{
	long r = scry_middle();
	__asm__ volatile("" ::: "memory");
	return r + 0;
}

int main(int argc, char **argv)
{
	long r = scry_outer();

	printf("{\"pid\":%d,\"ret\":%ld}\n", getpid(), r);
	fflush(stdout);
	if (argc > 1)
		usleep((useconds_t)strtoul(argv[1], NULL, 0) * 1000);
	return 0;
}
