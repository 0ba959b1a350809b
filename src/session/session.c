/* session.c — a recording session (see session.h): its lifecycle (create, load, track,
 * start, stop, destroy), the trace directory and its metadata, the probes and the consumer.
 * Its events are events.c's. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "consumer/consumer.h"
#include "ctf/metadata.h"
#include "ctf/trace_dir.h"
#include "session/filters.h"
#include "session/guard.h"
#include "session/user_filter.h"
#include "kernel/probes.h"
#include "session/session.h"
#include "session/session_int.h"
#include "util/clock.h"
#include "util/log.h"

static const char *const default_events[] = {
	"syscall:*", "sched:sched_switch", "sched:sched_process_fork",
	"sched:sched_process_exec", "sched:sched_process_exit",
};

/* A trace directory is written: no live sink, or an output given beside it. */
bool session_has_trace(const struct scry_session *s)
{
	return !s->opts.sink || s->opts.output;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = false;
			break;
		}
	closedir(d);
	return empty;
}

static int check_output(struct scry_session *s, char *err, size_t errlen)
{
	struct stat st;

	if (s->opts.output) {
		s->dir = strdup(s->opts.output);
	} else {
		char name[64];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(name, sizeof(name), "scry-%Y%m%d-%H%M%S", &tm);
		s->dir = strdup(name);
	}
	if (!s->dir || asprintf(&s->kernel_dir, "%s/kernel", s->dir) < 0) {
		s->kernel_dir = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!s->opts.output)
		return 0;      /* a default name: make_trace_dir finds a free one */
	if (stat(s->dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "output '%s' exists and is not a directory", s->dir);
			return -EEXIST;
		}
		if (!dir_is_empty(s->dir)) {
			snprintf(err, errlen, "output directory '%s' exists and is not empty: refusing to overwrite it", s->dir);
			return -EEXIST;
		}
	} else if (errno != ENOENT) {
		snprintf(err, errlen, "cannot use output '%s': %s", s->dir, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Make and lock the trace directory: -o's as given (it may exist, empty), or the default
 * name made exclusively, with -1, -2... added when a run started in the same second has it. */
static int make_trace_dir(struct scry_session *s, char *err, size_t errlen)
{
	char *base = s->dir;
	int ret = -EEXIST;

	if (s->opts.output)
		return ctf_trace_dir_make(&s->tdir, s->dir, false, err, errlen);
	for (unsigned k = 0; k < 1000 && ret == -EEXIST; k++) {
		char *name = NULL, *kdir = NULL;

		if ((k ? asprintf(&name, "%s-%u", base, k) : asprintf(&name, "%s", base)) < 0 ||
		    asprintf(&kdir, "%s/kernel", name) < 0) {
			free(name);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		ret = ctf_trace_dir_make(&s->tdir, name, true, err, errlen);
		if (ret == 0) {
			if (s->dir != base)
				free(s->dir);
			free(s->kernel_dir);
			s->dir = name;
			s->kernel_dir = kdir;
		} else {
			free(name);
			free(kdir);
		}
	}
	if (base != s->dir)
		free(base);
	if (ret == -EEXIST)
		snprintf(err, errlen, "cannot find a free directory name beside '%s'", base);
	return ret;
}

/* --track-cgroup: each path must be a cgroup v2 directory. */
static int open_cgroups(struct scry_session *s, char *err, size_t errlen)
{
	if (!s->opts.ntrack_cgroups)
		return 0;
	s->cgroup_fds = malloc(s->opts.ntrack_cgroups * sizeof(int));
	if (!s->cgroup_fds) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->opts.ntrack_cgroups; i++)
		s->cgroup_fds[i] = -1;
	for (size_t i = 0; i < s->opts.ntrack_cgroups; i++) {
		const char *path = s->opts.track_cgroups[i];
		struct statfs sf;
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0) {
			snprintf(err, errlen, "--track-cgroup '%s': %s", path, strerror(errno));
			return -errno;
		}
		s->cgroup_fds[i] = fd;
		if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
			snprintf(err, errlen, "--track-cgroup '%s': not a cgroup v2 directory", path);
			return -ENOTDIR;
		}
	}
	return 0;
}

