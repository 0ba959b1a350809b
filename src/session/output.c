/* output.c — what a session writes on disk (see session.h): the trace directory (its name
 * checked at create, made and locked at load), the metadata and the trace clocks it names,
 * the trace chunks (rotation, the archives, the last chunk at stop) and snapshots.  When
 * each is done is session.c's. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
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
#include "util/cgroup.h"
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

/* -o's directory, as far as it can be checked before it is made: its parent exists and the
 * owner may write in it; it does not exist, or is an empty directory of the owner (a
 * snapshot session's may hold earlier snapshots).  Nothing is made. */
int scry_session_check_output(const char *dir, const struct scry_cred *owner, bool snapshot, char *err,
			      size_t errlen)
{
	struct scry_dirh *parent, *d = NULL;
	char leaf[256];
	int ret;

	if ((ret = scry_dirh_open_parent(&parent, leaf, sizeof(leaf), AT_FDCWD, dir, owner, err, errlen)))
		return ret;
	if ((ret = scry_dirh_writable(parent))) {
		snprintf(err, errlen, "cannot write in '%s': %s", scry_dirh_path(parent), strerror(-ret));
		goto out;
	}
	ret = scry_dirh_mkdir(parent, leaf, SCRY_MKDIR_OPEN, &d, NULL, err, errlen);
	if (ret == -ENOENT) {
		ret = 0;            /* made at load */
		goto out;
	}
	if (ret) {
		if (ret == -ELOOP || ret == -ENOTDIR)
			snprintf(err, errlen, "output '%s' exists and is not a directory", dir);
		ret = -EEXIST;
		goto out;
	}
	if (scry_dirh_owner(d) != scry_cred_uid(owner)) {
		snprintf(err, errlen, "output directory '%s' belongs to uid %u: refusing to write in it", dir,
			 (unsigned)scry_dirh_owner(d));
		ret = -EPERM;
	} else if (!snapshot && !scry_dirh_is_empty(d)) {
		snprintf(err, errlen, "output directory '%s' exists and is not empty: refusing to overwrite it", dir);
		ret = -EEXIST;
	}
out:
	scry_dirh_unref(d);
	scry_dirh_unref(parent);
	return ret;
}

int session_check_output(struct scry_session *s, char *err, size_t errlen)
{
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
	if (!s->dir) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!s->opts.output)
		return 0;      /* a default name: session_make_trace_dir finds a free one */
	return scry_session_check_output(s->dir, s->opts.owner, s->opts.snapshot, err, errlen);
}

/* The parent of path, opened with the owner's rights; what is made in it from here on gets
 * the session's group (--group).  leaf: path's last name. */
static int open_parent(const struct scry_session *s, const char *path, char leaf[256], struct scry_dirh **parent,
		       char *err, size_t errlen)
{
	int ret = scry_dirh_open_parent(parent, leaf, 256, AT_FDCWD, path, s->opts.owner, err, errlen);

	if (!ret && s->opts.set_group)
		scry_dirh_set_group(*parent, s->opts.group);
	return ret;
}

/* A snapshot session's output made (or taken, a directory of the owner): each snapshot is
 * a trace in it, and the mappings of user call stacks are kept beside them. */
int session_make_snapshot_base(struct scry_session *s, char *err, size_t errlen)
{
	struct scry_dirh *parent;
	char leaf[256];
	int ret;

	if (s->root)
		return 0;
	if ((ret = open_parent(s, s->dir, leaf, &parent, err, errlen)))
		return ret;
	ret = scry_dirh_mkdir(parent, leaf, SCRY_MKDIR_ANY, &s->root, NULL, err, errlen);
	scry_dirh_unref(parent);
	return ret;
}

static int make_dir(struct scry_session *s, const char *path, bool exclusive, char *err, size_t errlen)
{
	struct scry_dirh *parent;
	char leaf[256];
	int ret;

	if ((ret = open_parent(s, path, leaf, &parent, err, errlen)))
		return ret;
	ret = ctf_trace_dir_make_in(&s->tdir, parent, leaf, exclusive, err, errlen);
	scry_dirh_unref(parent);
	return ret;
}

