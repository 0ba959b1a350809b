/* features.c — the kernel feature checks (see features.h).  Each answers from what the
 * kernel says (its BTF, a map or program it accepts, a file it exposes), never from its
 * version number. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "kernel/kfacts.h"
#include "util/overrides.h"

bool scry_feature_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* The parsed BTF, shared by the threads of a process (scryd loads its ready object in one
 * of its own: daemon/warm.c): parsed once under the lock, freed by release only while no
 * thread holds it (a load in progress). */
static struct {
	pthread_mutex_t lock;
	pthread_t th;
	bool started, done;
	unsigned holders;
	unsigned lent;                  /* references libbpf holds (btf_share.c) */
	struct btf *btf;
} kbtf = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The names the feature checks look up in the kernel's BTF.  btf__find_by_name_kind walks
 * its ~127,000 types for each (to the end for one it lacks, ~0.5 ms); these are found in one
 * walk, on the first check against the parsed BTF (kbtf above), the first of each name and
 * kind as btf__find_by_name_kind would answer. */
static const struct {
	const char *name;
	int kind;
} wanted[] = {
	{ "btf_trace_sys_enter", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_process_fork", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_prepare_exec", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_process_exit", BTF_KIND_TYPEDEF },
	{ "trace_event_raw_sched_process_exit", BTF_KIND_STRUCT },
	{ "trace_event_raw_sched_switch", BTF_KIND_STRUCT },
	{ "trace_event_raw_sched_wakeup_template", BTF_KIND_STRUCT },
	{ "trace_event_raw_sched_process_exec", BTF_KIND_STRUCT },
	{ "bpf_strnstr", BTF_KIND_FUNC },
	{ "bpf_uprobe_multi_link", BTF_KIND_STRUCT },
	/* and what libbpf looks up in it to load scry's object (btf_share.c): its kfunc
	 * externs, the attach points of its BTF tracepoints */
	{ "bpf_task_from_pid", BTF_KIND_FUNC },
	{ "bpf_task_release", BTF_KIND_FUNC },
	{ "btf_trace_sys_exit", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_process_exec", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_switch", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_wakeup", BTF_KIND_TYPEDEF },
	{ "btf_trace_sched_wakeup_new", BTF_KIND_TYPEDEF },
	{ "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF },
	{ "btf_trace_block_rq_complete", BTF_KIND_TYPEDEF },
	{ "btf_trace_inet_sock_set_state", BTF_KIND_TYPEDEF },
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

static struct {
	pthread_mutex_t lock;
	const struct btf *btf;          /* the BTF the ids are of (NULL: none walked) */
	int id[NWANTED];                /* 0: not in it */
} found = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void walk_wanted(const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf);
	size_t left = NWANTED;

	memset(found.id, 0, sizeof(found.id));
	for (__u32 id = 1; id < n && left; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		int kind = btf_kind(t);
		const char *name;

		if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_STRUCT && kind != BTF_KIND_FUNC)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		for (size_t i = 0; name && i < NWANTED; i++)
			if (!found.id[i] && wanted[i].kind == kind && name[0] == wanted[i].name[0] &&
			    !strcmp(name, wanted[i].name)) {
				found.id[i] = (int)id;
				left--;
			}
	}
	found.btf = btf;
}

static void forget_wanted(void)
{
	pthread_mutex_lock(&found.lock);
	found.btf = NULL;
	pthread_mutex_unlock(&found.lock);
}

int scry_features_find_wanted(const struct btf *btf, const char *name, int kind)
{
	size_t i = 0;
	int id;

	while (i < NWANTED && (wanted[i].kind != kind || strcmp(wanted[i].name, name)))
		i++;
	if (i == NWANTED || !btf)
		return 0;
	pthread_mutex_lock(&kbtf.lock);
	bool ours = btf == kbtf.btf;
	pthread_mutex_unlock(&kbtf.lock);
	if (!ours)
		return 0;
	pthread_mutex_lock(&found.lock);
	if (found.btf != btf)
		walk_wanted(btf);
	id = found.id[i];
	pthread_mutex_unlock(&found.lock);
	return id > 0 ? id : -ENOENT;
}

/* btf__find_by_name_kind's answer: btf_share.c's definition, linked with this file, takes it
 * from the one walk for the kernel's BTF and a wanted name, else asks libbpf's */
static int find_kind(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind);
}

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf && find_kind(btf, name, kind) > 0;
}

