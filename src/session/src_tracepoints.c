/* src_tracepoints.c — the tracepoint source: "SYSTEM:GLOB" or "GLOB" (event names, tracefs'
 * or LTTng's: "cpu_frequency" or "power_cpu_frequency") enables
 * the tracefs tracepoints that match (a glob skips those whose format scry cannot use), each
 * attached to the generic tracepoint program of src/bpf/tracepoints.bpf.h with the copy
 * operations of its format (or to its filter front), but for those with programs of their
 * own (builtins[] below).
 * Disabling stops a tracepoint's writing at once, then detaches it (unless a per-process
 * set has it: then it stays theirs).  One enabled for
 * per-process sets only (pid_sets.c) is attached with SCRY_TP_PIDSET in its descriptor:
 * written only for the processes whose set has its slot. */
#include <errno.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "session/source.h"
#include "util/log.h"

static bool claims(const char *spec)
{
	return true;    /* what no other source claims: tracepoints */
}

/* Tracepoints with programs of their own, each a load-time setting (its event id in
 * rodata): sched_process_fork (src/bpf/lifecycle.bpf.h: it also follows the children),
 * signal_deliver (src/bpf/signals.bpf.h: the signal that really killed a process, with its
 * siginfo) and signal_generate (the signals a followed process sends or is sent, ignored
 * ones included).  The signal ones only without a filter (the generic path has the filter
 * fronts). */
static const struct {
	const char *system, *name;
	size_t id_off;            /* of its id in struct scry_channel */
	bool unfiltered;
} builtins[] = {
	{ "sched", "sched_process_fork", offsetof(struct scry_channel, fork_id), false },
	{ "signal", "signal_deliver", offsetof(struct scry_channel, signal_id), true },
	{ "signal", "signal_generate", offsetof(struct scry_channel, signal_gen_id), true },
};

/* The scheduler's events recorded for every task with opts.sched_everyone. */
static const char *const sched_everyone[] = {
	"sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task",
};

static int tp_reenable(struct scry_channel *c, struct tp_ref *t, char *err, size_t errlen);

/* The descriptor of tracepoint t (its copy operations, its id, its flags). */
static int tp_desc(struct scry_channel *c, const struct tp_ref *t, struct scry_tp_desc *d, char *err, size_t errlen)
{
	if (scry_event_tp_ops(c->events[t->id], d) < 0) {
		snprintf(err, errlen, "tracepoint %s:%s has too many fields for scry", t->system, t->name);
		return -E2BIG;
	}
	d->event_id = t->id;
	if (t->pid_only)
		d->flags |= SCRY_TP_PIDSET;
	if (c->s->opts.sched_everyone && !strcmp(t->system, "sched"))
		for (size_t i = 0; i < sizeof(sched_everyone) / sizeof(sched_everyone[0]); i++)
			if (!strcmp(t->name, sched_everyone[i]))
				d->flags |= SCRY_TP_ANY_TASK;
	return 0;
}

/* A tracepoint enabled for per-process sets only, enabled for every process (or the
 * reverse, disabled for every process while a set has it): its descriptor, if attached,
 * loses (gains) SCRY_TP_PIDSET at once. */
static int tp_everyone(struct scry_channel *c, struct tp_ref *t, bool on, char *err, size_t errlen)
{
	struct scry_tp_desc d;
	int ret;

	t->pid_only = !on;
	c->changes++;
	if (t->slot < 0 || !c->probes)
		return 0;
	if ((ret = tp_desc(c, t, &d, err, errlen)))
		return ret;
	if ((ret = scry_probes_set_tracepoint(c->probes, t->slot, &d)))
		snprintf(err, errlen, "cannot update %s:%s: %s", t->system, t->name, strerror(-ret));
	return ret;
}

