/* profiler.c — scry profile's loader (see profiler.h; the BPF side is
 * src/bpf/profile.bpf.c, what both share src/bpf/profile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "scry_abi.h"     /* SCRY_MAX_TRACK_CGROUPS */
#include "profile.skel.h"
#include "kernel/profiler.h"
#include "util/log.h"

struct scry_profiler {
	struct scry_profiler_opts o;
	struct profile_bpf *skel;
	int *pfds;                   /* perf event per CPU (-1: offline) */
	int *cfds;                   /* the same events, kept to read their time (-1: none) */
	void **rbs;                  /* their perf rings (NULL: none): the kernel's THROTTLE records */
	size_t rb_size;
	struct bpf_link **links;
	unsigned ncpus, nopen;
	struct ring_buffer *rb;
	size_t ring_size;
	const struct scry_profiler_handlers *h;
};

#define THROTTLE_PAGES 8     /* each CPU's perf ring: ~1000 THROTTLE records */

static const char *const ev_names[] = { [SCRY_PROF_EV_CPU_CLOCK] = "cpu-clock", [SCRY_PROF_EV_CYCLES] = "cycles" };

const char *scry_prof_event_name(enum scry_prof_event e)
{
	return ev_names[e];
}

int scry_prof_event_parse(const char *name)
{
	if (!strcmp(name, "cpu-clock") || !strcmp(name, "cpu_clock"))
		return SCRY_PROF_EV_CPU_CLOCK;
	if (!strcmp(name, "cycles") || !strcmp(name, "cpu-cycles"))
		return SCRY_PROF_EV_CYCLES;
	return -1;
}

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	scry_logv(SCRY_LOG_VERBOSE, fmt, ap);
	return 0;
}

/* The perf event of each online CPU, opened disabled. */
static int open_events(struct scry_profiler *p, char *err, size_t errlen)
{
	struct perf_event_attr a = { .size = sizeof(a), .freq = 1, .sample_freq = p->o.freq, .disabled = 1 };
	const char *name = ev_names[p->o.event];

	if (p->o.event == SCRY_PROF_EV_CYCLES) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);

		p->pfds[cpu] = fd;
		if (fd >= 0) {
			p->nopen++;
			continue;
		}
		if (errno == ENODEV)
			continue;       /* an offline CPU */
		int e = errno;
		if (a.type == PERF_TYPE_HARDWARE && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
			snprintf(err, errlen, "event %s: this machine has no PMU to count it (perf_event_open: %s); "
				 "use -e cpu-clock", name, strerror(e));
		else if (e == EINVAL && p->o.freq > 1000)
			snprintf(err, errlen, "event %s at %u Hz: perf_event_open: %s (the kernel's limit: "
				 "/proc/sys/kernel/perf_event_max_sample_rate)", name, p->o.freq, strerror(e));
		else
			snprintf(err, errlen, "event %s on CPU %u: perf_event_open: %s", name, cpu, strerror(e));
		return -e;
	}
	if (!p->nopen) {
		snprintf(err, errlen, "event %s: no online CPU to sample", name);
		return -ENODEV;
	}
	return 0;
}

/* Notes alone: 256 KiB.  Stacks: room for 256 records per CPU (the consumer unwinds them as
 * they come; this absorbs its pauses), between 1 and 64 MiB. */
static size_t ring_default(unsigned ustack_size, unsigned ncpus)
{
	size_t want = (sizeof(struct scry_prof_ustack) + ustack_size + 8) * 256 * ncpus, n = 1 << 20;

	if (!ustack_size)
		return 256 * 1024;
	while (n < want && n < (64u << 20))
		n <<= 1;
	return n;
}

