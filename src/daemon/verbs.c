/* verbs.c — the daemon's side of each control verb (ctl/verbs.h lists them and their
 * --help): its options parsed as LTTng's command of the same name takes them, then the
 * session's configuration changed (sessions.c) or the started engine session driven.  Here
 * daemon_verb, which hands a request's command line to its verb, the helpers the verbs
 * share (verbs_int.h) and a session's lifecycle: create, destroy, start, stop, list, status
 * and set-session.  The other verbs: verbs_channels.c, verbs_events.c, verbs_track.c and
 * verbs_files.c. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "daemon/verbs_int.h"
#include "util/parse.h"

/* The reason of a refusal into r->err: -EINVAL. */
int __attribute__((format(printf, 2, 3))) refuse(struct dreply *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* getopt over the request's argv: opterr off, the offending option named in the reason. */
int bad_option(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	const char *opt = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "?";

	if (optopt && strchr("osctiUCD", optopt) && opt[0] == '-' && opt[1] == optopt && !opt[2])
		return ERR("%s: option '%s' needs a value (scry %s --help)", v->verb, opt, v->verb);
	return ERR("%s: invalid option '%s' (scry %s --help)", v->verb, opt, v->verb);
}

/* The session a verb acts on: -s NAME, else the caller's current one. */
struct dsession *target(struct verb_ctx *v, const char *name)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (!name && !(name = v->current)) {
		ERR("no current session: create one (scry create) or choose one (scry set-session NAME)");
		return NULL;
	}
	/* another user's session is as good as missing: not even its existence is said */
	if (!(s = dsession_find(v->d, name)) || !dpeer_owns(v->peer, s)) {
		ERR("session '%s' not found%s (scry list shows the sessions)", name,
		    name == v->current ? " (the current one, from ~/.scryrc)" : "");
		return NULL;
	}
	return s;
}

/* The engine session is loaded (started, or stopped and kept): changes go to its verbs. */
bool loaded(const struct dsession *s)
{
	return s->state != D_CREATED && s->eng;
}

/* Every state takes changes (a stopped session's engine is kept, as LTTng's); what a
 * loaded session refuses, each verb says. */
int changeable(struct verb_ctx *v, struct dsession *s)
{
	return 0;
}

int resolve_path(struct verb_ctx *v, const char *path, char **out)
{
	struct dreply *r = v->r;
	int ret = dpeer_path(v->peer, path, out);

	if (ret == -ENOENT)
		return ERR("'%s': a relative path, and the daemon cannot see your working directory: give an absolute one",
			   path);
	return ret ? ERR("out of memory") : 0;
}

/* ~/scry-traces, made with the caller's rights when missing: the parent of default outputs. */
int default_traces_dir(struct verb_ctx *v, const char *name, const char *stamp, char **dir)
{
	struct dreply *r = v->r;
	struct scry_dirh *home, *traces;
	int ret;

	if ((ret = scry_dirh_open(&home, AT_FDCWD, v->peer->home, dpeer_cred(v->peer), r->err, r->errlen)))
		return ret;
	ret = scry_dirh_mkdir(home, "scry-traces", SCRY_MKDIR_ANY, &traces, NULL, r->err, r->errlen);
	scry_dirh_unref(home);
	if (ret)
		return ret;
	scry_dirh_unref(traces);
	if (asprintf(dir, "%s/scry-traces/%s-%s", v->peer->home, name, stamp) < 0)
		return ERR("out of memory");
	return 0;
}

/* ADDR:PORT names a port below 1024 (binding it is root's: not to be lent to others). */
static bool privileged_port(const char *listen)
{
	const char *colon = strrchr(listen, ':');
	char *end;
	unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;

	return colon && colon[1] && !*end && port < 1024;
}

