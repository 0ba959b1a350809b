/* verbs_events.c — enable-event and disable-event: a channel's event rules (channel0 made
 * when no -c names one), before start in the configuration (its engine session rebuilt to
 * check them), once the engine session is loaded through its verbs too; each rule's own
 * filter (LTTng's event rules); with --pid, the rules of each process's per-process event set, the eviction of the
 * least recently used set said in the reply and the daemon's log. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/verbs_int.h"
#include "util/log.h"
#include "util/proc.h"

/* The channel an event verb names (-c), channel0 by default (made when missing, before
 * start, as LTTng does). */
static struct dchannel *event_channel(struct verb_ctx *v, struct dsession *s, const char *chan, bool make,
				      bool *made)
{
	struct dreply *r = v->r;
	struct dchannel *c = dsession_channel(s, chan ? chan : SCRY_DEFAULT_CHANNEL);

	*made = false;
	if (c)
		return c;
	if (chan || !make || s->state != D_CREATED) {
		ERR("no channel '%s' in session '%s'", chan ? chan : SCRY_DEFAULT_CHANNEL, s->name);
		return NULL;
	}
	if (dsession_add_channel(s, SCRY_DEFAULT_CHANNEL, &c)) {
		ERR("out of memory");
		return NULL;
	}
	if (s->snapshot) {
		c->subbuf_size = 1ULL << 20;
		c->num_subbuf = 4;
		c->ring_size = 4ULL << 20;
	}
	*made = true;
	return c;
}

/* An event name of enable-event/disable-event to the engine's spec. */
static char *spec_of(const char *name, bool syscall)
{
	char *spec = NULL;

	if (strchr(name, ':'))
		return strdup(name);
	if (asprintf(&spec, "%s%s", syscall ? "syscall:" : "", name) < 0)
		return NULL;
	return spec;
}

/* Apply one enable or disable of spec to channel c: before start, the configuration (its
 * engine session rebuilt to check it); once started, the engine's verb, then the
 * configuration. */
static int apply_op(struct verb_ctx *v, struct dsession *s, struct dchannel *c, bool enable, const char *spec,
		    const char *filter)
{
	struct dreply *r = v->r;
	int ret;

	if (loaded(s)) {
		ret = enable ? scry_session_enable_rule(s->eng, c->name, spec, filter, r->err, r->errlen)
			     : scry_session_disable_event(s->eng, c->name, spec, r->err, r->errlen);
		if (enable && dfeed_rebind(s)) {    /* the span channel's events may have moved */
			scry_log(SCRY_LOG_INFO, "scryd: session %s: the process spans lost their events' channel",
				 s->name);
		}
		if (ret)
			return ret;
		return (enable ? dchannel_add_rule_op(c, spec, filter) : dchannel_add_op(c, false, spec)) ?
			ERR("out of memory") : 0;
	}
	if (enable ? dchannel_add_rule_op(c, spec, filter) : dchannel_add_op(c, false, spec))
		return ERR("out of memory");
	ret = dsession_rebuild(v->d, s, r->err, r->errlen);
	if (ret) {
		char e2[256];

		free(c->ops[--c->nops].spec);       /* the configuration as it was */
		free(c->ops[c->nops].filter);
		dsession_rebuild(v->d, s, e2, sizeof(e2));
	}
	return ret;
}

/* The pids of the engine session's per-process sets (a malloc'd array, *n of them); a
 * process's rule (channel, spec) there: *has. */
