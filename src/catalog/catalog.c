/* catalog.c — the event catalog (catalog.h): tracefs discovery, tracepoint listing (on use),
 * syscall and built-in events, and the lookup helpers (closest names, tracefs ids).
 * Tracepoint events are built from their format files by event_tp.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "catalog/catalog.h"
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/statedump.h"
#include "util/log.h"

struct tp_cache {
	char *key;                 /* "system:event", "uprobe:PATH:FUNC" (internal.h) */
	struct scry_event *ev;
};

#define NBUILTINS 7

struct scry_catalog {
	char *tracefs;
	struct scry_syscalls sc;
	char **tps;                /* "system:event", sorted: listed on first use */
	size_t ntps;
	bool tps_listed;
	struct tp_cache *cache;
	size_t ncache, capcache;
	struct scry_event **sc_entry, **sc_exit;   /* parallel to sc.list, built on use */
	struct scry_event *builtins[NBUILTINS];
	struct scry_event *statedump[SCRY_SD_NR];   /* built on use (statedump.c) */
	struct scry_capture_opts cap;
	bool built;                /* a syscall event exists: cap is fixed */
};

static const char *const builtin_names[NBUILTINS] = {
	"syscall_entry_unknown", "syscall_exit_unknown", "sched_process_fork", "signal_deliver",
	"signal_generate", "profile_cpu_clock", "net_connection",
};

int scry_read_text(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *b = NULL;

	if (fd < 0)
		return -1;
	if (!(b = malloc(cap + 1)))
		goto fail;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			char *nb;

			if (cap >= (1u << 24)) {
				errno = EFBIG;
				goto fail;
			}
			if (!(nb = realloc(b, cap * 2 + 1)))
				goto fail;
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail:
	{
		int e = errno;

		free(b);
		close(fd);
		errno = e;
	}
	return -1;
}

static bool has_events(const char *dir)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is tracefs mounted at dir but closed to us (it is root's, mode 0700)? */
static bool tracefs_denied(const char *dir)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) < 0 && errno == EACCES;
}

/* The tracefs directory to use, mounting it at /sys/kernel/tracing if we may. */
static int find_tracefs(const char *want, char **out, char *err, size_t errlen)
{
	const char *dflt = "/sys/kernel/tracing", *debug = "/sys/kernel/debug/tracing";

	if (want) {
		if (!has_events(want)) {
			snprintf(err, errlen, "%s is not a tracefs mount (no events/ directory)", want);
			return -1;
		}
		*out = strdup(want);
		goto done;
	}
	if (has_events(dflt)) {
		*out = strdup(dflt);
		goto done;
	}
	if (geteuid() == 0 && mount("nodev", dflt, "tracefs", 0, NULL) == 0 && has_events(dflt)) {
		*out = strdup(dflt);
		goto done;
	}
	if (has_events(debug)) {
		*out = strdup(debug);
		goto done;
	}
	if (tracefs_denied(dflt))
		snprintf(err, errlen, "reading tracefs (%s) needs root or CAP_DAC_READ_SEARCH "
			 "(run scry with sudo)", dflt);
	else if (geteuid() != 0)
		snprintf(err, errlen, "tracefs is not mounted at %s: as root, mount -t tracefs nodev %s",
			 dflt, dflt);
	else
		snprintf(err, errlen, "tracefs is not available at %s: mount -t tracefs nodev %s "
			 "failed (%s)", dflt, dflt, strerror(errno));
	return -1;
done:
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_dir(const char *parent, const struct dirent *de)
{
	char p[2048];
	struct stat st;

	if (de->d_type == DT_DIR)
		return true;
	if (de->d_type != DT_UNKNOWN)
		return false;
	snprintf(p, sizeof(p), "%s/%s", parent, de->d_name);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Every events/SYSTEM/EVENT directory, except syscalls:* and ftrace:*. */
static int scan_tracepoints(struct scry_catalog *cat, char *err, size_t errlen)
{
	char root[512], sysdir[1024];
	DIR *d = NULL, *sd = NULL;
	struct dirent *de, *ee;
	size_t cap = 0;
	int ret = -1;

	snprintf(root, sizeof(root), "%s/events", cat->tracefs);
	if (!(d = opendir(root))) {
		snprintf(err, errlen, "cannot read %s: %s%s", root, strerror(errno),
			 errno == EACCES ? " (run scry as root)" : "");
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "syscalls") || !strcmp(de->d_name, "ftrace") ||
		    !is_dir(root, de))
			continue;
		snprintf(sysdir, sizeof(sysdir), "%s/%s", root, de->d_name);
		if (!(sd = opendir(sysdir)))
			continue;
		while ((ee = readdir(sd))) {
			char *name;

			if (ee->d_name[0] == '.' || !is_dir(sysdir, ee))
				continue;
			if (cat->ntps == cap) {
				size_t ncap = cap ? cap * 2 : 1024;
				char **n = realloc(cat->tps, ncap * sizeof(*n));

				if (!n)
					goto nomem;
				cat->tps = n;
				cap = ncap;
			}
			if (asprintf(&name, "%s:%s", de->d_name, ee->d_name) < 0)
				goto nomem;
			cat->tps[cat->ntps++] = name;
		}
		closedir(sd);
		sd = NULL;
	}
	qsort(cat->tps, cat->ntps, sizeof(*cat->tps), cmp_str);
	ret = 0;
	goto cleanup;
nomem:
	snprintf(err, errlen, "out of memory listing tracepoints");
cleanup:
	if (sd)
		closedir(sd);
	closedir(d);
	return ret;
}

