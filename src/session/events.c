/* events.c — a channel's events (see session.h): the -e specs resolved against the catalog
 * (syscalls by number, tracepoints, the fork and unknown-syscall built-ins), with "did you
 * mean" suggestions; enabling and disabling them, before or while recording; the syscall
 * descriptor table its BPF object reads; attaching its tracepoints. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "util/log.h"

static int add_event(struct scry_channel *c, const struct scry_event *ev)
{
	for (size_t i = 0; i < c->nevents; i++)
		if (c->events[i] == ev)
			return (int)i;
	if (c->nevents >= NO_EVENT)
		return -E2BIG;
	if (c->nevents == c->capevents) {
		size_t cap = c->capevents ? 2 * c->capevents : 256;
		const struct scry_event **e = realloc(c->events, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->events = e;
		c->capevents = cap;
	}
	c->events[c->nevents] = ev;
	return (int)c->nevents++;
}

static int enable_syscall(struct scry_channel *c, const struct scry_syscall *sc)
{
	int id;

	if (sc->nr < 0 || sc->nr >= SCRY_MAX_SYSCALLS)
		return 0;
	if (c->sc_entry[sc->nr] != NO_EVENT)
		return 0;
	id = add_event(c, scry_catalog_syscall_entry(c->s->cat, sc));
	if (id < 0)
		return id;
	c->sc_entry[sc->nr] = id;
	id = add_event(c, scry_catalog_syscall_exit(c->s->cat, sc));
	if (id < 0)
		return id;
	c->sc_exit[sc->nr] = id;
	c->any_syscall = true;
	return 0;
}

static int enable_unknown_syscalls(struct scry_channel *c)
{
	int id;

	if (c->unknown_entry != NO_EVENT)
		return 0;
	id = add_event(c, scry_catalog_builtin(c->s->cat, "syscall_entry_unknown"));
	if (id < 0)
		return id;
	c->unknown_entry = id;
	id = add_event(c, scry_catalog_builtin(c->s->cat, "syscall_exit_unknown"));
	if (id < 0)
		return id;
	c->unknown_exit = id;
	c->any_syscall = true;
	return 0;
}

static int enable_tracepoint(struct scry_channel *c, const char *system, const char *name,
			     char *err, size_t errlen)
{
	const struct scry_event *ev;
	int id;

	if (!strcmp(system, "sched") && !strcmp(name, "sched_process_fork")) {
		if (c->fork_id != NO_EVENT)
			return 0;
		id = add_event(c, scry_catalog_builtin(c->s->cat, "sched_process_fork"));
		if (id < 0)
			return id;
		c->fork_id = id;
		return 0;
	}
	ev = scry_catalog_tracepoint(c->s->cat, system, name, err, errlen);
	if (!ev)
		return -ENOENT;
	size_t before = c->nevents;
	id = add_event(c, ev);
	if (id < 0)
		return id;
	if (c->nevents == before)
		return 0;                /* already enabled */
	struct tp_ref *t = realloc(c->tps, (c->ntps + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	c->tps = t;
	t[c->ntps].system = strdup(system);
	t[c->ntps].name = strdup(name);
	t[c->ntps].id = id;
	t[c->ntps].slot = -1;
	t[c->ntps].disabled = false;
	if (!t[c->ntps].system || !t[c->ntps].name)
		return -ENOMEM;
	c->ntps++;
	return 0;
}

/* "did you mean" over every event name scry knows. */
static void suggest(struct scry_channel *c, const char *spec, char *err, size_t errlen)
{
	const char *const *tps;
	const struct scry_syscall *scs;
	size_t ntp = scry_catalog_tracepoints(c->s->cat, &tps);
	size_t nsc = scry_catalog_syscalls(c->s->cat, &scs);
	const char **all = malloc((ntp + nsc) * sizeof(*all));
	char **owned = malloc(nsc * sizeof(*owned));
	const char *best[3];
	size_t n = 0, nb;

	if (!all || !owned)
		goto out;
	for (size_t i = 0; i < ntp; i++)
		all[n++] = tps[i];
	for (size_t i = 0; i < nsc; i++) {
		owned[i] = NULL;
		if (asprintf(&owned[i], "syscall:%s", scs[i].name) < 0)
			owned[i] = NULL;
		if (owned[i])
			all[n++] = owned[i];
	}
	nb = scry_closest(spec, all, n, best, 3);
	if (nb) {
		size_t len = strlen(err);
		snprintf(err + len, errlen - len, "; did you mean %s%s%s%s%s?", best[0],
			 nb > 1 ? ", " : "", nb > 1 ? best[1] : "", nb > 2 ? ", " : "", nb > 2 ? best[2] : "");
	}
	for (size_t i = 0; i < nsc; i++)
		free(owned[i]);
out:
	free(owned);
	free(all);
}

/* One -e spec: "syscall:GLOB", "SYSTEM:GLOB", or "GLOB" (tracepoint event names). */
int channel_enable_spec(struct scry_channel *c, const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t matched = 0;
	int ret;

	if (!*spec) {
		snprintf(err, errlen, "empty event name");
		return -EINVAL;
	}
	if (colon && (!strncmp(spec, "syscall:", 8) || !strncmp(spec, "syscalls:", 9))) {
		const char *glob = colon + 1;
		const struct scry_syscall *scs;
		size_t n = scry_catalog_syscalls(c->s->cat, &scs);

		for (size_t i = 0; i < n; i++) {
			if (fnmatch(glob, scs[i].name, 0))
				continue;
			ret = enable_syscall(c, &scs[i]);
			if (ret < 0)
				goto fail;
			matched++;
		}
		if (!strcmp(glob, "*") || !fnmatch(glob, "unknown", 0)) {
			ret = enable_unknown_syscalls(c);
			if (ret < 0)
				goto fail;
			matched++;
		}
	} else {
		const char *const *tps;
		size_t n = scry_catalog_tracepoints(c->s->cat, &tps);
		bool has_glob = strpbrk(spec, "*?[") != NULL;

		for (size_t i = 0; i < n; i++) {
			const char *sep = strchr(tps[i], ':');
			if (!sep)
				continue;
			if (colon ? fnmatch(spec, tps[i], 0) : fnmatch(spec, sep + 1, 0))
				continue;
			char system[256];
			snprintf(system, sizeof(system), "%.*s", (int)(sep - tps[i]), tps[i]);
			ret = enable_tracepoint(c, system, sep + 1, err, errlen);
			if (ret == -ENOENT && has_glob) {
				/* a glob skips the tracepoints whose format scry cannot use */
				scry_log(SCRY_LOG_VERBOSE, "scry: skipping %s: %s", tps[i], err);
				err[0] = 0;
				continue;
			}
			if (ret < 0)
				goto fail;
			matched++;
		}
	}
	if (!matched) {
		snprintf(err, errlen, "unknown event '%s'", spec);
		suggest(c, spec, err, errlen);
		return -ENOENT;
	}
	return 0;
fail:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (ret == -E2BIG)
		snprintf(err, errlen, "too many events (limit %d)", NO_EVENT);
	else if (!err[0])
		snprintf(err, errlen, "cannot enable '%s': %s", spec, strerror(-ret));
	return ret;
}

/* A syscall descriptor's flags once the filter is known: an event the filter can never
 * accept is not recorded (one it may accept passes the syscall's filter front first). */
static uint16_t filtered_flags(const struct scry_channel *c, uint16_t flags, uint16_t id, uint16_t rec)
{
	if (c->filters && scry_filters_use(c->filters, id) == SCRY_FILTER_NEVER)
		return flags & ~rec;
	return flags;
}

int channel_set_syscall_table(struct scry_channel *c, char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs);
	bool *known = calloc(SCRY_MAX_SYSCALLS, sizeof(bool));
	struct scry_sc_desc *table = calloc(SCRY_MAX_SYSCALLS, sizeof(*table));
	bool count = c->opts.kind == SCRY_CHANNEL_COUNT;
	int ret = 0;

	if (!known || !table) {
		free(known);
		free(table);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS)
			known[scs[i].nr] = true;
	for (unsigned nr = 0; nr < SCRY_MAX_SYSCALLS; nr++) {
		struct scry_sc_desc *dp = &table[nr], d = { .entry_id = NO_EVENT, .exit_id = NO_EVENT };

		if (known[nr] && c->sc_entry[nr] != NO_EVENT && !c->sc_off[nr]) {
			const struct scry_event *ev = c->events[c->sc_entry[nr]];
			d.entry_id = c->sc_entry[nr];
			d.exit_id = c->sc_exit[nr];
			d.flags = count ? SCRY_SC_COUNT : SCRY_SC_ENTRY | SCRY_SC_EXIT;
			d.nargs = ev->nargs;
			d.str_mask = ev->str_mask;
			d.s32_mask = ev->s32_mask;
			d.u32_mask = ev->u32_mask;
			if (scry_event_reads_strings(ev) && !count)
				d.flags |= SCRY_SC_DEFER;
			if (!strcmp(ev->tp, "execve") || !strcmp(ev->tp, "execveat"))
				d.flags |= SCRY_SC_EXEC;
			if (ev->nops && !count) {
				d.flags |= SCRY_SC_ENTRY_OPS;
				d.n_entry_ops = ev->nops;
				memcpy(d.entry_ops, ev->ops, sizeof(d.entry_ops));
			}
			ev = c->events[c->sc_exit[nr]];
			if (ev->nops && !count) {
				d.flags |= SCRY_SC_EXIT_OPS;
				d.n_exit_ops = ev->nops;
				memcpy(d.exit_ops, ev->ops, sizeof(d.exit_ops));
			}
			d.flags = filtered_flags(c, d.flags, d.entry_id, SCRY_SC_ENTRY);
			d.flags = filtered_flags(c, d.flags, d.exit_id, SCRY_SC_EXIT);
		} else if (!known[nr] && c->unknown_entry != NO_EVENT) {
			d.entry_id = c->unknown_entry;
			d.exit_id = c->unknown_exit;
			d.flags = SCRY_SC_ENTRY | SCRY_SC_EXIT | SCRY_SC_UNKNOWN;
		}
		*dp = d;
	}
	ret = scry_probes_set_syscalls(c->probes, table, SCRY_MAX_SYSCALLS);
	free(known);
	free(table);
	if (ret)
		snprintf(err, errlen, "cannot fill the syscall table: %s", strerror(-ret));
	return ret;
}

