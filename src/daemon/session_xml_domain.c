/* session_xml_domain.c — a session's kernel domain read from LTTng's session XML (see
 * session_xml.c): its channels (mode, sub-buffers, timers, output type, trace file limits),
 * their events (tracepoints and syscalls, each rule with its filter) and contexts, and the
 * pid/vpid/uid/gid trackers (and the older pid_tracker); anything else refused, named. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/daemon_int.h"
#include "daemon/session_xml_int.h"
#include "util/parse.h"

static int read_event_rule(struct rd *r, struct dchannel *c, xmlNodePtr ev, const char *name, const char *type,
			   bool enabled, const char *filter);

/* An <event>'s <attributes>: a probe's location as the engine's spec (malloc'd in *spec),
 * a user space probe's binary opened with the session owner's rights. */
static int read_probe(struct rd *r, const struct dsession *s, xmlNodePtr at, char **spec)
{
	char path[4096] = "", fn[512] = "", prov[256] = "", probe[256] = "", sym[512] = "", b[256];
	const struct { const char *el; char *buf; size_t len; } names[] = {   /* kept whole */
		{ "binary_path", path, sizeof(path) }, { "function_name", fn, sizeof(fn) },
		{ "provider_name", prov, sizeof(prov) }, { "probe_name", probe, sizeof(probe) },
		{ "symbol_name", sym, sizeof(sym) },
	};
	int ret = 0, kind = 0;

	FOR_ELEMENTS(a, at) {
		bool fun = is(a, "userspace_probe_function_attributes"), tp = is(a, "userspace_probe_tracepoint_attributes");

		if (!fun && !tp && !is(a, "probe_attributes") && !is(a, "function_attributes"))
			return unknown(r, a);
		kind = fun ? 1 : tp ? 2 : is(a, "function_attributes") ? 3 : 4;
		FOR_ELEMENTS(n, a) {
			size_t k = 0;

			while (k < sizeof(names) / sizeof(names[0]) && !is(n, names[k].el))
				k++;
			if (k < sizeof(names) / sizeof(names[0])) {
				if ((ret = text_whole(r, n, names[k].buf, names[k].len)))
					return ret;
			} else if (is(n, "lookup_method")) {
				text(n, b, sizeof(b));
				if (strcmp(b, "DEFAULT") && strcmp(b, fun ? "ELF" : "SDT"))
					return unsupported(r, n, "is not this probe's lookup method");
			} else if (is(n, "address") || is(n, "offset")) {
				uint64_t v;

				if ((ret = number(r, n, &v)))
					return ret;
				if (v && is(n, "address"))
					snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)v);
				else if (v)
					snprintf(sym + strlen(sym), sizeof(sym) - strlen(sym), "+%llu", (unsigned long long)v);
			} else
				return unknown(r, n);
		}
	}
	if (!kind)
		return unsupported(r, at, "names no probe");
	if (kind <= 2 && (path[0] != '/' || (kind == 1 ? !fn[0] : !prov[0] || !probe[0])))
		return unsupported(r, at, "needs an absolute binary_path and its function (or provider and probe)");
	/* the engine's spec separates its parts with ':': a part holding one would not come back
	 * as it was saved */
	if (strchr(path, ':') || strchr(fn, ':') || strchr(prov, ':') || strchr(probe, ':'))
		return unsupported(r, at, "has a ':' in its binary_path or names, which a probe spec cannot carry");
	if (kind <= 2 && (ret = dprobe_check_binary(s, path, b, sizeof(b))))
		return unsupported(r, at, b);
	if (kind == 1)
		ret = asprintf(spec, "uprobe:%s:%s", path, fn);
	else if (kind == 2)
		ret = asprintf(spec, "usdt:%s:%s:%s", path, prov, probe);
	else
		ret = asprintf(spec, "%s:%s", kind == 3 ? "kretprobe" : "kprobe", sym);
	return ret < 0 ? -ENOMEM : 0;
}