int scry_session_create(struct scry_session **out, const struct scry_session_opts *o,
			char *err, size_t errlen)
{
	struct scry_session *s = calloc(1, sizeof(*s));

	if (s)
		s->guard.fd = -1;
	const char *const *specs = o->events;
	size_t nspecs = o->nevents;
	int ret = -ENOMEM;

	err[0] = 0;
	if (!s)
		goto oom;
	s->opts = *o;
	if (!s->opts.ring_size) {
		int ncpus = libbpf_num_possible_cpus();
		size_t size = SCRY_DEFAULT_RING_SIZE;

		while (ncpus > 0 && size > SCRY_MIN_RING_SIZE && size * (size_t)ncpus > SCRY_DEFAULT_RING_TOTAL)
			size /= 2;
		s->opts.ring_size = size;
	}
	if (!s->opts.packet_size)
		s->opts.packet_size = SCRY_DEFAULT_PACKET_SIZE;
	s->unknown_entry = s->unknown_exit = s->fork_id = NO_EVENT;
	s->sc_entry = malloc(SCRY_MAX_SYSCALLS * sizeof(uint16_t));
	s->sc_exit = malloc(SCRY_MAX_SYSCALLS * sizeof(uint16_t));
	s->sc_off = calloc(SCRY_MAX_SYSCALLS, sizeof(bool));
	if (!s->sc_entry || !s->sc_exit || !s->sc_off)
		goto oom;
	for (int i = 0; i < SCRY_MAX_SYSCALLS; i++)
		s->sc_entry[i] = s->sc_exit[i] = NO_EVENT;

	ret = session_has_trace(s) ? check_output(s, err, errlen) : 0;
	if (ret)
		goto fail;
	s->cat = scry_catalog_open(NULL, err, errlen);
	if (!s->cat) {
		ret = -ENOENT;
		goto fail;
	}
	scry_catalog_set_capture(s->cat, &o->capture);
	if (!nspecs) {
		specs = default_events;
		nspecs = sizeof(default_events) / sizeof(default_events[0]);
	}
	for (size_t i = 0; i < nspecs; i++) {
		ret = scry_session_enable_event(s, specs[i], err, errlen);
		if (ret)
			goto fail;
	}
	if (o->filter) {
		if (o->count_syscalls) {
			snprintf(err, errlen, "a filter cannot be combined with counting (-c)");
			ret = -EINVAL;
			goto fail;
		}
		s->filters = scry_filters_prepare(o->filter, (const struct scry_event *const *)s->events, s->nevents,
						  o->filter_entries_only, err, errlen);
		if (!s->filters) {
			ret = -EINVAL;
			goto fail;
		}
		ret = scry_user_filter_new(&s->ufilter, s->filters, (const struct scry_event *const *)s->events,
					   s->nevents, o->ctx_mask, err, errlen);
		if (ret)
			goto fail;
		if (s->ufilter)
			scry_user_filter_explain(s->ufilter);
	}
	ret = open_cgroups(s, err, errlen);
	if (ret)
		goto fail;
	*out = s;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	scry_session_destroy(s);
	return ret;
}

static void random_uuid(uint8_t u[16])
{
	if (getrandom(u, 16, 0) != 16) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		for (int i = 0; i < 16; i++)
			u[i] = (uint8_t)((ts.tv_nsec >> (i % 4 * 8)) ^ (getpid() >> (i % 2 * 8)) ^ i * 37);
	}
	u[6] = (u[6] & 0x0f) | 0x40;   /* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80;   /* variant */
}

/* The metadata of every event enabled so far, written whole (again when an event is enabled
 * after start: before its first record can be written).  What describes the trace itself
 * (clock offset and uuid, creation time) is fixed by the first write. */
int session_write_metadata(struct scry_session *s, char *err, size_t errlen)
{
	struct utsname un;
	char host[256] = "", path[4096];
	struct ctf_trace_info ti = { 0 };
	const char *base = strrchr(s->dir, '/');

	if (!s->created[0]) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(s->created, sizeof(s->created), "%Y%m%dT%H%M%S%z", &tm);
		scry_clock_offset(&s->clock_off_s, &s->clock_off_ns);
		random_uuid(s->clock_uuid);
	}
	uname(&un);
	gethostname(host, sizeof(host) - 1);
	memcpy(ti.uuid, s->uuid, 16);
	memcpy(ti.clock_uuid, s->clock_uuid, 16);
	ti.hostname = host;
	ti.sysname = un.sysname;
	ti.kernel_release = un.release;
	ti.kernel_version = un.version;
	ti.trace_name = base && base[1] ? base + 1 : s->dir;
	ti.creation_datetime = s->created;
	ti.clock_offset_s = s->clock_off_s;
	ti.clock_offset_ns = s->clock_off_ns;
	ti.ctx_mask = s->opts.ctx_mask;
	ti.channel = CHANNEL;
	snprintf(path, sizeof(path), "%s/metadata", s->kernel_dir);
	return ctf_metadata_write(path, &ti, (const struct scry_event *const *)s->events, s->nevents, err, errlen);
}

