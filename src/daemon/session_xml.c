/* session_xml.c — a daemon session saved and loaded in LTTng's session XML (the format of
 * `lttng save`/`lttng load`, lttng-tools' session.xsd), with libxml2: what scry's sessions
 * have (kernel channels in discard mode, their buffer sizes, event rules with their filter,
 * contexts, the pid/vpid/uid/gid trackers, the output path, started or not).  Loading
 * refuses, naming it, any element scry does not know or any value it does not support
 * (another domain, overwrite channels, timers, tracefile limits, snapshot or network
 * outputs, rotation schedules...), and builds every session of the file before any is
 * created.  Contexts that session.xsd 2.12 does not name are saved as app contexts of the
 * provider "scry" (uid, gid, euid, cpu_id, *_ns).  libxml2 is loaded by the first save or load
 * (util/lazylib.h): a scry that does neither does not map it. */
#include <errno.h>
#include <stdarg.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlwriter.h>
#include "daemon/daemon_int.h"
#include "util/lazylib.h"
#include "util/parse.h"

/* libxml2's functions used here, typed by its headers.  xmlFree is a global variable
 * (a function pointer) there, not a function: its field points at it, (*xml.xmlFree)(p). */
#define XML_FNS(X, t) X(t, xmlReadFile) X(t, xmlReadMemory) X(t, xmlFreeDoc) X(t, xmlDocGetRootElement)      \
	X(t, xmlNodeGetContent) X(t, xmlGetLineNo) X(t, xmlStrcmp) X(t, xmlFree) X(t, xmlSetStructuredErrorFunc) \
	X(t, xmlNewTextWriterFilename) X(t, xmlFreeTextWriter) X(t, xmlTextWriterSetIndent)                      \
	X(t, xmlTextWriterSetIndentString) X(t, xmlTextWriterStartDocument) X(t, xmlTextWriterEndDocument)       \
	X(t, xmlTextWriterStartElement) X(t, xmlTextWriterEndElement) X(t, xmlTextWriterWriteVFormatElement)
SCRY_LAZYLIB_DEFINE(xml, xml_lib, "libxml2.so.2", "LTTng session files", XML_FNS);

#define XC (const xmlChar *)

/* scry's contexts that LTTng's session.xsd names, by their LTTng type */
static const struct {
	const char *scry, *lttng;
} ctx_names[] = {
	{ "pid", "PID" }, { "procname", "PROCNAME" }, { "prio", "PRIO" }, { "nice", "NICE" },
	{ "vpid", "VPID" }, { "tid", "TID" }, { "vtid", "VTID" }, { "ppid", "PPID" },
	{ "vppid", "VPPID" }, { "hostname", "HOSTNAME" }, { "interruptible", "INTERRUPTIBLE" },
	{ "preemptible", "PREEMPTIBLE" }, { "need_reschedule", "NEED_RESCHEDULE" }, { "migratable", "MIGRATABLE" },
	{ "callstack_user", "CALLSTACK_USER" }, { "callstack_kernel", "CALLSTACK_KERNEL" },
};
#define CTX_PROVIDER "scry"

/* --- save ------------------------------------------------------------------------------ */

