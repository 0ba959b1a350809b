/* verbs.c — the daemon's side of each control verb (ctl/verbs.h lists them and their
 * --help): its options parsed as LTTng's command of the same name takes them, then the
 * session's configuration changed (sessions.c) or the started engine session driven. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>
#include "daemon/daemon_int.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/proc.h"

/* The reason of a refusal into r->err: -EINVAL. */
static int __attribute__((format(printf, 2, 3))) refuse(struct dreply *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}
#define ERR(...) refuse(r, __VA_ARGS__)

struct verb_ctx {
	struct daemon *d;
	const char *cwd, *home, *current;
	const char *const *env;        /* the caller's OTEL_* variables */
	struct dreply *r;
	const char *verb;
};

/* getopt over the request's argv: opterr off, the offending option named in the reason. */
static int bad_option(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	const char *opt = optind - 1 < argc && optind >= 1 ? argv[optind - 1] : "?";

	if (optopt && strchr("oscti", optopt) && opt[0] == '-' && opt[1] == optopt && !opt[2])
		return ERR("%s: option '%s' needs a value (scry %s --help)", v->verb, opt, v->verb);
	return ERR("%s: invalid option '%s' (scry %s --help)", v->verb, opt, v->verb);
}

static bool valid_name(const char *n)
{
	if (!*n || strlen(n) > 200 || n[0] == '.' || n[0] == '-')
		return false;
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
		      *n == '_' || *n == '-' || *n == '.'))
			return false;
	return true;
}

/* The session a verb acts on: -s NAME, else the caller's current one. */
static struct dsession *target(struct verb_ctx *v, const char *name)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (!name && !(name = v->current)) {
		ERR("no current session: create one (scry create) or choose one (scry set-session NAME)");
		return NULL;
	}
	if (!(s = dsession_find(v->d, name)))
		ERR("session '%s' not found%s (scry list shows the sessions)", name,
		    name == v->current ? " (the current one, from ~/.scryrc)" : "");
	return s;
}

/* The engine session is loaded (started, or stopped and kept): changes go to its verbs. */
static bool loaded(const struct dsession *s)
{
	return s->state != D_CREATED && s->eng;
}

/* Every state takes changes (a stopped session's engine is kept, as LTTng's); what a
 * loaded session refuses, each verb says. */
static int changeable(struct verb_ctx *v, struct dsession *s)
{
	return 0;
}

static int resolve_path(struct verb_ctx *v, const char *path, char **out)
{
	if (path[0] == '/')
		*out = strdup(path);
	else if (asprintf(out, "%s/%s", v->cwd ? v->cwd : "/", path) < 0)
		*out = NULL;
	return *out ? 0 : -ENOMEM;
}

static bool dir_unusable(const char *dir, char *why, size_t len)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (stat(dir, &st) < 0)
		return false;
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "output '%s' exists and is not a directory", dir);
		return true;
	}
	if (!(d = opendir(dir)))
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(why, len, "output directory '%s' exists and is not empty: refusing to overwrite it", dir);
			closedir(d);
			return true;
		}
	closedir(d);
	return false;
}

static int verb_create(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "snapshot", no_argument, NULL, 'S' },
		{ "kernel", no_argument, NULL, 'k' }, { "clock", required_argument, NULL, 'C' },
		{ "metrics", required_argument, NULL, 'M' }, { "spans", required_argument, NULL, 'P' },
		{ "listen", required_argument, NULL, 'L' }, { "max-pid-sets", required_argument, NULL, 256 }, { 0 } };
	struct dreply *r = v->r;
	const char *out = NULL, *name = NULL, *metrics = NULL, *spans = NULL, *listen = NULL;
	char *mpath = NULL, *spath = NULL;
	struct dsession *ns = NULL;
	bool snapshot = false;
	unsigned clock = SCRY_CLOCK_MONOTONIC, max_pid_sets = SCRY_DEFAULT_PID_SETS;
	char *end;
	char autoname[64], stamp[32], *dir = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":o:k", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'k': break;
		case 'S': snapshot = true; break;
		case 'M': metrics = optarg; break;
		case 'P': spans = optarg; break;
		case 'L': listen = optarg; break;
		case 'C':
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
		default: return bad_option(v, argc, argv);
		}
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
	if (!valid_name(name))
		return ERR("invalid session name '%s' (letters, digits, '_', '-', '.')", name);
	if (snapshot && (metrics || spans))
		return ERR("create: --metrics and --spans feed a session that writes its trace, not a snapshot session");
	if (listen && !metrics)
		return ERR("create: --listen serves the metrics of --metrics FILE: give one");
	if (dsession_find(v->d, name))
		return ERR("session '%s' already exists", name);
	if (out)
		ret = resolve_path(v, out, &dir);
	else
		ret = asprintf(&dir, "%s/scry-traces/%s-%s", v->home && *v->home ? v->home : "/root", name,
			       stamp) < 0 ? -ENOMEM : 0;
	if (ret)
		return ERR("out of memory");
	for (size_t i = 0; i < v->d->nsess; i++)
		if (!strcmp(v->d->sess[i]->dir, dir)) {
			ret = ERR("output '%s' is the trace directory of session '%s'", dir, v->d->sess[i]->name);
			goto out;
		}
	if (!snapshot && dir_unusable(dir, r->err, r->errlen)) {   /* snapshots go in subdirectories */
		ret = -EEXIST;
		goto out;
	}
	if ((metrics && resolve_path(v, metrics, &mpath)) || (spans && resolve_path(v, spans, &spath))) {
		ret = ERR("out of memory");
		goto out;
	}
	if (!(ns = dsession_new(name, dir))) {
		ret = ERR("out of memory");
		goto out;
	}
	/* the configs checked (one line naming file:line:key), the exporter started with the
	 * caller's OTEL_* variables: nothing registered when they fail */
	if ((metrics || spans) && dfeed_attach(v->d, ns, mpath, spath, v->env, r->err, r->errlen)) {
		ret = -EINVAL;
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
	if (snapshot)
		fprintf(r->out, "Snapshot session %s created.\nDefault snapshot output set to %s\n", name, dir);
	else
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

static int destroy_one(struct verb_ctx *v, struct dsession *s)
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
	if (all) {
		if (optind < argc)
			return ERR("destroy: -a and a session name are exclusive");
		while (v->d->nsess)
			destroy_one(v, v->d->sess[0]);
		return 0;
	}
	if (optind + 1 < argc)
		return ERR("destroy: unexpected argument '%s' (scry destroy --help)", argv[optind + 1]);
	struct dsession *s = target(v, optind < argc ? argv[optind] : NULL);
	return s ? destroy_one(v, s) : -ENOENT;
}

