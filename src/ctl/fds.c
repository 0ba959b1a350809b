/* fds.c — descriptors passed with a control message (see proto.h): scryd hands a loaded BPF
 * object's maps and programs to a client (daemon/warm.c, kernel/warm.c) as SCM_RIGHTS
 * attached to the reply's first bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "ctl/proto.h"

int scry_ctl_send_fds(int fd, const struct scry_ctl_builder *b, const int *fds, size_t n, char *err, size_t errlen)
{
	union {
		char buf[CMSG_SPACE(SCRY_CTL_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = b->buf, .iov_len = b->len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t sent;

	if (n > SCRY_CTL_MAX_FDS) {
		snprintf(err, errlen, "%zu descriptors: at most %d go with a message", n, SCRY_CTL_MAX_FDS);
		return -E2BIG;
	}
	if (n) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	do
		sent = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (sent < 0 && errno == EINTR);
	if (sent <= 0) {
		int e = sent < 0 ? errno : EIO;

		snprintf(err, errlen, "sending to the peer: %s", strerror(e));
		return -e;
	}
	if ((size_t)sent == b->len)
		return 0;
	/* the descriptors went with the first bytes: the rest as any message */
	struct scry_ctl_builder rest = { .buf = b->buf + sent, .len = b->len - (size_t)sent };
	return scry_ctl_send(fd, &rest, err, errlen);
}

static void close_all(int *fds, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		close(fds[i]);
	*n = 0;
}

/* The descriptors of one recvmsg's control data into fds (closed and -EMSGSIZE past max). */
static int take_rights(struct msghdr *mh, int *fds, size_t max, size_t *n)
{
	int ret = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n < max)
				fds[(*n)++] = f;
			else {
				close(f);
				ret = -EMSGSIZE;
			}
		}
	}
	return ret;
}

int scry_ctl_recv_fds(int fd, struct scry_ctl_msg *m, int *fds, size_t max, size_t *n, char *err, size_t errlen)
{
	union {
		char buf[CMSG_SPACE(SCRY_CTL_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct scry_ctl_header h;
	uint8_t *buf = NULL, hb[SCRY_CTL_HEADER_SIZE];
	size_t len = 0, want = sizeof(hb);
	int ret = 0;

	*n = 0;
	if (max > SCRY_CTL_MAX_FDS)
		max = SCRY_CTL_MAX_FDS;
	while (len < want) {
		struct iovec iov = { .iov_base = (buf ? buf : hb) + len, .iov_len = want - len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				     .msg_controllen = sizeof(u.buf) };
		ssize_t r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "reading the reply: %s", ret == -EAGAIN ? "timed out" : strerror(-ret));
			break;
		}
		if ((ret = take_rights(&mh, fds, max, n)) || (mh.msg_flags & MSG_CTRUNC)) {
			ret = -EMSGSIZE;
			snprintf(err, errlen, "the reply carried more descriptors than the %zu expected", max);
			break;
		}
		if (r == 0) {
			ret = -ECONNRESET;
			snprintf(err, errlen, "the peer closed the connection without a reply");
			break;
		}
		len += (size_t)r;
		if (!buf && len == sizeof(hb)) {     /* the header: now the payload */
			if ((ret = scry_ctl_header_parse(hb, len, &h, err, errlen)))
				break;
			if (!(buf = malloc(sizeof(hb) + h.length))) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
			memcpy(buf, hb, sizeof(hb));
			want = sizeof(hb) + h.length;
		}
	}
	if (!ret)
		ret = scry_ctl_parse(buf, len, m, err, errlen);
	free(buf);
	if (ret)
		close_all(fds, n);
	return ret;
}