static int read_event(struct rd *r, const struct dsession *s, struct dchannel *c, xmlNodePtr ev)
{
	char name[256] = "", type[32] = "TRACEPOINT", b[256], *filter = NULL, *probe = NULL;
	bool enabled = true;
	int ret = 0;

	FOR_ELEMENTS(n, ev) {
		if (is(n, "name"))
			ret = text_whole(r, n, name, sizeof(name));   /* LTTng's LTTNG_SYMBOL_NAME_LEN */
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

			free(filter);
			if (!(filter = strdup(f ? (const char *)f : "")))
				ret = -ENOMEM;
			else if (!*filter)
				ret = unsupported(r, n, "is empty");
			(*xml.xmlFree)(f);
		} else if (is(n, "exclusions")) {
			FOR_ELEMENTS(x, n) {
				ret = unsupported(r, x, "(exclusions are for user space domains)");
				break;
			}
		} else if (is(n, "attributes")) {
			free(probe);
			probe = NULL;
			ret = read_probe(r, s, n, &probe);
		} else
			ret = unknown(r, n);
		if (ret)
			break;
	}
	if (!ret && probe) {          /* a probe rule: its name kept for list and save */
		if (!name[0])
			ret = unsupported(r, ev, "has no <name>");
		else if (strcmp(type, "USERSPACE_PROBE") && strcmp(type, "PROBE") && strcmp(type, "FUNCTION") &&
			 strcmp(type, "KPROBE") && strcmp(type, "KRETPROBE") && strcmp(type, "FUNCTION_ENTRY"))
			ret = unsupported(r, ev, "has probe attributes but is no probe");
		else if (dchannel_add_rule_op(c, probe, filter) || !(c->ops[c->nops - 1].name = strdup(name)) ||
			 (!enabled && dchannel_add_disable_rule_op(c, probe, filter)))
			ret = -ENOMEM;
	} else if (!ret && (!strcmp(type, "USERSPACE_PROBE") || !strcmp(type, "PROBE") || !strcmp(type, "FUNCTION")))
		ret = unsupported(r, ev, "is a probe without <attributes>");
	else if (!ret)
		ret = read_event_rule(r, c, ev, name, type, enabled, filter);
	free(filter);
	free(probe);
	return ret;
}

/* The rule an <event> gave: name, type, enabled, its filter or NULL. */
static int read_event_rule(struct rd *r, struct dchannel *c, xmlNodePtr ev, const char *name, const char *type,
			   bool enabled, const char *filter)
{
	char b[256], *spec = NULL;
	int ret = 0;

	if (!name[0])
		return unsupported(r, ev, "has no <name>");
	if (!strcmp(type, "SYSCALL"))
		ret = asprintf(&spec, "%s%s", strncmp(name, "syscall:", 8) ? "syscall:" : "", name) < 0;
	else if (!strcmp(type, "TRACEPOINT") || (!strcmp(type, "ALL") && strcmp(name, "*")))
		spec = strdup(name);
	else if (!strcmp(type, "ALL")) {     /* enable-event -a: every tracepoint and syscall */
		if (dchannel_add_rule_op(c, "*", filter) || (!enabled && dchannel_add_disable_rule_op(c, "*", filter)))
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
	/* a disabled rule: that rule alone (another of its name may be enabled) */
	ret = dchannel_add_rule_op(c, spec, filter) || (!enabled && dchannel_add_disable_rule_op(c, spec, filter)) ?
		-ENOMEM : 0;
	free(spec);
	return ret;
}

/* session.xsd's <perf>: a counter by its perf_event_attr type and config, per CPU (the
 * kernel domain's, as lttng loads it) unless its name says perf_thread_ */
static int read_perf_context(struct rd *r, struct dchannel *c, xmlNodePtr perf)
{
	uint64_t type = UINT64_MAX, config = UINT64_MAX;
	char name[128] = "", b[192];
	int ret;

	FOR_ELEMENTS(a, perf) {
		if (is(a, "type"))
			ret = number(r, a, &type);
		else if (is(a, "config"))
			ret = number(r, a, &config);
		else if (is(a, "name"))
			ret = (text(a, name, sizeof(name)), 0);
		else
			ret = unknown(r, a);
		if (ret)
			return ret;
	}
	if (type == UINT64_MAX || config == UINT64_MAX || !name[0])
		return unsupported(r, perf, "needs <type>, <config> and <name>");
	bool thread = !strncmp(name, "perf_thread_", 12);

	for (int k = thread ? SCRY_CTX_PERF_THREAD : SCRY_CTX_PERF_CPU;
	     k < (thread ? SCRY_CTX_PERF_THREAD : SCRY_CTX_PERF_CPU) + SCRY_PERF_NR; k++) {
		const struct scry_context_desc *d = scry_context(k);

		if (d->perf_type == type && d->perf_config == config) {
			c->ctx_mask |= 1ULL << k;
			return 0;
		}
	}
	snprintf(b, sizeof(b), "'%.64s' (type %llu, config %llu): a perf counter scry does not record", name,
		 (unsigned long long)type, (unsigned long long)config);
	return unsupported(r, perf, b);
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
			return read_perf_context(r, c, n);
		} else {
			return unknown(r, n);
		}
	}
	return unsupported(r, ctx, "is empty");
}