/* The kernel's BTF parsed from a mapping of the sysfs file (Linux 6.16 maps it): libbpf
 * reads it in the 4 KiB a sysfs read returns, ~1350 reads (~6 ms of CPU a parse, here 9 ms
 * against 3).  Where it cannot be mapped, libbpf's read. */
static struct btf *load_vmlinux(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	struct btf *b = NULL;
	struct stat st;
	void *m;

	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 &&
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) != MAP_FAILED) {
		b = btf__new(m, (__u32)st.st_size);        /* copies what it keeps */
		munmap(m, (size_t)st.st_size);
	}
	if (fd >= 0)
		close(fd);
	return b ? b : btf__load_vmlinux_btf();
}

static void *parse_vmlinux(void *arg)
{
	kbtf.btf = load_vmlinux();     /* read by others only after the join */
	return NULL;
}

void scry_features_prefetch(void)
{
	if (scry_kfacts_cached())     /* what the loads read of it is known: no parse */
		return;
	pthread_mutex_lock(&kbtf.lock);
	if (!kbtf.started && !kbtf.done && scry_feature_btf())
		kbtf.started = pthread_create(&kbtf.th, NULL, parse_vmlinux, NULL) == 0;
	pthread_mutex_unlock(&kbtf.lock);
}

const struct btf *scry_features_vmlinux(void)
{
	struct btf *b;

	pthread_mutex_lock(&kbtf.lock);
	if (kbtf.started) {
		pthread_join(kbtf.th, NULL);
		kbtf.started = false;
		kbtf.done = true;
	} else if (!kbtf.done) {
		kbtf.btf = scry_feature_btf() ? load_vmlinux() : NULL;
		kbtf.done = true;
	}
	b = kbtf.btf;
	pthread_mutex_unlock(&kbtf.lock);
	return b;
}

void scry_features_hold(bool on)
{
	pthread_mutex_lock(&kbtf.lock);
	if (on)
		kbtf.holders++;
	else if (kbtf.holders)
		kbtf.holders--;
	pthread_mutex_unlock(&kbtf.lock);
}

void scry_features_release(void)
{
	struct btf *b = NULL;

	pthread_mutex_lock(&kbtf.lock);
	if (!kbtf.holders && !kbtf.lent) {
		if (kbtf.started)
			pthread_join(kbtf.th, NULL);
		forget_wanted();     /* before the free: a later parse may get the same address */
		b = kbtf.btf;
		kbtf.btf = NULL;
		kbtf.started = kbtf.done = false;
	}
	pthread_mutex_unlock(&kbtf.lock);
	btf__free(b);            /* no longer kbtf's: freed, not given back (btf_share.c) */
}

struct btf *scry_features_vmlinux_lend(void)
{
	struct btf *b;

	scry_features_vmlinux();          /* parsed (or the prefetch joined) */
	pthread_mutex_lock(&kbtf.lock);
	if ((b = kbtf.btf)) {
		/* the one answer libbpf computes on first use and keeps in the BTF: computed
		 * here, so that the threads that read it at once only read it */
		btf__pointer_size(b);
		kbtf.lent++;
	}
	pthread_mutex_unlock(&kbtf.lock);
	return b;
}

bool scry_features_vmlinux_give_back(const struct btf *b)
{
	bool ours;

	pthread_mutex_lock(&kbtf.lock);
	if ((ours = b && b == kbtf.btf && kbtf.lent))
		kbtf.lent--;
	pthread_mutex_unlock(&kbtf.lock);
	return ours;
}