int scry_profiler_open(const struct scry_profiler_opts *o, struct scry_profiler **out, char *err, size_t errlen)
{
	struct scry_profiler *p = calloc(1, sizeof(*p));
	int ret = -ENOMEM;

	*out = NULL;
	if (!p)
		goto oom;
	p->o = *o;
	ret = libbpf_num_possible_cpus();
	if (ret <= 0) {
		snprintf(err, errlen, "cannot count the CPUs: %s", strerror(-ret));
		free(p);
		return ret ? ret : -EINVAL;
	}
	p->ncpus = (unsigned)ret;
	p->pfds = malloc(p->ncpus * sizeof(*p->pfds));
	p->cfds = malloc(p->ncpus * sizeof(*p->cfds));
	p->rbs = calloc(p->ncpus, sizeof(*p->rbs));
	p->rb_size = (1 + THROTTLE_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	p->links = calloc(p->ncpus, sizeof(*p->links));
	if (!p->pfds || !p->cfds || !p->rbs || !p->links) {
		ret = -ENOMEM;
		goto oom;
	}
	for (unsigned i = 0; i < p->ncpus; i++)
		p->pfds[i] = p->cfds[i] = -1;
	if (!o->offcpu && (ret = open_events(p, err, errlen)))
		goto fail;
	libbpf_set_print(print_fn);
	if (!(p->skel = profile_bpf__open())) {
		ret = -errno;
		snprintf(err, errlen, "cannot open scry's profiler BPF object: %s", strerror(errno));
		goto fail;
	}
	p->skel->rodata->target_all = o->all;
	p->skel->rodata->self_tgid = (__u32)getpid();
	bpf_map__set_max_entries(p->skel->maps.stacks, o->max_stacks ? o->max_stacks : 16384);
	bpf_map__set_max_entries(p->skel->maps.counts, o->max_counts ? o->max_counts : 40960);
	p->skel->rodata->ustack_size = o->ustack_size;
	p->skel->rodata->min_block_ns = o->min_block_ns;
	if (o->ncgroups > SCRY_MAX_TRACK_CGROUPS) {
		snprintf(err, errlen, "%zu cgroups to track: scry profile takes at most %d (--track-cgroup, "
			 "--track-container)", o->ncgroups, SCRY_MAX_TRACK_CGROUPS);
		ret = -E2BIG;
		goto fail;
	}
	p->skel->rodata->n_cgroups = (__u32)o->ncgroups;
	bpf_program__set_autoload(p->skel->progs.scry_prof_switch, o->offcpu);   /* its cost on every switch */
	p->ring_size = o->ring_size ? o->ring_size : ring_default(o->ustack_size, p->ncpus);
	bpf_map__set_max_entries(p->skel->maps.notes, (__u32)p->ring_size);
	if (o->all) {
		bpf_program__set_autoload(p->skel->progs.scry_prof_fork, false);
		bpf_map__set_max_entries(p->skel->maps.targets, 1);
	}
	if ((ret = profile_bpf__load(p->skel))) {
		snprintf(err, errlen, "the kernel refused scry's profiler BPF program: %s (--verbose: the verifier's log)",
			 strerror(-ret));
		goto fail;
	}
	for (size_t i = 0; i < o->ncgroups; i++) {
		__u32 k = (__u32)i;

		if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.cgroups), &k, &o->cgroup_fds[i], BPF_ANY)) {
			ret = -errno;
			snprintf(err, errlen, "cannot track cgroup #%zu: %s", i + 1, strerror(-ret));
			goto fail;
		}
	}
	*out = p;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	scry_profiler_free(p);
	return ret;
}

void scry_profiler_free(struct scry_profiler *p)
{
	if (!p)
		return;
	scry_profiler_stop(p);
	ring_buffer__free(p->rb);
	for (unsigned i = 0; p->pfds && i < p->ncpus; i++)
		if (p->pfds[i] >= 0)
			close(p->pfds[i]);
	for (unsigned i = 0; p->cfds && i < p->ncpus; i++)
		if (p->cfds[i] >= 0)
			close(p->cfds[i]);
	for (unsigned i = 0; p->rbs && i < p->ncpus; i++)
		if (p->rbs[i])
			munmap(p->rbs[i], p->rb_size);
	free(p->rbs);
	profile_bpf__destroy(p->skel);
	free(p->pfds);
	free(p->cfds);
	free(p->links);
	free(p);
}

int scry_profiler_target(struct scry_profiler *p, pid_t tgid, char *err, size_t errlen)
{
	__u32 k = (__u32)tgid;
	__u8 yes = 1;

	if (bpf_map_update_elem(bpf_map__fd(p->skel->maps.targets), &k, &yes, BPF_ANY)) {
		int e = errno;
		snprintf(err, errlen, "cannot add process %d to the profile's targets: %s", (int)tgid, strerror(e));
		return -e;
	}
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct scry_profiler *p = ctx;
	const struct scry_prof_note *n = data;
	const struct scry_prof_ustack *u = data;

	if (!p->h || size < sizeof(__u32))
		return 0;
	if (n->type == SCRY_PROF_REC_NOTE && size >= sizeof(*n) && p->h->note)
		p->h->note(p->h->ctx, (pid_t)n->tgid);
	else if (n->type == SCRY_PROF_REC_USTACK && size >= sizeof(*u) && u->size <= size - sizeof(*u) &&
		 p->h->ustack)
		p->h->ustack(p->h->ctx, u, size);
	return 0;
}

int scry_profiler_start(struct scry_profiler *p, char *err, size_t errlen)
{
	int ret;

	p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.notes), on_record, p, NULL);
	if (!p->rb) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the profiler's ring: %s", strerror(-ret));
		return ret;
	}
	if ((ret = profile_bpf__attach(p->skel))) {   /* fork, exec, exit: no perf event in the skeleton's */
		snprintf(err, errlen, "cannot attach the profiler's tracepoints: %s", strerror(-ret));
		return ret;
	}
	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		if (p->pfds[cpu] < 0)
			continue;
		p->cfds[cpu] = fcntl(p->pfds[cpu], F_DUPFD_CLOEXEC, 0);   /* -1: its time unread */
		if (p->cfds[cpu] >= 0) {
			/* no sample goes there (the program returns 0): the throttling's records alone */
			void *m = mmap(NULL, p->rb_size, PROT_READ | PROT_WRITE, MAP_SHARED, p->cfds[cpu], 0);

			p->rbs[cpu] = m == MAP_FAILED ? NULL : m;
		}
		p->links[cpu] = bpf_program__attach_perf_event(p->skel->progs.scry_prof_sample, p->pfds[cpu]);
		if (!p->links[cpu]) {
			ret = -errno;
			snprintf(err, errlen, "cannot attach the profiler to CPU %u's perf event: %s", cpu, strerror(-ret));
			return ret;
		}
		p->pfds[cpu] = -1;   /* the link's now: its destruction disables and closes it */
	}
	return 0;
}

