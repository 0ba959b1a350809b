/* lanes.c — scry's programs verified on two CPUs at once (see probes_int.h).
 *
 * Most of a start-up is the verifier (~45 ms of `scry trace -- /bin/true`'s ~80), which runs
 * in the thread that loads a program; privileged loads run in parallel.  libbpf loads an
 * object's programs one after the other, so the object is opened three times from the same
 * ELF bytes: the skeleton's copy creates the maps (its programs all left unloaded), and two
 * more copies, the lanes, load the programs the skeleton was set to load, split between them
 * (lane_of: each program's SCRY_LANE mark in src/bpf), with the skeleton's maps
 * (bpf_map__reuse_fd), one in a thread of its own.  The lanes are opened in that thread while
 * the skeleton creates its maps.  Then the skeleton's program pointers are set to the lanes'
 * programs, so that the rest of scry sees one object (bpf_program__autoload(): loaded).  The
 * copies' loads borrow the kernel's BTF scry parsed at start (btf_share.c: scry_btf_share around
 * each load) rather than each parsing it again.  When all the programs fall in one lane, or with
 * SCRY_ONE_LANE=1 (for comparisons), the skeleton loads them itself, one after the other, as one
 * object.  So it does when the CPUs are busy (cpus_busy): the lanes cost CPU time of their own
 * (two more copies of the object, each opened, its BTF loaded into the kernel and relocated:
 * +19% of `scry trace -- /bin/true`'s, 264 against 214 ms of task-clock on a loaded VM, when
 * each copy also parsed the kernel's BTF), which pays only when a second CPU is free to verify
 * beside the first; SCRY_TWO_LANES=1 (tests): lanes whatever the load.  scryd loads in one lane
 * (scry_probes_one_lane: fds, not wall time). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "kernel/btf_share.h"
#include "kernel/probes_int.h"
#include "util/log.h"
#include "util/overrides.h"

/* The lane of each program: the SCRY_LANE(n) mark beside its SEC in src/bpf (the build fails
 * when a program has none, scripts/gen-lanes.sh).  Lane 1's programs verify in about as long as
 * lane 0's for the common sessions (scry trace's loads under strace -T, 6 runs): sys_enter
 * (~20 ms) with sched_process_exit's (~10) and signal_generate's (~4) against sys_exit (~20,
 * ~28 before its copy made for trace's contexts) with signal_deliver's (~6) and the exec and
 * fork programs (~5); a statedump's task iterator against its file and item iterators. */
#include "scry_lanes.h"
_Static_assert(sizeof(scry_lane_marks) / sizeof(scry_lane_marks[0]) ==
	       sizeof(((struct scry_bpf *)0)->progs) / sizeof(struct bpf_program *),
	       "a program of the skeleton without a lane");

static int lane_of(const char *name)
{
	for (size_t i = 0; i < sizeof(scry_lane_marks) / sizeof(scry_lane_marks[0]); i++)
		if (!strcmp(scry_lane_marks[i].prog, name))
			return scry_lane_marks[i].lane;
	return 0; /* not reached: every program of the skeleton is in the table */
}

struct lane {
	struct bpf_object *obj;
	unsigned nprogs;             /* its programs of the plan */
	int ret;
	char what[96];               /* the step that failed */
};

struct lanes {
	struct scry_probes *p;
	const bool *plan;            /* the skeleton's programs to load, by index */
	const char *core_btf;
	struct lane lane[2];
	pthread_barrier_t maps_made; /* the skeleton's maps exist, or could not be made */
	int maps_ret;
};

/* A copy of the object, set to load the planned programs of lane l. */
static int lane_open(struct lanes *ls, int l)
{
	const struct bpf_object_skeleton *s = ls->p->skel->skeleton;
	struct lane *ln = &ls->lane[l];
	size_t size;
	const void *elf = scry_bpf__elf_bytes(&size);

	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = s->name, .btf_custom_path = ls->core_btf);
	ln->obj = bpf_object__open_mem(elf, size, &oo);
	if (!ln->obj) {
		snprintf(ln->what, sizeof(ln->what), "cannot open the BPF object again");
		return -errno;
	}
	for (int i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *sp = *s->progs[i].prog;
		struct bpf_program *lp = bpf_object__find_program_by_name(ln->obj, s->progs[i].name);
		bool load = ls->plan[i] && lane_of(s->progs[i].name) == l;

		if (!lp) {
			snprintf(ln->what, sizeof(ln->what), "no program %s in the BPF object", s->progs[i].name);
			return -ENOENT;
		}
		bpf_program__set_autoload(lp, load);
		bpf_program__set_expected_attach_type(lp, bpf_program__expected_attach_type(sp));
	}
	return 0;
}

/* Lane l's maps are the skeleton's (same ELF: the same maps in the same order), then its
 * programs loaded. */
static int lane_load(struct lanes *ls, int l)
{
	struct lane *ln = &ls->lane[l];
	struct bpf_map *sm = NULL, *lm = NULL;

	while ((sm = bpf_object__next_map(ls->p->skel->obj, sm)) && (lm = bpf_object__next_map(ln->obj, lm))) {
		int fd = bpf_map__fd(sm), ret = fd < 0 ? bpf_map__set_autocreate(lm, false) : bpf_map__reuse_fd(lm, fd);

		if (ret) {
			snprintf(ln->what, sizeof(ln->what), "cannot share the map %s", bpf_map__name(sm));
			return ret;
		}
	}
	scry_btf_share(true);
	int ret = bpf_object__load(ln->obj) ? -errno : 0;
	scry_btf_share(false);
	if (ret)
		snprintf(ln->what, sizeof(ln->what), "the kernel refused scry's BPF programs");
	return ret;
}

