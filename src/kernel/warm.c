/* warm.c — scryd's ready object (see probes.h, "warm"): scryd loads scry's BPF object for a
 * session it expects (scry trace's default) ahead of time and hands its maps, rings and
 * programs over to the process that asks with the same fingerprint (fingerprint.c), which
 * then attaches them itself: the verifier's tens of milliseconds are spent before the
 * command is typed.  Here both sides: the export (a loaded object's fds, named, in order)
 * and the take (asking scryd, checking each descriptor against the object this process
 * prepared, mapping the internal maps as libbpf's skeleton load does).  Only objects whose
 * every program is attached from its fd (attach.c) and whose state is all in its maps are
 * handed over: no uprobes, USDT, iterators, samples, filters, metrics, perf counters or
 * cgroups (probes_warm_eligible). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ctl/client.h"
#include "ctl/proto.h"
#include "kernel/probes_int.h"
#include "util/log.h"
#include "util/overrides.h"

_Static_assert(SCRY_WARM_MAX_FDS <= SCRY_CTL_MAX_FDS, "the handover's descriptors go in one message");

#define WARM_REPLY_MS 500   /* scryd busy longer (a session's load in its loop): cold */

static bool exporter;       /* this process is scryd: it makes objects, never asks for one */

void scry_probes_warm_exporter(void)
{
	exporter = true;
}

bool probes_warm_exporting(void)
{
	return exporter;
}

bool probes_warm_eligible(const struct scry_probes_opts *o)
{
	uint64_t perf = ((1ULL << (2 * SCRY_PERF_NR)) - 1) << SCRY_CTX_PERF_CPU;

	return !o->uprobes && !o->usdt && !o->filter && !o->live_filters && !o->nmetrics && !o->sd_ids &&
	       !(o->profile_freq && o->profile_event_id != SCRY_NO_EVENT) && !o->ntrack_cgroups && !o->span_mark &&
	       !(o->ctx_mask & perf);
}

bool probes_warm_likely(void)
{
	char path[128];

	return !exporter && !scry_overrides()->no_warm && scry_ctl_socket_path(path, sizeof(path)) == 0 &&
	       access(path, F_OK) == 0;
}

bool probes_warm_wanted(const struct scry_probes_opts *o)
{
	return probes_warm_eligible(o) && probes_warm_likely();
}

void scry_probes_fingerprint_hex(const struct scry_probes *p, char out[SCRY_WARM_FP_HEX])
{
	for (int i = 0; i < SCRY_WARM_FP_BYTES; i++)
		snprintf(out + 2 * i, 3, "%02x", p->fp[i]);
}

bool scry_probes_warm(const struct scry_probes *p)
{
	return p->warm_prog_fds != NULL;
}

int probes_prog_fd(const struct scry_probes *p, const struct bpf_program *prog)
{
	const struct bpf_object_skeleton *s = p->skel->skeleton;
	int fd = bpf_program__fd(prog);

	if (fd >= 0 || !p->warm_prog_fds)
		return fd;
	for (int i = 0; i < s->prog_cnt; i++)
		if (*s->progs[i].prog == prog)
			return p->warm_prog_fds[i];
	return -1;
}

/* --- scryd's side ------------------------------------------------------------------------ */

