/* launch.c — see launch.h. */
#include <signal.h>
#include <sys/wait.h>
#include "cli/launch.h"

int cli_launch(struct scry_session *s, const pid_t *pids, size_t npids, char **cmd, struct scry_child *child,
	       void (*on_signal)(int), void (*on_child)(void *ctx, pid_t pid), void *ctx,
	       char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_signal };

	for (size_t i = 0; i < npids; i++)
		if (scry_session_track(s, pids[i], err, errlen))
			return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (cmd) {
		if (scry_spawn_held(cmd, child, err, errlen))
			return -1;
		if (scry_session_track(s, child->pid, err, errlen))
			return -1;
		if (on_child)
			on_child(ctx, child->pid);
	}
	if (scry_session_start(s, err, errlen))
		return -1;
	if (cmd && scry_spawn_release(child, err, errlen)) {
		waitpid(child->pid, NULL, 0);
		child->pid = -1;
		return -1;
	}
	return 0;
}