/* Enable or disable existing channels (LTTng's disable-channel, and enable-channel of a
 * disabled one): a disabled channel's events are not recorded; it stays in the session, its
 * trace, list and save.  Before start the configuration; loaded, the engine's switch too. */
static int set_channels(struct verb_ctx *v, struct dsession *s, const char *list, bool on)
{
	struct dreply *r = v->r;
	char *names = strdup(list), *save = NULL, *tok;
	int ret = 0;

	if (!names)
		return ERR("out of memory");
	for (tok = strtok_r(names, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		struct dchannel *c = dsession_channel(s, tok);

		if (!c) {
			ret = ERR("no channel '%s' in session '%s'", tok, s->name);
			break;
		}
		if (c->disabled == !on) {
			ret = ERR("channel '%s' of session '%s' is already %s", tok, s->name, on ? "enabled" : "disabled");
			break;
		}
		if (s->eng && (ret = scry_session_enable_channel(s->eng, tok, on, r->err, r->errlen)) && ret != -ENOENT)
			break;      /* -ENOENT: no event yet, not in the engine session */
		ret = 0;
		c->disabled = !on;
		fprintf(r->out, "Kernel channel %s %s for session %s\n", tok, on ? "enabled" : "disabled", s->name);
	}
	free(names);
	return ret;
}

static int verb_disable_channel(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	struct dsession *s;
	int opt;

	while ((opt = getopt_long(argc, argv, ":kus:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("disable-channel: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind >= argc)
		return ERR("disable-channel: give a channel name (scry disable-channel --help)");
	if (optind + 1 < argc)
		return ERR("disable-channel: unexpected argument '%s' (channel names are comma-separated)", argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	return set_channels(v, s, argv[optind], false);
}

/* LTTng rounds sub-buffer sizes and counts up to powers of two; a CPU's buffer is their
 * product, at least a page. */
static int verb_enable_channel(struct verb_ctx *v, int argc, char **argv)
{
	enum { O_DISCARD = 256, O_OVERWRITE, O_SUBBUF, O_NUMSUB, O_TFSIZE, O_TFCOUNT };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "discard", no_argument, NULL, O_DISCARD },
		{ "overwrite", no_argument, NULL, O_OVERWRITE }, { "subbuf-size", required_argument, NULL, O_SUBBUF },
		{ "num-subbuf", required_argument, NULL, O_NUMSUB }, { "tracefile-size", required_argument, NULL, O_TFSIZE },
		{ "tracefile-count", required_argument, NULL, O_TFCOUNT }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	uint64_t subbuf = 0, nsub = 0, page = (uint64_t)sysconf(_SC_PAGESIZE), tfsize = 0, tfcount = 0;
	char mode = 0;
	struct dsession *s;
	struct dchannel *c;
	char *names, *save = NULL, *tok;
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, ":kus:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case O_DISCARD: mode = 'd'; break;
		case 'u': return ERR("enable-channel: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		case O_OVERWRITE: mode = 'o'; break;
		case O_SUBBUF:
			if (scry_parse_size(optarg, &subbuf) || !subbuf || subbuf > (1ULL << 30))
				return ERR("invalid sub-buffer size '%s' (expected e.g. 256K, 1M, up to 1G)", optarg);
			break;
		case O_NUMSUB: {
			char *end;

			errno = 0;
			nsub = strtoull(optarg, &end, 10);
			if (errno || *end || !nsub || nsub > 1024)
				return ERR("invalid sub-buffer count '%s' (expected 1 to 1024)", optarg);
			break;
		}
		case O_TFSIZE:
			if (scry_parse_size(optarg, &tfsize) || !tfsize)
				return ERR("invalid trace file size '%s' (expected e.g. 64M)", optarg);
			break;
		case O_TFCOUNT: {
			char *end;

			errno = 0;
			tfcount = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || !tfcount || tfcount > 1000000)
				return ERR("invalid trace file count '%s' (expected 1 to 1000000)", optarg);
			break;
		}
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind >= argc)
		return ERR("enable-channel: give a channel name (scry enable-channel --help)");
	if (optind + 1 < argc)
		return ERR("enable-channel: unexpected argument '%s'", argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (!strchr(argv[optind], ',') && dsession_channel(s, argv[optind])) {
		if (mode || subbuf || nsub || tfsize || tfcount)
			return ERR("channel '%s' already exists in session '%s': its attributes are set when it is "
				   "made", argv[optind], s->name);
		return set_channels(v, s, argv[optind], true);     /* LTTng: enabled again */
	}
	if (s->state != D_CREATED)
		return ERR("cannot add a channel to session '%s': it %s started (as LTTng, channels are added before start)",
			   s->name, s->state == D_STARTED ? "is" : "was");
	if (mode == 'o' && !s->snapshot)
		return ERR("enable-channel --overwrite: scry's overwrite channels are the flight recorders of snapshot "
			   "sessions (create --snapshot)");
	if (mode == 'd' && s->snapshot)
		return ERR("enable-channel --discard: the channels of snapshot session '%s' overwrite (they are kept "
			   "in memory until snapshot record)", s->name);
	subbuf = subbuf ? scry_pow2_at_least(subbuf, page) : 0;
	nsub = nsub ? scry_pow2_at_least(nsub, 1) : 0;
	if (tfcount && !tfsize)
		return ERR("enable-channel: --tracefile-count needs --tracefile-size");
	if (tfsize && s->snapshot)
		return ERR("enable-channel: the channels of snapshot session '%s' write no trace file to split", s->name);
	if (tfsize && tfsize < (subbuf ? subbuf : SCRY_DEFAULT_PACKET_SIZE))
		return ERR("enable-channel: a trace file size of %llu bytes is smaller than a sub-buffer (%llu bytes; "
			   "--subbuf-size sets it)", (unsigned long long)tfsize,
			   (unsigned long long)(subbuf ? subbuf : SCRY_DEFAULT_PACKET_SIZE));
	if ((subbuf || nsub) && (subbuf ? subbuf : 1ULL << 20) * (nsub ? nsub : 4) > (1ULL << 32))
		return ERR("enable-channel: a buffer of more than 4G per CPU");
	if (!(names = strdup(argv[optind])))
		return ERR("out of memory");
	for (tok = strtok_r(names, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		if (!valid_name(tok)) {
			ret = ERR("invalid channel name '%s' (letters, digits, '_', '-', '.')", tok);
			break;
		}
		if (dsession_channel(s, tok)) {
			ret = ERR("channel '%s' already exists in session '%s'", tok, s->name);
			break;
		}
		if (dsession_add_channel(s, tok, &c)) {
			ret = ERR("out of memory");
			break;
		}
		if (subbuf || nsub || s->snapshot) {
			c->subbuf_size = subbuf ? subbuf : 1ULL << 20;
			c->num_subbuf = nsub ? nsub : 4;
			c->ring_size = (size_t)(c->subbuf_size * c->num_subbuf);
		}
		c->tracefile_size = tfsize;
		c->tracefile_count = tfcount;
		fprintf(r->out, "Kernel channel %s enabled for session %s\n", tok, s->name);
	}
	free(names);
	return ret;
}

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
static int apply_op(struct verb_ctx *v, struct dsession *s, struct dchannel *c, bool enable, const char *spec)
{
	struct dreply *r = v->r;
	int ret;

	if (loaded(s)) {
		ret = enable ? scry_session_enable_event(s->eng, c->name, spec, r->err, r->errlen)
			     : scry_session_disable_event(s->eng, c->name, spec, r->err, r->errlen);
		if (enable && dfeed_rebind(s)) {    /* the span channel's events may have moved */
			scry_log(SCRY_LOG_INFO, "scryd: session %s: the process spans lost their events' channel",
				 s->name);
		}
		if (ret)
			return ret;
		return dchannel_add_op(c, enable, spec) ? ERR("out of memory") : 0;
	}
	if (dchannel_add_op(c, enable, spec))
		return ERR("out of memory");
	ret = dsession_rebuild(v->d, s, r->err, r->errlen);
	if (ret) {
		char e2[256];

		free(c->ops[--c->nops].spec);       /* the configuration as it was */
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

static int verb_event(struct verb_ctx *v, int argc, char **argv, bool enable)
{
	enum { O_SYSCALL = 256, O_TRACEPOINT, O_FILTER, O_PID };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "jul", no_argument, NULL, 'j' }, { "log4j", no_argument, NULL, 'l' }, { "python", no_argument, NULL, 'p' },
		{ "session", required_argument, NULL, 's' }, { "channel", required_argument, NULL, 'c' },
		{ "syscall", no_argument, NULL, O_SYSCALL }, { "tracepoint", no_argument, NULL, O_TRACEPOINT },
		{ "all", no_argument, NULL, 'a' }, { "filter", required_argument, NULL, O_FILTER },
		{ "pid", required_argument, NULL, O_PID }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *chan = NULL, *filter = NULL, *pidlist = NULL, *domain = NULL;
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
	if (enable && (filter || s->filter) && !(filter && s->filter && !strcmp(filter, s->filter))) {
		if (s->filter)
			return ERR("session '%s' has the filter '%s': its events share one filter (every enable-event "
				   "gives it, per-event filters are not supported yet)", s->name, s->filter);
		if (s->eng || s->state != D_CREATED)
			return ERR("a filter must come with the session's first enable-event (its events share one "
				   "filter; per-event filters are not supported yet)");
	}
	if (pidlist && (ret = parse_pids(v, pidlist, &pids, &npids)))
		return ret;
	if (pidlist) {
		ret = pid_event(v, s, chan, enable, all, syscall, optind < argc ? argv[optind] : NULL, pids, npids);
		free(pids);
		return ret;
	}
	if (!(c = event_channel(v, s, chan, enable, &made)))
		return -ENOENT;
	if (filter && !s->filter && !(s->filter = strdup(filter)))
		return ERR("out of memory");
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
			ret = specs[k] ? apply_op(v, s, c, false, specs[k]) : ERR("out of memory");
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
			ret = apply_op(v, s, c, true, both[i]);
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
		char *spec = spec_of(tok, syscall);

		if (!spec) {
			ret = ERR("out of memory");
			break;
		}
		if (!enable && !rule_enabled(c, spec))
			ret = ERR("no enabled event rule '%s' in channel '%s' (disable-event names a rule as "
				  "enable-event gave it)", tok, c->name);
		else
			ret = apply_op(v, s, c, enable, spec);
		if (!ret)
			fprintf(r->out, "Kernel %s %s %s in channel %s\n", syscall ? "syscall" : "event", tok,
				enable ? "enabled" : "disabled", c->name);
		free(spec);
	}
out:
	if (ret && made && !c->nops)
		dsession_drop_channel(s, c);       /* channel0 made for nothing */
	if (ret && s->filter && filter && !s->eng && s->state == D_CREATED) {
		bool used = false;       /* the filter came with this command and nothing took it */

		for (size_t i = 0; i < s->nchans; i++)
			used |= s->chans[i].nops > 0;
		if (!used) {
			free(s->filter);
			s->filter = NULL;
		}
	}
	free(list);
	return ret;
}

static int verb_add_context(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "channel", required_argument, NULL, 'c' },
		{ "type", required_argument, NULL, 't' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *chan = NULL;
	uint64_t mask = 0;
	struct dsession *s;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":kus:c:t:", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("add-context: scry records the kernel domain only (-k)");
		case 's': sname = optarg; break;
		case 'c': chan = optarg; break;
		case 't': {
			const char *n = optarg;
			int k;

			if (!strncmp(n, "$ctx.", 5))
				n += 5;
			if ((k = scry_context_by_name(n)) < 0) {
				char why[256];

				scry_context_unknown(optarg, why, sizeof(why));
				return ERR("%s", why);
			}
			mask |= 1ULL << k;
			break;
		}
		default: return bad_option(v, argc, argv);
		}
	}
	if (!mask)
		return ERR("add-context: give a context type with -t (scry add-context --help)");
	if (optind < argc)
		return ERR("add-context: unexpected argument '%s'", argv[optind]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (s->state != D_CREATED)
		return ERR("cannot add a context to session '%s': it %s started (contexts are set before start, "
			   "as LTTng's kernel domain does)", s->name, s->state == D_STARTED ? "is" : "was");
	if (chan && !dsession_channel(s, chan))
		return ERR("no channel '%s' in session '%s'", chan, s->name);
	if (!s->nchans && !chan) {
		struct dchannel *c;

		if (dsession_add_channel(s, SCRY_DEFAULT_CHANNEL, &c))
			return ERR("out of memory");
	}
	for (size_t i = 0; i < s->nchans; i++)
		if (!chan || !strcmp(chan, s->chans[i].name))
			s->chans[i].ctx_mask |= mask;
	if ((ret = dsession_rebuild(v->d, s, r->err, r->errlen)))
		return ret;
	for (unsigned k = 0; k < SCRY_CTX_NR; k++)
		if (mask & (1ULL << k))
			fprintf(r->out, "Kernel context %s added to %s%s\n", scry_context(k)->name,
				chan ? "channel " : "all channels", chan ? chan : "");
	return 0;
}

/* A tracker's values: numbers (0 included), users' or groups' names for kind 'u'/'g'. */
static int parse_ids(const char *list, char kind, uint32_t **out, size_t *n)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v;
		uint32_t *nv;

		errno = 0;
		v = strtoul(tok, &end, 10);
		if (*end || errno || v > UINT32_MAX || tok[0] == '-') {
			struct passwd *pw = kind == 'u' ? getpwnam(tok) : NULL;
			struct group *gr = kind == 'g' ? getgrnam(tok) : NULL;

			if (!pw && !gr) {
				ret = -EINVAL;
				break;
			}
			v = pw ? pw->pw_uid : gr->gr_gid;
		}
		if (!(nv = realloc(*out, (*n + 1) * sizeof(**out)))) {
			ret = -ENOMEM;
			break;
		}
		*out = nv;
		nv[(*n)++] = (uint32_t)v;
	}
	free(copy);
	if (!ret && !*n)
		ret = -EINVAL;
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

static int add_u32s(uint32_t **v, size_t *n, const char *list, char kind, bool add)
{
	uint32_t *vals = NULL;
	size_t nv = 0;
	int ret = parse_ids(list, kind, &vals, &nv);

	if (ret)
		return ret;
	for (size_t i = 0; i < nv; i++) {
		size_t k;

		for (k = 0; k < *n && (*v)[k] != (uint32_t)vals[i]; k++)
			;
		if (add && k == *n) {
			uint32_t *nvv = realloc(*v, (*n + 1) * sizeof(**v));

			if (!nvv) {
				free(vals);
				return -ENOMEM;
			}
			*v = nvv;
			(*v)[(*n)++] = (uint32_t)vals[i];
		} else if (!add && k < *n) {
			(*v)[k] = (*v)[--*n];
		}
	}
	free(vals);
	return 0;
}

static int verb_track(struct verb_ctx *v, int argc, char **argv, bool add)
{
	enum { O_PID = 256, O_VPID, O_UID, O_GID };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "pid", required_argument, NULL, O_PID },
		{ "vpid", required_argument, NULL, O_VPID }, { "uid", required_argument, NULL, O_UID },
		{ "gid", required_argument, NULL, O_GID }, { "all", no_argument, NULL, 'a' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *lists[4] = { 0 };
	static const char *const kinds[4] = { "pid", "vpid", "uid", "gid" };
	bool all = false;
	struct dsession *s;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":kus:a", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("%s: scry records the kernel domain only (-k)", v->verb);
		case 's': sname = optarg; break;
		case O_PID: case O_VPID: case O_UID: case O_GID: lists[opt - O_PID] = optarg; break;
		case 'a':
			if (add)
				return ERR("track: -a: a session without a tracker records every process already");
			all = true;
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind < argc)
		return ERR("%s: unexpected argument '%s' (scry %s --help)", v->verb, argv[optind], v->verb);
	if (!all && !lists[0] && !lists[1] && !lists[2] && !lists[3])
		return ERR("%s: give --pid, --vpid, --uid or --gid (scry %s --help)", v->verb, v->verb);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (loaded(s)) {
		pid_t *pids = NULL;
		size_t n = 0;

		if (!add || lists[1] || lists[2] || lists[3])
			return ERR("%s: session '%s' %s started: only track --pid changes a started session",
				   v->verb, s->name, s->state == D_STARTED ? "is" : "was");
		if (!s->npids)
			return ERR("track --pid: session '%s' was started recording every process (track before start)",
				   s->name);
		if (scry_parse_pids(lists[0], &pids, &n))
			return ERR("invalid pid list '%s' (expected PID[,PID...])", lists[0]);
		for (size_t i = 0; i < n && !ret; i++)
			ret = scry_session_track(s->eng, pids[i], r->err, r->errlen);
		free(pids);
		if (!ret && add_u32s((uint32_t **)&s->pids, &s->npids, lists[0], 'p', true))
			ret = ERR("out of memory");
		if (!ret)
			fprintf(r->out, "PID %s added to the pid tracker of session %s\n", lists[0], s->name);
		return ret;
	}
	if (all) {
		s->npids = s->nvpids = s->nuids = s->ngids = 0;
		fprintf(r->out, "Every tracker of session %s removed: every process is recorded\n", s->name);
		return dsession_rebuild(v->d, s, r->err, r->errlen);
	}
	uint32_t **vals[4] = { (uint32_t **)&s->pids, &s->vpids, &s->uids, &s->gids };
	size_t *ns[4] = { &s->npids, &s->nvpids, &s->nuids, &s->ngids };

	for (int k = 0; k < 4; k++) {
		if (!lists[k])
			continue;
		if (k == 0 && add) {     /* a pid must name a process now (its children follow it) */
			pid_t *pids = NULL;
			size_t n = 0;

			if (scry_parse_pids(lists[0], &pids, &n))
				return ERR("invalid pid list '%s' (expected PID[,PID...])", lists[0]);
			for (size_t i = 0; i < n; i++)
				if (kill(pids[i], 0) < 0 && errno == ESRCH) {
					ret = ERR("no process with pid %d", (int)pids[i]);
					free(pids);
					return ret;
				}
			free(pids);
		}
		ret = add_u32s(vals[k], ns[k], lists[k], "ppug"[k], add);
		if (ret == -EINVAL)
			return ERR("invalid %s list '%s' (expected %s, comma-separated)", kinds[k], lists[k],
				   k == 2 ? "user ids or names" : k == 3 ? "group ids or names" : "numbers");
		if (ret)
			return ERR("out of memory");
		fprintf(r->out, "%s %s %s the %s tracker of session %s\n", kinds[k], lists[k],
			add ? "added to" : "removed from", kinds[k], s->name);
	}
	return dsession_rebuild(v->d, s, r->err, r->errlen);
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
	if (!ret && s->sum.write_error)    /* stopped, but the trace is incomplete: say so, fail */
		ret = ERR("session '%s': %s after %llu events: the trace ends at its last complete packet; "
			  "%llu events lost", s->name, s->sum.write_error == -ENOSPC || s->sum.write_error == -EDQUOT ?
			  "disk full" : strerror(-s->sum.write_error), (unsigned long long)s->sum.events,
			  (unsigned long long)(s->sum.lost - s->sum.too_big));
	return ret;
}

/* snapshot record: LTTng's snapshot-N-YYYYmmdd-HHMMSS under the session's output (or PATH). */
static int verb_snapshot(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "session", required_argument, NULL, 's' }, { "name", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *name = "snapshot";
	uint64_t max = 0, bytes = 0;
	struct dsession *s;
	char stamp[32], *base = NULL, *dir = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int opt, ret;

	if (argc < 2 || strcmp(argv[1], "record"))
		return ERR("snapshot: the action is 'record' (scry snapshot --help)");
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, ":s:n:m:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': sname = optarg; break;
		case 'n':
			if (!valid_name(optarg))
				return ERR("invalid snapshot name '%s' (letters, digits, '_', '-', '.')", optarg);
			name = optarg;
			break;
		case 'm':
			if (scry_parse_size(optarg, &max) || !max)
				return ERR("invalid maximum size '%s' (expected e.g. 4M, 1G)", optarg);
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind + 1 < argc)
		return ERR("snapshot record: unexpected argument '%s'", argv[optind + 1]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if (!s->snapshot)
		return ERR("session '%s' is not a snapshot session (create --snapshot)", s->name);
	if (!loaded(s))
		return ERR("session '%s' is not started: a snapshot writes what a started session's buffers hold",
			   s->name);
	if (optind < argc) {
		const char *p = !strncmp(argv[optind], "file://", 7) ? argv[optind] + 7 : argv[optind];

		if (strstr(argv[optind], "://") && strncmp(argv[optind], "file://", 7))
			return ERR("snapshot record: scry writes local snapshots only (file:// or a path)");
		if (resolve_path(v, p, &base))
			return ERR("out of memory");
	} else if (!(base = strdup(s->dir))) {
		return ERR("out of memory");
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (asprintf(&dir, "%s/%s-%u-%s", base, name, s->nsnapshots + 1, stamp) < 0) {
		free(base);
		return ERR("out of memory");
	}
	mkdir(base, 0755);     /* the session's output, made with its first snapshot */
	ret = scry_session_snapshot(s->eng, dir, max, &bytes, r->err, r->errlen);
	if (!ret) {
		s->nsnapshots++;
		free(s->last_snapshot);
		s->last_snapshot = strdup(dir);
		fprintf(r->out, "Snapshot recorded successfully for session %s in %s (%llu bytes)\n", s->name, dir,
			(unsigned long long)bytes);
	}
	free(base);
	free(dir);
	return ret;
}

static int verb_rotate(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = { { "session", required_argument, NULL, 's' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	struct dsession *s;
	char archive[4096];
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":s:", lo, NULL)) != -1) {
		if (opt != 's')
			return bad_option(v, argc, argv);
		sname = optarg;
	}
	if (optind + 1 < argc)
		return ERR("rotate: unexpected argument '%s'", argv[optind + 1]);
	if (!(s = target(v, optind < argc ? argv[optind] : sname)))
		return -ENOENT;
	if ((ret = dsession_rotate(s, archive, sizeof(archive), r->err, r->errlen)))
		return ret;
	fprintf(r->out, "Trace chunk archive for session %s is now readable at %s\n", s->name, archive);
	return 0;
}

/* LTTng's `regenerate statedump`: a new statedump in a started session's trace.  LTTng's
 * `regenerate metadata` has nothing to do here (scry rewrites the metadata whole at each
 * change): refused with that reason. */
static int verb_regenerate(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = { { "session", required_argument, NULL, 's' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	struct dsession *s;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":s:", lo, NULL)) != -1) {
		if (opt != 's')
			return bad_option(v, argc, argv);
		sname = optarg;
	}
	if (optind >= argc)
		return ERR("regenerate: say what to regenerate: statedump (scry regenerate --help)");
	if (optind + 1 < argc)
		return ERR("regenerate: unexpected argument '%s'", argv[optind + 1]);
	if (!strcmp(argv[optind], "metadata"))
		return ERR("regenerate metadata: not needed: scry rewrites a trace's metadata whole at each change");
	if (strcmp(argv[optind], "statedump"))
		return ERR("regenerate: unknown item '%s' (statedump)", argv[optind]);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if (s->state != D_STARTED)
		return ERR(s->state == D_STOPPED ? "session '%s' is stopped: its trace is complete" :
			   "session '%s' is not started: its statedump is written when it starts", s->name);
	if ((ret = scry_session_statedump(s->eng, r->err, r->errlen))) {
		char why[512];

		snprintf(why, sizeof(why), "%s", r->err);
		return ERR("session '%s': %s", s->name, why);
	}
	fprintf(r->out, "Statedump successfully regenerated for session %s\n", s->name);
	return 0;
}

