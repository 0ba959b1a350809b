/* output.c — what a session writes on disk (see session.h): the trace directory (its name
 * checked at create, made and locked at load), the metadata and the trace clocks it names,
 * the trace chunks (rotation, the archives, the last chunk at stop) and snapshots.  When
 * each is done is session.c's. */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "consumer/consumer.h"
#include "ctf/metadata.h"
#include "ctf/trace_dir.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "session/session.h"
#include "session/session_int.h"
#include "util/clock.h"

/* The trace clocks: the BPF helper each is read with (rodata scry_clock), its clock id here,
 * and the metadata's clock block (LTTng's for monotonic). */
static const struct {
	const char *name, *description;
	clockid_t id;
} clocks[SCRY_CLOCK_NR] = {
	[SCRY_CLOCK_MONOTONIC] = { "monotonic", "Monotonic Clock", CLOCK_MONOTONIC },
	[SCRY_CLOCK_BOOT] = { "boot", "Boot time clock (CLOCK_BOOTTIME: monotonic, counts suspend)", CLOCK_BOOTTIME },
	[SCRY_CLOCK_TAI] = { "tai", "International Atomic Time (CLOCK_TAI)", CLOCK_TAI },
};

uint64_t session_now(const struct scry_session *s)
{
	return scry_clock_ns(clocks[s->opts.clock].id);
}

const char *scry_clock_name(unsigned clock)
{
	return clock < SCRY_CLOCK_NR ? clocks[clock].name : NULL;
}

int scry_clock_check(unsigned clock, char *err, size_t errlen)
{
	if (clock >= SCRY_CLOCK_NR) {
		snprintf(err, errlen, "unknown clock %u", clock);
		return -EINVAL;
	}
	if (clock == SCRY_CLOCK_TAI && !scry_feature_ktime_tai()) {
		snprintf(err, errlen, "clock 'tai': this kernel has no bpf_ktime_get_tai_ns (Linux 6.1 and later)");
		return -ENOTSUP;
	}
	return 0;
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

int session_check_output(struct scry_session *s, char *err, size_t errlen)
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
		return 0;      /* a default name: session_make_trace_dir finds a free one */
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
int session_make_trace_dir(struct scry_session *s, char *err, size_t errlen)
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

const char *scry_session_dir(const struct scry_session *s)
{
	return s->dir;
}

void session_random_uuid(uint8_t u[16])
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
static int write_metadata_in(struct scry_session *s, const char *kernel_dir, char *err, size_t errlen);

int session_write_metadata(struct scry_session *s, char *err, size_t errlen)
{
	return write_metadata_in(s, s->kernel_dir, err, errlen);
}

static int write_metadata_in(struct scry_session *s, const char *kernel_dir, char *err, size_t errlen)
{
	struct utsname un;
	char host[256] = "", path[4096];
	struct ctf_trace_info ti = { 0 };
	struct ctf_stream_class *sc;
	const char *base = strrchr(s->dir, '/');
	int ret;

	if (!s->created[0]) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(s->created, sizeof(s->created), "%Y%m%dT%H%M%S%z", &tm);
		scry_clock_offset_of(clocks[s->opts.clock].id, &s->clock_off_s, &s->clock_off_ns);
		session_random_uuid(s->clock_uuid);
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
	ti.clock_name = clocks[s->opts.clock].name;
	ti.clock_description = clocks[s->opts.clock].description;
	sc = calloc(s->nchans, sizeof(*sc));
	if (!sc) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nchans; i++) {
		sc[i].ctx_mask = s->chans[i]->opts.ctx_mask;
		sc[i].events = (const struct scry_event *const *)s->chans[i]->events;
		sc[i].nevents = s->chans[i]->nevents;
	}
	ti.streams = sc;
	ti.nstreams = s->nchans;
	while (ti.nstreams && s->chans[ti.nstreams - 1]->opts.kind == SCRY_CHANNEL_METRICS)
		ti.nstreams--;        /* no stream of their own (they come last) */
	snprintf(path, sizeof(path), "%s/metadata", kernel_dir);
	ret = ctf_metadata_write(path, &ti, err, errlen);
	free(sc);
	return ret;
}

/* A trace chunk's begin or end, as LTTng names its archives: YYYYmmddTHHMMSS+HHMM. */
void session_chunk_stamp(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, len, "%Y%m%dT%H%M%S%z", &tm);
}

unsigned scry_session_chunks(const struct scry_session *s)
{
	return s->chunks;
}

/* Close the current chunk's streams and move DIR/kernel to the archives; when reopen, the
 * next chunk's metadata and streams in a new DIR/kernel. */