struct scry_catalog *scry_catalog_open(const char *tracefs, char *err, size_t errlen)
{
	struct scry_catalog *cat = calloc(1, sizeof(*cat));

	if (!cat) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cat->cap.max_elems = 64;
	if (find_tracefs(tracefs, &cat->tracefs, err, errlen) < 0)
		goto fail;
	if (scry_syscalls_load(cat->tracefs, &cat->sc, err, errlen) < 0)
		goto fail;
	cat->sc_entry = calloc(cat->sc.n ? cat->sc.n : 1, sizeof(*cat->sc_entry));
	cat->sc_exit = calloc(cat->sc.n ? cat->sc.n : 1, sizeof(*cat->sc_exit));
	if (!cat->sc_entry || !cat->sc_exit) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return cat;
fail:
	scry_catalog_close(cat);
	return NULL;
}

void scry_catalog_close(struct scry_catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; i < cat->ntps; i++)
		free(cat->tps[i]);
	free(cat->tps);
	for (size_t i = 0; i < cat->ncache; i++) {
		free(cat->cache[i].key);
		scry_event_free(cat->cache[i].ev);
	}
	free(cat->cache);
	for (size_t i = 0; cat->sc_entry && i < cat->sc.n; i++) {
		scry_event_free(cat->sc_entry[i]);
		scry_event_free(cat->sc_exit[i]);
	}
	free(cat->sc_entry);
	free(cat->sc_exit);
	for (size_t i = 0; i < NBUILTINS; i++)
		scry_event_free(cat->builtins[i]);
	for (size_t i = 0; i < SCRY_SD_NR; i++)
		scry_event_free(cat->statedump[i]);
	scry_syscalls_free(&cat->sc);
	free(cat->tracefs);
	free(cat);
}

const char *scry_catalog_tracefs(const struct scry_catalog *cat)
{
	return cat->tracefs;
}

size_t scry_catalog_syscalls(struct scry_catalog *cat, const struct scry_syscall **list)
{
	*list = cat->sc.list;
	return cat->sc.n;
}

const struct scry_syscall *scry_catalog_syscall_by_name(struct scry_catalog *cat, const char *name)
{
	return scry_syscalls_find(&cat->sc, name);
}

bool scry_catalog_syscall_args_known(struct scry_catalog *cat, const struct scry_syscall *sc)
{
	if (sc < cat->sc.list || sc >= cat->sc.list + cat->sc.n)
		return false;
	return cat->sc.args_known[sc - cat->sc.list];
}

const char *scry_catalog_lttng_name(const char *system, const char *event)
{
	return scry_lttng_event_name(system, event);
}

/* Listed on first use, not at open: walking tracefs's ~130 event systems (eventfs makes
 * their directories as they are read) is ~7 ms of every start of `scry trace`, which
 * names no tracepoint.  A listing that fails is said once (then none is listed). */
size_t scry_catalog_tracepoints(struct scry_catalog *cat, const char *const **names)
{
	char err[1024];

	if (!cat->tps_listed) {
		cat->tps_listed = true;
		if (scan_tracepoints(cat, err, sizeof(err)) < 0) {
			scry_log(SCRY_LOG_INFO, "scry: %s: no tracepoint listed", err);
			for (size_t i = 0; i < cat->ntps; i++)
				free(cat->tps[i]);
			cat->ntps = 0;
		}
	}
	*names = (const char *const *)cat->tps;
	return cat->ntps;
}

