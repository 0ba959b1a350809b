/* client.c — see client.h. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "ctl/client.h"

int scry_ctl_dial(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[sizeof(sa.sun_path)];
	struct timeval tv = { .tv_sec = 120 };    /* a start loads BPF programs: seconds */
	int fd;

	if (scry_ctl_socket_path(path, sizeof(path)))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, sizeof(sa.sun_path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

void scry_ctl_refused(char *err, size_t errlen)
{
	struct stat st;
	struct group *gr;

	if (stat(scry_ctl_rundir(), &st) == 0 && st.st_gid != 0 && (gr = getgrgid(st.st_gid)))
		snprintf(err, errlen, "the control socket is for root and the group '%s' only", gr->gr_name);
	else
		snprintf(err, errlen, "the control socket is root-only");
}

int scry_ctl_call(int fd, const struct scry_ctl_request *rq, struct scry_ctl_msg *reply, char *err, size_t errlen)
{
	struct scry_ctl_builder b;
	char err2[256];
	int r;

	scry_ctl_builder_init(&b, SCRY_CTL_REQUEST);
	if (rq->cwd)
		scry_ctl_add(&b, "cwd", rq->cwd);
	if (rq->home)
		scry_ctl_add(&b, "home", rq->home);
	if (rq->session && *rq->session)
		scry_ctl_add(&b, "session", rq->session);
	for (size_t i = 0; i < rq->nargs; i++)
		scry_ctl_add(&b, "arg", rq->args[i]);
	for (size_t i = 0; i < rq->nenv; i++)
		scry_ctl_add(&b, "env", rq->env[i]);
	if (scry_ctl_finish(&b)) {
		snprintf(err, errlen, "%s: the command line is larger than the protocol allows (%u bytes)",
			 rq->nargs ? rq->args[0] : "request", SCRY_CTL_MAX_PAYLOAD);
		scry_ctl_builder_free(&b);
		return -E2BIG;
	}
	err[0] = 0;
	/* a daemon that refuses the caller replies before reading: its reply is still read */
	if ((r = scry_ctl_send(fd, &b, err, errlen)) < 0) {
		if (scry_ctl_recv(fd, reply, err2, sizeof(err2)) == 0)
			r = 0;
	} else
		r = scry_ctl_recv(fd, reply, err, errlen);
	scry_ctl_builder_free(&b);
	return r < 0 ? r : 0;
}
