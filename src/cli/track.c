/* track.c — see track.h. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/track.h"
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
