/* verbs_track.c — track and untrack: a session's pid, vpid, uid and gid trackers (the
 * processes it records; no tracker: every one), numbers or users' and groups' names, changed
 * before start; once loaded, track --pid only, through the engine session's verb. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/verbs_int.h"
#include "util/parse.h"

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

/* lttng's line per value of a list: "Added 1234 to the virtual process ID tracker inclusion
 * set" (track), "Removed 55 from ..." (untrack), each value as given */
static void said(FILE *out, bool add, const char *tracker, const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len)
			fprintf(out, "%s %.*s %s the %s tracker inclusion set\n", add ? "Added" : "Removed", (int)len, p,
				add ? "to" : "from", tracker);
		p += len + (p[len] == ',');
	}
}

int verb_track(struct verb_ctx *v, int argc, char **argv, bool add)
{
	enum { O_PID = 256, O_VPID, O_UID, O_GID, O_VUID, O_VGID };
	static const struct option lo[] = {
		{ "kernel", no_argument, NULL, 'k' }, { "userspace", no_argument, NULL, 'u' },
		{ "session", required_argument, NULL, 's' }, { "pid", required_argument, NULL, O_PID },
		{ "vpid", required_argument, NULL, O_VPID }, { "uid", required_argument, NULL, O_UID },
		{ "gid", required_argument, NULL, O_GID }, { "vuid", required_argument, NULL, O_VUID },
		{ "vgid", required_argument, NULL, O_VGID }, { "all", no_argument, NULL, 'a' }, { 0 } };
	struct dreply *r = v->r;
	enum { NK = 6 };
	const char *sname = NULL, *lists[NK] = { 0 };
	static const char *const kinds[NK] = { "pid", "vpid", "uid", "gid", "vuid", "vgid" };
	static const char *const opt_of[NK] = { "--pid", "--vpid", "--uid", "--gid", "--vuid", "--vgid" };
	static const char *const empty_of[NK] = { "--pid=", "--vpid=", "--uid=", "--gid=", "--vuid=", "--vgid=" };
	bool all = false, all_of[NK] = { false }, any = false;
	struct dsession *s;
	int opt, ret;

	/* lttng's --all names its trackers by their options without values (track -k --all
	 * --pid: the pid tracker's policy "include all"): such an option is given "" here */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			for (int k = 1; k < argc; k++)
				for (int j = 0; j < NK; j++)
					if (!strcmp(argv[k], opt_of[j]) && (k + 1 == argc || argv[k + 1][0] == '-'))
						all_of[j] = true;
	for (int j = 0; j < NK; j++)
		if (all_of[j])
			for (int k = 1; k < argc; k++)
				if (!strcmp(argv[k], opt_of[j]))
					argv[k] = (char *)empty_of[j];
	while ((opt = getopt_long(argc, argv, ":kus:a", lo, NULL)) != -1) {
		switch (opt) {
		case 'k': break;
		case 'u': return ERR("%s: scry records the kernel domain only (-k)", v->verb);
		case 's': sname = optarg; break;
		case O_PID: case O_VPID: case O_UID: case O_GID: case O_VUID: case O_VGID:
			lists[opt - O_PID] = optarg;
			any = true;
			break;
		case 'a':
			all = true;
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (optind < argc)
		return ERR("%s: unexpected argument '%s' (scry %s --help)", v->verb, argv[optind], v->verb);
	for (int k = 0; k < NK; k++)
		if (lists[k] && (!*lists[k]) != all)
			return ERR(all ? "The --all option cannot be used with a list of process attribute values"
				       : "%s: --%s needs values (or --all)", v->verb, kinds[k]);
	if (add && all && !any)
		return ERR("track: --all names its trackers: --pid, --vpid, --uid, --gid, --vuid, --vgid (lttng's "
			   "track -k --all --pid)");
	if (!all && !any)
		return ERR("%s: give --pid, --vpid, --uid, --gid, --vuid or --vgid (scry %s --help)", v->verb, v->verb);
	if (!(s = target(v, sname)))
		return -ENOENT;
	if ((ret = changeable(v, s)))
		return ret;
	if (loaded(s)) {
		pid_t *pids = NULL;
		size_t n = 0;

		if (!add || all || lists[1] || lists[2] || lists[3] || lists[4] || lists[5])
			return ERR("%s: session '%s' %s started: only track --pid changes a started session",
				   v->verb, s->name, s->state == D_STARTED ? "is" : "was");
		if (!(s->tracker_set & 1u << DTRACK_PID))
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
			said(r->out, true, "process ID", lists[0]);
		return ret;
	}
	if (all && any) {    /* lttng's policies: track --all --pid includes all, untrack excludes all */
		static const char *const cap[NK] = { "Process ID", "Virtual process ID", "User ID", "Group ID",
						     "Virtual user ID", "Virtual group ID" };
		size_t *nall[NK] = { &s->npids, &s->nvpids, &s->nuids, &s->ngids, &s->nvuids, &s->nvgids };

		for (int k = 0; k < NK; k++)
			if (lists[k]) {
				*nall[k] = 0;
				s->tracker_set = add ? s->tracker_set & ~(1u << k) : s->tracker_set | 1u << k;
				fprintf(r->out, "%s tracking policy set to `%s all`\n", cap[k], add ? "include" : "exclude");
			}
		return dsession_rebuild(v->d, s, r->err, r->errlen);
	}
	if (all) {
		s->npids = s->nvpids = s->nuids = s->ngids = s->nvuids = s->nvgids = 0;
		s->tracker_set = 0;
		fprintf(r->out, "Every tracker of session %s removed: every process is recorded\n", s->name);
		return dsession_rebuild(v->d, s, r->err, r->errlen);
	}
	static const char *const names[NK] = { "process ID", "virtual process ID", "user ID", "group ID",
						"virtual user ID", "virtual group ID" };
	uint32_t **vals[NK] = { (uint32_t **)&s->pids, &s->vpids, &s->uids, &s->gids, &s->vuids, &s->vgids };
	size_t *ns[NK] = { &s->npids, &s->nvpids, &s->nuids, &s->ngids, &s->nvuids, &s->nvgids };

	for (int k = 0; k < NK; k++) {
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
		ret = add_u32s(vals[k], ns[k], lists[k], "ppugug"[k], add);
		if (ret == -EINVAL)
			return ERR("invalid %s list '%s' (expected %s, comma-separated)", kinds[k], lists[k],
				   k == 2 || k == 4 ? "user ids or names" : k == 3 || k == 5 ? "group ids or names" : "numbers");
		if (ret)
			return ERR("out of memory");
		if (add)
			s->tracker_set |= 1u << k;   /* untracking the last value leaves none (lttng's) */
		said(r->out, add, names[k], lists[k]);
	}
	return dsession_rebuild(v->d, s, r->err, r->errlen);
}
