/* session_xml_int.h — what the session XML's files share (session_xml.c: libxml2, loaded
 * lazily; session_xml_save.c: the save; session_xml_load.c: the document and its sessions;
 * session_xml_domain.c: a session's kernel domain): libxml2's functions, the contexts LTTng
 * names, and the reader's state and element helpers (each refusal one line naming the file,
 * the line and the element).  Private to src/daemon/. */
#ifndef SCRY_DAEMON_SESSION_XML_INT_H
#define SCRY_DAEMON_SESSION_XML_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlwriter.h>
#include "daemon/daemon_int.h"
#include "util/lazylib.h"

/* libxml2's functions used here, typed by its headers.  xmlFree is a global variable
 * (a function pointer) there, not a function: its field points at it, (*xml.xmlFree)(p). */
#define XML_FNS(X, t) X(t, xmlReadFile) X(t, xmlReadMemory) X(t, xmlFreeDoc) X(t, xmlDocGetRootElement)      \
	X(t, xmlNodeGetContent) X(t, xmlGetLineNo) X(t, xmlStrcmp) X(t, xmlFree) X(t, xmlSetStructuredErrorFunc) \
	X(t, xmlNewTextWriterMemory) X(t, xmlBufferCreate) X(t, xmlBufferFree) X(t, xmlBufferContent)            \
	X(t, xmlBufferLength) X(t, xmlFreeTextWriter) X(t, xmlTextWriterSetIndent)                      \
	X(t, xmlTextWriterSetIndentString) X(t, xmlTextWriterStartDocument) X(t, xmlTextWriterEndDocument)       \
	X(t, xmlTextWriterStartElement) X(t, xmlTextWriterEndElement) X(t, xmlTextWriterWriteVFormatElement)

/* session_xml.c: SCRY_LAZYLIB_DEFINE's table and library (util/lazylib.h), shared by the
 * files here: scry_lazylib_load(&xml_lib, ...) before any xml.* call. */
struct session_xml_fns {
	XML_FNS(SCRY_LAZY_FIELD_, xml)
};
extern struct session_xml_fns xml;
extern struct scry_lazylib xml_lib;

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

/* --- the reader (session_xml_load.c, session_xml_domain.c) ----------------------------- */

/* What is read of one file: where errors go, and what a session's channels said so far. */
struct rd {
	struct daemon *d;
	bool overwrite_seen, discard_seen;
	xmlNodePtr mode_node;
	const char *path;
	char *err;
	size_t errlen;
};

/* A reason is one line: the file's text quoted in it may hold line breaks and controls. */
static inline void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static inline int unsupported(struct rd *r, xmlNodePtr n, const char *why)
{
	snprintf(r->err, r->errlen, "%s:%ld: <%s>%s%s", r->path, (long)xml.xmlGetLineNo(n), (const char *)n->name,
		 why[0] ? " " : "", why);
	one_line(r->err);
	return -ENOTSUP;
}

static inline int unknown(struct rd *r, xmlNodePtr n)
{
	snprintf(r->err, r->errlen, "%s:%ld: unknown element <%s> in <%s>", r->path, (long)xml.xmlGetLineNo(n),
		 (const char *)n->name, n->parent ? (const char *)n->parent->name : "");
	one_line(r->err);
	return -EINVAL;
}

static inline bool is(xmlNodePtr n, const char *name)
{
	return !xml.xmlStrcmp(n->name, XC name);
}

#define FOR_ELEMENTS(c, parent) \
	for (xmlNodePtr c = (parent)->children; c; c = c->next) \
		if (c->type == XML_ELEMENT_NODE)

/* An element's text without the white space around it, in buf (len > 0 bytes); *cut: it was
 * longer (buf holds its start, itself without trailing white space, so that it reads back
 * the same once saved). */
static inline const char *text_cut(xmlNodePtr n, char *buf, size_t len, bool *cut)
{
	xmlChar *t = xml.xmlNodeGetContent(n);
	const char *s = t ? (const char *)t : "";
	size_t a = strspn(s, " \t\r\n"), b = strlen(s);

	while (b > a && strchr(" \t\r\n", s[b - 1]))
		b--;
	*cut = b - a >= len;
	if (*cut)
		b = a + len - 1;
	while (b > a && strchr(" \t\r\n", s[b - 1]))
		b--;
	snprintf(buf, len, "%.*s", (int)(b - a), s + a);
	(*xml.xmlFree)(t);
	return buf;
}

/* An element's text (trimmed; owned by the caller's buffer), cut to fit it. */
static inline const char *text(xmlNodePtr n, char *buf, size_t len)
{
	bool cut;

	return text_cut(n, buf, len, &cut);
}

/* text() of a value kept (a name, a path): one that does not fit buf is refused, not cut
 * (a cut name or path would be another one). */
static inline int text_whole(struct rd *r, xmlNodePtr n, char *buf, size_t len)
{
	char why[48];
	bool cut;

	text_cut(n, buf, len, &cut);
	if (!cut)
		return 0;
	snprintf(why, sizeof(why), "is longer than %zu bytes", len - 1);
	return unsupported(r, n, why);
}

static inline int boolean(struct rd *r, xmlNodePtr n, bool *out)
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

static inline int number(struct rd *r, xmlNodePtr n, uint64_t *out)
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
static inline int zero_only(struct rd *r, xmlNodePtr n, const char *what)
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

/* session_xml_domain.c: a session's <domain> (the kernel's: its channels with their events
 * and contexts, its trackers) into s. */
int dsession_read_xml_domain(struct rd *r, struct dsession *s, xmlNodePtr dom);

#endif /* SCRY_DAEMON_SESSION_XML_INT_H */
