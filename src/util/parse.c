/* parse.c — strict parsers for command-line values (see parse.h). */
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/parse.h"

int scry_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	default: break;
	}
	if ((*end == 'i' || *end == 'I') && mult > 1)
		end++;
	if ((*end == 'b' || *end == 'B'))
		end++;
	if (*end || v == 0 || v > UINT64_MAX / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int scry_parse_duration(const char *s, double *out)
{
	char *end;
	double v, mult = 1;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	if (!strcmp(end, "us"))
		mult = 1e-6;
	else if (!strcmp(end, "ms"))
		mult = 1e-3;
	else if (!strcmp(end, "s") || !*end)
		mult = 1;
	else if (!strcmp(end, "m"))
		mult = 60;
	else if (!strcmp(end, "h"))
		mult = 3600;
	else
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int scry_parse_pids(const char *s, pid_t **pids, size_t *n)
{
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			return -EINVAL;
		pid_t *np = realloc(*pids, (*n + 1) * sizeof(pid_t));
		if (!np)
			return -ENOMEM;
		*pids = np;
		(*pids)[(*n)++] = (pid_t)v;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			return -EINVAL;
	}
	return 0;
}

uint64_t scry_pow2_at_least(uint64_t v, uint64_t min)
{
	uint64_t r = min;

	while (r < v && r < (1ULL << 62))
		r <<= 1;
	return r;
}

int scry_parse_group(const char *s, gid_t *out)
{
	struct group gr, *res = NULL;
	char buf[4096], *end;
	unsigned long n;

	if (!s || !*s)
		return -EINVAL;
	if (getgrnam_r(s, &gr, buf, sizeof(buf), &res) == 0 && res) {
		*out = res->gr_gid;
		return 0;
	}
	n = strtoul(s, &end, 10);
	if (*end || s[0] == '-' || n >= (gid_t)-1)
		return -EINVAL;
	*out = (gid_t)n;
	return 0;
}