static int export_add(struct scry_warm *w, int fd, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int export_add(struct scry_warm *w, int fd, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int d;

	if (w->n >= SCRY_WARM_MAX_FDS) {
		snprintf(err, errlen, "more than %d descriptors to hand over", SCRY_WARM_MAX_FDS);
		return -E2BIG;
	}
	if ((d = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
		snprintf(err, errlen, "cannot keep a descriptor: %s", strerror(errno));
		return -errno;
	}
	va_start(ap, fmt);
	if (vasprintf(&w->names[w->n], fmt, ap) < 0) {
		va_end(ap);
		close(d);
		w->names[w->n] = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	va_end(ap);
	w->fds[w->n++] = d;
	return 0;
}

int scry_probes_export(struct scry_probes *p, struct scry_warm *w, char *err, size_t errlen)
{
	const struct bpf_object_skeleton *s = p->skel->skeleton;
	struct bpf_map *m = NULL;
	int ret = 0, i = 0;

	memset(w, 0, sizeof(*w));
	if (!probes_warm_eligible(&p->opts) || p->warm_prog_fds || p->nlinks || p->nfilters) {
		snprintf(err, errlen, "this object cannot be handed over (its settings, or it is in use)");
		return -EINVAL;
	}
	scry_probes_fingerprint_hex(p, w->fp);
	for (; !ret && (m = bpf_object__next_map(p->skel->obj, m)); i++)
		if (bpf_map__fd(m) >= 0)
			ret = export_add(w, bpf_map__fd(m), err, errlen, "map:%d:%s", i, bpf_map__name(m));
	for (unsigned cpu = 0; !ret && cpu < p->ncpus; cpu++)
		ret = export_add(w, p->ring_fds[cpu], err, errlen, "ring:%u", cpu);
	for (i = 0; !ret && i < s->prog_cnt; i++) {
		struct bpf_program *prog = probes_prog(p, i);

		if (!bpf_program__autoload(prog))
			continue;
		if (bpf_program__fd(prog) < 0) {
			snprintf(err, errlen, "program %s is not loaded", s->progs[i].name);
			ret = -ENOENT;
		} else
			ret = export_add(w, bpf_program__fd(prog), err, errlen, "prog:%d:%s", i, s->progs[i].name);
	}
	if (ret)
		scry_warm_clear(w);
	return ret;
}

void scry_warm_clear(struct scry_warm *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->fds[i] >= 0)
			close(w->fds[i]);
		free(w->names[i]);
	}
	memset(w, 0, sizeof(*w));
}

/* --- the client's side ------------------------------------------------------------------- */

struct take {
	struct scry_probes *p;
	struct bpf_map **maps;     /* the object's maps in order */
	bool *seen;
	int nmaps;
	char *err;
	size_t errlen;
};

long probes_warm_parse_name(const char *v, const char *kind, const char **name)
{
	size_t kl = strlen(kind);
	char *end;
	long idx;

	if (strncmp(v, kind, kl) || v[kl] != ':' || v[kl + 1] < '0' || v[kl + 1] > '9')
		return -1;
	errno = 0;
	idx = strtol(v + kl + 1, &end, 10);
	if (errno || idx < 0 || idx > 100000)
		return -1;
	if (name) {
		if (*end != ':')
			return -1;
		*name = end + 1;
	} else if (*end)
		return -1;
	return idx;
}

static int bad(struct take *t, const char *what, const char *v)
{
	snprintf(t->err, t->errlen, "scryd's object: %s '%.100s'", what, v);
	return -EPROTO;
}

/* One descriptor of the handover, fd (owned: kept or closed), named v. */
static int take_one(struct take *t, const char *v, int fd)
{
	struct scry_probes *p = t->p;
	const struct bpf_object_skeleton *s = p->skel->skeleton;
	const char *name;
	long i;

	if ((i = probes_warm_parse_name(v, "map", &name)) >= 0) {
		struct bpf_map *m;
		enum bpf_map_type type;
		__u32 key, value;
		int ret;

		if (i >= t->nmaps || t->seen[i] || strcmp(name, bpf_map__name(m = t->maps[i])))
			return close(fd), bad(t, "a map not of this object", v);
		/* reuse_fd asks the kernel for the map's info and takes its type and sizes: they
		 * are compared after, with what this object set before (one query a map, not two) */
		type = bpf_map__type(m);
		key = bpf_map__key_size(m);
		value = bpf_map__value_size(m);
		ret = bpf_map__reuse_fd(m, fd);      /* libbpf keeps its own copy */
		close(fd);
		if (ret)
			return bad(t, "cannot use the map", v);
		t->seen[i] = true;
		if (bpf_map__type(m) != type || bpf_map__key_size(m) != key || bpf_map__value_size(m) != value)
			return bad(t, "a map unlike this object's", v);
		return 0;
	}
	if ((i = probes_warm_parse_name(v, "ring", NULL)) >= 0) {
		if ((unsigned long)i >= p->ncpus || p->ring_fds[i] >= 0)
			return close(fd), bad(t, "a ring of no CPU", v);
		p->ring_fds[i] = fd;
		return 0;
	}
	if ((i = probes_warm_parse_name(v, "prog", &name)) >= 0) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (i >= s->prog_cnt || strcmp(name, s->progs[i].name) || !bpf_program__autoload(*s->progs[i].prog) ||
		    p->warm_prog_fds[i] >= 0)
			return close(fd), bad(t, "a program this session does not load", v);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != bpf_program__type(*s->progs[i].prog))
			return close(fd), bad(t, "a program unlike this object's", v);
		p->warm_prog_fds[i] = fd;
		return 0;
	}
	close(fd);
	return bad(t, "an unknown descriptor", v);
}

/* Everything the prepared object would have loaded came: each map it creates, each CPU's
 * ring, each program it loads. */
static int take_complete(struct take *t)
{
	const struct bpf_object_skeleton *s = t->p->skel->skeleton;

	for (int i = 0; i < t->nmaps; i++)
		if (!t->seen[i] && bpf_map__autocreate(t->maps[i]))
			return bad(t, "no map", bpf_map__name(t->maps[i]));
	for (unsigned c = 0; c < t->p->ncpus; c++)
		if (t->p->ring_fds[c] < 0)
			return bad(t, "no ring for a CPU", "ring");
	for (int i = 0; i < s->prog_cnt; i++)
		if (bpf_program__autoload(*s->progs[i].prog) && t->p->warm_prog_fds[i] < 0)
			return bad(t, "no program", s->progs[i].name);
	return 0;
}

/* The internal maps (.bss, .data, .rodata, .kconfig) mapped where the skeleton's pointers
 * are, as bpf_object__load_skeleton maps them: .rodata read-only (frozen). */
