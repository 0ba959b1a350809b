/* verbs_files.c — the verbs of what a session writes and reads: its trace (snapshot record,
 * rotate, enable-rotation and disable-rotation, regenerate statedump, and view: the
 * directory the CLI reads) and its configuration saved and loaded as LTTng's session XML
 * (save, load: session_xml.c reads and writes the files). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "daemon/verbs_int.h"
#include "util/parse.h"

/* snapshot record: LTTng's snapshot-N-YYYYmmdd-HHMMSS under the session's output (or PATH). */
int verb_snapshot(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "session", required_argument, NULL, 's' }, { "name", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' }, { 0 } };
	struct dreply *r = v->r;
	const char *sname = NULL, *name = "snapshot";
	uint64_t max = 0, bytes = 0;
	struct dsession *s;
	char stamp[32], leaf[128], *base = NULL, *dir = NULL;
	time_t now = time(NULL);
	struct tm tm;
	int opt, ret;

	const struct dsnap_output *out = NULL;
	bool max_given = false;

	if (argc >= 2 && (!strcmp(argv[1], "add-output") || !strcmp(argv[1], "list-output") ||
			  !strcmp(argv[1], "del-output")))
		return verb_snapshot_output(v, argc, argv);
	if (argc < 2 || strcmp(argv[1], "record"))
		return ERR("snapshot: the action is record, add-output, list-output or del-output (scry snapshot --help)");
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, ":s:n:m:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': sname = optarg; break;
		case 'n':
			if (!dsession_name_ok(optarg))
				return ERR("invalid snapshot name '%s' (letters, digits, '_', '-', '.')", optarg);
			name = optarg;
			break;
		case 'm':
			if (scry_parse_size(optarg, &max) || !max)
				return ERR("invalid maximum size '%s' (expected e.g. 4M, 1G)", optarg);
			max_given = true;
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
	if ((optind < argc && relay_url_is_net(argv[optind])) || (optind == argc && s->relay_only))
		return dsession_snapshot_relay(s, optind < argc ? argv[optind] : NULL, name, max, r);
	if (optind < argc) {
		const char *p = !strncmp(argv[optind], "file://", 7) ? argv[optind] + 7 : argv[optind];

		if (strstr(argv[optind], "://") && strncmp(argv[optind], "file://", 7))
			return ERR("snapshot record: '%s': a path, file://PATH or a relay's net://HOST", argv[optind]);
		if ((ret = resolve_path(v, p, &base)))
			return ret;
	} else if (!(out = dsession_snapshot_output(s))) {   /* lttng's: no output, no snapshot */
		return ERR("Snapshot record failed: session '%s' has no snapshot output (snapshot add-output)", s->name);
	} else if (!(base = strdup(out->path))) {
		return ERR("out of memory");
	}
	if (out && !max_given)
		max = out->max;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(leaf, sizeof(leaf), "%s-%u-%s", name, s->nsnapshots + 1, stamp);
	if (asprintf(&dir, "%s/%s", base, leaf) < 0) {
		free(base);
		return ERR("out of memory");
	}
	/* base made as needed, the snapshot in it: with the session owner's rights (the engine's) */
	ret = scry_session_snapshot(s->eng, base, leaf, max, &bytes, r->err, r->errlen);
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

int verb_rotate(struct verb_ctx *v, int argc, char **argv)
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
	if (s->relay_only)          /* LTTng's words for an archive at a relay (with -o: the local one) */
		fprintf(r->out, "Trace chunk archive for session %s is now readable on relay tcp://%s/%s [control port %u, "
			"data port %u]\n", s->name, s->relay.host, archive, s->relay.ctrl_port, s->relay.data_port);
	else
		fprintf(r->out, "Trace chunk archive for session %s is now readable at %s\n", s->name, archive);
	return 0;
}

/* LTTng's `regenerate statedump`: a new statedump in a started session's trace.  LTTng's
 * `regenerate metadata` has nothing to do here (scry rewrites the metadata whole at each
 * change): refused with that reason. */
int verb_regenerate(struct verb_ctx *v, int argc, char **argv)
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

int verb_rotation(struct verb_ctx *v, int argc, char **argv, bool enable)
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