static int el(xmlTextWriterPtr w, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int el(xmlTextWriterPtr w, const char *name, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = xml.xmlTextWriterWriteVFormatElement(w, XC name, fmt, ap);
	va_end(ap);
	return r < 0 ? -1 : 0;
}

#define OPEN(w, n) (xml.xmlTextWriterStartElement(w, XC(n)) < 0 ? -1 : 0)
#define CLOSE(w) (xml.xmlTextWriterEndElement(w) < 0 ? -1 : 0)

static int write_channel(xmlTextWriterPtr w, const struct dsession *s, const struct dchannel *c)
{
	struct drule *rules;
	int nr = dchannel_rules(c, &rules), bad = 0;

	if (nr < 0)
		return -1;
	bad |= OPEN(w, "channel") | el(w, "name", "%s", c->name) | el(w, "enabled", "%s", c->disabled ? "false" : "true") |
	       el(w, "overwrite_mode", "%s", s->snapshot ? "OVERWRITE" : "DISCARD");
	if (c->subbuf_size)
		bad |= el(w, "subbuffer_size", "%llu", (unsigned long long)c->subbuf_size) |
		       el(w, "subbuffer_count", "%llu", (unsigned long long)c->num_subbuf);
	bad |= el(w, "switch_timer_interval", "0") | el(w, "read_timer_interval", "0") |
	       el(w, "output_type", "MMAP") |
	       el(w, "tracefile_size", "%llu", (unsigned long long)c->tracefile_size) |
	       el(w, "tracefile_count", "%llu", (unsigned long long)c->tracefile_count) |
	       el(w, "live_timer_interval", "0");
	bad |= OPEN(w, "events");
	for (int k = 0; k < nr; k++) {
		bool sc = !strncmp(rules[k].spec, "syscall:", 8);

		bad |= OPEN(w, "event") | el(w, "name", "%s", sc ? rules[k].spec + 8 : rules[k].spec) |
		       el(w, "enabled", "%s", rules[k].enabled ? "true" : "false") |
		       el(w, "type", "%s", sc ? "SYSCALL" : "TRACEPOINT");
		if (s->filter)
			bad |= el(w, "filter", "%s", s->filter);
		bad |= CLOSE(w);
	}
	free(rules);
	bad |= CLOSE(w) | OPEN(w, "contexts");
	for (unsigned k = 0; k < SCRY_CTX_NR; k++) {
		const char *name = scry_context(k)->name, *lt = NULL;

		if (!(c->ctx_mask & (1ULL << k)))
			continue;
		for (size_t i = 0; i < sizeof(ctx_names) / sizeof(ctx_names[0]); i++)
			if (!strcmp(ctx_names[i].scry, name))
				lt = ctx_names[i].lttng;
		bad |= OPEN(w, "context");
		if (lt)
			bad |= el(w, "type", "%s", lt);
		else
			bad |= OPEN(w, "app") | el(w, "provider_name", CTX_PROVIDER) | el(w, "ctx_name", "%s", name) |
			       CLOSE(w);
		bad |= CLOSE(w);
	}
	return bad | CLOSE(w) | CLOSE(w);
}

static int write_tracker(xmlTextWriterPtr w, const char *kind, const uint32_t *v, size_t n)
{
	char tag[64];
	int bad = 0;

	if (!n)
		return 0;
	snprintf(tag, sizeof(tag), "%s_process_attr_tracker", kind);
	bad |= OPEN(w, tag) | OPEN(w, "process_attr_values");
	for (size_t i = 0; i < n; i++)
		bad |= OPEN(w, kind) | el(w, "id", "%u", v[i]) | CLOSE(w);
	return bad | CLOSE(w) | CLOSE(w);
}

int dsession_save(const struct dsession *s, const char *path, bool force, char *err, size_t errlen)
{
	char tmp[4200];
	xmlTextWriterPtr w;
	int bad = 0;

	if (scry_lazylib_load(&xml_lib, err, errlen))
		return -ELIBACC;
	if (!force && access(path, F_OK) == 0) {
		snprintf(err, errlen, "'%s' exists: give -f to overwrite it", path);
		return -EEXIST;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(w = xml.xmlNewTextWriterFilename(tmp, 0))) {
		snprintf(err, errlen, "cannot write '%s': %s", tmp, strerror(errno ? errno : EIO));
		return -EIO;
	}
	xml.xmlTextWriterSetIndent(w, 1);
	xml.xmlTextWriterSetIndentString(w, XC "\t");
	bad |= xml.xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0;
	bad |= OPEN(w, "sessions") | OPEN(w, "session") | el(w, "name", "%s", s->name);
	bad |= OPEN(w, "domains") | OPEN(w, "domain") | el(w, "type", "KERNEL") | el(w, "buffer_type", "GLOBAL");
	bad |= OPEN(w, "channels");
	for (size_t i = 0; i < s->nchans; i++)
		bad |= write_channel(w, s, &s->chans[i]);
	bad |= CLOSE(w);
	if (s->npids || s->nvpids || s->nuids || s->ngids) {
		bad |= OPEN(w, "process_attr_trackers");
		bad |= write_tracker(w, "pid", (const uint32_t *)s->pids, s->npids);
		bad |= write_tracker(w, "vpid", s->vpids, s->nvpids);
		bad |= write_tracker(w, "uid", s->uids, s->nuids);
		bad |= write_tracker(w, "gid", s->gids, s->ngids);
		bad |= CLOSE(w);
	}
	bad |= CLOSE(w) | CLOSE(w);
	bad |= el(w, "started", "%s", s->state == D_STARTED ? "true" : "false");
	if (s->snapshot || s->rot_timer_ns || s->rot_size) {
		bad |= OPEN(w, "attributes");
		if (s->snapshot)
			bad |= el(w, "snapshot_mode", "true");
		if (s->rot_timer_ns || s->rot_size) {
			bad |= OPEN(w, "rotation_schedules");
			if (s->rot_timer_ns)
				bad |= OPEN(w, "periodic") |
				       el(w, "time_us", "%llu", (unsigned long long)(s->rot_timer_ns / 1000)) | CLOSE(w);
			if (s->rot_size)
				bad |= OPEN(w, "size_threshold") |
				       el(w, "bytes", "%llu", (unsigned long long)s->rot_size) | CLOSE(w);
			bad |= CLOSE(w);
		}
		bad |= CLOSE(w);
	}
	bad |= OPEN(w, "output");
	if (s->snapshot)     /* LTTng's snapshot output: where snapshot record writes */
		bad |= OPEN(w, "snapshot_outputs") | OPEN(w, "output") | el(w, "name", "snapshot-1") |
		       el(w, "max_size", "0");
	bad |= OPEN(w, "consumer_output") | el(w, "enabled", "true") |
	       OPEN(w, "destination") | el(w, "path", "%s", s->dir) | CLOSE(w) | CLOSE(w);
	if (s->snapshot)
		bad |= CLOSE(w) | CLOSE(w);
	bad |= CLOSE(w);
	bad |= CLOSE(w) | CLOSE(w);
	bad |= xml.xmlTextWriterEndDocument(w) < 0;
	xml.xmlFreeTextWriter(w);      /* flushes and closes the file */
	if (bad || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write '%s': %s", path, bad ? "write error" : strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

/* --- load ------------------------------------------------------------------------------ */

struct rd {
	struct daemon *d;
	bool overwrite_seen, discard_seen;
	xmlNodePtr mode_node;
	const char *path;
	char *err;
	size_t errlen;
	char *filter;              /* the events' filter, the same for all */
	bool filter_seen, unfiltered_seen;
};

/* Session and channel names name files: LTTng's characters. */
static bool name_ok(const char *n)
{
	if (!*n || strlen(n) > 200 || n[0] == '.' || n[0] == '-')
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
		      *n == '_' || *n == '-' || *n == '.'))
			return false;
	return true;
}

/* A reason is one line: the file's text quoted in it may hold line breaks and controls. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static int unsupported(struct rd *r, xmlNodePtr n, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%ld: <%s>%s%s", r->path, (long)xml.xmlGetLineNo(n), (const char *)n->name,
		 why[0] ? " " : "", why);
	one_line(r->err);
	return -ENOTSUP;
}

static int unknown(struct rd *r, xmlNodePtr n)
{
	snprintf(r->err, r->errlen, "%s:%ld: unknown element <%s> in <%s>", r->path, (long)xml.xmlGetLineNo(n),
		 (const char *)n->name, n->parent ? (const char *)n->parent->name : "");
	one_line(r->err);
	return -EINVAL;
}

static bool is(xmlNodePtr n, const char *name)
{
	return !xml.xmlStrcmp(n->name, XC name);
}

#define FOR_ELEMENTS(c, parent) \
	for (xmlNodePtr c = (parent)->children; c; c = c->next) \
		if (c->type == XML_ELEMENT_NODE)

/* An element's text (trimmed; owned by the caller's buffer). */
static const char *text(xmlNodePtr n, char *buf, size_t len)
{
	xmlChar *t = xml.xmlNodeGetContent(n);
	const char *s = t ? (const char *)t : "";
	size_t a = strspn(s, " \t\r\n"), b = strlen(s);

	while (b > a && strchr(" \t\r\n", s[b - 1]))
		b--;
	snprintf(buf, len, "%.*s", (int)(b - a), s + a);
	(*xml.xmlFree)(t);
	return buf;
}

static int boolean(struct rd *r, xmlNodePtr n, bool *out)
{
	char b[16];

	text(n, b, sizeof(b));
	if (!strcmp(b, "true") || !strcmp(b, "1"))
		*out = true;
	else if (!strcmp(b, "false") || !strcmp(b, "0"))
		*out = false;
	else
		return unsupported(r, n, "is not a boolean");
	return 0;
}

static int number(struct rd *r, xmlNodePtr n, uint64_t *out)
{
	char b[64], *end;

	text(n, b, sizeof(b));
	errno = 0;
	*out = strtoull(b, &end, 10);
	if (!b[0] || *end || errno || b[0] == '-')
		return unsupported(r, n, "is not a number");
	return 0;
}

/* An element whose value scry supports only as zero (timers, tracefile limits). */
static int zero_only(struct rd *r, xmlNodePtr n, const char *what)
{
	uint64_t v;
	int ret = number(r, n, &v);

	if (ret)
		return ret;
	if (v) {
		char why[160];

		snprintf(why, sizeof(why), "%llu: %s not supported by scry yet", (unsigned long long)v, what);
		return unsupported(r, n, why);
	}
	return 0;
}

static int read_event(struct rd *r, struct dchannel *c, xmlNodePtr ev)
{
	char name[256] = "", type[32] = "TRACEPOINT", b[256], *spec = NULL;
	bool enabled = true, filtered = false;
	int ret = 0;

	FOR_ELEMENTS(n, ev) {
		if (is(n, "name"))
			text(n, name, sizeof(name));
		else if (is(n, "enabled"))
			ret = boolean(r, n, &enabled);
		else if (is(n, "type"))
			text(n, type, sizeof(type));
		else if (is(n, "loglevel_type")) {
			if (strcmp(text(n, b, sizeof(b)), "ALL"))
				ret = unsupported(r, n, "(log levels are for user space domains)");
		} else if (is(n, "loglevel")) {
			if (strcmp(text(n, b, sizeof(b)), "-1"))
				ret = unsupported(r, n, "(log levels are for user space domains)");
		} else if (is(n, "filter")) {
			xmlChar *f = xml.xmlNodeGetContent(n);

			filtered = true;
			if (!r->filter_seen) {
				r->filter = strdup(f ? (const char *)f : "");
				r->filter_seen = true;
			} else if (!r->filter || strcmp(r->filter, f ? (const char *)f : "")) {
				ret = unsupported(r, n, "differs from another event's filter: scry's sessions have one "
						  "filter for all their events");
			}
			(*xml.xmlFree)(f);
		} else if (is(n, "exclusions")) {
			FOR_ELEMENTS(x, n) {
				ret = unsupported(r, x, "(exclusions are for user space domains)");
				break;
			}
		} else if (is(n, "attributes"))
			ret = unsupported(r, n, "(probes and functions: kprobes are not available to scry)");
		else
			ret = unknown(r, n);
		if (ret)
			return ret;
	}
	if (!filtered)
		r->unfiltered_seen = true;
	if (r->filter_seen && r->unfiltered_seen)
		return unsupported(r, ev, "has no filter while another event has one: scry's sessions have one "
				   "filter for all their events");
	if (!name[0])
		return unsupported(r, ev, "has no <name>");
	if (!strcmp(type, "SYSCALL"))
		ret = asprintf(&spec, "%s%s", strncmp(name, "syscall:", 8) ? "syscall:" : "", name) < 0;
	else if (!strcmp(type, "TRACEPOINT") || (!strcmp(type, "ALL") && strcmp(name, "*")))
		spec = strdup(name);
	else if (!strcmp(type, "ALL")) {     /* enable-event -a: every tracepoint and syscall */
		if (dchannel_add_op(c, true, "*") || (!enabled && dchannel_add_op(c, false, "*")))
			return -ENOMEM;
		spec = strdup("syscall:*");
	} else {
		snprintf(b, sizeof(b), "event '%s' of type %s: scry records tracepoints and syscalls", name, type);
		return unsupported(r, ev, b);
	}
	if (ret || !spec)
		return -ENOMEM;
	if (!strcmp(spec, "syscall:")) {     /* would be saved as a syscall with an empty <name> */
		free(spec);
		return unsupported(r, ev, "names no syscall after 'syscall:'");
	}
	/* "syscall:syscall:x" would be saved as the syscall "syscall:x", loaded back as "x" */
	if (!strncmp(spec, "syscall:", 8) && strchr(spec + 8, ':')) {
		snprintf(b, sizeof(b), "event '%.200s': a syscall's name has no ':'", name);
		free(spec);
		return unsupported(r, ev, b);
	}
	ret = dchannel_add_op(c, true, spec) || (!enabled && dchannel_add_op(c, false, spec)) ? -ENOMEM : 0;
	free(spec);
	return ret;
}

static int read_context(struct rd *r, struct dchannel *c, xmlNodePtr ctx)
{
	char b[128], prov[64] = "", name[64] = "";

	FOR_ELEMENTS(n, ctx) {
		if (is(n, "type")) {
			text(n, b, sizeof(b));
			for (size_t i = 0; i < sizeof(ctx_names) / sizeof(ctx_names[0]); i++)
				if (!strcmp(ctx_names[i].lttng, b)) {
					c->ctx_mask |= 1ULL << scry_context_by_name(ctx_names[i].scry);
					return 0;
				}
			{
				char why[192];

				snprintf(why, sizeof(why), "%.64s: a context scry does not record", b);
				return unsupported(r, n, why);
			}
		} else if (is(n, "app")) {
			FOR_ELEMENTS(a, n) {
				if (is(a, "provider_name"))
					text(a, prov, sizeof(prov));
				else if (is(a, "ctx_name"))
					text(a, name, sizeof(name));
				else
					return unknown(r, a);
			}
			int k = scry_context_by_name(name);

			if (strcmp(prov, CTX_PROVIDER) || k < 0) {
				snprintf(b, sizeof(b), "%s:%s: an application context scry does not record", prov, name);
				return unsupported(r, n, b);
			}
			c->ctx_mask |= 1ULL << k;
			return 0;
		} else if (is(n, "perf")) {
			return unsupported(r, n, "(perf counter contexts are not supported by scry yet)");
		} else {
			return unknown(r, n);
		}
	}
	return unsupported(r, ctx, "is empty");
}

static int read_channel(struct rd *r, struct dsession *s, xmlNodePtr ch)
{
	struct dchannel *c = NULL;
	char name[256] = "", b[64];
	uint64_t subbuf = 0, count = 4;
	bool subbuf_given = false, enabled = true;
	uint64_t tfsize = 0, tfcount = 0;
	int ret = 0;

	FOR_ELEMENTS(n, ch)
		if (is(n, "name"))
			text(n, name, sizeof(name));
	if (!name[0])
		return unsupported(r, ch, "has no <name>");
	if (!name_ok(name))
		return unsupported(r, ch, "has an invalid name (letters, digits, '_', '-', '.')");
	if (dsession_channel(s, name)) {
		snprintf(b, sizeof(b), "'%.40s' twice", name);
		return unsupported(r, ch, b);
	}
	if (dsession_add_channel(s, name, &c))
		return -ENOMEM;
	FOR_ELEMENTS(n, ch) {
		if (is(n, "name"))
			continue;
		if (is(n, "enabled"))
			ret = boolean(r, n, &enabled);
		else if (is(n, "overwrite_mode")) {
			text(n, b, sizeof(b));
			if (!strcmp(b, "OVERWRITE"))
				r->overwrite_seen = true;
			else if (!strcmp(b, "DISCARD"))
				r->discard_seen = true;
			else
				ret = unsupported(r, n, "is neither DISCARD nor OVERWRITE");
			r->mode_node = n;
		} else if (is(n, "subbuffer_size")) {
			ret = number(r, n, &subbuf);
			subbuf_given = true;
		} else if (is(n, "subbuffer_count"))
			ret = number(r, n, &count);
		else if (is(n, "switch_timer_interval"))
			ret = zero_only(r, n, "a switch timer is");
		else if (is(n, "live_timer_interval"))
			ret = zero_only(r, n, "live sessions are");
		else if (is(n, "monitor_timer_interval") || is(n, "read_timer_interval") || is(n, "output_type"))
			;   /* scry's consumer paces itself; its rings are mmap'd */
		else if (is(n, "blocking_timeout"))
			ret = zero_only(r, n, "blocking is");
		else if (is(n, "tracefile_size"))
			ret = number(r, n, &tfsize);
		else if (is(n, "tracefile_count"))
			ret = number(r, n, &tfcount);
		else if (is(n, "events")) {
			FOR_ELEMENTS(e, n) {
				if (!is(e, "event"))
					ret = unknown(r, e);
				else
					ret = read_event(r, c, e);
				if (ret)
					break;
				c = dsession_channel(s, name);   /* ops may have moved nothing, but be safe */
			}
		} else if (is(n, "contexts")) {
			FOR_ELEMENTS(e, n) {
				ret = is(e, "context") ? read_context(r, c, e) : unknown(r, e);
				if (ret)
					break;
			}
		} else
			ret = unknown(r, n);
		if (ret)
			return ret;
		c = dsession_channel(s, name);
	}
	c->disabled = !enabled;
	if (subbuf_given || count != 4 || s->snapshot) {
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

		if (!subbuf)
			subbuf = 1ULL << 20;
		if (!count || count > 1024 || subbuf > (1ULL << 30))
			return unsupported(r, ch, "has a sub-buffer size or count out of range");
		c->subbuf_size = scry_pow2_at_least(subbuf, page);
		c->num_subbuf = scry_pow2_at_least(count, 1);
		c->ring_size = (size_t)(c->subbuf_size * c->num_subbuf);
	}
	/* against the sub-buffer as rounded up (and saved): 5000 bytes of trace file with a
	 * sub-buffer of 4097 would be saved with one of 8192, and not load again */
	if (tfsize && (s->snapshot || tfsize < (c->subbuf_size ? c->subbuf_size : SCRY_DEFAULT_PACKET_SIZE)))
		return unsupported(r, ch, "has a tracefile size smaller than a sub-buffer, or in a snapshot session");
	c->tracefile_size = tfsize;
	c->tracefile_count = tfsize ? tfcount : 0;
	return 0;
}

static int id_value(struct rd *r, xmlNodePtr v, const char *kind, uint32_t *out)
{
	char b[256];
	uint64_t id;

	FOR_ELEMENTS(n, v) {
		if (is(n, "id")) {
			int ret = number(r, n, &id);

			if (ret)
				return ret;
			if (id > UINT32_MAX)
				return unsupported(r, n, "is out of range");
			*out = (uint32_t)id;
			return 0;
		}
		if (is(n, "name") && !strcmp(kind, "uid")) {
			struct passwd *pw = getpwnam(text(n, b, sizeof(b)));

			if (!pw)
				return unsupported(r, n, "names no user");
			*out = pw->pw_uid;
			return 0;
		}
		if (is(n, "name") && !strcmp(kind, "gid")) {
			struct group *gr = getgrnam(text(n, b, sizeof(b)));

			if (!gr)
				return unsupported(r, n, "names no group");
			*out = gr->gr_gid;
			return 0;
		}
		return unknown(r, n);
	}
	return unsupported(r, v, "has no <id>");
}

static int add_id(uint32_t **v, size_t *n, uint32_t id)
{
	uint32_t *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*n)++] = id;
	return 0;
}

