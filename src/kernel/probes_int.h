/* probes_int.h — the state the loader's files share (probes.c, trackers.c, fronts.c,
 * attach.c, stats.c): struct scry_probes and the functions one of them offers the others.
 * Private to src/kernel/. */
#ifndef SCRY_KERNEL_PROBES_INT_H
#define SCRY_KERNEL_PROBES_INT_H

#include <stdbool.h>
#include "scry_abi.h"    /* before the skeleton: its .bss holds scry_abi.h structs */
#include "scry.skel.h"
#include "kernel/ctx_paths.h"
#include "kernel/probes.h"

#define MAX_LINKS (SCRY_MAX_TP + SCRY_MAX_UPROBES + 8)
/* uapi values newer than the headers of Debian 12 (Linux 6.1): uprobe_multi links (6.6) */
#define SCRY_BPF_TRACE_UPROBE_MULTI 48
#define SCRY_BPF_F_UPROBE_MULTI_RETURN 1

/* An attached program: libbpf's link, or (bl NULL) the fd of a link made from the program's
 * fd (attach.c), -1 when none. */
struct probe_link {
	struct bpf_link *bl;
	int fd;
	bool raw;                  /* a raw tracepoint's: its detach waits for no grace period */
};

#define SCRY_WARM_FP_BYTES 16

struct scry_probes {
	struct scry_bpf *skel;     /* its maps; its program pointers: the lanes' programs */
	struct bpf_object *lanes[2];   /* the copies of the object that loaded the programs (NULL:
				    * the skeleton loaded them) */
	struct scry_probes_opts opts;
	unsigned ncpus;
	int *ring_fds;
	struct probe_link *links;  /* MAX_LINKS */
	size_t nlinks;
	unsigned next_tp_slot;
	int tp_link[SCRY_MAX_TP];  /* a tracepoint slot's index in links, -1: a front's */
	unsigned next_up_slot;
	int up_link[SCRY_MAX_UPROBES];   /* a uprobe slot's index in links */
	uint8_t *stages;           /* the stages map, mmapped read-only */
	size_t stages_len, stage_stride;
	bool btf_tp;               /* kernel has BTF tracepoints (tp_btf) */
	int strnstr_id;            /* vmlinux BTF id of kfunc bpf_strnstr, 0 if none */
	struct loaded_filter *filters;   /* filter fronts loaded (closed with the probes) */
	size_t nfilters, capfilters;
	int sys_front[2];          /* fds of the sys_enter / sys_exit fronts, -1: none */
	int *front_links;          /* links of the fronts attached (fds) */
	size_t nfront_links;
	struct scry_ctx_layout layout;   /* contexts and registers in kernel BTF */
	bool prepare_exec;         /* scry_prepare_exec is loaded */
	unsigned btf_tps;          /* the tracepoints (1 << SCRY_BTF_TP_*) whose BTF programs are
				    * loaded (scry_exit for sched_process_exit; the bss's btf_tp_slot:
				    * the slot each writes, 0: none) */
	bool exit_follow;          /* scry_exit keeps the follow sets (attached from the start) */
	int exit_link;             /* scry_exit's index in links, -1: not attached */
	bool uprobe_multi;         /* scry_uprobe_multi is loaded (scry_probes_attach_uprobes) */
	bool memo_by_regs;         /* the memo keeps the current task (untrusted kptr) */
	bool current_by_helper;    /* system-wide, current from the helper (maps.bpf.h) */
	bool sys_all;              /* the dispatchers made for memo_all_gen are on the hooks */
	bool sys_trk;              /* ... those made for the trackers' mode (SCRY_DISP_TRK) */
	enum { SYS_SHAPE_ANY, SYS_SHAPE_DFLT, SYS_SHAPE_PT } sys_shape;
				   /* ... either in its copy for record's default contexts (_dflt_),
				    * or scry trace's (_pt_: pid and tid), or the generic one */
	int metric_fds[SCRY_METRICS_MAX];   /* inner maps of the metrics, -1: none */
	pid_t *pid_set_pids;       /* per-process event sets: the process of each slot, 0: free
				    * (pid_sets.c: the bloom bits of the .bss) */
	int *perf_fds;             /* the perf counter contexts' events (perf_ctx.c) */
	size_t nperf_fds;
	uint8_t fp[SCRY_WARM_FP_BYTES];   /* the fingerprint of the prepared object (when asked) */
	int *warm_prog_fds;        /* an object scryd loaded (warm.c): each program's fd by its
				    * index in the skeleton (-1: not loaded); NULL: loaded here */
	bool shell;                /* skel is the shell (warm_shell.c): to take scryd's object only */
};