/* Attach the tracepoints enabled since the last call. */
int channel_attach_tracepoints(struct scry_channel *c, char *err, size_t errlen)
{
	for (; c->ntps_attached < c->ntps; c->ntps_attached++) {
		struct tp_ref *t = &c->tps[c->ntps_attached];
		struct scry_tp_desc d;
		int ret;

		if (t->disabled)
			continue;
		if (scry_event_tp_ops(c->events[t->id], &d) < 0) {
			snprintf(err, errlen, "tracepoint %s:%s has too many fields for scry", t->system, t->name);
			return -E2BIG;
		}
		d.event_id = t->id;
		if (c->filters && scry_filters_use(c->filters, d.event_id) == SCRY_FILTER_NEVER)
			continue;
		ret = scry_probes_attach_tracepoint(c->probes, t->system, t->name, &d,
						    c->filters ? scry_filters_front_fd(c->filters, d.event_id) : -1,
						    err, errlen);
		if (ret < 0)
			return ret;
		t->slot = ret;
	}
	return 0;
}

int scry_session_disable_event(struct scry_session *s, const char *channel, const char *spec,
			       char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);
	const char *colon = strchr(spec, ':');
	size_t matched = 0;
	int ret;

	if (!c)
		return -ENOENT;
	err[0] = 0;
	if (c->probes && c->filters) {
		snprintf(err, errlen, "cannot disable '%s' on a running session with a filter", spec);
		return -ENOTSUP;
	}
	if (colon && (!strncmp(spec, "syscall:", 8) || !strncmp(spec, "syscalls:", 9))) {
		const struct scry_syscall *scs;
		size_t n = scry_catalog_syscalls(c->s->cat, &scs);

		for (size_t i = 0; i < n; i++)
			if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS && c->sc_entry[scs[i].nr] != NO_EVENT &&
			    !c->sc_off[scs[i].nr] && !fnmatch(colon + 1, scs[i].name, 0)) {
				c->sc_off[scs[i].nr] = true;
				matched++;
			}
		if (matched && c->probes && (ret = channel_set_syscall_table(c, err, errlen)))
			return ret;
	} else {
		for (size_t i = 0; i < c->ntps; i++) {
			struct tp_ref *t = &c->tps[i];
			char full[512];

			snprintf(full, sizeof(full), "%s:%s", t->system, t->name);
			if (t->disabled || (colon ? fnmatch(spec, full, 0) : fnmatch(spec, t->name, 0)))
				continue;
			if (t->slot >= 0 && (ret = scry_probes_detach_tracepoint(c->probes, t->slot))) {
				snprintf(err, errlen, "cannot detach %s: %s", full, strerror(-ret));
				return ret;
			}
			t->disabled = true;
			matched++;
		}
	}
	if (!matched) {
		snprintf(err, errlen, "no enabled event matches '%s'", spec);
		return -ENOENT;
	}
	return 0;
}

