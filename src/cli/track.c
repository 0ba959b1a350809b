/* track.c — see track.h. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/track.h"
#include "util/cgroup.h"
#include "util/parse.h"
#include "util/proc.h"

/* "1000,root" -> ids; names resolved with lookup (getpwnam/getgrnam). */
static int parse_ids(const char *list, uint32_t **ids, size_t *n, bool users, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v = strtoul(tok, &end, 10);
		uint32_t *grown;

		if (*end || end == tok || v > UINT32_MAX - 1) {
			struct passwd *pw = users ? getpwnam(tok) : NULL;
			struct group *gr = users ? NULL : getgrnam(tok);
			if (!pw && !gr) {
				snprintf(err, errlen, "unknown %s '%s'", users ? "user" : "group", tok);
				free(copy);
				return -1;
			}
			v = pw ? pw->pw_uid : gr->gr_gid;
		}
		grown = realloc(*ids, (*n + 1) * sizeof(**ids));
		if (!grown) {
			snprintf(err, errlen, "out of memory");
			free(copy);
			return -1;
		}
		*ids = grown;
		(*ids)[(*n)++] = (uint32_t)v;
	}
	free(copy);
	if (!*n) {
		snprintf(err, errlen, "empty %s list", users ? "user" : "group");
		return -1;
	}
	return 0;
}

/* The cgroup directories of the containers whose id starts with prefix: those whose own
 * name names the container (the ones below are in the tracker with it). */
struct container_find {
	const char *prefix;
	char **dirs;
	size_t n;
	char id[SCRY_CONTAINER_ID_MAX];  /* the first match's id */
	bool ambiguous, oom;
};

static void container_dir(const char *path, void *ctx)
{
	struct container_find *f = ctx;
	struct scry_container c, up;
	char parent[4096];
	const char *slash = strrchr(path, '/');
	char **grown;

	if (f->oom || !scry_container_of_cgroup(path, &c) || strncmp(c.id, f->prefix, strlen(f->prefix)))
		return;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - path) : 0, path);
	if (scry_container_of_cgroup(parent, &up) && !strcmp(up.id, c.id))
		return;                      /* below the container's own directory */
	if (!f->n)
		snprintf(f->id, sizeof(f->id), "%s", c.id);
	else if (strcmp(f->id, c.id))
		f->ambiguous = true;
	if (!(grown = realloc(f->dirs, (f->n + 1) * sizeof(*grown))) || !(grown[f->n] = strdup(path))) {
		if (grown)
			f->dirs = grown;
		f->oom = true;
		return;
	}
	f->dirs = grown;
	f->n++;
}

static int track_containers(struct cli_track *t, const char *arg, char *err, size_t errlen)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	size_t ntok = 0;
	int ret = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		struct container_find f = { .prefix = tok };
		const char **c;
		char **o;

		ntok++;
		scry_cgroup_walk(16, container_dir, &f);
		if (f.oom) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
		} else if (!f.n) {
			snprintf(err, errlen, "--track-container: no container's id starts with '%s' (no such cgroup "
				 "under the cgroup2 mount)", tok);
			ret = -1;
		} else if (f.ambiguous) {
			snprintf(err, errlen, "--track-container: '%s' is the start of more than one container's id "
				 "(%.12s and others): give more of it", tok, f.id);
			ret = -1;
		} else if (!(c = realloc(t->cgroups, (t->ncgroups + f.n) * sizeof(*c))) ||
			   (t->cgroups = c, !(o = realloc(t->owned, (t->nowned + f.n) * sizeof(*o))))) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
		} else {
			t->owned = o;
			for (size_t i = 0; i < f.n; i++) {
				t->cgroups[t->ncgroups++] = f.dirs[i];
				t->owned[t->nowned++] = f.dirs[i];
			}
			free(f.dirs);
			continue;
		}
		for (size_t i = 0; i < f.n; i++)
			free(f.dirs[i]);
		free(f.dirs);
	}
	if (!ret && !ntok) {
		snprintf(err, errlen, "--track-container: empty list");
		ret = -1;
	}
	free(copy);
	return ret;
}