static pid_t *set_pids(struct dsession *s, size_t *n, const char *chan, const char *spec, pid_t pid, bool *has)
{
	struct scry_pid_set_info *sets = calloc(SCRY_PID_SETS_MAX, sizeof(*sets));
	pid_t *pids = calloc(SCRY_PID_SETS_MAX, sizeof(*pids));

	*n = 0;
	*has = false;
	if (sets && pids && s->eng)
		*n = scry_session_pid_sets(s->eng, sets, SCRY_PID_SETS_MAX, NULL);
	for (size_t i = 0; i < *n; i++) {
		pids[i] = sets[i].pid;
		for (size_t k = 0; sets[i].pid == pid && k < sets[i].nrules; k++)
			*has |= !strcmp(sets[i].rules[k].channel, chan) && !strcmp(sets[i].rules[k].spec, spec);
	}
	free(sets);
	return pids;
}

/* A per-process set's rule (--pid): on a loaded session (started or stopped) the engine
 * session's verb, then the configuration; before start the configuration, its engine session
 * rebuilt (as apply_op), what the rebuild evicted found by comparing the sets before and
 * after.  An eviction is said in the reply and the daemon's log. */
static int apply_pid_op(struct verb_ctx *v, struct dsession *s, struct dchannel *c, bool enable, const char *spec,
			pid_t pid)
{
	struct dreply *r = v->r;
	pid_t evicted = 0;
	int ret;

	if (loaded(s)) {
		ret = enable ? scry_session_enable_event_pid(s->eng, c->name, spec, pid, &evicted, r->err, r->errlen)
			     : scry_session_disable_event_pid(s->eng, c->name, spec, pid, r->err, r->errlen);
		if (ret)
			return ret;
		if (dchannel_add_pid_op(c, enable, spec, pid))
			return ERR("out of memory");
	} else {
		size_t nb, na;
		bool has, dummy;
		pid_t tgid = scry_process_of(pid), *before, *after;

		if (tgid <= 0)
			tgid = pid;
		before = set_pids(s, &nb, c->name, spec, tgid, &has);

		if (!enable && !has) {
			bool any = false;

			for (size_t i = 0; before && i < nb; i++)
				any |= before[i] == tgid;
			free(before);
			if (!any)
				return ERR("no per-process event set for process %d", (int)pid);
			return ERR("no rule '%s' in channel '%s' of the per-process event set of process %d", spec, c->name,
				   (int)tgid);
		}
		if (dchannel_add_pid_op(c, enable, spec, pid)) {
			free(before);
			return ERR("out of memory");
		}
		if ((ret = dsession_rebuild(v->d, s, r->err, r->errlen))) {
			char e2[256];

			free(c->ops[--c->nops].spec);
			dsession_rebuild(v->d, s, e2, sizeof(e2));
			free(before);
			return ret;
		}
		after = set_pids(s, &na, c->name, spec, tgid, &dummy);
		for (size_t i = 0; enable && before && after && i < nb && !evicted; i++) {
			size_t k;

			for (k = 0; k < na && after[k] != before[i]; k++)
				;
			if (k == na && kill(before[i], 0) == 0)
				evicted = before[i];      /* gone, its process alive: evicted */
		}
		free(before);
		free(after);
	}
	if (evicted) {
		fprintf(r->out, "Per-process event set of process %d evicted (the least recently used: at most %u sets)\n",
			(int)evicted, s->max_pid_sets);
		scry_log(SCRY_LOG_INFO, "scryd: session %s: per-process event set of process %d evicted (the least "
			 "recently used: at most %u sets)", s->name, (int)evicted, s->max_pid_sets);
	}
	return 0;
}

/* --pid's list: process ids, each a live process. */
static int parse_pids(struct verb_ctx *v, const char *list, pid_t **out, size_t *n)
{
	struct dreply *r = v->r;
	char *copy = strdup(list), *save = NULL, *tok, *end;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!copy)
		return ERR("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		long p = strtol(tok, &end, 10);
		pid_t *nv;

		if (*end || p <= 0 || p > 0x3fffffff)
			ret = ERR("%s: invalid pid '%s' (--pid takes process ids)", v->verb, tok);
		else if (kill((pid_t)p, 0) && errno == ESRCH)
			ret = ERR("%s: no process %ld", v->verb, p);
		else if (!(nv = realloc(*out, (*n + 1) * sizeof(*nv))))
			ret = ERR("out of memory");
		else
			(*out = nv)[(*n)++] = (pid_t)p;
	}
	if (!ret && !*n)
		ret = ERR("%s: --pid needs a process id", v->verb);
	free(copy);
	return ret;
}