static int read_trackers(struct rd *r, struct dsession *s, xmlNodePtr trs)
{
	static const char *const kinds[] = { "pid", "vpid", "uid", "gid" };
	uint32_t **vals[4] = { (uint32_t **)&s->pids, &s->vpids, &s->uids, &s->gids };
	size_t *ns[4] = { &s->npids, &s->nvpids, &s->nuids, &s->ngids };

	FOR_ELEMENTS(t, trs) {
		int k, ret;
		char tag[64];

		for (k = 0; k < 4; k++) {
			snprintf(tag, sizeof(tag), "%s_process_attr_tracker", kinds[k]);
			if (is(t, tag))
				break;
		}
		if (k == 4)
			return is(t, "vuid_process_attr_tracker") || is(t, "vgid_process_attr_tracker")
				       ? unsupported(r, t, "(scry tracks uid and gid, not their namespaced values)")
				       : unknown(r, t);
		FOR_ELEMENTS(pv, t) {
			if (!is(pv, "process_attr_values"))
				return unknown(r, pv);
			FOR_ELEMENTS(v, pv) {
				uint32_t id = 0;

				if (!is(v, kinds[k]))
					return unknown(r, v);
				if ((ret = id_value(r, v, kinds[k], &id)) || (ret = add_id(vals[k], ns[k], id)))
					return ret;
			}
			if (!*ns[k])
				return unsupported(r, t, "tracks no process: not supported by scry (untrack the session)");
		}
	}
	return 0;
}

