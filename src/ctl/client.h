/* client.h — the client's side of the control protocol (proto.h): connecting to scryd's
 * socket and one request/reply exchange.  The CLI's control verbs (cli/control.c) and
 * libscry's control part (api/ctl.c) both go through it. */
#ifndef SCRY_CTL_CLIENT_H
#define SCRY_CTL_CLIENT_H

#include <stddef.h>
#include "ctl/proto.h"

/* Connect to the daemon's socket (timeouts of 120 s: a start loads BPF programs): the fd,
 * or -errno (-ENAMETOOLONG: the run directory is too long a path for a UNIX socket). */
int scry_ctl_dial(void);
/* The one-line reason a connection was refused (-EACCES/-EPERM): root-only, or root's and
 * the group of the daemon's run directory. */
void scry_ctl_refused(char *err, size_t errlen);

/* A request: the caller's context and the command line (args[0] the verb). */
struct scry_ctl_request {
	const char *cwd, *home;     /* NULL: not sent */
	const char *session;        /* the current session (NULL: none) */
	const char *const *args;
	size_t nargs;
	const char *const *env;     /* "NAME=value" strings sent as env= (NULL/0: none) */
	size_t nenv;
};

/* Send rq on fd and read the reply into *reply (scry_ctl_msg_free frees it; a daemon that
 * refuses the caller replies before reading: its reply is still read).  0, or -errno with
 * the reason in err (-E2BIG: the command line is larger than the protocol allows). */
int scry_ctl_call(int fd, const struct scry_ctl_request *rq, struct scry_ctl_msg *reply, char *err, size_t errlen);

#endif