int cli_track_option(struct cli_track *t, int opt, const char *arg, char *err, size_t errlen)
{
	switch (opt) {
	case CLI_OPT_FILTER:
		if (t->filter) {
			snprintf(err, errlen, "--filter given twice (combine the expressions with &&)");
			return -1;
		}
		if (!arg[0]) {
			snprintf(err, errlen, "--filter: empty expression");
			return -1;
		}
		t->filter = arg;
		return 0;
	case CLI_OPT_TRACK_PID:
		if (scry_parse_pids(arg, &t->pids, &t->npids)) {
			snprintf(err, errlen, "invalid --track-pid list '%s' (expected PID[,PID...])", arg);
			return -1;
		}
		return 0;
	case CLI_OPT_TRACK_VPID: {
		pid_t *p = NULL;
		size_t n = 0;
		if (scry_parse_pids(arg, &p, &n)) {
			snprintf(err, errlen, "invalid --track-vpid list '%s' (expected PID[,PID...])", arg);
			free(p);
			return -1;
		}
		uint32_t *v = realloc(t->vpids, (t->nvpids + n) * sizeof(*v));
		if (!v) {
			free(p);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		t->vpids = v;
		for (size_t i = 0; i < n; i++)
			t->vpids[t->nvpids++] = (uint32_t)p[i];
		free(p);
		t->vpid_given = true;
		return 0;
	}
	case CLI_OPT_TRACK_UID:
		t->uid_given = true;
		return parse_ids(arg, &t->uids, &t->nuids, true, err, errlen);
	case CLI_OPT_TRACK_GID:
		t->gid_given = true;
		return parse_ids(arg, &t->gids, &t->ngids, false, err, errlen);
	case CLI_OPT_TRACK_VUID:
		t->vuid_given = true;
		return parse_ids(arg, &t->vuids, &t->nvuids, true, err, errlen);
	case CLI_OPT_TRACK_VGID:
		t->vgid_given = true;
		return parse_ids(arg, &t->vgids, &t->nvgids, false, err, errlen);
	case CLI_OPT_TRACK_CGROUP: {
		const char **c = realloc(t->cgroups, (t->ncgroups + 1) * sizeof(*c));
		if (!c) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		t->cgroups = c;
		t->cgroups[t->ncgroups++] = arg;
		return 0;
	}
	case CLI_OPT_TRACK_CONTAINER:
		return track_containers(t, arg, err, errlen);
	default:
		snprintf(err, errlen, "internal error: option %d", opt);
		return -1;
	}
}

int cli_track_apply(const struct cli_track *t, struct scry_session_opts *so, pid_t **pids, size_t *npids)
{
	if (t->npids) {
		pid_t *p = realloc(*pids, (*npids + t->npids) * sizeof(*p));
		if (!p)
			return -1;
		memcpy(p + *npids, t->pids, t->npids * sizeof(*p));
		*pids = p;
		*npids += t->npids;
		so->target_all = false;
	}
	so->filter = t->filter;
	if (t->vpid_given) {
		so->track_vpids = t->vpids;
		so->ntrack_vpids = t->nvpids;
	}
	if (t->uid_given) {
		so->track_uids = t->uids;
		so->ntrack_uids = t->nuids;
	}
	if (t->gid_given) {
		so->track_gids = t->gids;
		so->ntrack_gids = t->ngids;
	}
	if (t->vuid_given) {
		so->track_vuids = t->vuids;
		so->ntrack_vuids = t->nvuids;
	}
	if (t->vgid_given) {
		so->track_vgids = t->vgids;
		so->ntrack_vgids = t->nvgids;
	}
	so->track_cgroups = t->cgroups;
	so->ntrack_cgroups = t->ncgroups;
	return 0;
}

void cli_track_free(struct cli_track *t)
{
	free(t->pids);
	free(t->vpids);
	free(t->uids);
	free(t->gids);
	free(t->vuids);
	free(t->vgids);
	free(t->cgroups);
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	memset(t, 0, sizeof(*t));
}

int cli_resolve_pids(pid_t *pids, size_t n, bool threads, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		pid_t tgid = scry_process_of(pids[i]);

		if (tgid <= 0) {
			snprintf(err, errlen, "no process with pid %d", (int)pids[i]);
			return -ESRCH;
		}
		if (!threads)
			pids[i] = tgid;   /* a thread id stands for its process, as with perf -p */
	}
	return 0;
}
