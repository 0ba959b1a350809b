/* session_xml_load.c — sessions read from LTTng's session XML (dsession_read_xml, from a
 * file or from memory; see session_xml.c): the document parsed by libxml2 (its errors one
 * line), each <session> read — name, output path (snapshot outputs included), attributes
 * (snapshot mode, rotation schedules), started or not, its domains by session_xml_domain.c —
 * and built whole before any is returned. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/daemon_int.h"
#include "daemon/session_xml_int.h"
#include "util/lazylib.h"

/* A <net_output>: the relay, and the URL standing for the output's path (as create's). */
static int read_net_output(struct rd *r, xmlNodePtr no, struct relay_url *relay, char **dir)
{
	char cu[600] = "", du[600] = "", u[300], e[400];

	FOR_ELEMENTS(f, no) {
		if (is(f, "control_uri"))
			text(f, cu, sizeof(cu));
		else if (is(f, "data_uri"))
			text(f, du, sizeof(du));
		else
			return unknown(r, f);
	}
	if (relay_url_parse_uris(relay, cu, du, e, sizeof(e)))
		return unsupported(r, no, e);
	relay_url_format(relay, u, sizeof(u));
	free(*dir);
	return (*dir = strdup(u)) ? 0 : -ENOMEM;
}

/* A snapshot output's name and maximum size, as snapshot add-output -n/-m set them. */
struct snap_attrs {
	char name[64];
	uint64_t max;
	bool seen;
};

static int read_output(struct rd *r, xmlNodePtr out, char **dir, struct relay_url *relay, bool *has_relay,
		       struct snap_attrs *sa)
{
	FOR_ELEMENTS(co, out) {
		if (is(co, "snapshot_outputs")) {
			int nout = 0;

			FOR_ELEMENTS(o, co) {
				int ret;

				if (!is(o, "output"))
					return unknown(r, o);
				if (++nout > 1)
					return unsupported(r, o, "(one snapshot output per session in scry)");
				sa->seen = true;
				FOR_ELEMENTS(f, o) {
					if (is(f, "consumer_output"))
						continue;
					if (is(f, "name")) {
						if ((ret = text_whole(r, f, sa->name, sizeof(sa->name))))
							return ret;
						if (sa->name[0] && !dsession_name_ok(sa->name))
							return unsupported(r, f, "is not a snapshot output name (letters, "
									   "digits, '_', '-', '.')");
					} else if (is(f, "max_size")) {
						if ((ret = number(r, f, &sa->max)))
							return ret;
					} else {
						return unknown(r, f);
					}
				}
				if ((ret = read_output(r, o, dir, relay, has_relay, sa)))   /* its consumer_output */
					return ret;
			}
			continue;
		}
		if (is(co, "name") || is(co, "max_size"))
			continue;        /* a snapshot output's, checked above */
		if (!is(co, "consumer_output"))
			return unknown(r, co);
		FOR_ELEMENTS(n, co) {
			bool on;
			int ret;

			if (is(n, "enabled")) {
				if ((ret = boolean(r, n, &on)))
					return ret;
				if (!on)
					return unsupported(r, n, "false: a session without output is not supported");
			} else if (is(n, "destination")) {
				FOR_ELEMENTS(d, n) {
					char b[4096];

					if (is(d, "net_output")) {
						if ((ret = read_net_output(r, d, relay, dir)))
							return ret;
						*has_relay = true;
						continue;
					}
					if (!is(d, "path"))
						return unknown(r, d);
					text(d, b, sizeof(b));
					if (b[0] != '/')
						return unsupported(r, d, "is not an absolute path");
					*has_relay = false;
					free(*dir);
					if (!(*dir = strdup(b)))
						return -ENOMEM;
				}
			} else
				return unknown(r, n);
		}
	}
	return 0;
}

static int read_rotation(struct rd *r, struct dsession *s, xmlNodePtr rs)
{
	FOR_ELEMENTS(sc, rs) {
		bool periodic = is(sc, "periodic");

		if (!periodic && !is(sc, "size_threshold"))
			return unknown(r, sc);
		FOR_ELEMENTS(n, sc) {
			uint64_t v;
			int ret;

			if (!is(n, periodic ? "time_us" : "bytes"))
				return unknown(r, n);
			if ((ret = number(r, n, &v)))
				return ret;
			if (periodic ? v < 10000 || v > 10000000000000ULL : v < 4096)
				return unsupported(r, n, periodic ? "is out of range (at least 10000 us)" :
						   "is out of range (at least 4096 bytes)");
			if (periodic)
				s->rot_timer_ns = v * 1000;
			else
				s->rot_size = v;
		}
	}
	return 0;
}