/* LTTng's default place for saved sessions is ~/.lttng/sessions; scry's ~/.scry/sessions,
 * made with the caller's rights when make. */
static int sessions_dir(struct verb_ctx *v, bool make, char **out)
{
	struct dreply *r = v->r;
	const struct scry_cred *as = dpeer_cred(v->peer);
	struct scry_dirh *home = NULL, *dot = NULL, *ss = NULL;
	int ret = 0;

	if (asprintf(out, "%s/.scry/sessions", v->peer->home) < 0)
		return ERR("out of memory");
	if (make && !(ret = scry_dirh_open(&home, AT_FDCWD, v->peer->home, as, r->err, r->errlen)) &&
	    !(ret = scry_dirh_mkdir(home, ".scry", SCRY_MKDIR_ANY, &dot, NULL, r->err, r->errlen)))
		ret = scry_dirh_mkdir(dot, "sessions", SCRY_MKDIR_ANY, &ss, NULL, r->err, r->errlen);
	scry_dirh_unref(ss);
	scry_dirh_unref(dot);
	scry_dirh_unref(home);
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* p is a directory, to the caller's eyes (its rights). */
static bool is_dir(struct verb_ctx *v, const char *p)
{
	struct scry_runas ra;
	struct stat st;
	bool dir;

	if (scry_runas_begin(dpeer_cred(v->peer), &ra))
		return false;
	dir = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
	scry_runas_end(&ra);
	return dir;
}

/* p (relative to the caller's directory) names something, to the caller's eyes. */
static bool exists(struct verb_ctx *v, const char *p)
{
	struct scry_runas ra;
	char *abs = NULL;
	bool there = false;

	if (dpeer_path(v->peer, p, &abs) || scry_runas_begin(dpeer_cred(v->peer), &ra)) {
		free(abs);
		return false;
	}
	there = access(abs, F_OK) == 0;
	scry_runas_end(&ra);
	free(abs);
	return there;
}

int verb_save(struct verb_ctx *v, int argc, char **argv)
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
	size_t mine = 0;

	for (size_t i = 0; i < v->d->nsess; i++)
		mine += dpeer_owns(v->peer, v->d->sess[i]);
	if (all && !mine)
		return ERR("save -a: no session to save");
	/* ~/.scry/sessions made as needed, with the caller's rights */
	if ((ret = outp ? resolve_path(v, outp, &base) : sessions_dir(v, true, &base)))
		return ret;
	for (size_t i = 0; i < v->d->nsess && !ret; i++) {
		struct dsession *s = v->d->sess[i];
		char *file = NULL;

		if (all ? !dpeer_owns(v->peer, s) : s != one)
			continue;
		/* PATH a directory (LTTng's -o): PATH/NAME.lttng; else the file itself */
		if (all || !outp || is_dir(v, base) ? asprintf(&file, "%s/%s.lttng", base, s->name) < 0
						    : !(file = strdup(base))) {
			ret = ERR("out of memory");
			break;
		}
		ret = dsession_save(s, file, force, dpeer_cred(v->peer), r->err, r->errlen);
		if (!ret)
			fprintf(r->out, "Session %s saved successfully to %s\n", s->name, file);
		if (!ret && s->eng) {     /* nor for per-process event sets */
			struct scry_pid_sets_stats st;

			scry_session_pid_sets(s->eng, NULL, 0, &st);
			if (st.n)
				fprintf(r->out, "Note: its %zu per-process event set(s) are not saved (LTTng's session XML "
					"has no place for them): enable-event --pid them again after load\n", st.n);
		}
		for (size_t ci = 0; !ret && ci < s->nchans; ci++)
			if (s->chans[ci].ctx_mask & (1ULL << SCRY_CTX_CPU_ID)) {   /* session.xsd has no such value */
				fprintf(r->out, "Note: its cpu_id context is not saved (LTTng's session XML has no such "
					"value; each packet's context has the CPU): add-context -t cpu_id again after "
					"load\n");
				break;
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
		if (!ret && s->hostname)
			fprintf(r->out, "Note: its --hostname %s is not saved (LTTng's session XML has no place for it): "
				"load streams as this machine's name\n", s->hostname);
		free(file);
	}
	free(base);
	return ret;
}

/* The caller may own the n sessions of a file (those replacing its own, by name, count once). */
static int load_quota(struct verb_ctx *v, struct dsession **ss, size_t n)
{
	size_t added = n;

	for (size_t i = 0; i < n; i++) {
		struct dsession *old = dsession_find(v->d, ss[i]->name);

		if (old && old->owner.uid == v->peer->cred.uid)
			added--;
	}
	return dsession_quota(v->d, v->peer->cred.uid, added, v->r->err, v->r->errlen);
}

int verb_load(struct verb_ctx *v, int argc, char **argv)
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
	struct scry_runas ra;
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

		if (!inp && (strchr(a, '/') || strstr(a, ".lttng") || exists(v, a)))
			inp = a;
		else
			only = a;
	}
	if ((ret = inp ? resolve_path(v, inp, &path) : sessions_dir(v, false, &path)))
		return ret;
	if (is_dir(v, path)) {
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
		if ((ret = resolve_path(v, p, &odir))) {
			free(path);
			return ret;
		}
	}
	/* the file read with the caller's rights: what it may not read, load does not either */
	if ((ret = scry_runas_begin(dpeer_cred(v->peer), &ra))) {
		free(path);
		free(odir);
		return ERR("load: cannot take uid %u's rights: %s", (unsigned)v->peer->cred.uid, strerror(-ret));
	}
	ret = dsession_read_xml(v->d, path, only, &ss, &n, &started, r->err, r->errlen);
	scry_runas_end(&ra);
	if (ret)
		goto out;
	if ((oname || odir) && n != 1) {
		ret = ERR("--override-name and --override-url need one session (the file has %zu)", n);
		goto out;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		struct dsession *s = ss[i];
		char *nn;

		if (oname && (!dsession_name_ok(oname) ? (ret = ERR("invalid session name '%s'", oname)) :
			      !(nn = strdup(oname)) ? (ret = ERR("out of memory")) : (free(s->name), s->name = nn, 0)))
			break;
		if (odir) {
			free(s->dir);
			s->dir = strdup(odir);
			if (!s->dir) {
				ret = ERR("out of memory");
				break;
			}
			if (s->snapshot && s->snap_out.state != DSNAP_DEFAULT) {   /* the URL is its output */
				free(s->snap_out.path);
				s->snap_out.state = (s->snap_out.path = strdup(odir)) ? DSNAP_SET : DSNAP_DEFAULT;
			}
		} else if (!s->dir[0]) {   /* a snapshot session saved without output: the default place */
			char stamp[32], *dir = NULL;
			time_t now = time(NULL);
			struct tm tm;

			localtime_r(&now, &tm);
			strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
			if ((ret = default_traces_dir(v, s->name, stamp, &dir)))
				break;
			free(s->dir);
			s->dir = dir;
		}
		if (!dsession_name_ok(s->name)) {
			ret = ERR("%s: invalid session name '%s'", path, s->name);
			break;
		}
		s->owner = v->peer->cred;      /* the loader's, whoever saved it */
		snprintf(s->owner_name, sizeof(s->owner_name), "%s", v->peer->user);
		struct dsession *same = dsession_find(v->d, s->name);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(ss[k]->name, s->name))
				ret = ERR("%s: two sessions named '%s'", path, s->name);
		if (!ret && same && !force)
			ret = ERR("session '%s' already exists: give -f to replace it", s->name);
		if (!ret && same && !dpeer_owns(v->peer, same))
			ret = ERR("session '%s' already exists and is another user's: -f replaces your own only", s->name);
		for (size_t k = 0; !ret && !s->relay_only && k < v->d->nsess; k++)   /* a relay takes many */
			if (strcmp(v->d->sess[k]->name, s->name) && !strcmp(v->d->sess[k]->dir, s->dir))
				ret = ERR("output '%s' is the trace directory of session '%s'", s->dir, v->d->sess[k]->name);
		if (!ret && !s->relay_only)
			ret = scry_session_check_output(s->dir, dsession_owner(s), s->snapshot, r->err, r->errlen);
		if (!ret && (ret = dsession_rebuild(v->d, s, r->err, r->errlen)))
			break;
	}
	if (ret || (ret = load_quota(v, ss, n)))
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
int verb_view(struct verb_ctx *v, int argc, char **argv)
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