static int read_legacy_trackers(struct rd *r, struct dsession *s, xmlNodePtr trs)
{
	FOR_ELEMENTS(t, trs) {
		if (!is(t, "pid_tracker"))
			return unknown(r, t);
		FOR_ELEMENTS(tg, t) {
			if (!is(tg, "targets"))
				return unknown(r, tg);
			FOR_ELEMENTS(pt, tg) {
				uint32_t id = 0;
				int ret;

				if (!is(pt, "pid_target"))
					return unknown(r, pt);
				FOR_ELEMENTS(p, pt) {
					uint64_t v;

					if (!is(p, "pid"))
						return unknown(r, p);
					if ((ret = number(r, p, &v)))
						return ret;
					id = (uint32_t)v;
					if ((ret = add_id((uint32_t **)&s->pids, &s->npids, id)))
						return ret;
				}
			}
		}
	}
	return 0;
}

static int read_domain(struct rd *r, struct dsession *s, xmlNodePtr dom)
{
	char b[64];
	int ret = 0;

	FOR_ELEMENTS(n, dom) {
		if (is(n, "type")) {
			if (strcmp(text(n, b, sizeof(b)), "KERNEL")) {
				char why[128];

				snprintf(why, sizeof(why), "%s: scry records the kernel domain only", b);
				return unsupported(r, n, why);
			}
		} else if (is(n, "buffer_type"))
			;   /* the kernel domain's buffers are global */
		else if (is(n, "channels")) {
			FOR_ELEMENTS(c, n) {
				ret = is(c, "channel") ? read_channel(r, s, c) : unknown(r, c);
				if (ret)
					return ret;
			}
		} else if (is(n, "process_attr_trackers"))
			ret = read_trackers(r, s, n);
		else if (is(n, "trackers"))
			ret = read_legacy_trackers(r, s, n);
		else
			ret = unknown(r, n);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_output(struct rd *r, xmlNodePtr out, char **dir)
{
	FOR_ELEMENTS(co, out) {
		if (is(co, "snapshot_outputs")) {
			int nout = 0;

			FOR_ELEMENTS(o, co) {
				if (!is(o, "output"))
					return unknown(r, o);
				if (++nout > 1)
					return unsupported(r, o, "(one snapshot output per session in scry)");
				FOR_ELEMENTS(f, o) {
					int ret;

					if (is(f, "name") || is(f, "consumer_output"))
						continue;
					if (!is(f, "max_size"))
						return unknown(r, f);
					if ((ret = zero_only(r, f, "a snapshot output's maximum size (snapshot record "
							     "-m gives one) is")))
						return ret;
				}
				{
					int ret = read_output(r, o, dir);   /* its consumer_output */

					if (ret)
						return ret;
				}
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

					if (is(d, "net_output"))
						return unsupported(r, d, "(network outputs: no relay daemon in scry yet)");
					if (!is(d, "path"))
						return unknown(r, d);
					text(d, b, sizeof(b));
					if (b[0] != '/')
						return unsupported(r, d, "is not an absolute path");
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
	int ret = 0;

	bool snapshot = false;

	*started = false;
	FOR_ELEMENTS(n, se) {
		if (is(n, "name"))
			text(n, name, sizeof(name));
		else if (is(n, "output") && (ret = read_output(r, n, &dir)))
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
	if (!name_ok(name)) {
		ret = unsupported(r, se, "has an invalid name (letters, digits, '_', '-', '.')");
		goto out;
	}
	if (!dir) {
		ret = unsupported(r, se, "has no output path");
		goto out;
	}
	if (!(s = dsession_new(name, dir))) {
		ret = -ENOMEM;
		goto out;
	}
	s->snapshot = snapshot;
	r->overwrite_seen = r->discard_seen = false;
	r->filter_seen = r->unfiltered_seen = false;
	free(r->filter);
	r->filter = NULL;
	FOR_ELEMENTS(n, se) {
		if (is(n, "name") || is(n, "output"))
			continue;
		if (is(n, "domains")) {
			FOR_ELEMENTS(dm, n) {
				ret = is(dm, "domain") ? read_domain(r, s, dm) : unknown(r, dm);
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
				} else if (is(a, "live_timer_interval"))
					ret = zero_only(r, a, "live sessions are");
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
	if (!s->snapshot && r->overwrite_seen) {
		ret = unsupported(r, r->mode_node, "OVERWRITE: scry's overwrite channels are those of snapshot "
				  "sessions (snapshot_mode)");
		goto out;
	}
	if (r->filter_seen) {
		s->filter = r->filter;
		r->filter = NULL;
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
	if (access(path, R_OK) < 0) {
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
	free(r.filter);
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
	free(r.filter);
	xml.xmlFreeDoc(doc);
	return ret;
}
