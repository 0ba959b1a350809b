/* proto.h — scry's control protocol, between the CLI and the daemon (scryd) over a UNIX
 * socket: one request, one reply, then the connection closes.  A message is a 12-byte
 * header (magic "SCRY", version, type, payload length, little-endian) and a payload of
 * NUL-terminated "key=value" strings (keys [a-z0-9-]+, repeatable, in order).  A request
 * carries the caller's context (cwd, home, session), its OTEL_* environment variables (env=,
 * "NAME=value": where a session's spans go) and the command line (arg=, in order);
 * a reply its status, what to print (out=), the one-line reason of an error (error=), and
 * the current session to remember (set-session=, clear-session=).  The parser accepts
 * nothing it cannot bound: SCRY_CTL_MAX_PAYLOAD bytes, SCRY_CTL_MAX_STRINGS strings. */
#ifndef SCRY_CTL_PROTO_H
#define SCRY_CTL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define SCRY_CTL_MAGIC        0x59524353u     /* "SCRY" read as little-endian */
#define SCRY_CTL_VERSION      1
#define SCRY_CTL_HEADER_SIZE  12
#define SCRY_CTL_MAX_PAYLOAD  (64u << 10)
#define SCRY_CTL_MAX_STRINGS  1024

enum scry_ctl_type {
	SCRY_CTL_REQUEST = 1,
	SCRY_CTL_REPLY = 2,
};

struct scry_ctl_header {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t length;        /* payload bytes */
};

struct scry_ctl_kv {
	const char *key;        /* NUL-terminated, inside the message's own copy */
	const char *value;
};

/* A parsed message: its strings point into buf (owned). */
struct scry_ctl_msg {
	uint16_t type;
	char *buf;
	struct scry_ctl_kv *kv;
	size_t nkv;
};

/* A message being built (scry_ctl_add, then scry_ctl_encode). */
struct scry_ctl_builder {
	char *buf;              /* header space, then the payload */
	size_t len, cap;
	int error;              /* -ENOMEM / -E2BIG once a string did not fit */
	size_t nstrings;
};

/* Read and check a header (no payload yet): 0, or -EPROTO/-EMSGSIZE with a reason. */
int scry_ctl_header_parse(const uint8_t *buf, size_t len, struct scry_ctl_header *h, char *err, size_t errlen);
/* Parse a whole message (header + payload, len bytes): 0, or -errno with a one-line reason
 * naming what is wrong.  scry_ctl_msg_free frees it. */
int scry_ctl_parse(const uint8_t *buf, size_t len, struct scry_ctl_msg *m, char *err, size_t errlen);
void scry_ctl_msg_free(struct scry_ctl_msg *m);
/* The first value of key, or NULL. */
const char *scry_ctl_get(const struct scry_ctl_msg *m, const char *key);

void scry_ctl_builder_init(struct scry_ctl_builder *b, enum scry_ctl_type type);
/* Add "key=value" (value may hold anything but NUL; NULL: an empty value). */
void scry_ctl_add(struct scry_ctl_builder *b, const char *key, const char *value);
void scry_ctl_addf(struct scry_ctl_builder *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The header filled in: the message is b->buf[0..b->len).  0 or b->error. */
int scry_ctl_finish(struct scry_ctl_builder *b);
void scry_ctl_builder_free(struct scry_ctl_builder *b);

/* Send a whole message (never raising SIGPIPE), receive a whole message (blocking socket,
 * with its timeouts): 0 or -errno with a reason. */
int scry_ctl_send(int fd, const struct scry_ctl_builder *b, char *err, size_t errlen);
int scry_ctl_recv(int fd, struct scry_ctl_msg *m, char *err, size_t errlen);

/* Descriptors passed with a message (SCM_RIGHTS, ctl/fds.c): at most SCRY_CTL_MAX_FDS, all
 * with its first bytes.  Sending: 0 or -errno with a reason.  Receiving: the message and its
 * descriptors (close-on-exec) into fds[0..*n); more than max, or a list cut short
 * (MSG_CTRUNC), closes every one received and fails (-EMSGSIZE), as any other failure does. */
#define SCRY_CTL_MAX_FDS 250
int scry_ctl_send_fds(int fd, const struct scry_ctl_builder *b, const int *fds, size_t n, char *err, size_t errlen);
int scry_ctl_recv_fds(int fd, struct scry_ctl_msg *m, int *fds, size_t max, size_t *n, char *err, size_t errlen);

/* The daemon's directory: $SCRY_RUNDIR, or /run/scry; and its control socket in it. */
const char *scry_ctl_rundir(void);
int scry_ctl_socket_path(char *buf, size_t len);

#endif
