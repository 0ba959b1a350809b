/* sysnames.c — see sysnames.h. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include "catalog/symbolize.h"
#include "metrics/sysnames.h"
#include "util/cgroup.h"

#define CGROUP_WALK_DEPTH 16
#define CGROUP_MAX        65536     /* directories cached at most */

struct cg { uint64_t id; char *path; };

static struct cg *cgs;
static size_t ncgs;
static time_t walked;               /* the last walk: at most one a second */

static void cg_add(const char *path, void *ctx)
{
	uint64_t id = scry_cgroup_id(path);
	struct cg *n;

	if (!id || ncgs >= CGROUP_MAX)
		return;
	if (!(ncgs & (ncgs - 1)) || !ncgs) {    /* capacity: the next power of two */
		if (!(n = realloc(cgs, (ncgs ? 2 * ncgs : 64) * sizeof(*n))))
			return;
		cgs = n;
	}
	if ((cgs[ncgs].path = strdup(path)))
		cgs[ncgs++].id = id;
}

static void rewalk(void)
{
	for (size_t i = 0; i < ncgs; i++)
		free(cgs[i].path);
	ncgs = 0;
	walked = time(NULL);
	scry_cgroup_walk(CGROUP_WALK_DEPTH, cg_add, NULL);
}

int scry_metric_cgroup_path(uint64_t id, char *buf, size_t buflen)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ncgs; i++)
			if (cgs[i].id == id && scry_cgroup_id(cgs[i].path) == id) {   /* still that one */
				snprintf(buf, buflen, "%s", cgs[i].path);
				return 1;
			}
		if (pass || time(NULL) == walked)
			break;
		rewalk();
	}
	snprintf(buf, buflen, "unknown_cgroup_id:%" PRIu64, id);
	return 1;
}

int scry_metric_ksym(uint64_t addr, char *buf, size_t buflen)
{
	static struct scry_syms *syms;
	char *plus;

	if (!syms && !(syms = scry_syms_new()))
		return -1;
	if (!addr || !scry_syms_kernel(syms, addr, true, buf, buflen))
		return -1;
	if ((plus = strchr(buf, '+')))    /* the function, as /proc/PID/wchan and ebpf_exporter */
		*plus = 0;
	return 1;
}

int scry_metric_inet_ip(uint32_t family, const uint8_t addr[16], char *buf, size_t buflen)
{
	char text[INET6_ADDRSTRLEN];

	if (!family) {
		snprintf(buf, buflen, "%s", "");
		return 1;
	}
	if ((family == AF_INET && !inet_ntop(AF_INET, addr + 12, text, sizeof(text))) ||
	    (family == AF_INET6 && !inet_ntop(AF_INET6, addr, text, sizeof(text))) ||
	    (family != AF_INET && family != AF_INET6))
		return -1;
	snprintf(buf, buflen, "%s", text);
	return 1;
}