/* The spec of c's probe rule named name (malloc'd), or NULL. */
static char *probe_spec_named(const struct dchannel *c, const char *name)
{
	for (size_t i = c->nops; i-- > 0;)
		if (c->ops[i].name && !strcmp(c->ops[i].name, name))
			return strdup(c->ops[i].spec);
	return NULL;
}

static bool rule_enabled(const struct dchannel *c, const char *spec)
{
	struct drule *rules;
	int nr = dchannel_rules(c, &rules);
	bool on = false;

	for (int k = 0; k < nr; k++)
		if (!strcmp(rules[k].spec, spec))
			on = rules[k].enabled;
	if (nr >= 0)
		free(rules);
	return on;
}

/* enable-event/disable-event --pid: each event of names (or every one, -a) for each pid. */
static int pid_event(struct verb_ctx *v, struct dsession *s, const char *chan, bool enable, bool all, bool syscall,
		     const char *names, const pid_t *pids, size_t npids)
{
	struct dreply *r = v->r;
	bool made = false;
	struct dchannel *c = event_channel(v, s, chan, enable, &made);
	char *list = NULL, *save = NULL, *tok;
	int ret = 0;

	if (!c)
		return -ENOENT;
	for (size_t i = 0; i < npids && !ret; i++) {
		if (all && !enable) {      /* every rule of the process's set in this channel */
			struct scry_pid_set_info *sets = calloc(SCRY_PID_SETS_MAX, sizeof(*sets));
			size_t n = sets && s->eng ? scry_session_pid_sets(s->eng, sets, SCRY_PID_SETS_MAX, NULL) : 0;
			char **specs = NULL;
			size_t nspecs = 0;

			for (size_t k = 0; k < n; k++)
				for (size_t j = 0; sets[k].pid == pids[i] && j < sets[k].nrules; j++)
					if (!strcmp(sets[k].rules[j].channel, c->name) &&
					    (!syscall || !strncmp(sets[k].rules[j].spec, "syscall:", 8))) {
						char **nv = realloc(specs, (nspecs + 1) * sizeof(*nv));
						if (nv)
							(specs = nv)[nspecs++] = strdup(sets[k].rules[j].spec);
					}
			free(sets);
			if (!nspecs)
				ret = ERR("no per-process event rule of process %d in channel '%s'", (int)pids[i], c->name);
			for (size_t k = 0; k < nspecs && !ret; k++)
				ret = specs[k] ? apply_pid_op(v, s, c, false, specs[k], pids[i]) : ERR("out of memory");
			for (size_t k = 0; k < nspecs; k++)
				free(specs[k]);
			free(specs);
			if (!ret)
				fprintf(r->out, "All kernel %s of process %d are disabled in channel %s\n",
					syscall ? "system calls" : "events", (int)pids[i], c->name);
			continue;
		}
		if (all) {
			static const char *const both[] = { "*", "syscall:*" };

			for (size_t k = syscall ? 1 : 0; k < 2 && !ret; k++)
				ret = apply_pid_op(v, s, c, true, both[k], pids[i]);
			if (!ret)
				fprintf(r->out, "All kernel %s are enabled in channel %s for process %d\n",
					syscall ? "system calls" : "events", c->name, (int)pids[i]);
			continue;
		}
		free(list);
		if (!(list = strdup(names))) {
			ret = ERR("out of memory");
			break;
		}
		for (tok = strtok_r(list, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
			char *spec = spec_of(tok, syscall);

			ret = spec ? apply_pid_op(v, s, c, enable, spec, pids[i]) : ERR("out of memory");
			if (!ret)
				fprintf(r->out, "Kernel %s %s %s in channel %s for process %d\n", syscall ? "syscall" : "event",
					tok, enable ? "enabled" : "disabled", c->name, (int)pids[i]);
			free(spec);
		}
	}
	free(list);
	if (ret && made && !c->nops)
		dsession_drop_channel(s, c);       /* channel0 made for nothing */
	return ret;
}

/* enable-event --userspace-probe/--probe/--function LOC NAME: one probe rule named NAME
 * (lttng's), its binary opened with the session owner's rights. */
static int probe_event(struct verb_ctx *v, struct dsession *s, const char *chan, int kind, const char *loc,
		       const char *filter, const char *name, bool other)
{
	struct dreply *r = v->r;
	struct dchannel *c;
	char *spec = NULL;
	bool made;
	int ret;

	if (other)
		return ERR("enable-event: a probe (--userspace-probe, --probe, --function) is one rule: not with "
			   "--syscall, -a or --pid");
	if (strchr(name, ',') || !*name)
		return ERR("enable-event: a probe rule has one name, not '%s'", name);
	if ((ret = dprobe_spec(s, v->peer, kind, loc, &spec, r->err, r->errlen)))
		return ret;
	if (!(c = event_channel(v, s, chan, true, &made))) {
		free(spec);
		return -ENOENT;
	}
	ret = apply_op(v, s, c, true, spec, filter);
	if (!ret && !(c->ops[c->nops - 1].name = strdup(name)))
		ret = ERR("out of memory");
	if (!ret)
		fprintf(r->out, "Kernel event %s created in channel %s\n", name, c->name);
	if (ret && made && !c->nops)
		dsession_drop_channel(s, c);
	free(spec);
	return ret;
}

int verb_event(struct verb_ctx *v, int argc, char **argv, bool enable)
{
	enum { O_SYSCALL = 256, O_TRACEPOINT, O_FILTER, O_PID, O_UPROBE, O_PROBE, O_FUNCTION };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "jul", no_argument, NULL, 'j' }, { "log4j", no_argument, NULL, 'l' }, { "python", no_argument, NULL, 'p' },
		{ "session", required_argument, NULL, 's' }, { "channel", required_argument, NULL, 'c' },
		{ "syscall", no_argument, NULL, O_SYSCALL }, { "tracepoint", no_argument, NULL, O_TRACEPOINT },
		{ "all", no_argument, NULL, 'a' }, { "filter", required_argument, NULL, O_FILTER },
		{ "pid", required_argument, NULL, O_PID }, { "userspace-probe", required_argument, NULL, O_UPROBE },
		{ "probe", required_argument, NULL, O_PROBE }, { "function", required_argument, NULL, O_FUNCTION }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *chan = NULL, *filter = NULL, *pidlist = NULL, *domain = NULL, *probe = NULL;
	int probe_kind = 0;
	bool syscall = false, all = false, made = false;
	struct dsession *s;
	struct dchannel *c;
	char *list = NULL, *save = NULL, *tok;
	pid_t *pids = NULL;
	size_t npids = 0;
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, ":kujlps:c:a", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': case O_TRACEPOINT: break;
		case 'u': domain = "-u"; break;
		case 'j': domain = "-j"; break;
		case 'l': domain = "-l"; break;
		case 'p': domain = "-p"; break;
		case O_PID: pidlist = optarg; break;
		case O_UPROBE: case O_PROBE: case O_FUNCTION:
			if (!enable)
				return bad_option(v, argc, argv);
			probe = optarg;
			probe_kind = opt == O_UPROBE ? DPROBE_USER : opt == O_PROBE ? DPROBE_PROBE : DPROBE_FUNCTION;
			break;
		case 's': sname = optarg; break;
		case 'c': chan = optarg; break;
		case O_SYSCALL: syscall = true; break;
		case 'a': all = true; break;
		case O_FILTER:
			if (!enable)
				return bad_option(v, argc, argv);
			filter = optarg;
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (domain)
		return ERR("%s: scry records the kernel domain only (-k, not %s)%s", v->verb, domain,
			   pidlist ? ": --pid sets are kernel events of a process" : "");
	if (all == (optind < argc))
		return ERR("%s: give event names or -a (scry %s --help)", v->verb, v->verb);
	if (pidlist && filter)
		return ERR("%s: --pid and --filter cannot be combined (per-process event sets have no filter yet)",
			   v->verb);
	if (optind + 1 < argc)
		return ERR("%s: unexpected argument '%s' (event names are comma-separated)", v->verb, argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (filter && !*filter)
		return ERR("enable-event: empty filter");
	if (probe)
		return probe_event(v, s, chan, probe_kind, probe, filter, argv[optind], syscall || all || pidlist);
	if (pidlist && (ret = parse_pids(v, pidlist, &pids, &npids)))
		return ret;
	if (pidlist) {
		ret = pid_event(v, s, chan, enable, all, syscall, optind < argc ? argv[optind] : NULL, pids, npids);
		free(pids);
		return ret;
	}
	if (!(c = event_channel(v, s, chan, enable, &made)))
		return -ENOENT;
	if (all && !enable) {     /* every enabled rule (with --syscall: its syscall rules) */
		struct drule *rules;
		int nr = dchannel_rules(c, &rules), done = 0;
		char **specs = NULL;

		if (nr < 0)
			return ERR("out of memory");
		specs = calloc((size_t)nr + 1, sizeof(*specs));
		for (int k = 0; specs && k < nr; k++)   /* copied: the ops move as they grow */
			if (rules[k].enabled && (!syscall || !strncmp(rules[k].spec, "syscall:", 8)))
				specs[done++] = strdup(rules[k].spec);
		free(rules);
		if (!specs)
			return ERR("out of memory");
		for (int k = 0; k < done && !ret; k++)
			ret = specs[k] ? apply_op(v, s, c, false, specs[k], NULL) : ERR("out of memory");
		for (int k = 0; k < done; k++)
			free(specs[k]);
		free(specs);
		if (!ret && !done)
			ret = ERR("no enabled event rule in channel '%s'", c->name);
		if (!ret)
			fprintf(r->out, "All kernel %s are disabled in channel %s\n", syscall ? "system calls" : "events",
				c->name);
		goto out;
	}
	if (all) {
		static const char *const both[] = { "*", "syscall:*" };

		for (size_t i = syscall ? 1 : 0; i < 2 && !ret; i++)
			ret = apply_op(v, s, c, true, both[i], filter);
		if (!ret)
			fprintf(r->out, "All kernel %s are enabled in channel %s\n", syscall ? "system calls" : "events",
				c->name);
		goto out;
	}
	if (!(list = strdup(argv[optind]))) {
		ret = ERR("out of memory");
		goto out;
	}
	for (tok = strtok_r(list, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *spec = enable ? spec_of(tok, syscall) : probe_spec_named(c, tok);

		if (!spec)
			spec = spec_of(tok, syscall);
		if (!spec) {
			ret = ERR("out of memory");
			break;
		}
		if (!enable && !rule_enabled(c, spec))
			ret = ERR("no enabled event rule '%s' in channel '%s' (disable-event names a rule as "
				  "enable-event gave it)", tok, c->name);
		else
			ret = apply_op(v, s, c, enable, spec, filter);
		if (!ret)
			fprintf(r->out, "Kernel %s %s %s in channel %s\n", syscall ? "syscall" : "event", tok,
				enable ? "enabled" : "disabled", c->name);
		free(spec);
	}
out:
	if (ret && made && !c->nops)
		dsession_drop_channel(s, c);       /* channel0 made for nothing */
	free(list);
	return ret;
}
