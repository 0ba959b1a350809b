/* session_xml_save.c — a daemon session saved as LTTng's session XML (dsession_save, see
 * session_xml.c): its kernel channels (discard, or overwrite in a snapshot session), their
 * buffer and trace file sizes, event rules with their filter, contexts (perf counters as
 * <perf>, those session.xsd does not name as app contexts of the provider "scry", cpu_id
 * not at all: session.xsd has no such value), the pid/vpid/uid/gid trackers, the
 * rotation schedules, the output path, started or not; built in memory, then written with
 * the caller's rights beside PATH under a hidden name and renamed over it (util/dirh.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/daemon_int.h"
#include "daemon/session_xml_int.h"
#include "util/lazylib.h"

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

/* A probe rule: its name, LTTng's type and session.xsd's attributes of its location. */
static int write_probe(xmlTextWriterPtr w, const struct drule *rule)
{
	struct dprobe_loc l;
	int bad = dprobe_location(rule->spec, &l) ? -1 : 0;

	bad |= OPEN(w, "event") | el(w, "name", "%s", rule->name ? rule->name : rule->spec) |
	       el(w, "enabled", "%s", rule->enabled ? "true" : "false") |
	       el(w, "type", "%s", l.kind == DPROBE_USER ? "USERSPACE_PROBE" : l.kind == DPROBE_FUNCTION ? "FUNCTION" : "PROBE");
	if (rule->filter)
		bad |= el(w, "filter", "%s", rule->filter);
	bad |= OPEN(w, "attributes");
	if (l.kind == DPROBE_USER && !l.sdt)
		bad |= OPEN(w, "userspace_probe_function_attributes") | el(w, "lookup_method", "ELF") |
		       el(w, "binary_path", "%s", l.path) | el(w, "function_name", "%s", l.a) | CLOSE(w);
	else if (l.kind == DPROBE_USER)
		bad |= OPEN(w, "userspace_probe_tracepoint_attributes") | el(w, "lookup_method", "SDT") |
		       el(w, "binary_path", "%s", l.path) | el(w, "probe_name", "%s", l.b) |
		       el(w, "provider_name", "%s", l.provider) | CLOSE(w);
	else if (l.kind == DPROBE_FUNCTION)
		bad |= OPEN(w, "function_attributes") | el(w, "symbol_name", "%s", l.a) | CLOSE(w);
	else
		bad |= OPEN(w, "probe_attributes") | el(w, "symbol_name", "%s", l.a) | CLOSE(w);
	dprobe_location_free(&l);
	return bad | CLOSE(w) | CLOSE(w);
}

