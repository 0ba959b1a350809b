/* sysnames.h — the names the system gives label values (the decoders cgroup, ksym and
 * inet_ip of docs/METRICS.md): a cgroup v2 id's directory, a kernel address's function, an
 * IP address's text.  Caches kept between scrapes (one scrape at a time). */
#ifndef SCRY_METRICS_SYSNAMES_H
#define SCRY_METRICS_SYSNAMES_H

#include <stddef.h>
#include <stdint.h>

/* The path of cgroup id under the cgroup2 mount ("/sys/fs/cgroup/system.slice"), found by
 * walking it (name_to_handle_at: a cgroup directory's handle is its id) when not cached;
 * "unknown_cgroup_id:ID" when none has it (ebpf_exporter's text).  1. */
int scry_metric_cgroup_path(uint64_t id, char *buf, size_t buflen);
/* The kernel function holding addr (/proc/kallsyms, catalog/symbolize.h): 1; -1 unknown. */
int scry_metric_ksym(uint64_t addr, char *buf, size_t buflen);
/* family 2 (AF_INET: the address mapped, ::ffff:a.b.c.d) or 10 (AF_INET6): inet_ntop's
 * text, 1; family 0 (no address): "", 1; another: -1. */
int scry_metric_inet_ip(uint32_t family, const uint8_t addr[16], char *buf, size_t buflen);

#endif /* SCRY_METRICS_SYSNAMES_H */