static int enable_tracepoint(struct scry_channel *c, const char *system, const char *name,
			     char *err, size_t errlen)
{
	const struct scry_event *ev;
	int id;

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		uint16_t *slot = (uint16_t *)((char *)c + builtins[i].id_off);

		if (strcmp(system, builtins[i].system) || strcmp(name, builtins[i].name) ||
		    (builtins[i].unfiltered && c->s->opts.filter && !c->s->opts.filter_entries_only))
			continue;
		if (c->enabling_pid) {
			snprintf(err, errlen, "%s:%s cannot be in a per-process event set (it has a program of its own)",
				 system, name);
			return -ENOTSUP;
		}
		if (*slot != NO_EVENT) {
			channel_mark(c, *slot);
			return 0;
		}
		id = channel_add_event(c, scry_catalog_builtin(c->s->cat, name));
		if (id < 0)
			return id;
		*slot = (uint16_t)id;
		return 0;
	}
	ev = scry_catalog_tracepoint(c->s->cat, system, name, err, errlen);
	if (!ev)
		return -ENOENT;
	/* (sched_process_exit may have its BTF program: kernel/attach.c decides) */
	if (c->probes && !c->tp_writer && strcmp(name, "sched_process_exit")) {
		snprintf(err, errlen, "%s:%s: tracepoints cannot be added to a channel loaded without one (scry record "
			 "and scry trace enable their events before load)", system, name);
		return -ENOTSUP;
	}
	size_t before = c->nevents;
	id = channel_add_event(c, ev);
	if (id < 0)
		return id;
	if (c->nevents == before) {      /* known: disabled, or on for every process now? */
		for (size_t i = 0; i < c->ntps; i++) {
			if (c->tps[i].id != id)
				continue;
			if (c->tps[i].disabled && !c->enabling_pid)
				return tp_reenable(c, &c->tps[i], err, errlen);
			if (c->tps[i].pid_only && !c->enabling_pid)
				return tp_everyone(c, &c->tps[i], true, err, errlen);
		}
		return 0;
	}
	struct tp_ref *t = realloc(c->tps, (c->ntps + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	c->tps = t;
	t[c->ntps].system = strdup(system);
	t[c->ntps].name = strdup(name);
	t[c->ntps].id = id;
	t[c->ntps].slot = -1;
	t[c->ntps].disabled = false;
	t[c->ntps].front = false;
	t[c->ntps].front_fd = -1;
	t[c->ntps].pid_only = c->enabling_pid;
	if (!t[c->ntps].system || !t[c->ntps].name)
		return -ENOMEM;
	c->ntps++;
	return 0;
}

/* An exact "system:event" that names an event directory of tracefs: found without listing
 * every tracepoint (the catalog lists them on first use; scry trace's sched_process_exit
 * would list them at every start, ~7 ms).  Not syscalls:* or ftrace:*, which the listing
 * leaves out; a name with a glob, an escape, a second ':' or a path character is matched
 * against the listing as before.  *system gets the system's name. */
static bool exact_tracepoint(struct scry_channel *c, const char *spec, char *system, size_t n)
{
	const char *sep = strchr(spec, ':'), *event = sep ? sep + 1 : NULL;
	char path[1024];
	struct stat st;

	if (!sep || strpbrk(spec, "*?[\\/") || strchr(event, ':') || sep == spec || !*event ||
	    (size_t)(sep - spec) >= n || spec[0] == '.' || event[0] == '.')   /* as the listing: no dot names */
		return false;
	snprintf(system, n, "%.*s", (int)(sep - spec), spec);
	if (!strcmp(system, "syscalls") || !strcmp(system, "ftrace"))
		return false;
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s", scry_catalog_tracefs(c->s->cat), system,
			     event) >= sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	const char *const *tps;
	size_t n;
	bool has_glob = strpbrk(spec, "*?[") != NULL, has_system = strchr(spec, ':') != NULL;
	char exact[256];

	if (exact_tracepoint(c, spec, exact, sizeof(exact))) {
		int ret = enable_tracepoint(c, exact, strchr(spec, ':') + 1, err, errlen);

		if (ret < 0)
			return ret;
		(*matched)++;
		return 0;
	}
	n = scry_catalog_tracepoints(c->s->cat, &tps);

	for (size_t i = 0; i < n; i++) {
		const char *sep = strchr(tps[i], ':');
		char system[256];
		int ret;

		if (!sep)
			continue;
		snprintf(system, sizeof(system), "%.*s", (int)(sep - tps[i]), tps[i]);
		/* "GLOB" matches the tracefs name or the name LTTng gives the event */
		if (has_system ? fnmatch(spec, tps[i], 0) :
		    fnmatch(spec, sep + 1, 0) && fnmatch(spec, scry_catalog_lttng_name(system, sep + 1), 0))
			continue;
		ret = enable_tracepoint(c, system, sep + 1, err, errlen);
		if ((ret == -ENOENT || (ret == -ENOTSUP && c->enabling_pid)) && has_glob) {
			/* a glob skips the tracepoints whose format scry cannot use (and, for a
			 * per-process set, those with programs of their own) */
			scry_log(SCRY_LOG_VERBOSE, "scry: skipping %s: %s", tps[i], err);
			err[0] = 0;
			continue;
		}
		if (ret < 0)
			return ret;
		(*matched)++;
	}
	return 0;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	bool has_system = strchr(spec, ':') != NULL;

	for (size_t i = 0; i < c->ntps; i++) {
		struct tp_ref *t = &c->tps[i];
		char full[512];
		int ret;

		snprintf(full, sizeof(full), "%s:%s", t->system, t->name);
		if (t->disabled || t->pid_only || (has_system ? fnmatch(spec, full, 0) : fnmatch(spec, t->name, 0)))
			continue;
		if (c->psel.tp[i / 64] >> (i % 64) & 1) {     /* a per-process set keeps it */
			if ((ret = tp_everyone(c, t, false, err, errlen)))
				return ret;
			(*matched)++;
			continue;
		}
		if (t->slot >= 0 && c->probes && (ret = scry_probes_detach_tracepoint(c->probes, t->slot))) {
			snprintf(err, errlen, "cannot detach %s: %s", full, strerror(-ret));
			return ret;
		}
		t->disabled = true;
		(*matched)++;
	}
	return 0;
}