/* Make and lock the trace directory: -o's as given (it may exist, empty), or the default
 * name made exclusively, with -1, -2... added when a run started in the same second has it. */
int session_make_trace_dir(struct scry_session *s, char *err, size_t errlen)
{
	char *base = s->dir;
	int ret = -EEXIST;

	if (s->opts.output) {
		ret = make_dir(s, s->dir, false, err, errlen);
		goto out;
	}
	for (unsigned k = 0; k < 1000 && ret == -EEXIST; k++) {
		char *name = NULL;

		if ((k ? asprintf(&name, "%s-%u", base, k) : asprintf(&name, "%s", base)) < 0) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		ret = make_dir(s, name, true, err, errlen);
		if (ret == 0) {
			if (s->dir != base)
				free(s->dir);
			s->dir = name;
		} else {
			free(name);
		}
	}
	if (ret == -EEXIST)
		snprintf(err, errlen, "cannot find a free directory name beside '%s'", base);
	if (base != s->dir)
		free(base);
out:
	if (!ret)
		s->root = scry_dirh_ref(ctf_trace_dir_root(s->tdir));
	return ret;
}

struct scry_dirh *scry_session_root_dir(const struct scry_session *s)
{
	return s->root;
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
static int write_metadata_in(struct scry_session *s, struct scry_dirh *kdir, char *err, size_t errlen);

int session_write_metadata(struct scry_session *s, char *err, size_t errlen)
{
	return write_metadata_in(s, s->tdir ? ctf_trace_dir_kernel(s->tdir) : NULL, err, errlen);
}

/* The metadata written in kdir (may be NULL), and sent to the session's relay (not a
 * snapshot's: snapshot true). */
static int metadata_out(struct scry_session *s, struct scry_dirh *kdir, const struct ctf_trace_info *ti, bool snapshot,
			char *err, size_t errlen)
{
	char *text;
	int ret = 0;

	if (kdir && (ret = ctf_metadata_write(kdir, ti, err, errlen)))
		return ret;
	struct scry_relay *to = s->snap_relay ? s->snap_relay : snapshot ? NULL : s->relay;

	if (!to)
		return 0;
	if (!(text = ctf_metadata_text(ti, err, errlen)))
		return -EINVAL;
	ret = scry_relay_metadata(to, text, err, errlen);
	free(text);
	return ret;
}

/* The containers' cgroup directories now, for the cgroup_id context's names. */
struct cgroup_names {
	struct ctf_cgroup_name *v;
	size_t n;
	bool oom;
};

static void cgroup_name(const char *path, void *ctx)
{
	struct cgroup_names *cn = ctx;
	struct scry_container c;
	struct ctf_cgroup_name *g;
	uint64_t id;

	if (cn->oom || !scry_container_of_cgroup(path, &c) || !(id = scry_cgroup_id(path)))
		return;
	if (!(g = realloc(cn->v, (cn->n + 1) * sizeof(*g))) || !(g[cn->n].container = strdup(c.id))) {
		if (g)
			cn->v = g;
		cn->oom = true;
		return;
	}
	cn->v = g;
	g[cn->n++].id = id;
}

static int write_metadata_in(struct scry_session *s, struct scry_dirh *kdir, char *err, size_t errlen)
{
	struct cgroup_names cn = { 0 };   /* (the first write's walk) */
	struct utsname un;
	char host[256] = "";
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
	for (size_t i = 0; i < s->nchans && !s->created_cgnames; i++)
		if (s->chans[i]->opts.ctx_mask & (1ULL << SCRY_CTX_CGROUP_ID)) {
			scry_cgroup_walk(16, cgroup_name, &cn);
			break;
		}
	if (cn.oom) {
		for (size_t i = 0; i < cn.n; i++)
			free((char *)cn.v[i].container);
		free(cn.v);
		free(sc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!s->created_cgnames) {   /* the first write's, kept: a rewrite's env is the same */
		s->cgnames = cn.v;
		s->ncgnames = cn.n;
		s->created_cgnames = true;
	}
	ti.cgroups = s->cgnames;
	ti.ncgroups = s->ncgnames;
	ti.streams = sc;
	ti.nstreams = s->nchans;
	while (ti.nstreams && s->chans[ti.nstreams - 1]->opts.kind == SCRY_CHANNEL_METRICS)
		ti.nstreams--;        /* no stream of their own (they come last) */
	ret = metadata_out(s, kdir, &ti, kdir && (!s->tdir || kdir != ctf_trace_dir_kernel(s->tdir)), err, errlen);
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
	char end[32], chunk[128];
	uint64_t ts = session_now(s);
	int ret = 0;

	for (size_t i = 0; i < s->nchans && !ret; i++)
		if (s->chans[i]->consumer)
			ret = scry_consumer_rotate_close(s->chans[i]->consumer, ts, err, errlen);
	if (ret)
		return ret;
	session_chunk_stamp(end, sizeof(end));
	snprintf(chunk, sizeof(chunk), "%s-%s-%u", s->chunk_begin, end, s->chunks);
	if ((ret = ctf_trace_dir_archive(s->tdir, chunk, err, errlen)))
		return ret;
	s->chunks++;
	snprintf(s->chunk_begin, sizeof(s->chunk_begin), "%s", end);
	if (archive)
		snprintf(archive, archive_len, "%s/archives/%s", s->dir, chunk);
	if (!reopen)
		return 0;
	return session_open_chunk(s, ts, err, errlen);
}

int session_open_chunk(struct scry_session *s, uint64_t ts, char *err, size_t errlen)
{
	int ret;

	if ((ret = ctf_trace_dir_new_chunk(s->tdir, err, errlen)) || (ret = session_write_metadata(s, err, errlen)))
		return ret;
	for (size_t i = 0; i < s->nchans && !ret; i++)
		if (s->chans[i]->consumer)
			ret = scry_consumer_rotate_open(s->chans[i]->consumer, ts, err, errlen);
	return ret;
}

int scry_session_rotate(struct scry_session *s, char *archive, size_t archive_len, char *err, size_t errlen)
{
	int ret;

	if (!s->started || (!session_has_trace(s) && !s->relay)) {
		snprintf(err, errlen, "%s", !s->started ? "the session is not started" : "the session writes no trace");
		return -EINVAL;
	}
	if (s->relay)
		return session_relay_rotate(s, archive, archive_len, err, errlen);
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

int scry_session_snapshot(struct scry_session *s, const char *base, const char *name, uint64_t max_bytes,
			  uint64_t *bytes, char *err, size_t errlen)
{
	struct scry_dirh *parent = NULL, *bh = NULL;
	struct ctf_trace_dir *td = NULL;
	uint64_t budget = 0;
	unsigned nstreams = 0;
	char leaf[256];
	int ret;

	*bytes = 0;
	if (!s->opts.snapshot || !s->started) {
		snprintf(err, errlen, "%s", !s->opts.snapshot ? "not a snapshot session" : "the session is not started");
		return -EINVAL;
	}
	/* LTTng's bound: max_bytes must hold one sub-buffer (packet) of each stream */
	uint64_t one_each = 0;

	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer) {
			uint64_t ps = s->chans[i]->opts.packet_size ? s->chans[i]->opts.packet_size : s->opts.packet_size;

			one_each += (ps ? ps : SCRY_DEFAULT_PACKET_SIZE) * (uint64_t)scry_probes_ncpus(s->chans[i]->probes);
		}
	if (max_bytes && max_bytes < one_each) {
		snprintf(err, errlen, "Snapshot max size is invalid: %llu bytes cannot hold one sub-buffer of each stream "
			 "(%llu bytes)", (unsigned long long)max_bytes, (unsigned long long)one_each);
		return -EINVAL;
	}
	/* base: the session's output (held since load), or another directory made as needed */
	if (s->root && !strcmp(base, s->dir)) {
		bh = scry_dirh_ref(s->root);
	} else if ((ret = open_parent(s, base, leaf, &parent, err, errlen)) ||
		   (ret = scry_dirh_mkdir(parent, leaf, SCRY_MKDIR_ANY, &bh, NULL, err, errlen))) {
		scry_dirh_unref(parent);
		return ret;
	}
	scry_dirh_unref(parent);
	if ((ret = ctf_trace_dir_make_in(&td, bh, name, true, err, errlen))) {
		if (ret == -EEXIST)
			snprintf(err, errlen, "cannot make the snapshot directory %s/%s: it exists", base, name);
		scry_dirh_unref(bh);
		return ret;
	}
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer)
			nstreams += (unsigned)scry_probes_ncpus(s->chans[i]->probes);
	if (max_bytes && nstreams)
		budget = max_bytes / nstreams ? max_bytes / nstreams : 1;
	ret = write_metadata_in(s, ctf_trace_dir_kernel(td), err, errlen);
	for (size_t i = 0; i < s->nchans && !ret; i++) {
		uint64_t b = 0;

		if (!s->chans[i]->consumer)
			continue;
		ret = scry_consumer_snapshot(s->chans[i]->consumer, td, budget, &b, err, errlen);
		*bytes += b;
	}
	ctf_trace_dir_close(td, !ret);     /* a failed snapshot leaves nothing of itself */
	scry_dirh_unref(bh);
	return ret;
}

int scry_session_snapshot_relay(struct scry_session *s, const struct relay_url *url, const char *name,
				uint64_t max_bytes, uint64_t *bytes, char *path, size_t pathlen, char *err, size_t errlen)
{
	struct scry_relay_opts ro = {
		.url = url ? url : s->opts.relay, .session_name = s->opts.relay_session ? s->opts.relay_session : "scry",
		.hostname = s->opts.hostname, .snapshot = name,
	};
	struct scry_relay_stats st;
	uint64_t budget = 0;
	unsigned nstreams = 0;
	char why[512];
	int ret;

	*bytes = 0;
	if (!s->opts.snapshot || !s->started || !ro.url) {
		snprintf(err, errlen, "%s", !s->opts.snapshot ? "not a snapshot session" : !s->started ?
			 "the session is not started" : "no relay to send the snapshot to");
		return -EINVAL;
	}
	if ((ret = scry_relay_connect(&s->snap_relay, &ro, err, errlen)))
		return ret;
	for (size_t i = 0; i < s->nchans; i++)
		if (s->chans[i]->consumer)
			nstreams += (unsigned)scry_probes_ncpus(s->chans[i]->probes);
	if (max_bytes && nstreams)
		budget = max_bytes / nstreams ? max_bytes / nstreams : 1;
	ret = write_metadata_in(s, NULL, err, errlen);
	for (size_t i = 0; i < s->nchans && !ret; i++) {
		uint64_t b = 0;

		if (!s->chans[i]->consumer)
			continue;
		ret = scry_consumer_snapshot_to(s->chans[i]->consumer, scry_relay_sinks(s->snap_relay), budget, &b, err,
						errlen);
		*bytes += b;
	}
	if (!ret)
		ret = scry_relay_finish_snapshot(s->snap_relay, path, pathlen, err, errlen);
	scry_relay_close(s->snap_relay, &st, why, sizeof(why));
	s->snap_relay = NULL;
	if (!ret && st.lost_packets) {
		snprintf(err, errlen, "%llu packets not delivered to the relay%s%s", (unsigned long long)st.lost_packets,
			 why[0] ? ": " : "", why);
		ret = -EPIPE;
	}
	return ret;
}

/* At stop, after the streams are closed: DIR/kernel moved to the archives as the last chunk. */
int session_rename_last_chunk(struct scry_session *s, char *err, size_t errlen)
{
	char end[32], chunk[128];
	int ret;

	session_chunk_stamp(end, sizeof(end));
	snprintf(chunk, sizeof(chunk), "%s-%s-%u", s->chunk_begin, end, s->chunks);
	if (!(ret = ctf_trace_dir_archive(s->tdir, chunk, err, errlen)))
		s->chunks++;
	return ret;
}
