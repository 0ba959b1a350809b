/* parse.h — strict parsers for command-line values (sizes, durations, pid lists). */
#ifndef SCRY_PARSE_H
#define SCRY_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* "64K", "8M", "1G", "4096": bytes.  0 or -EINVAL. */
int scry_parse_size(const char *s, uint64_t *out);
/* "5", "0.5", "2s", "100ms", "250us", "1m": seconds (> 0).  0 or -EINVAL. */
int scry_parse_duration(const char *s, double *out);
/* "12,34": appends to *pids (realloc'd).  0 or -EINVAL. */
int scry_parse_pids(const char *s, pid_t **pids, size_t *n);
/* A group by name or number (--group): 0 or -EINVAL. */
int scry_parse_group(const char *s, gid_t *out);
/* Round up to a power of two, at least min. */
uint64_t scry_pow2_at_least(uint64_t v, uint64_t min);

#endif