static int write_channel(xmlTextWriterPtr w, const struct dsession *s, const struct dchannel *c)
{
	struct drule *rules;
	int nr = dchannel_rules(c, &rules), bad = 0;

	if (nr < 0)
		return -1;
	bad |= OPEN(w, "channel") | el(w, "name", "%s", c->name) | el(w, "enabled", "%s", c->disabled ? "false" : "true") |
	       el(w, "overwrite_mode", "%s", s->snapshot || c->overwrite ? "OVERWRITE" : "DISCARD");
	if (c->subbuf_size)
		bad |= el(w, "subbuffer_size", "%llu", (unsigned long long)c->subbuf_size) |
		       el(w, "subbuffer_count", "%llu", (unsigned long long)c->num_subbuf);
	bad |= el(w, "switch_timer_interval", "%llu", (unsigned long long)c->switch_timer_us) |
	       el(w, "read_timer_interval", "%llu", (unsigned long long)c->read_timer_us) |
	       el(w, "output_type", "%s", c->output_mmap ? "MMAP" : "SPLICE") | el(w, "blocking_timeout", "0") |
	       el(w, "monitor_timer_interval", "%llu", (unsigned long long)c->monitor_timer_us) |
	       el(w, "tracefile_size", "%llu", (unsigned long long)c->tracefile_size) |
	       el(w, "tracefile_count", "%llu", (unsigned long long)c->tracefile_count) |
	       el(w, "live_timer_interval", "0");
	bad |= OPEN(w, "events");
	for (int k = 0; k < nr; k++) {
		bool sc = !strncmp(rules[k].spec, "syscall:", 8);

		struct dprobe_loc l;
		bool probe = rules[k].name && !dprobe_location(rules[k].spec, &l);   /* a probe rule */

		if (rules[k].name)
			dprobe_location_free(&l);
		if (probe) {
			bad |= write_probe(w, &rules[k]);
			continue;
		}
		bad |= OPEN(w, "event") | el(w, "name", "%s", sc ? rules[k].spec + 8 : rules[k].spec) |
		       el(w, "enabled", "%s", rules[k].enabled ? "true" : "false") |
		       el(w, "type", "%s", sc ? "SYSCALL" : "TRACEPOINT");
		if (rules[k].filter)
			bad |= el(w, "filter", "%s", rules[k].filter);
		bad |= CLOSE(w);
	}
	free(rules);
	bad |= CLOSE(w) | OPEN(w, "contexts");
	for (unsigned k = 0; k < SCRY_CTX_NR; k++) {
		const char *name = scry_context(k)->name, *lt = NULL;

		if (!(c->ctx_mask & (1ULL << k)) || k == SCRY_CTX_CPU_ID)   /* session.xsd has no cpu_id */
			continue;
		if (SCRY_CTX_IS_PERF(k)) {     /* session.xsd's event_perf_context_type, as lttng saves it */
			const struct scry_context_desc *d = scry_context(k);

			bad |= OPEN(w, "context") | OPEN(w, "perf") | el(w, "type", "%u", d->perf_type) |
			       el(w, "config", "%u", d->perf_config) | el(w, "name", "%s", SCRY_CONTEXT_FIELD(d)) |
			       CLOSE(w) | CLOSE(w);
			continue;
		}
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

static int write_tracker(xmlTextWriterPtr w, const char *kind, bool set, const uint32_t *v, size_t n)
{
	char tag[64];
	int bad = 0;

	if (!set)       /* every process: no element (lttng's include-all) */
		return 0;
	snprintf(tag, sizeof(tag), "%s_process_attr_tracker", kind);
	bad |= OPEN(w, tag) | OPEN(w, "process_attr_values");
	for (size_t i = 0; i < n; i++)
		bad |= OPEN(w, kind) | el(w, "id", "%u", v[i]) | CLOSE(w);
	return bad | CLOSE(w) | CLOSE(w);
}

int dsession_save(const struct dsession *s, const char *path, bool force, const struct scry_cred *as, char *err,
		  size_t errlen)
{
	struct scry_dirh *parent;
	char leaf[256];
	xmlTextWriterPtr w;
	xmlBufferPtr buf;
	int bad = 0, ret;
	const struct dsnap_output def_out = { .name = "snapshot-1", .path = s->dir }, *snap = NULL;

	if (s->has_relay && !s->relay_only) {   /* session.xsd's destination: a path or a net_output */
		snprintf(err, errlen, "session '%s' streams to a relay and writes locally: LTTng's session XML holds one "
			 "destination (<path> or <net_output>)", s->name);
		return -ENOTSUP;
	}
	if (scry_lazylib_load(&xml_lib, err, errlen))
		return -ELIBACC;
	if (!(buf = xml.xmlBufferCreate()) || !(w = xml.xmlNewTextWriterMemory(buf, 0))) {
		if (buf)
			xml.xmlBufferFree(buf);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
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
	if (s->tracker_set) {
		unsigned t = s->tracker_set;

		bad |= OPEN(w, "process_attr_trackers");
		bad |= write_tracker(w, "pid", t & 1u << DTRACK_PID, (const uint32_t *)s->pids, s->npids);
		bad |= write_tracker(w, "vpid", t & 1u << DTRACK_VPID, s->vpids, s->nvpids);
		bad |= write_tracker(w, "uid", t & 1u << DTRACK_UID, s->uids, s->nuids);
		bad |= write_tracker(w, "vuid", t & 1u << DTRACK_VUID, s->vuids, s->nvuids);
		bad |= write_tracker(w, "gid", t & 1u << DTRACK_GID, s->gids, s->ngids);
		bad |= write_tracker(w, "vgid", t & 1u << DTRACK_VGID, s->vgids, s->nvgids);
		bad |= CLOSE(w);
	}
	bad |= CLOSE(w) | CLOSE(w);
	bad |= el(w, "started", "%s", s->state == D_STARTED ? "true" : "false");
	if (s->snapshot || s->rot_timer_ns || s->rot_size || s->live_timer_us) {
		bad |= OPEN(w, "attributes");
		if (s->snapshot)
			bad |= el(w, "snapshot_mode", "true");
		if (s->live_timer_us)
			bad |= el(w, "live_timer_interval", "%u", s->live_timer_us);
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
	/* lttng's: a snapshot session's output is its snapshot output (name, maximum size, where),
	 * none at all once deleted; another session's, its consumer output */
	if (s->snapshot && !s->has_relay && s->snap_out.state == DSNAP_SET)
		snap = &s->snap_out;
	else if (s->snapshot && !s->has_relay && s->snap_out.state == DSNAP_DEFAULT)
		snap = &def_out;
	if (!s->snapshot || s->has_relay || snap) {
		bad |= OPEN(w, "output");
		if (s->snapshot)
			bad |= OPEN(w, "snapshot_outputs") | OPEN(w, "output") |
			       el(w, "name", "%s", snap ? snap->name : "snapshot-1") |
			       el(w, "max_size", "%llu", (unsigned long long)(snap ? snap->max : 0));
		bad |= OPEN(w, "consumer_output") | el(w, "enabled", "true") | OPEN(w, "destination");
		if (s->has_relay) {      /* lttng's: tcp4://HOST:PORT/PATH each */
			char cu[600], du[600];

			relay_url_format_uris(&s->relay, cu, sizeof(cu), du, sizeof(du));
			bad |= OPEN(w, "net_output") | el(w, "control_uri", "%s", cu) | el(w, "data_uri", "%s", du) |
			       CLOSE(w);
		} else {
			bad |= el(w, "path", "%s", snap ? snap->path : s->dir);
		}
		bad |= CLOSE(w) | CLOSE(w);
		if (s->snapshot)
			bad |= CLOSE(w) | CLOSE(w);
		bad |= CLOSE(w);
	}
	bad |= CLOSE(w) | CLOSE(w);
	bad |= xml.xmlTextWriterEndDocument(w) < 0;
	xml.xmlFreeTextWriter(w);      /* flushes into buf */
	if (bad) {
		xml.xmlBufferFree(buf);
		snprintf(err, errlen, "cannot write '%s': the XML writer failed", path);
		return -EIO;
	}
	/* the file made with the caller's rights, in the directory it names (no symlink as the
	 * file itself), whole or not at all */
	ret = scry_dirh_open_parent(&parent, leaf, sizeof(leaf), AT_FDCWD, path, as, err, errlen);
	if (!ret) {
		ret = scry_dirh_write_file(parent, leaf, xml.xmlBufferContent(buf), (size_t)xml.xmlBufferLength(buf),
					   force, err, errlen);
		if (ret == -EEXIST)
			snprintf(err, errlen, "'%s' exists: give -f to overwrite it", path);
		scry_dirh_unref(parent);
	}
	xml.xmlBufferFree(buf);
	return ret;
}