/* A tracefs path component: no '/', not "." or "..", not empty. */
static bool safe_component(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

const struct scry_event *scry_catalog_cached(struct scry_catalog *cat, const char *key)
{
	for (size_t i = 0; i < cat->ncache; i++)
		if (!strcmp(cat->cache[i].key, key))
			return cat->cache[i].ev;
	return NULL;
}

const struct scry_event *scry_catalog_cache(struct scry_catalog *cat, const char *key, struct scry_event *ev)
{
	char *k = strdup(key);

	if (k && cat->ncache == cat->capcache) {
		size_t ncap = cat->capcache ? cat->capcache * 2 : 32;
		struct tp_cache *n = realloc(cat->cache, ncap * sizeof(*n));

		if (!n) {
			free(k);
			k = NULL;
		} else {
			cat->cache = n;
			cat->capcache = ncap;
		}
	}
	if (!k) {
		scry_event_free(ev);
		return NULL;
	}
	cat->cache[cat->ncache++] = (struct tp_cache){ k, ev };
	return ev;
}

const struct scry_event *scry_catalog_tracepoint(struct scry_catalog *cat, const char *system,
						 const char *name, char *err, size_t errlen)
{
	char path[1024], perr[200];
	char *key = NULL, *text = NULL;
	size_t len;
	struct scry_event *ev = NULL;

	if (!safe_component(system) || !safe_component(name)) {
		snprintf(err, errlen, "invalid tracepoint name '%s:%s'", system ? system : "", name ? name : "");
		return NULL;
	}
	if (!strcmp(system, "syscalls") || !strcmp(system, "ftrace")) {
		snprintf(err, errlen, "'%s:%s' is not a generic tracepoint (use the syscall events)", system, name);
		return NULL;
	}
	if (asprintf(&key, "%s:%s", system, name) < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((ev = (struct scry_event *)scry_catalog_cached(cat, key))) {
		free(key);
		return ev;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", cat->tracefs, system, name);
	if (scry_read_text(path, &text, &len) < 0) {
		if (errno == ENOENT)
			snprintf(err, errlen, "unknown tracepoint '%s'", key);
		else
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!(ev = scry_event_from_format(system, name, text, len, perr, sizeof(perr)))) {
		snprintf(err, errlen, "tracepoint '%s': %s", key, perr);
		goto fail;
	}
	free(text);
	if (!scry_catalog_cache(cat, key, ev)) {
		snprintf(err, errlen, "out of memory");
		free(key);
		return NULL;
	}
	free(key);
	return ev;
fail:
	scry_event_free(ev);
	free(text);
	free(key);
	return NULL;
}

int scry_catalog_set_capture(struct scry_catalog *cat, const struct scry_capture_opts *o)
{
	if (cat->built)
		return -1;
	cat->cap = *o;
	if (cat->cap.strsize > SCRY_STR_MAX - 2)
		cat->cap.strsize = SCRY_STR_MAX - 2;
	if (cat->cap.snaplen > SCRY_SEQ_MAX)
		cat->cap.snaplen = SCRY_SEQ_MAX;
	if (!cat->cap.max_elems)
		cat->cap.max_elems = 64;
	return 0;
}

int scry_capture_opts_parse(const char *list, unsigned *what, char *err, size_t errlen)
{
	static const struct { const char *name; unsigned bit; } names[] = {
		{ "env", SCRY_CAPTURE_ENV }, { "sock", SCRY_CAPTURE_SOCK },
	};
	const char *p = list;

	*what = 0;
	do {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strlen(names[k].name) == n && !strncmp(p, names[k].name, n))
				break;
		if (k == sizeof(names) / sizeof(names[0])) {
			snprintf(err, errlen, "invalid --capture '%s' (expected: %s)", list, SCRY_CAPTURE_VALUES);
			return -1;
		}
		*what |= names[k].bit;
		p += n;
	} while (*p++);
	return 0;
}

const struct scry_event *scry_catalog_syscall_entry(struct scry_catalog *cat, const struct scry_syscall *sc)
{
	size_t i;

	if (!sc || sc < cat->sc.list || sc >= cat->sc.list + cat->sc.n)
		return NULL;
	i = (size_t)(sc - cat->sc.list);
	if (!cat->sc_entry[i])
		cat->sc_entry[i] = scry_event_syscall_entry(sc, cat->sc.args_known[i], &cat->cap);
	cat->built = true;
	return cat->sc_entry[i];
}

const struct scry_event *scry_catalog_syscall_exit(struct scry_catalog *cat, const struct scry_syscall *sc)
{
	size_t i;

	if (!sc || sc < cat->sc.list || sc >= cat->sc.list + cat->sc.n)
		return NULL;
	i = (size_t)(sc - cat->sc.list);
	if (!cat->sc_exit[i])
		cat->sc_exit[i] = scry_event_syscall_exit(sc, &cat->cap);
	cat->built = true;
	return cat->sc_exit[i];
}

const struct scry_event *scry_catalog_builtin(struct scry_catalog *cat, const char *name)
{
	int k;

	for (size_t i = 0; name && i < NBUILTINS; i++)
		if (!strcmp(name, builtin_names[i])) {
			if (!cat->builtins[i])
				cat->builtins[i] = scry_event_builtin(name);
			return cat->builtins[i];
		}
	if (name && (k = scry_sd_find(name)) >= 0) {   /* the statedump's */
		if (!cat->statedump[k])
			cat->statedump[k] = scry_event_builtin(name);
		return cat->statedump[k];
	}
	return NULL;
}

int scry_catalog_tracepoint_id(struct scry_catalog *cat, const char *system, const char *name)
{
	char path[1024], *text = NULL, *end;
	size_t len;
	long id;

	if (!safe_component(system) || !safe_component(name))
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", cat->tracefs, system, name);
	if (scry_read_text(path, &text, &len) < 0)
		return -1;
	errno = 0;
	id = strtol(text, &end, 10);
	if (errno || end == text || id < 0 || id > 0x7fffffff)
		id = -1;
	free(text);
	return (int)id;
}

const struct scry_capture_opts *scry_catalog_capture(const struct scry_catalog *cat)
{
	return &cat->cap;
}