int scry_session_enable_event(struct scry_session *s, const char *channel, const char *spec,
			      char *err, size_t errlen)
{
	struct scry_channel *c = session_channel(s, channel, err, errlen);
	size_t before;
	uint16_t fork_id, unknown;
	bool any_syscall;
	int ret;

	if (!c)
		return -ENOENT;
	before = c->nevents;
	fork_id = c->fork_id;
	unknown = c->unknown_entry;
	any_syscall = c->any_syscall;
	err[0] = 0;
	if (c->probes && c->filters) {
		snprintf(err, errlen, "cannot enable '%s' on a running session with a filter", spec);
		return -ENOTSUP;
	}
	ret = channel_enable_spec(c, spec, err, errlen);
	if (ret || !c->probes || c->nevents == before)
		return ret;
	/* loaded: the new events are described, then their descriptors set or attached */
	if (c->fork_id != fork_id || c->unknown_entry != unknown || c->any_syscall != any_syscall) {
		snprintf(err, errlen, "'%s' cannot be enabled once the session is loaded (the fork and unknown "
			 "syscall events, and syscalls in a channel without any, are load-time settings)", spec);
		return -ENOTSUP;
	}
	if (session_has_trace(s) && (ret = session_write_metadata(s, err, errlen)))
		return ret;
	if ((ret = channel_set_syscall_table(c, err, errlen)))
		return ret;
	return s->started ? channel_attach_tracepoints(c, err, errlen) : 0;
}