static int read_session(struct rd *r, xmlNodePtr se, struct dsession **out, bool *started)
{
	struct dsession *s = NULL;
	char name[256] = "", *dir = NULL;
	struct relay_url relay;
	bool has_relay = false;
	uint64_t live_us = 0;
	int ret = 0;

	bool snapshot = false;
	struct snap_attrs sa = { .seen = false };
	bool no_output = false;

	*started = false;
	FOR_ELEMENTS(n, se) {
		if (is(n, "name") && (ret = text_whole(r, n, name, sizeof(name))))
			goto out;
		else if (is(n, "output") && (ret = read_output(r, n, &dir, &relay, &has_relay, &sa)))
			goto out;
		else if (is(n, "attributes"))      /* the channels' defaults depend on it */
			FOR_ELEMENTS(a, n)
				if (is(a, "snapshot_mode") && (ret = boolean(r, a, &snapshot)))
					goto out;
	}
	if (!name[0]) {
		ret = unsupported(r, se, "has no <name>");
		goto out;
	}
	if (!dsession_name_ok(name)) {
		ret = unsupported(r, se, "has an invalid name (letters, digits, '_', '-', '.')");
		goto out;
	}
	if (!dir && snapshot && !sa.seen) {   /* lttng's save of a snapshot session whose output
					       * was deleted: no <output>; load names its directory */
		if (!(dir = strdup(""))) {
			ret = -ENOMEM;
			goto out;
		}
		no_output = true;
	} else if (!dir) {
		ret = unsupported(r, se, "has no output path");
		goto out;
	}
	if (!(s = dsession_new(name, dir))) {
		ret = -ENOMEM;
		goto out;
	}
	s->snapshot = snapshot;
	if (snapshot && !has_relay) {   /* its snapshot output as saved (verbs_snapshot.c) */
		/* (a plain consumer output: the default snapshot output, snapshot-1 there) */
		s->snap_out.state = no_output ? DSNAP_DELETED : DSNAP_SET;
		s->snap_out.id = 1;
		s->snap_out.next_id = 2;
		snprintf(s->snap_out.name, sizeof(s->snap_out.name), "%s", sa.name[0] ? sa.name : "snapshot-1");
		s->snap_out.max = sa.max;
		if (!no_output && !(s->snap_out.path = strdup(dir))) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (has_relay) {         /* streamed only, as create --set-url makes it */
		s->relay = relay;
		s->has_relay = s->relay_only = true;
	}
	r->overwrite_seen = r->discard_seen = false;
	FOR_ELEMENTS(n, se) {
		if (is(n, "name") || is(n, "output"))
			continue;
		if (is(n, "domains")) {
			FOR_ELEMENTS(dm, n) {
				ret = is(dm, "domain") ? dsession_read_xml_domain(r, s, dm) : unknown(r, dm);
				if (ret)
					goto out;
			}
		} else if (is(n, "started")) {
			ret = boolean(r, n, started);
		} else if (is(n, "attributes")) {
			FOR_ELEMENTS(a, n) {
				bool on;

				if (is(a, "snapshot_mode")) {
					if (!(ret = boolean(r, a, &on)))
						s->snapshot = on;
				} else if (is(a, "live_timer_interval")) {
					if (!(ret = number(r, a, &live_us)) && live_us && (!has_relay || s->snapshot ||
											 live_us > UINT32_MAX))
						ret = unsupported(r, a, !has_relay ? "is for a session streamed to a relay "
								  "(a <net_output>)" : s->snapshot ? "is not for a snapshot session" :
								  "is out of range");
					s->live_timer_us = (uint32_t)live_us;
				}
				else if (is(a, "rotation_schedules"))
					ret = read_rotation(r, s, a);
				else
					ret = unknown(r, a);
				if (ret)
					goto out;
			}
		} else if (is(n, "shared_memory_path")) {
			ret = unsupported(r, n, "(a user space domain's setting)");
		} else {
			ret = unknown(r, n);
		}
		if (ret)
			goto out;
	}
	if (s->snapshot && r->discard_seen) {
		ret = unsupported(r, r->mode_node, "DISCARD in a snapshot session: its channels overwrite in scry");
		goto out;
	}
	*out = s;
	s = NULL;
out:
	if (ret == -ENOMEM)
		snprintf(r->err, r->errlen, "out of memory");
	dsession_free(s);
	free(dir);
	return ret;
}

static void xml_error(void *ctx, const xmlError *e)
{
	struct rd *r = ctx;

	if (!r->err[0] && e && e->level >= XML_ERR_ERROR) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", e->message ? e->message : "parse error");
		msg[strcspn(msg, "\n")] = 0;
		snprintf(r->err, r->errlen, "%s:%d: not XML: %s", r->path, e->line, msg);
		one_line(r->err);
	}
}