/* A channel timer's period (us), at most UINT32_MAX as lttng's. */
static int timer_value(struct rd *r, xmlNodePtr n, uint64_t *out)
{
	int ret = number(r, n, out);

	return ret ? ret : *out > UINT32_MAX ? unsupported(r, n, "is out of range") : 0;
}

static int read_channel(struct rd *r, struct dsession *s, xmlNodePtr ch)
{
	struct dchannel *c = NULL;
	char name[256] = "", b[64];
	uint64_t subbuf = 0, count = 4;
	bool subbuf_given = false, enabled = true;
	uint64_t tfsize = 0, tfcount = 0, sw = 0, rd = DCHANNEL_READ_TIMER_US, mon = DCHANNEL_MONITOR_TIMER_US;
	bool mmap_ = false;
	int ret = 0;

	FOR_ELEMENTS(n, ch)
		if (is(n, "name") && (ret = text_whole(r, n, name, sizeof(name))))
			return ret;
	if (!name[0])
		return unsupported(r, ch, "has no <name>");
	if (!dsession_name_ok(name))
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
				r->overwrite_seen = c->overwrite = true;   /* (a snapshot session's: they all do) */
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
			ret = timer_value(r, n, &sw);
		else if (is(n, "read_timer_interval"))
			ret = timer_value(r, n, &rd);
		else if (is(n, "monitor_timer_interval"))
			ret = timer_value(r, n, &mon);
		else if (is(n, "live_timer_interval"))
			ret = zero_only(r, n, "live sessions are");
		else if (is(n, "output_type")) {
			text(n, b, sizeof(b));
			if (strcmp(b, "SPLICE") && strcmp(b, "MMAP"))
				ret = unsupported(r, n, "is neither SPLICE nor MMAP");
			mmap_ = !strcmp(b, "MMAP");
		} else if (is(n, "blocking_timeout"))
			ret = zero_only(r, n, "blocking (kernel channels cannot block) is");
		else if (is(n, "tracefile_size"))
			ret = number(r, n, &tfsize);
		else if (is(n, "tracefile_count"))
			ret = number(r, n, &tfcount);
		else if (is(n, "events")) {
			FOR_ELEMENTS(e, n) {
				if (!is(e, "event"))
					ret = unknown(r, e);
				else
					ret = read_event(r, s, c, e);
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
	if (s->snapshot)
		c->overwrite = false;
	c->switch_timer_us = sw;
	c->read_timer_us = rd;
	c->monitor_timer_us = mon;
	c->output_mmap = mmap_;
	if (subbuf_given || count != 4 || s->snapshot || c->overwrite) {
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
		if (is(n, "name") && (!strcmp(kind, "uid") || !strcmp(kind, "vuid"))) {
			struct passwd *pw;
			int ret = text_whole(r, n, b, sizeof(b));

			if (ret)
				return ret;
			if (!(pw = getpwnam(b)))
				return unsupported(r, n, "names no user");
			*out = pw->pw_uid;
			return 0;
		}
		if (is(n, "name") && (!strcmp(kind, "gid") || !strcmp(kind, "vgid"))) {
			struct group *gr;
			int ret = text_whole(r, n, b, sizeof(b));

			if (ret)
				return ret;
			if (!(gr = getgrnam(b)))
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
	static const char *const kinds[] = { "pid", "vpid", "uid", "gid", "vuid", "vgid" };
	uint32_t **vals[6] = { (uint32_t **)&s->pids, &s->vpids, &s->uids, &s->gids, &s->vuids, &s->vgids };
	size_t *ns[6] = { &s->npids, &s->nvpids, &s->nuids, &s->ngids, &s->nvuids, &s->nvgids };

	FOR_ELEMENTS(t, trs) {
		int k, ret;
		char tag[64];

		for (k = 0; k < 6; k++) {
			snprintf(tag, sizeof(tag), "%s_process_attr_tracker", kinds[k]);
			if (is(t, tag))
				break;
		}
		if (k == 6)
			return unknown(r, t);
		s->tracker_set |= 1u << k;      /* kinds[] in DTRACK_* order; no value: none */
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

		}
	}
	return 0;
}

static int read_legacy_trackers(struct rd *r, struct dsession *s, xmlNodePtr trs)
{
	FOR_ELEMENTS(t, trs) {
		if (!is(t, "pid_tracker"))
			return unknown(r, t);
		s->tracker_set |= 1u << DTRACK_PID;
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

int dsession_read_xml_domain(struct rd *r, struct dsession *s, xmlNodePtr dom)
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