static int verb_create(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "snapshot", no_argument, NULL, 'S' },
		{ "kernel", no_argument, NULL, 'k' }, { "clock", required_argument, NULL, 260 },
		{ "metrics", required_argument, NULL, 'M' }, { "spans", required_argument, NULL, 'P' },
		{ "listen", required_argument, NULL, 'L' }, { "max-pid-sets", required_argument, NULL, 256 },
		{ "set-url", required_argument, NULL, 'U' }, { "ctrl-url", required_argument, NULL, 'C' },
		{ "data-url", required_argument, NULL, 'D' }, { "live", optional_argument, NULL, 258 },
		{ "hostname", required_argument, NULL, 259 }, { "group", required_argument, NULL, 257 },
		{ "no-output", no_argument, NULL, 261 }, { "shm-path", required_argument, NULL, 262 }, { 0 } };
	struct dreply *r = v->r;
	const char *out = NULL, *name = NULL, *metrics = NULL, *spans = NULL, *listen = NULL;
	const char *url = NULL, *curl = NULL, *durl = NULL, *hostname = NULL;
	struct relay_url relay;
	uint32_t live_us = 0;
	char *mpath = NULL, *spath = NULL;
	struct dsession *ns = NULL;
	bool snapshot = false, set_group = false;
	gid_t group = 0;
	unsigned clock = SCRY_CLOCK_MONOTONIC, max_pid_sets = SCRY_DEFAULT_PID_SETS;
	char *end;
	char autoname[64], stamp[32], *dir = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":o:kU:C:D:", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'U': url = optarg; break;
		/* -U file://DIR is lttng's local output; -o file://DIR too (lttng 2.13 takes it as
		 * a relative path whose first directory is `file:`: never what is meant) */
		case 'D': durl = optarg; break;
		case 259: hostname = optarg; break;
		case 258: {
			unsigned long us = optarg ? strtoul(optarg, &end, 10) : 1000000;

			if (optarg && (!*optarg || *end || optarg[0] == '-' || !us || us > 3600000000UL))
				return ERR("create: --live=USEC takes the live timer in microseconds (1 to 3600000000), "
					   "not '%s'", optarg);
			live_us = (uint32_t)us;
			break;
		}
		case 'k': break;
		case 261:      /* lttng's, named in its refusal (docs/DAEMON.md) */
			return ERR("create: --no-output is not supported: scry's consumer writes a trace, streams it to a "
				   "relay or keeps it for snapshots; give -o DIR, -U URL or --snapshot (snapshot "
				   "del-output removes a snapshot session's output)");
		case 262:
			return ERR("create: --shm-path is for user space buffers: scry's kernel buffers are BPF rings");
		case 'S': snapshot = true; break;
		case 'M': metrics = optarg; break;
		case 'P': spans = optarg; break;
		case 'L': listen = optarg; break;
		case 'C': curl = optarg; break;      /* LTTng's -C/--ctrl-url */
		case 260:
			for (clock = 0; clock < SCRY_CLOCK_NR && strcmp(optarg, scry_clock_name(clock)); clock++)
				;
			if (clock == SCRY_CLOCK_NR)
				return ERR("create: unknown clock '%s' (monotonic, boot or tai)", optarg);
			if ((ret = scry_clock_check(clock, r->err, r->errlen)))
				return ret;
			break;
		case 256: {
			unsigned long n = strtoul(optarg, &end, 10);

			if (!*optarg || *end || optarg[0] == '-' || n < 1 || n > SCRY_PID_SETS_MAX)
				return ERR("create: --max-pid-sets takes a number from 1 to %d, not '%s'", SCRY_PID_SETS_MAX,
					   optarg);
			max_pid_sets = (unsigned)n;
			break;
		}
		case 257:
			if (scry_parse_group(optarg, &group))
				return ERR("create: --group: no group '%s'", optarg);
			if (!dpeer_in_group(v->peer, group))
				return ERR("create: --group %s: you are not in that group", optarg);
			set_group = true;
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (url && !strncmp(url, "file://", 7)) {
		if (out)
			return ERR("create: -o and a file:// URL both name the output: give one");
		out = url;
		url = NULL;
	}
	if (out && !strncmp(out, "file://", 7)) {
		if (out[7] != '/')
			return ERR("create: a file:// URL names an absolute path (file:///DIR), not '%s'", out);
		out += 7;
	}
	if (optind < argc)
		name = argv[optind++];
	if (optind < argc)
		return ERR("create: unexpected argument '%s' (scry create --help)", argv[optind]);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (!name) {
		snprintf(autoname, sizeof(autoname), "auto-%s", stamp);
		name = autoname;
	}
	if (!dsession_name_ok(name))
		return ERR("invalid session name '%s' (letters, digits, '_', '-', '.')", name);
	if (snapshot && (metrics || spans))
		return ERR("create: --metrics and --spans feed a session that writes its trace, not a snapshot session");
	if (listen && !metrics)
		return ERR("create: --listen serves the metrics of --metrics FILE: give one");
	if (url && (curl || durl))
		return ERR("create: --set-url and -C/-D are exclusive (one relay)");
	if ((url || curl || durl) &&
	    (url ? relay_url_parse(&relay, url, r->err, r->errlen) : relay_url_parse_cd(&relay, curl, durl, r->err, r->errlen)))
		return -EINVAL;
	if (!(url || curl || durl) && (live_us || hostname))
		return ERR("create: --live and --hostname are for a session streamed to a relay (--set-url net://HOST)");
	if ((url || curl || durl) && snapshot && live_us)
		return ERR("create: a snapshot session is not live (--live goes without --snapshot)");
	if (hostname && (!*hostname || strchr(hostname, '/') || strlen(hostname) > 63))
		return ERR("create: --hostname '%s': a name of 1 to 63 characters, no '/'", hostname);
	if (dsession_find(v->d, name))
		return ERR("session '%s' already exists", name);
	if (listen && !dpeer_is_root(v->peer) && privileged_port(listen))
		return ERR("create: --listen %s: a port below 1024 is root's to open", listen);
	if ((ret = dsession_quota(v->d, v->peer->cred.uid, 1, r->err, r->errlen)))
		return ret;
	if ((url || curl || durl) && !out) {     /* streamed only: its URL stands for its output */
		char u[300];

		relay_url_format(&relay, u, sizeof(u));
		if (!(dir = strdup(u)))
			return ERR("out of memory");
		goto made_dir;
	}
	if ((ret = out ? resolve_path(v, out, &dir) : default_traces_dir(v, name, stamp, &dir)))
		return ret;
	for (size_t i = 0; i < v->d->nsess; i++)
		if (!strcmp(v->d->sess[i]->dir, dir)) {
			ret = ERR("output '%s' is the trace directory of session '%s'", dir, v->d->sess[i]->name);
			goto out;
		}
	/* checked with the caller's rights, as the engine makes it at start: its parent exists
	 * and is the caller's to write in, and it is new, or an empty directory of the caller */
	if ((ret = scry_session_check_output(dir, dpeer_cred(v->peer), snapshot, r->err, r->errlen)))
		goto out;