bool scry_feature_tp_btf(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf_has(vmlinux, name, BTF_KIND_TYPEDEF);
}

/* Untrusted kptrs in per-CPU array values (Linux 6.4's "kptr_untrusted", in per-CPU maps
 * since 6.5): probed by creating such a map. */
bool scry_feature_kptr_untrusted(void)
{
	struct btf *b = btf__new_empty();
	int key, task, tag, ptr, val, fd = -1;

	if (!b)
		return false;
	key = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	task = btf__add_struct(b, "task_struct", 0);
	tag = task > 0 ? btf__add_type_tag(b, "kptr_untrusted", task) : -1;
	ptr = tag > 0 ? btf__add_ptr(b, tag) : -1;
	val = ptr > 0 ? btf__add_struct(b, "scry_probe_kptr", 8) : -1;
	if (key > 0 && val > 0 && !btf__add_field(b, "task", ptr, 0, 0) && !btf__load_into_kernel(b)) {
		LIBBPF_OPTS(bpf_map_create_opts, mo, .btf_fd = btf__fd(b), .btf_key_type_id = key,
			    .btf_value_type_id = val);
		fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "scry_kptr", 4, 8, 1, &mo);
	}
	if (fd >= 0)
		close(fd);
	btf__free(b);
	return fd >= 0;
}

int scry_feature_strnstr(const struct btf *vmlinux)
{
	int id = vmlinux ? find_kind(vmlinux, "bpf_strnstr", BTF_KIND_FUNC) : -1;

	return id > 0 ? id : 0;
}

bool scry_feature_uprobe_multi(const struct btf *vmlinux)
{
	return btf_has(vmlinux, "bpf_uprobe_multi_link", BTF_KIND_STRUCT);
}

bool scry_feature_prepare_exec(const struct btf *vmlinux)
{
	return scry_feature_tp_btf(vmlinux, "sched_prepare_exec");
}

/* The tracepoints scry may write from their BTF tracepoints (scry_abi.h SCRY_BTF_TP_*):
 * each one's name and the struct of its tracefs record (TRACE_EVENT's, or its template's) */
static const struct {
	const char *name, *record;
} btf_tps[SCRY_BTF_TP_NR] = {
	[SCRY_BTF_TP_EXIT] = { "sched_process_exit", "trace_event_raw_sched_process_exit" },
	[SCRY_BTF_TP_SWITCH] = { "sched_switch", "trace_event_raw_sched_switch" },
	[SCRY_BTF_TP_WAKEUP] = { "sched_wakeup", "trace_event_raw_sched_wakeup_template" },
	[SCRY_BTF_TP_WAKEUP_NEW] = { "sched_wakeup_new", "trace_event_raw_sched_wakeup_template" },
	[SCRY_BTF_TP_EXEC] = { "sched_process_exec", "trace_event_raw_sched_process_exec" },
};

int scry_btf_tp_index(const char *system, const char *name)
{
	if (strcmp(system, "sched"))
		return -1;
	for (int k = 0; k < SCRY_BTF_TP_NR; k++)
		if (!strcmp(name, btf_tps[k].name))
			return k;
	return -1;
}

/* The arguments of BTF tracepoint tp (its typedef's function, less the first: the
 * probe's data), -1 when unknown. */
static int tp_btf_nargs(const struct btf *vmlinux, const char *tp)
{
	char name[128];
	int id;
	const struct btf_type *t;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	if ((id = find_kind(vmlinux, name, BTF_KIND_TYPEDEF)) <= 0)
		return -1;
	t = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, id));    /* the pointer */
	t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
	return t && btf_is_func_proto(t) ? (int)btf_vlen(t) - 1 : -1;
}

unsigned scry_feature_btf_tps(const struct btf *vmlinux)
{
	unsigned m = 0;

	for (int k = 0; k < SCRY_BTF_TP_NR; k++)
		if (scry_feature_tp_btf(vmlinux, btf_tps[k].name) && btf_has(vmlinux, btf_tps[k].record, BTF_KIND_STRUCT))
			m |= 1u << k;
	/* sched_switch's prev_state argument (Linux 5.18; before, the program read it) */
	if (tp_btf_nargs(vmlinux, "sched_switch") != 4)
		m &= ~(1u << SCRY_BTF_TP_SWITCH);
	return m;
}