/* The sessions of a parsed document (see dsession_read_xml). */
static int read_doc(struct rd *r, xmlDocPtr doc, const char *only, struct dsession ***out, size_t *n,
		    bool **started)
{
	char *err = r->err;
	size_t errlen = r->errlen;
	const char *path = r->path;
	struct dsession **v = NULL;
	bool *st = NULL;
	size_t nv = 0;
	xmlNodePtr root;
	int ret = 0;

	root = xml.xmlDocGetRootElement(doc);
	if (!root || !is(root, "sessions")) {
		snprintf(err, errlen, "%s: not an LTTng session file (its root is <%s>, not <sessions>)", path,
			 root ? (const char *)root->name : "");
		ret = -EINVAL;
		goto out;
	}
	FOR_ELEMENTS(se, root) {
		struct dsession *s = NULL, **nvv;
		bool on;
		bool *nst;

		if (!is(se, "session")) {
			ret = unknown(r, se);
			goto out;
		}
		if ((ret = read_session(r, se, &s, &on)))
			goto out;
		if (only && strcmp(s->name, only)) {
			dsession_free(s);
			continue;
		}
		nvv = realloc(v, (nv + 1) * sizeof(*v));
		nst = realloc(st, (nv + 1) * sizeof(*st));
		if (nvv)
			v = nvv;
		if (nst)
			st = nst;
		if (!nvv || !nst) {
			dsession_free(s);
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		v[nv] = s;
		st[nv++] = on;
	}
	if (!nv) {
		if (only)
			snprintf(err, errlen, "%s: no session named '%s'", path, only);
		else
			snprintf(err, errlen, "%s: no session", path);
		ret = -ENOENT;
		goto out;
	}
	*out = v;
	*n = nv;
	*started = st;
	v = NULL;
	st = NULL;
out:
	for (size_t i = 0; v && i < nv; i++)
		dsession_free(v[i]);
	free(v);
	free(st);
	return ret;
}

int dsession_read_xml(struct daemon *d, const char *path, const char *only, struct dsession ***out,
		      size_t *n, bool **started, char *err, size_t errlen)
{
	struct rd r = { .d = d, .path = path, .err = err, .errlen = errlen };
	xmlDocPtr doc;
	int ret;

	err[0] = 0;
	*out = NULL;
	*n = 0;
	*started = NULL;
	if (scry_lazylib_load(&xml_lib, err, errlen))
		return -ELIBACC;
	if (faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) < 0) {   /* the file-system identity in force */
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return -errno;
	}
	xml.xmlSetStructuredErrorFunc(&r, (xmlStructuredErrorFunc)xml_error);
	doc = xml.xmlReadFile(path, NULL, XML_PARSE_NONET);
	xml.xmlSetStructuredErrorFunc(NULL, NULL);
	if (!doc) {
		if (!err[0])
			snprintf(err, errlen, "%s: not XML", path);
		return -EINVAL;
	}
	ret = read_doc(&r, doc, only, out, n, started);
	xml.xmlFreeDoc(doc);
	return ret;
}

int dsession_read_xml_buffer(const char *buf, size_t len, const char *label, struct dsession ***out,
			     size_t *n, bool **started, char *err, size_t errlen)
{
	struct rd r = { .path = label, .err = err, .errlen = errlen };
	xmlDocPtr doc;
	int ret;

	err[0] = 0;
	*out = NULL;
	*n = 0;
	*started = NULL;
	if (len > INT32_MAX)
		return -E2BIG;
	if (scry_lazylib_load(&xml_lib, err, errlen))
		return -ELIBACC;
	xml.xmlSetStructuredErrorFunc(&r, (xmlStructuredErrorFunc)xml_error);
	doc = xml.xmlReadMemory(buf, (int)len, label, NULL, XML_PARSE_NONET);
	xml.xmlSetStructuredErrorFunc(NULL, NULL);
	if (!doc) {
		if (!err[0])
			snprintf(err, errlen, "%s: not XML", label);
		return -EINVAL;
	}
	ret = read_doc(&r, doc, NULL, out, n, started);
	xml.xmlFreeDoc(doc);
	return ret;
}
