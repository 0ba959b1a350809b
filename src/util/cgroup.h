/* cgroup.h — cgroup v2 as scry reads it (src/util/cgroup.c): its mount, a walk of its
 * directories, a directory's id, and the container a cgroup path names, from the names the
 * container runtimes give their cgroups under systemd or cgroupfs:
 *   docker-ID.scope, /docker/ID            docker (runtime "docker")
 *   cri-containerd-ID.scope, /containerd/ID containerd (CRI) ("containerd")
 *   crio-ID.scope                          CRI-O ("crio"; crio-conmon-ID: its monitor, not it)
 *   libpod-ID.scope, /libpod-ID            podman ("podman"; libpod-conmon-ID: not it)
 *   machine-NAME.scope                     systemd-nspawn, libvirt ("machine": NAME, unescaped,
 *                                          is its id and its name)
 * ID: 64 hexadecimal digits; a container's processes may sit in a cgroup below its own
 * (the innermost container counts). */
#ifndef SCRY_UTIL_CGROUP_H
#define SCRY_UTIL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SCRY_CONTAINER_ID_MAX 128     /* an id or machine name with its NUL */
#define SCRY_CONTAINER_SHORT 12       /* docker ps's short id */

struct scry_container {
	const char *runtime;              /* "docker", "containerd", "crio", "podman", "machine" */
	char id[SCRY_CONTAINER_ID_MAX];   /* full id (a machine: its name) */
};

/* The container the cgroup path names (its innermost), true; false: none. */
bool scry_container_of_cgroup(const char *path, struct scry_container *out);
/* The container process pid runs in (its /proc/PID/cgroup's v2 line), true; false: none
 * (or the process is gone). */
bool scry_container_of_pid(pid_t pid, struct scry_container *out);
/* Its label: a hexadecimal id cut to SCRY_CONTAINER_SHORT digits (as docker ps shows it),
 * a machine's name whole. */
void scry_container_label(const struct scry_container *c, char *buf, size_t len);

/* The cgroup2 mount ("/sys/fs/cgroup"): 0, or -1 when there is none. */
int scry_cgroup_root(char *buf, size_t len);
/* fn(path, ctx) for each directory of the cgroup2 tree (the root first), at most depth
 * levels below the root; symbolic links are not followed. */
void scry_cgroup_walk(int depth, void (*fn)(const char *path, void *ctx), void *ctx);
/* A cgroup directory's id (its file handle, as bpf_get_current_cgroup_id() gives it), 0
 * when it has none. */
uint64_t scry_cgroup_id(const char *path);
/* The id of the ancestor at depth level (the root: 0) of the cgroup whose id is id, as
 * bpf_get_current_ancestor_cgroup_id(level) gives it for a task there: 0 when the cgroup is
 * shallower; -1 when id names no cgroup (any more) or there is no cgroup2 mount.  Walks up
 * from the directory open_by_handle_at() finds (no path is read). */
int scry_cgroup_ancestor(uint64_t id, unsigned level, uint64_t *out);
/* A cgroup v2 directory opened for a BPF cgroup array (--track-cgroup): its fd, or -errno
 * with "--track-cgroup 'PATH': why" in err. */
int scry_cgroup_open(const char *path, char *err, size_t errlen);

#endif /* SCRY_UTIL_CGROUP_H */