unsigned scry_btf_tps_overridden(void)
{
	const struct scry_overrides *o = scry_overrides();

	return (o->no_btf_exit ? 1u << SCRY_BTF_TP_EXIT : 0) | (o->no_btf_sched ? SCRY_BTF_TP_SCHED_MASK : 0);
}

bool scry_feature_btf_exit(const struct btf *vmlinux)
{
	return !scry_overrides()->no_btf_exit && (scry_feature_btf_tps(vmlinux) & 1u << SCRY_BTF_TP_EXIT);
}

bool scry_feature_ktime_tai(void)
{
	if (scry_overrides()->no_ktime_tai)
		return false;
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, BPF_FUNC_ktime_get_tai_ns, NULL) == 1;
}

/* kprobes: the kernel's kprobe PMU (perf_event_open of a kprobe). */
bool scry_feature_kprobes(char *why, size_t n)
{
	if (access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0) {
		snprintf(why, n, "kprobe PMU present");
		return true;
	}
	snprintf(why, n, "no kprobe PMU (/sys/bus/event_source/devices/kprobe): kernel built without kprobes");
	return false;
}

static bool vuln_says(const char *file, const char *const *words, char *line, size_t n)
{
	char path[128];
	FILE *f;
	bool hit = false;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/%s", file);
	f = fopen(path, "re");
	line[0] = 0;
	if (!f)
		return false;
	if (fgets(line, (int)n, f)) {
		line[strcspn(line, "\n")] = 0;
		for (int i = 0; words[i] && !hit; i++)
			hit = strstr(line, words[i]) != NULL;
	}
	fclose(f);
	return hit;
}

bool scry_feature_ret_thunk(char *why, size_t n)
{
	static const char *const srso[] = { "Safe RET", NULL };
	static const char *const retbleed[] = { "return thunk", "Stuffing", NULL };
	const struct scry_overrides *ov = scry_overrides();
	char a[160], b[160];

	if (ov->ret_thunk_set) {
		snprintf(why, n, "SCRY_RET_THUNK=%d", ov->ret_thunk);
		return ov->ret_thunk;
	}
	if (vuln_says("spec_rstack_overflow", srso, a, sizeof(a))) {
		snprintf(why, n, "spec_rstack_overflow: %s", a);
		return true;
	}
	if (vuln_says("retbleed", retbleed, b, sizeof(b))) {
		snprintf(why, n, "retbleed: %s", b);
		return true;
	}
	if (!a[0] && !b[0]) {
		snprintf(why, n, "no /sys/devices/system/cpu/vulnerabilities to read: taken as thunked");
		return true;
	}
	snprintf(why, n, "spec_rstack_overflow: %s; retbleed: %s", a[0] ? a : "?", b[0] ? b : "?");
	return false;
}

/* fentry: load a program on a kernel function and attach it (a kernel may load and still
 * refuse to attach). */
bool scry_feature_fentry(const struct btf *vmlinux, char *why, size_t n)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = vmlinux ? btf__find_by_name_kind(vmlinux, "do_sys_openat2", BTF_KIND_FUNC) : -1;
	int fd, link;

	if (id <= 0) {
		snprintf(n ? why : why, n, "no BTF for do_sys_openat2 to try it on");
		return false;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY, .attach_btf_id = id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "scry_fentry", "GPL", insns, 2, &po);
	if (fd < 0) {
		snprintf(why, n, "loading a fentry program: %s", strerror(errno));
		return false;
	}
	link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link < 0) {
		snprintf(why, n, "attaching a fentry program: %s", strerror(errno));
		close(fd);
		return false;
	}
	close(link);
	close(fd);
	snprintf(why, n, "a fentry program attached to do_sys_openat2");
	return true;
}