void scry_profiler_stop(struct scry_profiler *p)
{
	for (unsigned cpu = 0; p->links && cpu < p->ncpus; cpu++) {
		bpf_link__destroy(p->links[cpu]);   /* disables the event */
		p->links[cpu] = NULL;
	}
}

/* The PERF_RECORD_THROTTLE records of a CPU's event ring (rb_size bytes, mapped). */
static uint64_t throttles(const struct scry_profiler *p, void *rb)
{
	struct perf_event_mmap_page *m = rb;
	uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail, n = 0;
	uint64_t off = m->data_offset ? m->data_offset : (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t size = m->data_size ? m->data_size : p->rb_size - off;
	const uint8_t *data = (const uint8_t *)rb + off;

	if (head - tail > size)
		tail = head - size;     /* cannot be: the kernel does not overwrite unread records */
	while (tail + sizeof(struct perf_event_header) <= head) {
		/* records are 8-byte aligned in a ring of pages: a header never wraps */
		const struct perf_event_header *h = (const void *)(data + (tail % size));

		if (h->size < sizeof(*h))
			break;
		n += h->type == PERF_RECORD_THROTTLE;
		tail += h->size;
	}
	return n;
}

int scry_profiler_delivery(struct scry_profiler *p, uint64_t *expected, uint64_t *fired, uint64_t *missed,
			   uint64_t *throttled)
{
	uint64_t period = p->o.freq ? 1000000000ULL / p->o.freq : 0, *v;
	__u32 k = SCRY_PROF_FIRED;
	int ret = 0;

	*expected = *fired = *missed = *throttled = 0;
	if (p->o.event != SCRY_PROF_EV_CPU_CLOCK || p->o.offcpu || !period)
		return -ENOTSUP;
	if (period < 10000)
		period = 10000;     /* the kernel's floor for a cpu-clock hrtimer */
	if (!(v = calloc(p->ncpus, sizeof(*v))))
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.stats), &k, v)) {
		ret = -errno;
		goto out;
	}
	for (unsigned c = 0; c < p->ncpus; c++) {
		uint64_t ns, exp;

		if (p->cfds[c] < 0)
			continue;
		if (read(p->cfds[c], &ns, sizeof(ns)) != (ssize_t)sizeof(ns)) {
			ret = -EIO;
			goto out;
		}
		exp = ns / period;
		if (p->rbs[c])
			*throttled += throttles(p, p->rbs[c]);
		*expected += exp;
		*fired += v[c];
		if (exp > v[c] + 1)     /* one: the last period's timer may fire after the disable */
			*missed += exp - v[c];
	}
out:
	free(v);
	return ret;
}

int scry_profiler_ring_fd(struct scry_profiler *p)
{
	return p->rb ? ring_buffer__epoll_fd(p->rb) : -1;
}

int scry_profiler_poll(struct scry_profiler *p, const struct scry_profiler_handlers *h)
{
	int n;

	if (!p->rb)
		return 0;
	p->h = h;
	n = ring_buffer__consume(p->rb);
	p->h = NULL;
	return n < 0 ? n : 0;
}

size_t scry_profiler_ring_size(const struct scry_profiler *p)
{
	return p->ring_size;
}

int scry_profiler_stats(struct scry_profiler *p, uint64_t out[SCRY_PROF_NSTATS])
{
	int fd = bpf_map__fd(p->skel->maps.stats);
	uint64_t *v = calloc(p->ncpus, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (__u32 k = 0; k < SCRY_PROF_NSTATS; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (unsigned c = 0; c < p->ncpus; c++)
			out[k] += v[c];
	}
	free(v);
	return 0;
}

int scry_profiler_counts(struct scry_profiler *p,
			 int (*fn)(void *ctx, const struct scry_prof_key *k, uint64_t count), void *ctx)
{
	int fd = bpf_map__fd(p->skel->maps.counts);
	struct scry_prof_key k, next;
	void *prev = NULL;
	int ret;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		uint64_t count;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &count))
			continue;
		if ((ret = fn(ctx, &k, count)))
			return ret;
	}
	return errno == ENOENT ? 0 : -errno;
}

unsigned scry_profiler_stack(struct scry_profiler *p, int32_t id, uint64_t *buf)
{
	unsigned n = 0;

	if (id < 0 || bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.stacks), &id, buf))
		return 0;
	while (n < SCRY_PROF_MAX_DEPTH && buf[n])
		n++;
	return n;
}

int scry_profiler_run_stats(struct scry_profiler *p, uint64_t *runs, uint64_t *ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(p->skel->progs.scry_prof_sample), &info, &len))
		return -errno;
	*runs = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

unsigned scry_profiler_ncpus(const struct scry_profiler *p)
{
	return p->nopen;
}