made_dir:
	if ((metrics && (ret = resolve_path(v, metrics, &mpath))) || (spans && (ret = resolve_path(v, spans, &spath))))
		goto out;
	if (!(ns = dsession_new(name, dir))) {
		ret = ERR("out of memory");
		goto out;
	}
	ns->owner = v->peer->cred;
	snprintf(ns->owner_name, sizeof(ns->owner_name), "%s", v->peer->user);
	ns->set_group = set_group;
	ns->group = group;
	/* the configs checked (one line naming file:line:key) and read with the caller's rights,
	 * the exporter started with the caller's OTEL_* variables: nothing registered when they fail */
	if (metrics || spans) {
		struct scry_runas ra;

		if ((ret = scry_runas_begin(dsession_owner(ns), &ra))) {
			ret = ERR("create: cannot take uid %u's rights: %s", (unsigned)ns->owner.uid, strerror(-ret));
			goto out;
		}
		ret = dfeed_attach(v->d, ns, mpath, spath, v->env, r->err, r->errlen) ? -EINVAL : 0;
		scry_runas_end(&ra);
		if (ret)
			goto out;
	}
	if (listen && dfeed_listen(ns, listen, r->err, r->errlen)) {
		ret = -EADDRINUSE;
		goto out;
	}
	if ((ret = dsession_register(v->d, ns, r->err, r->errlen)))
		goto out;
	ns = NULL;
	v->d->sess[v->d->nsess - 1]->snapshot = snapshot;
	v->d->sess[v->d->nsess - 1]->clock = clock;
	v->d->sess[v->d->nsess - 1]->max_pid_sets = max_pid_sets;
	if (url || curl || durl) {
		struct dsession *ds = v->d->sess[v->d->nsess - 1];

		ds->relay = relay;
		ds->has_relay = true;
		ds->relay_only = !out;
		ds->live_timer_us = live_us;
		if (hostname && !(ds->hostname = strdup(hostname)))
			return ERR("out of memory");
	}
	if (snapshot)
		fprintf(r->out, "Snapshot session %s created.\nDefault snapshot output set to %s\n", name, dir);
	else if (url || curl || durl) {
		char u[300];

		relay_url_format(&relay, u, sizeof(u));
		fprintf(r->out, "%s %s created.\nTraces will be streamed to relayd %s%s%s\n",
			live_us ? "Live session" : "Session", name, u, out ? " and written to " : "", out ? dir : "");
		if (live_us)
			fprintf(r->out, "Live timer interval set to %u us\n", live_us);
	} else
		fprintf(r->out, "Session %s created.\nTraces will be output to %s\n", name, dir);
	if (metrics)
		fprintf(r->out, "Metrics of %s written to %s/metrics.prom at stop\n", mpath, dir);
	if (listen)
		fprintf(r->out, "Metrics served at http://%s/metrics once started\n", listen);
	if (spans)
		fprintf(r->out, "Spans of %s sent to %s while it runs\n", spath,
			scry_otlp_endpoint(v->d->sess[v->d->nsess - 1]->cap->m.exp));
	r->set_session = v->d->sess[v->d->nsess - 1]->name;
