/* probes.c — dynamic probes in sessions, LTTng's way: enable-event -k
 * --userspace-probe=elf:PATH:SYMBOL | sdt:PATH:PROVIDER:NAME, --probe=SOURCE and
 * --function=SOURCE as engine specs (uprobe:PATH:SYMBOL, usdt:PATH:PROVIDER:NAME,
 * kprobe:SOURCE: the engine decides, and says why a kernel without kprobes cannot), the
 * binary's path made absolute and the binary opened with the session owner's rights (a
 * user probes only what it may read), and a probe rule described as lttng 2.13's list.c
 * describes it (its location under the rule's line). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/daemon_int.h"
#include "util/runas.h"

bool dprobe_user(const char *spec)
{
	return !strncmp(spec, "uprobe:", 7) || !strncmp(spec, "usdt:", 5);
}

bool dprobe_kernel(const char *spec)
{
	return !strncmp(spec, "kprobe:", 7) || !strncmp(spec, "kretprobe:", 10);
}

/* PATH:A (parts 1) or PATH:A:B (parts 2) cut at its last colons: the path malloc'd, a and b
 * pointing into loc (b NULL for one part).  -EINVAL when a part is missing or empty. */
static int cut(const char *loc, int parts, char **path, const char **a, const char **b)
{
	const char *c1 = strrchr(loc, ':'), *c0 = NULL;

	if (!c1 || !c1[1])
		return -EINVAL;
	if (parts == 2) {
		for (c0 = c1 - 1; c0 > loc && *c0 != ':'; c0--)
			;
		if (c0 <= loc || c0 + 1 == c1)
			return -EINVAL;
	}
	*a = (parts == 2 ? c0 : c1) + 1;
	*b = parts == 2 ? c1 + 1 : NULL;
	*path = strndup(loc, (size_t)((parts == 2 ? c0 : c1) - loc));
	return *path && **path ? 0 : -EINVAL;
}

int dprobe_check_binary(const struct dsession *s, const char *path, char *err, size_t errlen)
{
	struct scry_runas ra;
	int fd, ret = scry_runas_begin(dsession_owner(s), &ra);

	if (ret) {
		snprintf(err, errlen, "cannot act as the session's owner: %s", strerror(-ret));
		return ret;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	scry_runas_end(&ra);
	if (fd >= 0)
		close(fd);
	if (ret)
		snprintf(err, errlen, "'%s': %s", path, strerror(-ret));
	return ret;
}

int dprobe_spec(const struct dsession *s, const struct dpeer *peer, int kind, const char *loc, char **spec,
		char *err, size_t errlen)
{
	const char *a, *b;
	char *path = NULL, *abs = NULL;
	int ret;

	*spec = NULL;
	if (kind != DPROBE_USER) {       /* a kernel symbol, SYMBOL+OFF or an address */
		if (!*loc || asprintf(spec, "%s%s", kind == DPROBE_FUNCTION ? "kretprobe:" : "kprobe:", loc) < 0) {
			snprintf(err, errlen, *loc ? "out of memory" : "enable-event: empty probe location");
			return *loc ? -ENOMEM : -EINVAL;
		}
		return 0;
	}
	bool elf = !strncmp(loc, "elf:", 4), sdt = !strncmp(loc, "sdt:", 4);

	if ((!elf && !sdt) || cut(loc + 4, elf ? 1 : 2, &path, &a, &b)) {
		free(path);
		snprintf(err, errlen, "--userspace-probe '%s': expected elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME", loc);
		return -EINVAL;
	}
	ret = peer ? dpeer_path(peer, path, &abs) : path[0] == '/' ? ((abs = strdup(path)) ? 0 : -ENOMEM) : -ENOENT;
	free(path);
	if (ret == -ENOENT) {
		snprintf(err, errlen, "--userspace-probe '%s': a relative path, and the daemon cannot see your working "
			 "directory: give an absolute one", loc);
		return -EINVAL;
	}
	if (!ret && !(ret = dprobe_check_binary(s, abs, err, errlen)) &&
	    (elf ? asprintf(spec, "uprobe:%s:%s", abs, a) : asprintf(spec, "usdt:%s:%s", abs, a)) < 0) {
		*spec = NULL;       /* (sdt: a is PROVIDER:NAME) */
		ret = -ENOMEM;
	}
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(abs);
	return ret;
}

int dprobe_location(const char *spec, struct dprobe_loc *l)
{
	const char *a, *b;

	memset(l, 0, sizeof(*l));
	if (dprobe_kernel(spec)) {
		l->kind = !strncmp(spec, "kretprobe:", 10) ? DPROBE_FUNCTION : DPROBE_PROBE;
		l->a = strchr(spec, ':') + 1;
		return 0;
	}
	if (!dprobe_user(spec))
		return -EINVAL;
	l->kind = DPROBE_USER;
	l->sdt = spec[1] == 's';
	if (cut(strchr(spec, ':') + 1, l->sdt ? 2 : 1, &l->path, &a, &b))
		return -EINVAL;
	l->a = a;
	l->b = b;
	if (l->sdt && !(l->provider = strndup(a, (size_t)(b - a - 1))))
		return -ENOMEM;
	return 0;
}

void dprobe_location_free(struct dprobe_loc *l)
{
	free(l->path);
	free(l->provider);
}

void dprobe_describe(const struct drule *rule, FILE *out)
{
	struct dprobe_loc l;

	if (dprobe_location(rule->spec, &l)) {
		dprobe_location_free(&l);
		return;
	}
	fprintf(out, "      %s (type: %s) [%s]", rule->name ? rule->name : rule->spec,
		l.kind == DPROBE_USER ? "userspace-probe" : l.kind == DPROBE_FUNCTION ? "function" : "probe",
		rule->enabled ? "enabled" : "disabled");
	if (rule->filter)
		fprintf(out, " [filter: '%s']", rule->filter);
	fprintf(out, "\n");
	if (l.kind == DPROBE_USER && !l.sdt)
		fprintf(out, "        Type: Function\n        Binary path:   %s\n        Function:      %s\n"
			"        Lookup method: ELF\n", l.path, l.a);
	else if (l.kind == DPROBE_USER)
		fprintf(out, "        Type: Tracepoint\n        Binary path:   %s\n        Tracepoint:    %s:%s\n"
			"        Lookup method: SDT\n", l.path, l.provider, l.b);
	else
		fprintf(out, "        Symbol: %s\n", l.a);
	dprobe_location_free(&l);
}