static void *lane1_main(void *arg)
{
	struct lanes *ls = arg;

	ls->lane[1].ret = lane_open(ls, 1);
	if (!ls->lane[1].ret)
		ls->lane[0].ret = lane_open(ls, 0);
	pthread_barrier_wait(&ls->maps_made);
	if (!ls->maps_ret && !ls->lane[0].ret && !ls->lane[1].ret)
		ls->lane[1].ret = lane_load(ls, 1);
	return NULL;
}

/* Are this process's CPUs all taken by other tasks right now: as many runnable tasks besides
 * this thread (/proc/loadavg's fourth field, R/T: R counts this thread) as the CPUs it may run
 * on?  Then a second lane would wait for a CPU and only add its own work. */
static bool cpus_busy(void)
{
	cpu_set_t set;
	unsigned runnable = 0;
	int ncpus;
	FILE *f = fopen("/proc/loadavg", "re");

	if (!f)
		return false;
	if (fscanf(f, "%*s %*s %*s %u/", &runnable) != 1)
		runnable = 0;
	fclose(f);
	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	ncpus = CPU_COUNT(&set);
	return ncpus > 0 && runnable > (unsigned)ncpus;
}

/* Every planned program of the skeleton now the lane's that loaded it. */
static void lanes_adopt(struct lanes *ls)
{
	const struct bpf_object_skeleton *s = ls->p->skel->skeleton;

	for (int i = 0; i < s->prog_cnt; i++)
		if (ls->plan[i])
			*s->progs[i].prog = bpf_object__find_program_by_name(ls->lane[lane_of(s->progs[i].name)].obj,
									     s->progs[i].name);
}

static bool lanes_off;   /* scry_probes_one_lane */

void scry_probes_one_lane(void)
{
	lanes_off = true;
}

int probes_load_lanes(struct scry_probes *p, const char *core_btf, char *err, size_t errlen)
{
	const struct bpf_object_skeleton *s = p->skel->skeleton;
	struct lanes ls = { .p = p, .core_btf = core_btf };
	bool *plan = calloc(s->prog_cnt ? s->prog_cnt : 1, sizeof(*plan));
	pthread_t th;
	int ret;

	if (!plan) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ls.plan = plan;
	for (int i = 0; i < s->prog_cnt; i++)
		if ((plan[i] = bpf_program__autoload(*s->progs[i].prog)))
			ls.lane[lane_of(s->progs[i].name)].nprogs++;
	if (!ls.lane[0].nprogs || !ls.lane[1].nprogs || scry_overrides()->one_lane || lanes_off ||
	    (!scry_overrides()->two_lanes && cpus_busy())) {
		scry_log(SCRY_LOG_VERBOSE, "scry: the programs verified in one lane%s",
			 ls.lane[0].nprogs && ls.lane[1].nprogs && !scry_overrides()->one_lane ? " (the CPUs are busy)" : "");
		free(plan);
		scry_btf_share(true);
		ret = scry_bpf__load(p->skel);
		scry_btf_share(false);
		if (ret)
			snprintf(err, errlen, "the kernel refused scry's BPF programs: %s%s", strerror(-ret),
				 scry_log_verbose() ? "" : " (--verbose shows the verifier log)");
		return ret;
	}
	for (int i = 0; i < s->prog_cnt; i++)
		bpf_program__set_autoload(*s->progs[i].prog, false);
	pthread_barrier_init(&ls.maps_made, NULL, 2);
	if ((ret = -pthread_create(&th, NULL, lane1_main, &ls))) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(-ret));
		goto out;
	}
	scry_btf_share(true);
	ls.maps_ret = scry_bpf__load(p->skel);
	scry_btf_share(false);
	pthread_barrier_wait(&ls.maps_made);
	if (!ls.maps_ret && !ls.lane[0].ret && !ls.lane[1].ret)
		ls.lane[0].ret = lane_load(&ls, 0);
	pthread_join(th, NULL);
	if ((ret = ls.maps_ret))
		snprintf(err, errlen, "the kernel refused scry's BPF maps: %s%s", strerror(-ret),
			 scry_log_verbose() ? "" : " (--verbose says more)");
	else
		for (int l = 0; l < 2 && !ret; l++)
			if ((ret = ls.lane[l].ret))
				snprintf(err, errlen, "%s: %s%s", ls.lane[l].what, strerror(-ret),
					 scry_log_verbose() ? "" : " (--verbose shows the verifier log)");
	if (!ret) {
		lanes_adopt(&ls);
		p->lanes[0] = ls.lane[0].obj;
		p->lanes[1] = ls.lane[1].obj;
		ls.lane[0].obj = ls.lane[1].obj = NULL;
	}
out:
	pthread_barrier_destroy(&ls.maps_made);
	bpf_object__close(ls.lane[0].obj);
	bpf_object__close(ls.lane[1].obj);
	free(plan);
	return ret;
}

void probes_close_lanes(struct scry_probes *p)
{
	for (int l = 0; l < 2; l++) {
		bpf_object__close(p->lanes[l]);
		p->lanes[l] = NULL;
	}
}