out:
	dsession_free(ns);
	free(mpath);
	free(spath);
	free(dir);
	return ret;
}

static int clear_current(struct dreply *r, const char *name)
{
	char **v = realloc(r->cleared, (r->ncleared + 1) * sizeof(*v));

	if (!v || !(v[r->ncleared] = strdup(name)))
		return -ENOMEM;
	r->cleared = v;
	r->ncleared++;
	return 0;
}

int destroy_one(struct verb_ctx *v, struct dsession *s)
{
	struct dreply *r = v->r;
	bool was_started = s->state == D_STARTED;
	char name[256];

	snprintf(name, sizeof(name), "%s", s->name);
	if (was_started) {
		char err[512];

		if (dsession_stop(v->d, s, err, sizeof(err)))
			fprintf(r->out, "Session %s: %s\n", name, err);
	}
	dsession_destroy(v->d, s);
	clear_current(r, name);
	fprintf(r->out, "Session %s destroyed.\n", name);
	return 0;
}

static int verb_destroy(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = { { "all", no_argument, NULL, 'a' }, { 0 } };
	struct dreply *r = v->r;
	bool all = false;
	int opt;

	while ((opt = getopt_long(argc, argv, ":a", lo, NULL)) != -1) {
		if (opt != 'a')
			return bad_option(v, argc, argv);
		all = true;
	}
	if (all) {       /* the caller's sessions (root: every one) */
		if (optind < argc)
			return ERR("destroy: -a and a session name are exclusive");
		for (size_t i = 0; i < v->d->nsess;)
			if (dpeer_owns(v->peer, v->d->sess[i]))
				destroy_one(v, v->d->sess[i]);
			else
				i++;
		return 0;
	}
	if (optind + 1 < argc)
		return ERR("destroy: unexpected argument '%s' (scry destroy --help)", argv[optind + 1]);
	struct dsession *s = target(v, optind < argc ? argv[optind] : NULL);
	return s ? destroy_one(v, s) : -ENOENT;
}