/* Attach tracepoint t (behind its filter front, if it has one). */
static int attach_one(struct scry_channel *c, struct tp_ref *t, char *err, size_t errlen)
{
	struct scry_tp_desc d;
	int ret, front;

	if ((ret = tp_desc(c, t, &d, err, errlen)))
		return ret;
	if (c->filters && scry_filters_use(c->filters, d.event_id) == SCRY_FILTER_NEVER)
		return 0;
	front = c->filters ? scry_filters_front_fd(c->filters, d.event_id) : -1;
	ret = scry_probes_attach_tracepoint(c->probes, t->system, t->name, &d, front, err, errlen);
	if (ret < 0)
		return ret;
	t->slot = ret;
	t->front = front >= 0;
	t->front_fd = front;
	return 0;
}

/* A tracepoint disabled, enabled again: its front's descriptor on again, or attached anew
 * (detached: a new slot); before load, attach() does it. */
static int tp_reenable(struct scry_channel *c, struct tp_ref *t, char *err, size_t errlen)
{
	struct scry_tp_desc d;
	int ret;

	t->disabled = false;
	c->changes++;   /* a refused rule change disables it again (events.c) */
	if (!c->probes || (size_t)(t - c->tps) >= c->ntps_attached)
		return 0;
	if (t->slot < 0 || !t->front)   /* never attached (disabled at load), or detached */
		return attach_one(c, t, err, errlen);
	if ((ret = tp_desc(c, t, &d, err, errlen)))
		return ret;
	if ((ret = scry_probes_set_tracepoint(c->probes, t->slot, &d)))
		snprintf(err, errlen, "cannot enable %s:%s again: %s", t->system, t->name, strerror(-ret));
	return ret;
}

/* Attach the tracepoints enabled since the last call. */
static int attach(struct scry_channel *c, char *err, size_t errlen)
{
	for (; c->ntps_attached < c->ntps; c->ntps_attached++) {
		struct tp_ref *t = &c->tps[c->ntps_attached];
		int ret;

		if (!t->disabled && (ret = attach_one(c, t, err, errlen)))
			return ret;
	}
	return 0;
}

/* Per-process sets: the enabled tracepoints spec matches (as enable matches them). */
static int select_(struct scry_channel *c, const char *spec, struct pid_sel *sel)
{
	bool has_system = strchr(spec, ':') != NULL;

	for (size_t i = 0; i < c->ntps && i < SCRY_MAX_TP; i++) {
		const struct tp_ref *t = &c->tps[i];
		char full[512];

		snprintf(full, sizeof(full), "%s:%s", t->system, t->name);
		if (t->disabled || (has_system ? fnmatch(spec, full, 0) :
				    fnmatch(spec, t->name, 0) && fnmatch(spec, scry_catalog_lttng_name(t->system, t->name), 0)))
			continue;
		sel->tp[i / 64] |= 1ULL << (i % 64);
	}
	return 0;
}

static int names(struct scry_channel *c, char ***out, size_t *n)
{
	const char *const *tps;
	size_t ntp = scry_catalog_tracepoints(c->s->cat, &tps);
	char **v = calloc(ntp ? ntp : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ntp; i++)
		if (!(v[i] = strdup(tps[i]))) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return -ENOMEM;
		}
	*out = v;
	*n = ntp;
	return 0;
}

const struct scry_source scry_source_tracepoints = {
	.name = "tracepoints",
	.claims = claims,
	.enable = enable,
	.disable = disable,
	.attach = attach,
	.select = select_,
	.names = names,
};
