/* stats.c — what the kernel side counted: losses per CPU, counting-mode totals, recursion
 * misses, deferred entries still waiting; and the staging buffers' fill, read without a
 * syscall, with the flush of one CPU's stage (see probes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kernel/probes_int.h"

int scry_probes_sc_count(struct scry_probes *p, unsigned nr, struct scry_sc_count *out)
{
	struct scry_sc_count *percpu;
	int ncpus = libbpf_num_possible_cpus();
	__u32 key = nr;

	memset(out, 0, sizeof(*out));
	if (ncpus <= 0)
		return -EINVAL;
	if (!(percpu = calloc((size_t)ncpus, sizeof(*percpu))))
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.sc_counts), &key, percpu)) {
		int ret = -errno;
		free(percpu);
		return ret;
	}
	for (int i = 0; i < ncpus; i++) {
		out->calls += percpu[i].calls;
		out->errors += percpu[i].errors;
		out->ns += percpu[i].ns;
	}
	free(percpu);
	return 0;
}

int scry_probes_exit_code(struct scry_probes *p, pid_t tgid, int *status)
{
	__u32 key = (__u32)tgid, v;
	int fd = bpf_map__fd(p->skel->maps.exit_codes);

	if (bpf_map_lookup_and_delete_elem(fd, &key, &v) && bpf_map_lookup_elem(fd, &key, &v))
		return -ENOENT;
	*status = (int)v;
	return 0;
}

uint32_t scry_probes_staged(const struct scry_probes *p, unsigned cpu)
{
	const struct scry_stage *st;

	if (!p->stages || cpu >= p->ncpus)
		return 0;
	st = (const struct scry_stage *)(p->stages + (size_t)cpu * p->stage_stride);
	return __atomic_load_n(&st->len, __ATOMIC_RELAXED);
}

int scry_probes_flush_stage(struct scry_probes *p, unsigned cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	if (bpf_prog_test_run_opts(probes_prog_fd(p, p->skel->progs.scry_flush), &topts))
		return -errno;
	return 0;
}

int scry_probes_stats(struct scry_probes *p, struct scry_cpu_stats *out)
{
	__u32 zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.stats), &zero, out))
		return -errno;
	return 0;
}

int scry_probes_ustack_fd(const struct scry_probes *p)
{
	return p->opts.ustack_window ? bpf_map__fd(p->skel->maps.ustacks) : -1;
}

int scry_probes_ustack_stats(struct scry_probes *p, struct scry_ustack_stats *out)
{
	struct scry_ustack_stats *v = calloc(p->ncpus, sizeof(*v));
	__u32 zero = 0;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.ustack_stats), &zero, v)) {
		free(v);
		return -errno;
	}
	for (unsigned i = 0; i < p->ncpus; i++) {
		out->sent += v[i].sent;
		out->ring_full += v[i].ring_full;
		out->busy += v[i].busy;
	}
	free(v);
	return 0;
}

uint64_t scry_probes_recursion_misses(struct scry_probes *p)
{
	struct bpf_program *prog;
	uint64_t sum = 0;

	for (int i = 0; (prog = probes_prog(p, i)); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = probes_prog_fd(p, prog);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

uint64_t scry_probes_deferred_waiting(struct scry_probes *p)
{
	return __atomic_load_n(&p->skel->bss->deferred_waiting, __ATOMIC_RELAXED);
}