static int verb_start_stop(struct verb_ctx *v, int argc, char **argv, bool start)
{
	struct dreply *r = v->r;
	struct dsession *s;
	int ret;

	if (argc > 1 && argv[1][0] == '-')
		return ERR("%s: invalid option '%s' (scry %s --help)", v->verb, argv[1], v->verb);
	if (argc > 2)
		return ERR("%s: unexpected argument '%s'", v->verb, argv[2]);
	if (!(s = target(v, argc > 1 ? argv[1] : NULL)))
		return -ENOENT;
	if (!start && s->state != D_STARTED)
		return ERR("session '%s' is not started", s->name);
	if (start) {
		if ((ret = dsession_start(v->d, s, r->err, r->errlen)))
			return ret;
		fprintf(r->out, "Tracing started for session %s\n", s->name);
		return 0;
	}
	ret = dsession_stop(v->d, s, r->err, r->errlen);
	if (ret && s->state != D_STOPPED)
		return ret;
	if (s->snapshot)
		fprintf(r->out, "Tracing stopped for session %s: %llu events seen, %llu discarded; %u snapshot(s) "
			"recorded in %s\n", s->name, (unsigned long long)s->sum.events,
			(unsigned long long)s->sum.discarded, s->nsnapshots, s->dir);
	else
		fprintf(r->out, "Tracing stopped for session %s: %llu events recorded, %llu discarded, %llu lost; "
			"trace in %s\n", s->name, (unsigned long long)s->sum.events,
			(unsigned long long)s->sum.discarded, (unsigned long long)s->sum.lost, s->dir);
	if (s->has_relay)
		fprintf(r->out, "%llu packets (%llu events) streamed to %s\n", (unsigned long long)s->sum.relay_packets,
			(unsigned long long)s->sum.relay_events, s->relay_only ? s->dir : "the relay");
	if (!ret)
		ret = dsession_relay_loss(s, r->err, r->errlen);   /* stopped, but the relay's copy lacks some */
	if (s->sum.clamped)
		fprintf(r->out, "%llu events' times raised to keep the stream ordered\n",
			(unsigned long long)s->sum.clamped);
	if (!ret && s->sum.write_error)    /* stopped, but the trace is incomplete: say so, fail */
		ret = ERR("session '%s': %s after %llu events: the trace ends at its last complete packet; "
			  "%llu events lost", s->name, s->sum.write_error == -ENOSPC || s->sum.write_error == -EDQUOT ?
			  "disk full" : strerror(-s->sum.write_error), (unsigned long long)s->sum.events,
			  (unsigned long long)(s->sum.lost - s->sum.too_big));
	return ret;
}

static int verb_list(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = { { "channel", required_argument, NULL, 'c' },
					    { "domain", no_argument, NULL, 'd' }, { "kernel", no_argument, NULL, 'k' },
					    { 0 } };
	struct dreply *r = v->r;
	struct dsession *s;
	const char *channel = NULL;
	bool domains = false;
	int opt;

	while ((opt = getopt_long(argc, argv, ":c:dk", lo, NULL)) != -1) {
		if (opt == 'c')
			channel = optarg;
		else if (opt == 'd')
			domains = true;
		else if (opt != 'k')
			return bad_option(v, argc, argv);
	}
	if (optind + 1 < argc)
		return ERR("list: unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		if (!(s = target(v, argv[optind])))
			return -ENOENT;
		if (domains)     /* lttng's: -d wins over -c */
			dsession_describe_domains(s, r->out);
		else if (channel && dsession_describe_channel(s, channel, r->out))
			return ERR("Channel %s not found", channel);
		else if (!channel)
			dsession_describe(s, r->out);
		return 0;
	}
	/* the caller's sessions; root sees every one, and whose */
	size_t k = 0;

	for (size_t i = 0; i < v->d->nsess; i++) {
		s = v->d->sess[i];
		if (!dpeer_owns(v->peer, s))
			continue;
		if (!k++)
			fprintf(r->out, "Available recording sessions:\n");
		fprintf(r->out, "  %zu) %s [%s]%s\n     Trace output: %s\n", k, s->name,
			s->state == D_STARTED ? "active" : s->state == D_STOPPED ? "stopped" : "inactive",
			v->current && !strcmp(v->current, s->name) ? " (current)" : "",
			s->relay_only ? dsession_relay_output(s) : s->dir);
		if (s->live_timer_us)        /* lttng's line */
			fprintf(r->out, "     Live timer interval: %u us\n", s->live_timer_us);
		if (dpeer_is_root(v->peer))
			fprintf(r->out, "     Owner: %s (uid %u)\n", s->owner_name[0] ? s->owner_name : "root",
				(unsigned)s->owner.uid);
		fprintf(r->out, "\n");
	}
	if (!k) {
		fprintf(r->out, "Currently no available recording session\n");
		return 0;
	}
	fprintf(r->out, "Use scry list <session_name> for more details\n");
	return 0;
}