/* perf events: a sampling software event on this CPU. */
static bool perf_sampling(char *why, size_t n)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 1000000 };
	int fd = (int)syscall(__NR_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0) {
		snprintf(why, n, "perf_event_open(cpu-clock): %s", strerror(errno));
		return false;
	}
	close(fd);
	snprintf(why, n, "perf_event_open(cpu-clock sampling) works");
	return true;
}

static bool bpf_stats_on(char *why, size_t n)
{
	char c = '0';
	int fd = open("/proc/sys/kernel/bpf_stats_enabled", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &c, 1) != 1) {
		snprintf(why, n, "no /proc/sys/kernel/bpf_stats_enabled");
		if (fd >= 0)
			close(fd);
		return false;
	}
	close(fd);
	snprintf(why, n, "kernel.bpf_stats_enabled = %c", c);
	return c == '1';
}

size_t scry_features_probe(struct scry_feature_report *out, size_t max)
{
	const struct btf *vm = scry_features_vmlinux();
	const struct scry_overrides *ov = scry_overrides();
	size_t k = 0;

#define ADD(nm, ok, yes, no, ...) do { \
		if (k < max) { \
			struct scry_feature_report *r = &out[k++]; \
			r->name = nm; r->present = (ok); r->use = r->present ? (yes) : (no); \
			if (!r->why[0]) snprintf(r->why, sizeof(r->why), __VA_ARGS__); \
		} \
	} while (0)

	memset(out, 0, max * sizeof(*out));
	ADD("btf", vm != NULL, "CO-RE: one BPF object for every kernel", "scry cannot run (needs CONFIG_DEBUG_INFO_BTF)",
	    "%s", vm ? "/sys/kernel/btf/vmlinux" : "no /sys/kernel/btf/vmlinux");
	ADD("ringbuf", libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1,
	    "one BPF ring buffer per CPU", "scry cannot run (needs BPF ring buffers, Linux 5.8)", "map type probed");
	ADD("tp_btf", scry_feature_tp_btf(vm, "sys_enter"), "BTF tracepoints for syscalls, fork and exit",
	    "raw tracepoints for syscalls (no fork tracking: -a only)", "btf_trace_sys_enter in kernel BTF");
	bool kptr = scry_feature_kptr_untrusted();
	ADD("kptr_untrusted", kptr && !ov->no_kptr,
	    "task memo keyed by the syscall's registers (no helper call per event)",
	    "task memo keyed by tgid", "%s%s", kptr ? "a per-CPU map with a kptr accepted" : "per-CPU kptr map refused",
	    ov->no_kptr ? " (SCRY_NO_KPTR set)" : "");
	{
		struct scry_feature_report tmp;
		bool thunk = scry_feature_ret_thunk(tmp.why, sizeof(tmp.why));

		ADD("ret_thunk", thunk, "system-wide, current from the per-CPU memo (a helper's return is thunked)",
		    "system-wide, current from bpf_get_current_task_btf() (cheaper than the memo's loads here)",
		    "%s", tmp.why);
	}
	bool exit_hook = kptr && scry_feature_tp_btf(vm, "sched_process_exit");
	ADD("memo_gen", exit_hook && !ov->no_kptr && !ov->no_memo_gen,
	    "a task memo hit proved by the exits' generation (no load through the task)",
	    "a task memo hit proved through the task (its stack and exit state)", "%s%s",
	    exit_hook ? "btf_trace_sched_process_exit in kernel BTF and the memo's kptr" :
	    kptr ? "no btf_trace_sched_process_exit in kernel BTF" : "no task memo keyed by registers",
	    ov->no_memo_gen ? " (SCRY_NO_MEMO_GEN set)" : ov->no_kptr ? " (SCRY_NO_KPTR set)" : "");
	int strnstr = scry_feature_strnstr(vm);
	ADD("strnstr", strnstr && !ov->no_strnstr, "filter globs with a star inside run in the kernel",
	    "filter globs with a star inside run in user space", "%s%s",
	    strnstr ? "kfunc bpf_strnstr in kernel BTF" : "no kfunc bpf_strnstr (Linux 6.17)",
	    ov->no_strnstr ? " (SCRY_NO_STRNSTR set)" : "");
	bool pe = scry_feature_prepare_exec(vm);
	ADD("prepare_exec", pe && !ov->no_prepare_exec,
	    "a deferred execve entry read from the old image", "a deferred execve entry rebuilt from the new image",
	    "%s%s", pe ? "btf_trace_sched_prepare_exec in kernel BTF" : "no sched_prepare_exec (Linux 6.10)",
	    ov->no_prepare_exec ? " (SCRY_NO_PREPARE_EXEC set)" : "");
	ADD("btf_exit", scry_feature_btf_exit(vm), "sched_process_exit written from its BTF tracepoint",
	    "sched_process_exit through its tracefs tracepoint (its detach waits ~2 RCU grace periods)", "%s",
	    ov->no_btf_exit ? "SCRY_NO_BTF_EXIT set" :
	    "btf_trace_sched_process_exit and struct trace_event_raw_sched_process_exit in kernel BTF (Linux 6.16)");
	bool sched = (scry_feature_btf_tps(vm) & SCRY_BTF_TP_SCHED_MASK) == SCRY_BTF_TP_SCHED_MASK;
	ADD("btf_sched", sched && !ov->no_btf_sched,
	    "sched_switch, sched_wakeup{,_new}, sched_process_exec written from their BTF tracepoints",
	    "sched_switch, sched_wakeup{,_new}, sched_process_exec through tracefs (each detach waits for RCU)", "%s",
	    ov->no_btf_sched ? "SCRY_NO_BTF_SCHED set" :
	    sched ? "their BTF tracepoints and record structs in kernel BTF, sched_switch's prev_state argument" :
	    "a BTF tracepoint, record struct or sched_switch's prev_state argument (Linux 5.18) missing");
	ADD("ktime_tai", scry_feature_ktime_tai(), "create --clock tai available", "create --clock tai refused",
	    "%s", ov->no_ktime_tai ? "SCRY_NO_KTIME_TAI set" : "probed with libbpf_probe_bpf_helper (Linux 6.1)");
	ADD("bpf_iter", btf_has(vm, "bpf_iter__task", BTF_KIND_STRUCT), "available (for a statedump; not used yet)", "not available: no statedump",
	    "bpf_iter__task in kernel BTF");
	bool um = scry_feature_uprobe_multi(vm);
	ADD("uprobe_multi", um && !ov->no_uprobe_multi,
	    "one uprobe_multi link for the functions a glob names in one file",
	    "one link per function (uprobe: globs)", "%s%s",
	    um ? "bpf_uprobe_multi_link in kernel BTF" : "no bpf_uprobe_multi_link (Linux 6.6)",
	    ov->no_uprobe_multi ? " (SCRY_NO_UPROBE_MULTI set)" : "");
	{
		struct scry_feature_report tmp = { 0 };
		bool ok = scry_feature_kprobes(tmp.why, sizeof(tmp.why));

		ADD("kprobes", ok, "available (for kprobe: events; not used yet)", "kprobe: events are refused for this reason", "%s", tmp.why);
		ok = scry_feature_fentry(vm, tmp.why, sizeof(tmp.why));
		ADD("fentry", ok, "available (for fentry: events; not used yet)", "fentry: events are refused for this reason", "%s", tmp.why);
		ok = perf_sampling(tmp.why, sizeof(tmp.why));
		ADD("perf_events", ok, "available (for sampling and counters; not used yet)", "not available", "%s", tmp.why);
		ok = bpf_stats_on(tmp.why, sizeof(tmp.why));
		ADD("bpf_stats", ok, "program run counts and times available", "off (sysctl kernel.bpf_stats_enabled=1)",
		    "%s", tmp.why);
	}
#undef ADD
	scry_features_release();
	return k;
}
