/* launch.h — what `scry record` and `scry trace` do alike between loading a session and
 * their consumer loop (src/cli/launch.c). */
#ifndef SCRY_CLI_LAUNCH_H
#define SCRY_CLI_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>
#include "session/session.h"
#include "util/spawn.h"

/* Follow pids, install on_signal for SIGINT/SIGTERM/SIGHUP (SIGPIPE ignored), start cmd
 * (if any) held before exec and follow it (on_child, if given, learns its pid first),
 * attach, then let cmd exec.  0, or -1 with a one-line reason in err; child->pid < 0 when
 * no command runs (none given, or it could not be executed and was reaped). */
int cli_launch(struct scry_session *s, const pid_t *pids, size_t npids, char **cmd, struct scry_child *child,
	       void (*on_signal)(int), void (*on_child)(void *ctx, pid_t pid), void *ctx,
	       char *err, size_t errlen);

#endif /* SCRY_CLI_LAUNCH_H */