static int verb_status(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (argc > 1)
		return ERR("status: unexpected argument '%s' (the current session; scry list NAME for another)", argv[1]);
	if (!(s = target(v, NULL)))
		return -ENOENT;
	dsession_describe(s, r->out);
	return 0;
}

static int verb_set_session(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (argc != 2 || argv[1][0] == '-')
		return ERR("set-session: give one session name (scry set-session --help)");
	if (!(s = target(v, argv[1])))
		return -ENOENT;
	r->set_session = s->name;
	fprintf(r->out, "Session set to %s\n", s->name);
	return 0;
}

int daemon_verb(struct daemon *d, char **argv, int argc, const struct dpeer *peer, const char *current,
		const char *const *env, struct dreply *r)
{
	struct verb_ctx v = { .d = d, .peer = peer, .current = current && *current ? current : NULL,
			      .env = env, .r = r, .verb = argc ? argv[0] : "" };

	if (!argc) {
		snprintf(r->err, r->errlen, "empty command");
		return -EINVAL;
	}
	optind = 0;      /* getopt re-initialised for this argv */
	opterr = 0;
	optopt = 0;
	/* lttng's --no-wait (destroy, stop, rotate: return before the data is flushed): taken,
	 * and the verb still returns once its trace is complete (a few ms) */
	if (!strcmp(v.verb, "destroy") || !strcmp(v.verb, "stop") || !strcmp(v.verb, "rotate")) {
		for (int i = 1; i < argc;) {
			if (!strcmp(argv[i], "--no-wait")) {
				memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(*argv));
				argc--;
			} else {
				i++;
			}
		}
	}
	if (!strcmp(v.verb, "create"))
		return verb_create(&v, argc, argv);
	if (!strcmp(v.verb, "destroy"))
		return verb_destroy(&v, argc, argv);
	if (!strcmp(v.verb, "enable-channel"))
		return verb_enable_channel(&v, argc, argv);
	if (!strcmp(v.verb, "disable-channel"))
		return verb_disable_channel(&v, argc, argv);
	if (!strcmp(v.verb, "enable-event"))
		return verb_event(&v, argc, argv, true);
	if (!strcmp(v.verb, "disable-event"))
		return verb_event(&v, argc, argv, false);
	if (!strcmp(v.verb, "add-context"))
		return verb_add_context(&v, argc, argv);
	if (!strcmp(v.verb, "track"))
		return verb_track(&v, argc, argv, true);
	if (!strcmp(v.verb, "untrack"))
		return verb_track(&v, argc, argv, false);
	if (!strcmp(v.verb, "start"))
		return verb_start_stop(&v, argc, argv, true);
	if (!strcmp(v.verb, "stop"))
		return verb_start_stop(&v, argc, argv, false);
	if (!strcmp(v.verb, "list"))
		return verb_list(&v, argc, argv);
	if (!strcmp(v.verb, "status"))
		return verb_status(&v, argc, argv);
	if (!strcmp(v.verb, "rotate"))
		return verb_rotate(&v, argc, argv);
	if (!strcmp(v.verb, "enable-rotation"))
		return verb_rotation(&v, argc, argv, true);
	if (!strcmp(v.verb, "disable-rotation"))
		return verb_rotation(&v, argc, argv, false);
	if (!strcmp(v.verb, "snapshot"))
		return verb_snapshot(&v, argc, argv);
	if (!strcmp(v.verb, "save"))
		return verb_save(&v, argc, argv);
	if (!strcmp(v.verb, "load"))
		return verb_load(&v, argc, argv);
	if (!strcmp(v.verb, "view"))
		return verb_view(&v, argc, argv);
	if (!strcmp(v.verb, "set-session"))
		return verb_set_session(&v, argc, argv);
	if (!strcmp(v.verb, "regenerate"))
		return verb_regenerate(&v, argc, argv);
	snprintf(r->err, r->errlen, "unknown command '%.64s'", v.verb);
	return -EINVAL;
}
