/* perf_ctx.c — the perf counter contexts (perf:cpu:NAME, perf:thread:NAME): one perf event
 * per counter in use and CPU, opened after the programs load and put in their perf_ctrs
 * array (record.bpf.h reads them with bpf_perf_event_read_value; perf:thread counts are
 * the same CPU counters split among the threads at context switches, perf_ctx.bpf.h).
 * A hardware counter the machine does not have (no PMU, as in most VMs) is refused in
 * one line naming it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "scry_abi.h"
#include "scry.skel.h"
#include "catalog/catalog.h"
#include "kernel/probes_int.h"

/* Counter k (0..SCRY_PERF_NR) in use: as perf:cpu or perf:thread. */
static bool used(uint64_t mask, unsigned k)
{
	return mask & ((1ULL << (SCRY_CTX_PERF_CPU + k)) | (1ULL << (SCRY_CTX_PERF_THREAD + k)));
}

void probes_prepare_perf(struct scry_probes *p)
{
	uint64_t m = p->opts.ctx_mask;
	bool thread = false;

	for (unsigned k = 0; k < SCRY_PERF_NR; k++)
		thread |= (m >> (SCRY_CTX_PERF_THREAD + k)) & 1;
	p->skel->rodata->perf_ncpus = p->ncpus;
	bpf_map__set_max_entries(p->skel->maps.perf_ctrs, SCRY_PERF_NR * p->ncpus);
	bpf_program__set_autoload(p->skel->progs.scry_perf_switch, thread);
}

int probes_open_perf(struct scry_probes *p, char *err, size_t errlen)
{
	uint64_t m = p->opts.ctx_mask;
	int map = bpf_map__fd(p->skel->maps.perf_ctrs);

	for (unsigned k = 0; k < SCRY_PERF_NR; k++) {
		const struct scry_context_desc *d;
		unsigned opened = 0;

		if (!used(m, k))
			continue;
		d = scry_context((m >> (SCRY_CTX_PERF_CPU + k)) & 1 ? SCRY_CTX_PERF_CPU + k : SCRY_CTX_PERF_THREAD + k);
		for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
			struct perf_event_attr a = { .type = d->perf_type, .size = sizeof(a), .config = d->perf_config };
			int fd = (int)syscall(__NR_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC);
			__u32 key = k * p->ncpus + cpu;
			int *nf;

			if (fd < 0 && errno == ENODEV)
				continue;       /* an offline CPU */
			if (fd < 0) {
				int e = errno;
				const char *what = strrchr(d->name, ':') + 1;

				if (d->perf_type == PERF_TYPE_HARDWARE && (e == ENOENT || e == EOPNOTSUPP))
					snprintf(err, errlen, "context %s: this machine has no hardware counter %s "
						 "(no PMU exposes it: perf_event_open: %s)", d->name, what, strerror(e));
				else
					snprintf(err, errlen, "context %s: cannot open the counter on CPU %u: %s",
						 d->name, cpu, strerror(e));
				return -(e ? e : EINVAL);
			}
			if (!(nf = realloc(p->perf_fds, (p->nperf_fds + 1) * sizeof(int)))) {
				close(fd);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			p->perf_fds = nf;
			p->perf_fds[p->nperf_fds++] = fd;
			if (bpf_map_update_elem(map, &key, &fd, BPF_ANY)) {
				int e = errno;
				snprintf(err, errlen, "context %s: cannot install its counter of CPU %u: %s", d->name, cpu,
					 strerror(e));
				return -e;
			}
			opened++;
		}
		if (!opened) {
			snprintf(err, errlen, "context %s: no CPU could count it", d->name);
			return -ENODEV;
		}
	}
	return 0;
}

void probes_close_perf(struct scry_probes *p)
{
	for (size_t i = 0; i < p->nperf_fds; i++)
		close(p->perf_fds[i]);
	free(p->perf_fds);
	p->perf_fds = NULL;
	p->nperf_fds = 0;
}
