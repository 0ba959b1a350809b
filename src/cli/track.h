/* track.h — the options record and trace share for choosing what reaches the buffer:
 * --filter EXPR and the trackers --track-pid/--track-vpid/--track-uid/--track-gid/
 * --track-vuid/--track-vgid/--track-cgroup/--track-container (lists, repeatable; users and
 * groups by name or number; containers by id prefix, their cgroup directories found at the
 * start). */
#ifndef SCRY_CLI_TRACK_H
#define SCRY_CLI_TRACK_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "session/session.h"

enum { CLI_OPT_FILTER = 400, CLI_OPT_TRACK_PID, CLI_OPT_TRACK_VPID, CLI_OPT_TRACK_UID, CLI_OPT_TRACK_GID,
       CLI_OPT_TRACK_CGROUP, CLI_OPT_TRACK_VUID, CLI_OPT_TRACK_VGID, CLI_OPT_TRACK_CONTAINER };

/* Each of these options, once: X(name, key, set) for each, comma-separated.  As getopt_long's
 * long options (CLI_TRACK_LONGOPTS) or as entries of a cli_opt table (cli/optable.h) applied by
 * set (which hands them to cli_track_option()). */
#define CLI_TRACK_EACH(X, set) \
	X("filter", CLI_OPT_FILTER, set), \
	X("track-pid", CLI_OPT_TRACK_PID, set), \
	X("track-vpid", CLI_OPT_TRACK_VPID, set), \
	X("track-uid", CLI_OPT_TRACK_UID, set), \
	X("track-gid", CLI_OPT_TRACK_GID, set), \
	X("track-cgroup", CLI_OPT_TRACK_CGROUP, set), \
	X("track-vuid", CLI_OPT_TRACK_VUID, set), \
	X("track-vgid", CLI_OPT_TRACK_VGID, set), \
	X("track-container", CLI_OPT_TRACK_CONTAINER, set)
#define CLI_TRACK_LONGOPT_(name, key, set) { name, required_argument, NULL, key }
#define CLI_TRACK_OPT_(name, key, set) { name, key, required_argument, set }
#define CLI_TRACK_LONGOPTS CLI_TRACK_EACH(CLI_TRACK_LONGOPT_, 0)
#define CLI_TRACK_OPTS(set) CLI_TRACK_EACH(CLI_TRACK_OPT_, set)

/* The case labels of a getopt switch that hand the option to cli_track_option(). */
#define CLI_TRACK_CASES \
	case CLI_OPT_FILTER: case CLI_OPT_TRACK_PID: case CLI_OPT_TRACK_VPID: \
	case CLI_OPT_TRACK_UID: case CLI_OPT_TRACK_GID: case CLI_OPT_TRACK_CGROUP: \
	case CLI_OPT_TRACK_VUID: case CLI_OPT_TRACK_VGID: case CLI_OPT_TRACK_CONTAINER

#define CLI_TRACK_USAGE \
	"      --filter EXPR      record only events for which EXPR (LTTng's filter language) is\n" \
	"                         true, decided in the kernel: 'fd == 1 && count > 4096',\n" \
	"                         'filename == \"/etc/*\"', '$ctx.procname != \"sshd\"'; in user\n" \
	"                         space, before writing, for struct members, array elements,\n" \
	"                         captured data: 'uservaddr[3] == 0x50', 'ufds[0].fd == 3'\n" \
	"      --track-pid LIST   only these processes and their children (with -a)\n" \
	"      --track-vpid LIST  only these pids as seen in their pid namespace\n" \
	"      --track-uid LIST   only processes of these users (names or uids)\n" \
	"      --track-gid LIST   only processes of these groups (names or gids)\n" \
	"      --track-vuid LIST  only processes whose uid their user namespace maps to these\n" \
	"      --track-vgid LIST  only processes whose gid their user namespace maps to these\n" \
	"      --track-cgroup DIR only processes in this cgroup v2 directory or below it\n" \
	"      --track-container ID[,ID...]  only processes of these containers (id prefixes,\n" \
	"                         as docker's; docker, containerd, CRI-O, podman, or an nspawn\n" \
	"                         machine's name): their cgroups as they are at the start\n" \
	"                         (trackers combine: an event must pass every one given)\n"

struct cli_track {
	const char *filter;
	pid_t *pids;
	size_t npids;
	uint32_t *vpids, *uids, *gids, *vuids, *vgids;
	size_t nvpids, nuids, ngids, nvuids, nvgids;
	bool vpid_given, uid_given, gid_given, vuid_given, vgid_given;
	const char **cgroups;
	size_t ncgroups;
	char **owned;                    /* the paths --track-container found (in cgroups too) */
	size_t nowned;
};

/* Handle option opt (one of CLI_OPT_*): 0, or -1 with err filled. */
int cli_track_option(struct cli_track *t, int opt, const char *arg, char *err, size_t errlen);
/* Point the session options at the trackers and the filter (t must outlive them); the
 * pid tracker's pids join *pids (the processes followed) and narrow -a to them.
 * -1 when memory runs out. */
int cli_track_apply(const struct cli_track *t, struct scry_session_opts *so, pid_t **pids, size_t *npids);
void cli_track_free(struct cli_track *t);

/* Each pid (-p) to its process (a thread id stands for its process), or, with threads, each
 * checked and kept as given (scry trace without -f follows the thread, as strace -p does);
 * -ESRCH with a message naming the first pid that has no process. */
int cli_resolve_pids(pid_t *pids, size_t n, bool threads, char *err, size_t errlen);

#endif