static int verb_rotation(struct verb_ctx *v, int argc, char **argv, bool enable)
{
	enum { O_TIMER = 256, O_SIZE };
	const struct option lo[] = {
		{ "session", required_argument, NULL, 's' }, { "timer", enable ? required_argument : no_argument, NULL, O_TIMER },
		{ "size", enable ? required_argument : no_argument, NULL, O_SIZE }, { 0, 0, 0, 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL;
	bool timer = false, size = false;
	uint64_t timer_ns = 0, bytes = 0;
	struct dsession *s;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":s:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': sname = optarg; break;
		case O_TIMER: {
			double secs;

			timer = true;
			if (enable && (scry_parse_duration(optarg, &secs) || secs < 0.01 || secs > 1e7))
				return ERR("invalid rotation period '%s' (expected e.g. 30s, 500ms, 2m; at least 10ms)", optarg);
			if (enable)
				timer_ns = (uint64_t)(secs * 1e9);
			break;
		}
		case O_SIZE:
			size = true;
			if (enable && (scry_parse_size(optarg, &bytes) || bytes < 4096))
				return ERR("invalid rotation size '%s' (expected e.g. 64M, at least 4K)", optarg);
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind < argc)
		return ERR("%s: unexpected argument '%s'", v->verb, argv[optind]);
	if (!timer && !size)
		return ERR("%s: give --timer or --size (scry %s --help)", v->verb, v->verb);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (s->snapshot)
		return ERR("session '%s' is a snapshot session: it writes no trace to rotate", s->name);
	if (timer)
		s->rot_timer_ns = timer_ns;
	if (size)
		s->rot_size = bytes;
	dsession_rotation_timers(v->d, s);
	if (timer && enable)
		fprintf(r->out, "Rotation every %.3f s enabled for session %s\n", timer_ns / 1e9, s->name);
	if (size && enable)
		fprintf(r->out, "Rotation every %llu bytes enabled for session %s\n", (unsigned long long)bytes, s->name);
	if (timer && !enable)
		fprintf(r->out, "Timer rotation disabled for session %s\n", s->name);
	if (size && !enable)
		fprintf(r->out, "Size rotation disabled for session %s\n", s->name);
	return 0;
}

static int verb_list(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (argc > 2)
		return ERR("list: unexpected argument '%s'", argv[2]);
	if (argc == 2) {
		if (!(s = dsession_find(v->d, argv[1])))
			return ERR("session '%s' not found (scry list shows the sessions)", argv[1]);
		dsession_describe(s, r->out);
		return 0;
	}
	if (!v->d->nsess) {
		fprintf(r->out, "Currently no available recording session\n");
		return 0;
	}
	fprintf(r->out, "Available recording sessions:\n");
	for (size_t i = 0; i < v->d->nsess; i++) {
		s = v->d->sess[i];
		fprintf(r->out, "  %zu) %s [%s]%s\n     Trace output: %s\n\n", i + 1, s->name,
			s->state == D_STARTED ? "active" : s->state == D_STOPPED ? "stopped" : "inactive",
			v->current && !strcmp(v->current, s->name) ? " (current)" : "", s->dir);
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

/* LTTng's default place for saved sessions is ~/.lttng/sessions; scry's ~/.scry/sessions. */
static int sessions_dir(struct verb_ctx *v, char **out)
{
	const char *home = v->home && *v->home ? v->home : "/root";

	return asprintf(out, "%s/.scry/sessions", home) < 0 ? -ENOMEM : 0;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int verb_save(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output-path", required_argument, NULL, 'o' }, { "force", no_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' }, { 0 } };
	struct dreply *r = v->r;
	const char *outp = NULL;
	bool force = false, all = false;
	struct dsession *one = NULL;
	char *base = NULL;
	int opt, ret = 0;

	while ((opt = getopt_long(argc, argv, ":o:fa", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': outp = optarg; break;
		case 'f': force = true; break;
		case 'a': all = true; break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind + 1 < argc || (all && optind < argc))
		return ERR("save: give one session name, or -a (scry save --help)");
	if (!all && !(one = target(v, optind < argc ? argv[optind] : NULL)))
		return -ENOENT;
	if (all && !v->d->nsess)
		return ERR("save -a: no session to save");
	if (outp ? resolve_path(v, outp, &base) : sessions_dir(v, &base))
		return ERR("out of memory");
	if (!outp) {          /* ~/.scry/sessions made as needed */
		char *dot = strdup(base);

		if (dot) {
			*strrchr(dot, '/') = 0;
			mkdir(dot, 0700);
			free(dot);
		}
		mkdir(base, 0700);
	}
	for (size_t i = 0; i < v->d->nsess && !ret; i++) {
		struct dsession *s = v->d->sess[i];
		char *file = NULL;

		if (!all && s != one)
			continue;
		/* PATH a directory (LTTng's -o): PATH/NAME.lttng; else the file itself */
		if (all || !outp || is_dir(base) ? asprintf(&file, "%s/%s.lttng", base, s->name) < 0
						 : !(file = strdup(base))) {
			ret = ERR("out of memory");
			break;
		}
		ret = dsession_save(s, file, force, r->err, r->errlen);
		if (!ret)
			fprintf(r->out, "Session %s saved successfully to %s\n", s->name, file);
		if (!ret && s->eng) {     /* nor for per-process event sets */
			struct scry_pid_sets_stats st;

			scry_session_pid_sets(s->eng, NULL, 0, &st);
			if (st.n)
				fprintf(r->out, "Note: its %zu per-process event set(s) are not saved (LTTng's session XML "
					"has no place for them): enable-event --pid them again after load\n", st.n);
		}
		if (!ret && s->clock)     /* session.xsd has no element for a tracer's clock */
			fprintf(r->out, "Note: its clock '%s' is not saved (LTTng's session XML has no place for it): "
				"load gives the monotonic clock\n", scry_clock_name(s->clock));
		if (!ret && s->metrics_file)   /* nor for what a session feeds beside its trace */
			fprintf(r->out, "Note: its --metrics %s is not saved (LTTng's session XML has no place for it): "
				"give it to create again\n", s->metrics_file);
		if (!ret && s->spans_file)
			fprintf(r->out, "Note: its --spans %s is not saved (LTTng's session XML has no place for it): "
				"give it to create again\n", s->spans_file);
		free(file);
	}
	free(base);
	return ret;
}

static int verb_load(struct verb_ctx *v, int argc, char **argv)
{
	enum { O_NAME = 256, O_URL };
	static const struct option lo[] = {
		{ "input-path", required_argument, NULL, 'i' }, { "force", no_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' }, { "override-name", required_argument, NULL, O_NAME },
		{ "override-url", required_argument, NULL, O_URL }, { 0 } };
	struct dreply *r = v->r;
	const char *inp = NULL, *only = NULL, *oname = NULL, *ourl = NULL;
	struct dsession **ss = NULL;
	bool force = false, *started = NULL;
	size_t n = 0;
	char *path = NULL, *odir = NULL;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, ":i:fa", lo, NULL)) != -1) {
		switch (opt) {
		case 'i': inp = optarg; break;
		case 'f': force = true; break;
		case 'a': break;
		case O_NAME: oname = optarg; break;
		case O_URL: ourl = optarg; break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind + 1 < argc)
		return ERR("load: unexpected argument '%s' (scry load --help)", argv[optind + 1]);
	if (optind < argc) {
		/* `scry load FILE` (a path) or LTTng's `load NAME [-i PATH]` */
		const char *a = argv[optind];

		if (!inp && (strchr(a, '/') || strstr(a, ".lttng") || access(a, F_OK) == 0))
			inp = a;
		else
			only = a;
	}
	if (inp ? resolve_path(v, inp, &path) : sessions_dir(v, &path))
		return ERR("out of memory");
	if (is_dir(path)) {
		char *f = NULL;

		if (!only) {
			free(path);
			return ERR("load: '%s' is a directory: name the session to load from it (its NAME.lttng)", inp ? inp : "~/.scry/sessions");
		}
		if (asprintf(&f, "%s/%s.lttng", path, only) < 0) {
			free(path);
			return ERR("out of memory");
		}
		free(path);
		path = f;
	}
	if (ourl) {
		const char *p = !strncmp(ourl, "file://", 7) ? ourl + 7 : ourl;

		if (strstr(ourl, "://") && strncmp(ourl, "file://", 7)) {
			free(path);
			return ERR("--override-url '%s': scry writes local traces only (file:// or a path)", ourl);
		}
		if (resolve_path(v, p, &odir)) {
			free(path);
			return ERR("out of memory");
		}
	}
	ret = dsession_read_xml(v->d, path, only, &ss, &n, &started, r->err, r->errlen);
	if (ret)
		goto out;
	if ((oname || odir) && n != 1) {
		ret = ERR("--override-name and --override-url need one session (the file has %zu)", n);
		goto out;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct dsession *s = ss[i];
		char *nn;

		if (oname && (!valid_name(oname) ? (ret = ERR("invalid session name '%s'", oname)) :
			      !(nn = strdup(oname)) ? (ret = ERR("out of memory")) : (free(s->name), s->name = nn, 0)))
			break;
		if (odir) {
			free(s->dir);
			s->dir = strdup(odir);
			if (!s->dir) {
				ret = ERR("out of memory");
				break;
			}
		}
		if (!valid_name(s->name)) {
			ret = ERR("%s: invalid session name '%s'", path, s->name);
			break;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(ss[k]->name, s->name))
				ret = ERR("%s: two sessions named '%s'", path, s->name);
		if (!ret && dsession_find(v->d, s->name) && !force)
			ret = ERR("session '%s' already exists: give -f to replace it", s->name);
		for (size_t k = 0; !ret && k < v->d->nsess; k++)
			if (strcmp(v->d->sess[k]->name, s->name) && !strcmp(v->d->sess[k]->dir, s->dir))
				ret = ERR("output '%s' is the trace directory of session '%s'", s->dir, v->d->sess[k]->name);
		if (!ret && !s->snapshot && dir_unusable(s->dir, r->err, r->errlen))
			ret = -EEXIST;
		if (!ret && (ret = dsession_rebuild(v->d, s, r->err, r->errlen)))
			break;
	}
	if (ret)
		goto out;
	/* every session checked: now they replace and join the daemon's */
	for (size_t i = 0; i < n; i++) {
		struct dsession *old = dsession_find(v->d, ss[i]->name);

		if (old)
			destroy_one(v, old);
		if ((ret = dsession_register(v->d, ss[i], r->err, r->errlen)))
			break;
		fprintf(r->out, "Session %s loaded from %s\n", ss[i]->name, path);
		r->set_session = ss[i]->name;
		ss[i] = NULL;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct dsession *s = v->d->sess[v->d->nsess - n + i];

		if (started[i] && !(ret = dsession_start(v->d, s, r->err, r->errlen)))
			fprintf(r->out, "Tracing started for session %s\n", s->name);
	}
out:
	for (size_t i = 0; i < n; i++)
		dsession_free(ss[i]);
	free(ss);
	free(started);
	free(path);
	free(odir);
	return ret;
}

/* `scry view [NAME]` (the CLI asks, then reads the trace itself): the directory to read, a
 * normal session's output (every chunk of one that rotated) or a snapshot session's last
 * snapshot. */
static int verb_view(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (argc > 2)
		return ERR("view: unexpected argument '%s' (scry view --help)", argv[2]);
	if (!(s = target(v, argc > 1 ? argv[1] : NULL)))
		return -ENOENT;
	if (s->snapshot && !s->last_snapshot)
		return ERR("snapshot session '%s' has recorded no snapshot yet (scry snapshot record)", s->name);
	if (!s->snapshot && s->state == D_CREATED)
		return ERR("session '%s' has not started: it has no trace yet", s->name);
	fprintf(r->out, "%s\n", s->snapshot ? s->last_snapshot : s->dir);
	return 0;
}

static int verb_set_session(struct verb_ctx *v, int argc, char **argv)
{
	struct dreply *r = v->r;
	struct dsession *s;

	if (argc != 2 || argv[1][0] == '-')
		return ERR("set-session: give one session name (scry set-session --help)");
	if (!(s = dsession_find(v->d, argv[1])))
		return ERR("session '%s' not found (scry list shows the sessions)", argv[1]);
	r->set_session = s->name;
	fprintf(r->out, "Session set to %s\n", s->name);
	return 0;
}

int daemon_verb(struct daemon *d, char **argv, int argc, const char *cwd, const char *home,
		const char *current, const char *const *env, struct dreply *r)
{
	struct verb_ctx v = { .d = d, .cwd = cwd, .home = home, .current = current && *current ? current : NULL,
			      .env = env, .r = r, .verb = argc ? argv[0] : "" };

	if (!argc) {
		snprintf(r->err, r->errlen, "empty command");
		return -EINVAL;
	}
	optind = 0;      /* getopt re-initialised for this argv */
	opterr = 0;
	optopt = 0;
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