/* lanes.c: the programs the skeleton is set to load, loaded on two CPUs at once; closed */
int probes_load_lanes(struct scry_probes *p, const char *core_btf, char *err, size_t errlen);
void probes_close_lanes(struct scry_probes *p);
/* Each program of the skeleton (loaded or not): for (i = 0; (prog = probes_prog(p, i)); i++) */
static inline struct bpf_program *probes_prog(const struct scry_probes *p, int i)
{
	return i < p->skel->skeleton->prog_cnt ? *p->skel->skeleton->progs[i].prog : NULL;
}

/* perf_ctx.c: before the load (map size, the switch program), after it (the events). */
void probes_prepare_perf(struct scry_probes *p);
int probes_open_perf(struct scry_probes *p, char *err, size_t errlen);
void probes_close_perf(struct scry_probes *p);

struct loaded_filter {
	unsigned kind;
	struct bpf_insn *insns;
	size_t n;
	int fd;
};

/* trackers.c */
int probes_fill_trackers(struct scry_probes *p, const struct scry_probes_opts *o, char *err, size_t errlen);
void probes_track_blooms(struct scry_probes *p, const struct scry_probes_opts *o);
void probes_memo_modes(struct scry_probes *p);
/* The BTF syscall dispatcher of sys_exit (exit) or sys_enter for the session's mode (set
 * by probes_prepare): record -a's, the trackers', either in its copy made for the default
 * contexts, or the plain one (which fronts and doors tail-call). */
struct bpf_program *probes_dispatcher_btf(struct scry_probes *p, bool exit);
int probes_prepare_memo(struct scry_probes *p, char *err, size_t errlen);
/* fronts.c */
int probes_attach_doors(struct scry_probes *p, char *err, size_t errlen);
int probes_prepare_dispatch(struct scry_probes *p, char *err, size_t errlen);
int probes_add_front_link(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen);
int probes_attach_front_sys(struct scry_probes *p, int kind, char *err, size_t errlen);
int probes_attach_front_tp(struct scry_probes *p, int prog_fd, const char *system, const char *name, __u64 cookie,
			   char *err, size_t errlen);
int probes_attach_front_uprobe(struct scry_probes *p, int prog_fd, const char *path, uint64_t offset, bool ret,
			       __u64 cookie, const char *what, char *err, size_t errlen);
/* metrics.c */
int probes_prepare_metrics(struct scry_probes *p, char *err, size_t errlen);
int probes_install_metrics(struct scry_probes *p, char *err, size_t errlen);
/* attach.c: a link of libbpf's, or a link's fd (closed on failure), kept in links; prog
 * attached from its fd where its SEC names, or (system and name given) to that tracefs
 * tracepoint with cookie: the one way a program of the object is attached, whoever loaded
 * it.  0 or -errno with a reason. */
int probes_add_link(struct scry_probes *p, struct bpf_link *l, const char *what, char *err, size_t errlen);
int probes_add_link_fd(struct scry_probes *p, int fd, const char *what, char *err, size_t errlen);
int probes_attach_prog(struct scry_probes *p, struct bpf_program *prog, const char *system, const char *name,
		       __u64 cookie, const char *what, char *err, size_t errlen);
/* attach.c: the program that writes BTF tracepoint k (SCRY_BTF_TP_*; scry_exit for
 * sched_process_exit), NULL for another k */
struct bpf_program *probes_btf_tp_prog(struct scry_probes *p, int k);
/* metrics.c: the metrics' tables at their smallest when there is no metric (before a load
 * here) */
void probes_metrics_smallest(struct scry_probes *p);
/* fingerprint.c: everything the load of the prepared object depends on, hashed */
void probes_fingerprint(const struct scry_probes *p, uint8_t out[SCRY_WARM_FP_BYTES]);
/* warm.c: should this load ask scryd for its object (o is the kind it may hold, scryd
 * answers, SCRY_NO_WARM unset)?  Does this process make objects for others (scryd)?  Take
 * scryd's object for the prepared p: 0, -ENOENT (none: p untouched), or -errno (p half
 * changed: to be closed).  A program's fd, whoever loaded it (-1: not loaded). */
bool probes_warm_wanted(const struct scry_probes_opts *o);
bool probes_warm_likely(void);      /* ... for some settings: scryd's socket is there */
bool probes_warm_eligible(const struct scry_probes_opts *o);
bool probes_warm_exporting(void);
int probes_warm_take(struct scry_probes *p, char *err, size_t errlen);
int probes_prog_fd(const struct scry_probes *p, const struct bpf_program *prog);
/* warm_shell.c: the shell of the object (its ELF without .BTF.ext and relocations: the same
 * maps, programs and data, never loaded) */
const void *probes_warm_shell_elf(size_t *size);
/* A handover's descriptor name "KIND:INDEX:NAME" (name given) or "KIND:INDEX" (name NULL):
 * INDEX (decimal, at most 100000), *name its NAME; -1 if malformed or of another kind. */
long probes_warm_parse_name(const char *v, const char *kind, const char **name);
/* The probe of the application's span marks (metrics.c), if any. */
int probes_attach_span_mark(struct scry_probes *p, char *err, size_t errlen);

#endif