int session_rotate(struct scry_session *s, bool reopen, char *archive, size_t archive_len, char *err, size_t errlen)
{
	char end[32], *adir = NULL, *chunk = NULL, *akernel = NULL;
	uint64_t ts = session_now(s);
	int ret = 0;

	for (size_t i = 0; i < s->nchans && !ret; i++)
		if (s->chans[i]->consumer)
			ret = scry_consumer_rotate_close(s->chans[i]->consumer, ts, err, errlen);
	if (ret)
		return ret;
	session_chunk_stamp(end, sizeof(end));
	if (asprintf(&adir, "%s/archives", s->dir) < 0 ||
	    asprintf(&chunk, "%s/%s-%s-%u", adir, s->chunk_begin, end, s->chunks) < 0 ||
	    asprintf(&akernel, "%s/kernel", chunk) < 0) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if ((mkdir(adir, 0755) < 0 && errno != EEXIST) || mkdir(chunk, 0755) < 0 ||
	    rename(s->kernel_dir, akernel) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot archive the trace chunk in %s: %s", chunk, strerror(errno));
		goto out;
	}
	s->chunks++;
	snprintf(s->chunk_begin, sizeof(s->chunk_begin), "%s", end);
	if (archive)
		snprintf(archive, archive_len, "%s", chunk);
	if (!reopen)
		goto out;
	if (mkdir(s->kernel_dir, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot make '%s' for the next chunk: %s", s->kernel_dir, strerror(errno));
		goto out;
	}
	if ((ret = session_write_metadata(s, err, errlen)))
		goto out;
	for (size_t i = 0; i < s->nchans && !ret; i++)
		if (s->chans[i]->consumer)
			ret = scry_consumer_rotate_open(s->chans[i]->consumer, ts, err, errlen);
out:
	free(adir);
	free(chunk);
	free(akernel);
	return ret;
}

int scry_session_rotate(struct scry_session *s, char *archive, size_t archive_len, char *err, size_t errlen)
{
	int ret;

	if (!s->started || !session_has_trace(s)) {
		snprintf(err, errlen, "%s", !s->started ? "the session is not started" : "the session writes no trace");
		return -EINVAL;
	}
	if (!s->paused)
		return session_rotate(s, true, archive, archive_len, err, errlen);
	if (s->chunk_closed) {
		snprintf(err, errlen, "the session is stopped and its last chunk archived: nothing to rotate");
		return -EINVAL;
	}
	/* stopped: its chunk archived; the next opens when it starts again */
	if (!(ret = session_rotate(s, false, archive, archive_len, err, errlen)))
		s->chunk_closed = true;
	return ret;
}

int scry_session_snapshot(struct scry_session *s, const char *dir, uint64_t max_bytes, uint64_t *bytes,
			  char *err, size_t errlen)
{
	char *kdir = NULL;
	uint64_t budget = 0;
	unsigned nstreams = 0;
	int ret;

	*bytes = 0;
	if (!s->opts.snapshot || !s->started) {
		snprintf(err, errlen, "%s", !s->opts.snapshot ? "not a snapshot session" : "the session is not started");
		return -EINVAL;
	}
	if (asprintf(&kdir, "%s/kernel", dir) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mkdir(dir, 0755) < 0 || mkdir(kdir, 0755) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot make the snapshot directory %s: %s", dir, strerror(errno));
		free(kdir);
		return ret;
	}
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer)
			nstreams += (unsigned)scry_probes_ncpus(s->chans[i]->probes);
	if (max_bytes && nstreams)
		budget = max_bytes / nstreams ? max_bytes / nstreams : 1;
	ret = write_metadata_in(s, kdir, err, errlen);
	for (size_t i = 0; i < s->nchans && !ret; i++) {
		uint64_t b = 0;

		if (!s->chans[i]->consumer)
			continue;
		ret = scry_consumer_snapshot(s->chans[i]->consumer, kdir, budget, &b, err, errlen);
		*bytes += b;
	}
	free(kdir);
	return ret;
}

/* At stop, after the streams are closed: DIR/kernel moved to the archives as the last chunk. */
int session_rename_last_chunk(struct scry_session *s, char *err, size_t errlen)
{
	char end[32], *chunk = NULL, *akernel = NULL;
	int ret = 0;

	session_chunk_stamp(end, sizeof(end));
	if (asprintf(&chunk, "%s/archives/%s-%s-%u", s->dir, s->chunk_begin, end, s->chunks) < 0 ||
	    asprintf(&akernel, "%s/kernel", chunk) < 0) {
		free(chunk);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mkdir(chunk, 0755) < 0 || rename(s->kernel_dir, akernel) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot archive the last trace chunk in %s: %s", chunk, strerror(errno));
	} else {
		s->chunks++;
	}
	free(chunk);
	free(akernel);
	return ret;
}
