/* samples.c — the profile source's sampling (src/bpf/samples.bpf.h): a cpu-clock perf event
 * on each online CPU at the channel's frequency, scry_profile_sample attached to each (its
 * link owns the event's fd).  A CPU that is offline is skipped; the kernel's limit on the
 * frequency (perf_event_max_sample_rate) is named when it refuses one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"

int scry_probes_attach_samples(struct scry_probes *p, char *err, size_t errlen)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
				     .freq = 1, .sample_freq = p->opts.profile_freq, .disabled = 1 };
	unsigned opened = 0;

	if (!bpf_program__autoload(p->skel->progs.scry_profile_sample))
		return 0;
	for (unsigned cpu = 0; cpu < p->ncpus; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &a, -1, (int)cpu, -1, PERF_FLAG_FD_CLOEXEC), e = errno, ret;
		char what[64];

		if (fd < 0 && e == ENODEV)
			continue;          /* an offline CPU */
		if (fd < 0 && e == EINVAL && p->opts.profile_freq > 1000) {
			snprintf(err, errlen, "profile:cpu-clock:%u: perf_event_open: %s (the kernel's limit: "
				 "/proc/sys/kernel/perf_event_max_sample_rate)", p->opts.profile_freq, strerror(e));
			return -e;
		}
		if (fd < 0) {
			snprintf(err, errlen, "profile:cpu-clock on CPU %u: perf_event_open: %s", cpu, strerror(e));
			return -e;
		}
		snprintf(what, sizeof(what), "perf_event cpu-clock (CPU %u)", cpu);
		struct bpf_link *l = bpf_program__attach_perf_event(p->skel->progs.scry_profile_sample, fd);
		if (!l)
			close(fd);
		if ((ret = probes_add_link(p, l, what, err, errlen)))
			return ret;
		opened++;
	}
	if (!opened) {
		snprintf(err, errlen, "profile:cpu-clock: no online CPU to sample");
		return -ENODEV;
	}
	return 0;
}