int scry_session_load(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_probes_opts po = {
		.cat = s->cat,
		.ctx_mask = s->opts.ctx_mask,
		.target_all = s->opts.target_all,
		.fork_event_id = s->fork_id,
		.unknown_entry_id = s->unknown_entry,
		.unknown_exit_id = s->unknown_exit,
		.syscalls = s->any_syscall,
		.filter = s->filters != NULL,
		.ring_size = s->opts.ring_size,
		.nevent_ids = (unsigned)s->nevents,
		.track_vpids = s->opts.track_vpids, .ntrack_vpids = s->opts.ntrack_vpids, .track_vpid = s->opts.track_vpids != NULL,
		.track_uids = s->opts.track_uids, .ntrack_uids = s->opts.ntrack_uids, .track_uid = s->opts.track_uids != NULL,
		.track_gids = s->opts.track_gids, .ntrack_gids = s->opts.ntrack_gids, .track_gid = s->opts.track_gids != NULL,
		.track_cgroup_fds = s->cgroup_fds, .ntrack_cgroups = s->opts.ntrack_cgroups,
	};
	int ret;

	random_uuid(s->uuid);
	/* the trace directory first (destroy removes it if the session never starts), then its
	 * guardian, forked before any BPF object or trace file exists so that it holds none */
	if (session_has_trace(s) && ((ret = make_trace_dir(s, err, errlen)) ||
			     (ret = scry_guard_start(&s->guard, s->dir, err, errlen))))
		return ret;
	ret = scry_probes_load(&s->probes, &po, err, errlen);
	if (ret)
		return ret;
	if (s->filters) {
		size_t moved;

		ret = scry_filters_install(s->filters, s->probes, scry_log_verbose(), &moved, err, errlen);
		if (ret)
			return ret;
		if (moved) {   /* filters this kernel cannot run: decided in user space too */
			scry_user_filter_free(s->ufilter);
			s->ufilter = NULL;
			ret = scry_user_filter_new(&s->ufilter, s->filters, (const struct scry_event *const *)s->events,
						   s->nevents, s->opts.ctx_mask, err, errlen);
			if (ret)
				return ret;
			scry_user_filter_explain(s->ufilter);
		}
	}
	ret = session_set_syscall_table(s, err, errlen);
	if (ret || !session_has_trace(s))
		return ret;
	return session_write_metadata(s, err, errlen);   /* on failure, destroy removes the directory */
}

int scry_session_track(struct scry_session *s, pid_t tgid, char *err, size_t errlen)
{
	int ret = scry_probes_track(s->probes, tgid);
	if (ret)
		snprintf(err, errlen, "cannot follow pid %d: %s", (int)tgid, strerror(-ret));
	return ret;
}

int scry_session_start(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_consumer_opts co = {
		.probes = s->probes, .dir = session_has_trace(s) ? s->kernel_dir : NULL, .channel = CHANNEL, .uuid = s->uuid,
		.stream_id = 0, .packet_size = s->opts.packet_size, .ring_size = s->opts.ring_size,
		.sink = s->opts.sink, .sink_ctx = s->opts.sink_ctx,
		.stage_max_age_ns = s->opts.sink ? 2 * 1000 * 1000ULL : 0,
		.pred = s->ufilter ? scry_user_filter_match : NULL, .pred_ctx = s->ufilter,
		.pred_ids = s->ufilter ? scry_user_filter_ids(s->ufilter) : NULL,
	};
	int ret;

	s->start_ts = scry_monotonic_ns();
	co.start_ts = s->start_ts;
	ret = scry_consumer_open(&s->consumer, &co, err, errlen);
	if (ret)
		return ret;
	ret = session_attach_tracepoints(s, err, errlen);
	if (ret)
		return ret;
	ret = scry_probes_attach(s->probes, err, errlen);
	if (ret)
		return ret;
	s->start_ts = scry_monotonic_ns();
	scry_probes_set_recording(s->probes, true);   /* every event from this instant on */
	s->started = true;
	return 0;
}

