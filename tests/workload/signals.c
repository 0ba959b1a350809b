/* signals.c — signals for the strace comparison (tests/e2e/test_signals.py), in order:
 * a child exits with 3 (SIGCHLD, ignored by default: CLD_EXITED), a child is killed by
 * SIGUSR2 (CLD_KILLED), a SIGUSR1 queued to itself with the value 42 while SIG_IGN, a
 * SIGALRM sent to itself and caught by a handler (SI_USER; rt_sigreturn follows), then a
 * write to address 0x10: SIGSEGV (SEGV_MAPERR, si_addr=0x10). */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	union sigval v = { .sival_int = 42 };
	int st, ready[2];
	char b = 0;
	pid_t c;

	if (pipe(ready))
		return 1;
	c = fork();

	if (c == 0)
		_exit(3);
	waitpid(c, &st, 0);
	c = fork();
	if (c == 0) {                     /* it says it is ready: killed in pause(), not before */
		if (write(ready[1], &b, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(ready[0], &b, 1) != 1)
		return 1;
	kill(c, SIGUSR2);
	waitpid(c, &st, 0);
	signal(SIGUSR1, SIG_IGN);
	sigqueue(getpid(), SIGUSR1, v);
	signal(SIGALRM, on_alarm);
	kill(getpid(), SIGALRM);
	*(volatile int *)0x10 = 1;
	return 0;
}