static int take_map_internal(struct take *t)
{
	const struct bpf_object_skeleton *s = t->p->skel->skeleton;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < s->map_cnt; i++) {
		struct bpf_map *m = *s->maps[i].map;
		void **mmaped = s->maps[i].mmaped;
		__u32 flags = bpf_map__map_flags(m);
		size_t sz;

		if (!mmaped || !*mmaped || !(flags & BPF_F_MMAPABLE))
			continue;
		sz = (((size_t)bpf_map__value_size(m) + 7) & ~(size_t)7) * bpf_map__max_entries(m);
		sz = (sz + page - 1) & ~(page - 1);
		if (mmap(*mmaped, sz, flags & BPF_F_RDONLY_PROG ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, bpf_map__fd(m), 0) == MAP_FAILED) {
			snprintf(t->err, t->errlen, "scryd's object: cannot map %s: %s", bpf_map__name(m), strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int take_fds(struct take *t, const struct scry_ctl_msg *m, int *fds, size_t nfds)
{
	const struct bpf_object_skeleton *s = t->p->skel->skeleton;
	struct bpf_map *map = NULL;
	size_t k = 0;
	int ret = 0;

	while ((map = bpf_object__next_map(t->p->skel->obj, map)))
		t->nmaps++;
	t->maps = calloc(t->nmaps ? t->nmaps : 1, sizeof(*t->maps));
	t->seen = calloc(t->nmaps ? t->nmaps : 1, sizeof(*t->seen));
	t->p->warm_prog_fds = malloc((s->prog_cnt ? s->prog_cnt : 1) * sizeof(int));
	if (!t->maps || !t->seen || !t->p->warm_prog_fds) {
		snprintf(t->err, t->errlen, "out of memory");
		ret = -ENOMEM;
	}
	for (int i = 0; !ret && i < s->prog_cnt; i++)
		t->p->warm_prog_fds[i] = -1;
	for (int i = 0; !ret && (map = bpf_object__next_map(t->p->skel->obj, map)); i++)
		t->maps[i] = map;
	for (size_t i = 0; !ret && i < m->nkv; i++) {
		if (strcmp(m->kv[i].key, "fd"))
			continue;
		if (k >= nfds) {
			ret = bad(t, "more names than descriptors at", m->kv[i].value);
			break;
		}
		ret = take_one(t, m->kv[i].value, fds[k]);
		fds[k++] = -1;
	}
	if (!ret && k != nfds)
		ret = bad(t, "descriptors without a name", "");
	for (; k < nfds; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	if (!ret)
		ret = take_complete(t);
	if (!ret)
		ret = take_map_internal(t);
	free(t->maps);
	free(t->seen);
	return ret;
}

int probes_warm_take(struct scry_probes *p, char *err, size_t errlen)
{
	struct timeval tv = { .tv_usec = WARM_REPLY_MS * 1000 };
	struct scry_ctl_builder b;
	struct scry_ctl_msg reply;
	struct take t = { .p = p, .err = err, .errlen = errlen };
	char fp[SCRY_WARM_FP_HEX], why[256] = "";
	int fds[SCRY_WARM_MAX_FDS], s, ret;
	size_t nfds = 0;
	const char *status;

	struct ucred cr;
	socklen_t crlen = sizeof(cr);

	if ((s = scry_ctl_dial()) < 0)       /* none, or not ours to use: cold, silently */
		return -ENOENT;
	/* programs and maps are taken from root's scryd only ($SCRY_RUNDIR may name any socket) */
	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) || cr.uid != 0) {
		scry_log(SCRY_LOG_VERBOSE, "scry: the socket in %s is not root's scryd: loading here", scry_ctl_rundir());
		close(s);
		return -ENOENT;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	scry_probes_fingerprint_hex(p, fp);
	scry_ctl_builder_init(&b, SCRY_CTL_REQUEST);
	scry_ctl_add(&b, "arg", "warm");
	scry_ctl_add(&b, "arg", fp);
	ret = scry_ctl_finish(&b);
	if (!ret)
		ret = scry_ctl_send(s, &b, why, sizeof(why));
	if (!ret)
		ret = scry_ctl_recv_fds(s, &reply, fds, SCRY_WARM_MAX_FDS, &nfds, why, sizeof(why));
	scry_ctl_builder_free(&b);
	close(s);
	if (ret) {
		scry_log(SCRY_LOG_VERBOSE, "scry: no object from scryd (%s): loading it here", why[0] ? why : strerror(-ret));
		return -ENOENT;
	}
	status = scry_ctl_get(&reply, "status");
	if (!status || strcmp(status, "0") || !nfds) {
		const char *e = scry_ctl_get(&reply, "error");

		scry_log(SCRY_LOG_VERBOSE, "scry: no object from scryd (%s): loading it here", e ? e : "none ready");
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		scry_ctl_msg_free(&reply);
		return -ENOENT;
	}
	ret = take_fds(&t, &reply, fds, nfds);
	scry_ctl_msg_free(&reply);
	if (ret)
		return ret == -ENOENT ? -EPROTO : ret;
	scry_log(SCRY_LOG_VERBOSE, "scry: the BPF object loaded by scryd (warm, %zu descriptors)", nfds);
	return 0;
}