int scry_session_sc_count(struct scry_session *s, unsigned nr, struct scry_sc_count *out)
{
	return s->probes ? scry_probes_sc_count(s->probes, nr, out) : -EINVAL;
}

struct scry_catalog *scry_session_catalog(const struct scry_session *s)
{
	return s->cat;
}

size_t scry_session_events(const struct scry_session *s, const struct scry_event *const **events)
{
	*events = (const struct scry_event *const *)s->events;
	return s->nevents;
}

long scry_session_poll(struct scry_session *s)
{
	return s->consumer ? scry_consumer_poll(s->consumer) : 0;
}

uint64_t scry_session_poll_delay_ns(const struct scry_session *s)
{
	return s->consumer ? scry_consumer_poll_delay_ns(s->consumer) : 10 * 1000 * 1000ULL;
}

int scry_session_flush(struct scry_session *s)
{
	return s->consumer ? scry_consumer_flush(s->consumer) : 0;
}

void scry_session_progress(struct scry_session *s, struct scry_session_summary *out)
{
	struct scry_consumer_stats cs;

	memset(out, 0, sizeof(*out));
	if (!s->consumer)
		return;
	scry_consumer_stats(s->consumer, &cs);
	out->events = cs.events;
	out->discarded = cs.discarded;
	out->bytes = cs.bytes;
	out->lost = cs.lost;
	out->too_big = cs.too_big;
	out->write_error = cs.write_error;
	out->seconds = (scry_monotonic_ns() - s->start_ts) / 1e9;
}

int scry_session_stop(struct scry_session *s, struct scry_session_summary *out, char *err, size_t errlen)
{
	struct scry_consumer_stats cs = { 0 };
	uint64_t misses = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (s->probes) {
		scry_probes_set_recording(s->probes, false);   /* every event until this instant */
		s->stop_ts = scry_monotonic_ns();
		scry_probes_detach(s->probes);
		/* program runs the kernel skipped, and entries still waiting for their exit */
		misses = scry_probes_recursion_misses(s->probes) + scry_probes_deferred_waiting(s->probes);
	}
	if (!s->stop_ts)
		s->stop_ts = scry_monotonic_ns();
	if (s->consumer) {
		ret = scry_consumer_close(s->consumer, s->stop_ts, &cs);
		s->consumer = NULL;
		if (ret)
			snprintf(err, errlen, "writing the trace failed: %s", strerror(-ret));
	}
	ctf_trace_dir_close(s->tdir, true);
	s->tdir = NULL;
	scry_guard_release(&s->guard);
	out->events = cs.events;
	out->discarded = cs.discarded + misses;
	out->truncated = cs.truncated;
	out->bytes = cs.bytes;
	out->clamped = cs.clamped;
	out->filtered = cs.filtered;
	out->unfollowed = cs.unfollowed;
	out->lost = cs.lost;
	out->too_big = cs.too_big;
	out->write_error = cs.write_error;
	out->seconds = s->start_ts ? (s->stop_ts - s->start_ts) / 1e9 : 0;
	return ret;
}

void scry_session_destroy(struct scry_session *s)
{
	if (!s)
		return;
	if (s->consumer) {
		struct scry_consumer_stats cs;
		scry_consumer_close(s->consumer, scry_monotonic_ns(), &cs);
	}
	ctf_trace_dir_close(s->tdir, s->started);   /* never started: nothing is left behind */
	scry_guard_release(&s->guard);
	scry_probes_close(s->probes);
	scry_user_filter_free(s->ufilter);
	scry_filters_free(s->filters);
	if (s->cgroup_fds)
		for (size_t i = 0; i < s->opts.ntrack_cgroups; i++)
			if (s->cgroup_fds[i] >= 0)
				close(s->cgroup_fds[i]);
	free(s->cgroup_fds);
	scry_catalog_close(s->cat);
	for (size_t i = 0; i < s->ntps; i++) {
		free(s->tps[i].system);
		free(s->tps[i].name);
	}
	free(s->tps);
	free(s->events);
	free(s->sc_entry);
	free(s->sc_exit);
	free(s->sc_off);
	free(s->dir);
	free(s->kernel_dir);
	free(s);
}

const char *scry_session_dir(const struct scry_session *s)
{
	return s->dir;
}

uint64_t scry_session_ctx_mask(const struct scry_session *s)
{
	return s->opts.ctx_mask;
}

size_t scry_session_nevents(const struct scry_session *s)
{
	return s->nevents;
}
