/* ctx_paths.c — context access paths from kernel BTF (see ctx_paths.h). */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <bpf/btf.h>
#include "catalog/catalog.h"
#include "kernel/ctx_paths.h"

/* Byte offset of member name in the struct or union id (anonymous members searched too);
 * *mtype its type.  -1 when absent. */
static long member_off(const struct btf *btf, __u32 id, const char *name, __u32 *mtype, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return -1;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 bit = btf_member_bit_offset(t, (__u32)i);

		if (bit % 8)
			continue;
		if (mn && *mn) {
			if (!strcmp(mn, name)) {
				*mtype = m->type;
				return bit / 8;
			}
			continue;
		}
		int sub = btf__resolve_type(btf, m->type);
		long o = sub > 0 ? member_off(btf, (__u32)sub, name, mtype, depth + 1) : -1;
		if (o >= 0)
			return bit / 8 + o;
	}
	return -1;
}

static int struct_id(const struct btf *btf, const char *name)
{
	return btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
}

/* Walk spec ("a.b->c.d") from struct root: every "->" is a pointer load.  Fills p's steps,
 * off, size (0 when over 8 bytes) and signedness; how = FGEN_CTXP_LOAD.  -1 when a member
 * is missing. */
static int walk(const struct btf *btf, const char *root, const char *spec, struct fgen_ctx_path *p)
{
	char buf[128], *save = NULL;
	int id = struct_id(btf, root);
	long off = 0;
	const char *s = spec;

	memset(p, 0, sizeof(*p));
	if (id <= 0 || strlen(spec) >= sizeof(buf))
		return -1;
	while (*s) {
		const char *arrow = strstr(s, "->");
		size_t len = arrow ? (size_t)(arrow - s) : strlen(s);

		memcpy(buf, s, len);
		buf[len] = 0;
		for (char *name = strtok_r(buf, ".", &save); name; name = strtok_r(NULL, ".", &save)) {
			__u32 mt = 0;
			long o = member_off(btf, (__u32)id, name, &mt, 0);
			if (o < 0)
				return -1;
			off += o;
			id = btf__resolve_type(btf, mt);
			if (id < 0)
				return -1;
		}
		if (!arrow) {
			const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
			long size = btf__resolve_size(btf, (__u32)id);
			if (off > UINT16_MAX)
				return -1;
			p->off = (uint16_t)off;
			p->size = size > 0 && size <= 8 ? (uint8_t)size : 0;   /* 0: not loadable */
			p->is_signed = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);
			p->how = FGEN_CTXP_LOAD;
			return 0;
		}
		const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
		if (!t || !btf_is_ptr(t) || p->nsteps >= FGEN_CTXP_MAX_STEPS || off > UINT16_MAX)
			return -1;
		p->step[p->nsteps++] = (uint16_t)off;
		id = btf__resolve_type(btf, t->type);
		if (id < 0)
			return -1;
		off = 0;
		s = arrow + 2;
	}
	return -1;
}

static long off_of(const struct btf *btf, const char *root, const char *spec)
{
	struct fgen_ctx_path p;
	return walk(btf, root, spec, &p) ? -1 : p.off;
}

int scry_ctx_layout(const struct btf *btf, struct scry_ctx_layout *out)
{
	static const struct { int ctx; const char *spec; int16_t adjust; uint8_t how; } paths[] = {
		{ SCRY_CTX_PID, "tgid", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_TID, "pid", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_PPID, "real_parent->tgid", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_VPID, "group_leader->thread_pid", 0, FGEN_CTXP_PIDNR },
		{ SCRY_CTX_VTID, "thread_pid", 0, FGEN_CTXP_PIDNR },
		{ SCRY_CTX_CPU_ID, NULL, 0, FGEN_CTXP_CPU },
		{ SCRY_CTX_UID, "cred->uid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_GID, "cred->gid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_EUID, "cred->euid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_PRIO, "prio", -100, FGEN_CTXP_LOAD },
		{ SCRY_CTX_NICE, "static_prio", -120, FGEN_CTXP_LOAD },
		{ SCRY_CTX_CGROUP_NS, "nsproxy->cgroup_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_IPC_NS, "nsproxy->ipc_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_MNT_NS, "nsproxy->mnt_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_NET_NS, "nsproxy->net_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_PID_NS, "thread_pid", 0, FGEN_CTXP_PIDNS },
		{ SCRY_CTX_USER_NS, "cred->user_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_UTS_NS, "nsproxy->uts_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_EGID, "cred->egid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_SGID, "cred->sgid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_SUID, "cred->suid.val", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_TIME_NS, "nsproxy->time_ns->ns.inum", 0, FGEN_CTXP_LOAD },
		{ SCRY_CTX_CGROUP_ID, NULL, 0, FGEN_CTXP_CGROUP },
	};
	static const char *const regs[6] = { "di", "si", "dx", "r10", "r8", "r9" };
	long comm, level, numbers, nr, ns, inum, usize, ax;
	int upid;

	memset(out, 0, sizeof(*out));
	if (!btf || struct_id(btf, "task_struct") <= 0)
		return -1;
	comm = off_of(btf, "task_struct", "comm");
	level = off_of(btf, "pid", "level");
	numbers = off_of(btf, "pid", "numbers");
	nr = off_of(btf, "upid", "nr");
	ns = off_of(btf, "upid", "ns");
	inum = off_of(btf, "pid_namespace", "ns.inum");
	upid = struct_id(btf, "upid");
	usize = upid > 0 ? btf__resolve_size(btf, (__u32)upid) : -1;
	bool pid_ok = level >= 0 && numbers >= 0 && nr >= 0 && ns >= 0 && inum >= 0 && usize > 0;
	if (pid_ok)
		out->pid = (struct fgen_pid_layout){ (uint16_t)level, (uint16_t)numbers, (uint16_t)usize,
						     (uint16_t)nr, (uint16_t)ns, (uint16_t)inum };
	out->comm_off = comm >= 0 ? (uint16_t)comm : 0;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct fgen_ctx_path *p = &out->ctx[paths[i].ctx];

		if (paths[i].how == FGEN_CTXP_CPU || paths[i].how == FGEN_CTXP_CGROUP) {
			p->how = paths[i].how;
			continue;
		}
		if (walk(btf, "task_struct", paths[i].spec, p) || (paths[i].how == FGEN_CTXP_LOAD && !p->size)) {
			memset(p, 0, sizeof(*p));
			continue;
		}
		p->adjust = paths[i].adjust;
		if (paths[i].how != FGEN_CTXP_LOAD)
			p->how = pid_ok ? paths[i].how : FGEN_CTXP_NONE;
	}
	out->regs_ok = true;
	for (int i = 0; i < 6; i++) {
		long o = off_of(btf, "pt_regs", regs[i]);
		out->regs_ok &= o >= 0;
		out->regs_off[i] = (int16_t)(o >= 0 ? o : 0);
	}
	ax = off_of(btf, "pt_regs", "orig_ax");
	out->regs_ok &= ax >= 0;
	out->orig_ax_off = (int16_t)(ax >= 0 ? ax : 0);
	long stack = off_of(btf, "task_struct", "stack"), exit_state = off_of(btf, "task_struct", "exit_state");
	out->memo_ok = stack >= 0 && stack <= INT16_MAX && exit_state >= 0 && exit_state <= INT16_MAX;
	out->stack_off = (int16_t)(out->memo_ok ? stack : 0);
	out->exit_state_off = (int16_t)(out->memo_ok ? exit_state : 0);
	return 0;
}

static uint32_t read_u32_file(const char *path, uint32_t dflt)
{
	FILE *f = fopen(path, "r");
	unsigned v;

	if (!f)
		return dflt;
	if (fscanf(f, "%u", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* Offset of the per-CPU variable name in .data..percpu (BTF DATASEC), -1 when absent. */
static long percpu_off(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (__u32)id) : NULL;
	const struct btf_var_secinfo *v;

	if (!t)
		return -1;
	v = btf_var_secinfos(t);
	for (int i = 0; i < btf_vlen(t); i++, v++) {
		const struct btf_type *var = btf__type_by_id(btf, v->type);
		const char *n = var ? btf__name_by_offset(btf, var->name_off) : NULL;
		if (n && !strcmp(n, name))
			return (long)v->offset;
	}
	return -1;
}

static const struct { int ctx; const char *root, *spec, *lacks; } ctx_need[] = {
	{ SCRY_CTX_MIGRATABLE, "task_struct", "migration_disabled", NULL },
	{ SCRY_CTX_TIME_NS, "task_struct", "nsproxy->time_ns->ns.inum", "time namespaces (CONFIG_TIME_NS)" },
	{ SCRY_CTX_CGROUP_NS, "task_struct", "nsproxy->cgroup_ns->ns.inum", "cgroup namespaces (CONFIG_CGROUPS)" },
};

void scry_ctx_btf(const struct btf *btf, struct scry_ctx_btf *out)
{
	bool *has[] = { &out->migration_disabled, &out->time_ns, &out->cgroup_ns };
	struct fgen_ctx_path p;
	long pc, rq;

	memset(out, 0, sizeof(*out));
	if (!(out->has_btf = btf != NULL))
		return;
	for (size_t i = 0; i < sizeof(ctx_need) / sizeof(ctx_need[0]); i++)
		*has[i] = !walk(btf, ctx_need[i].root, ctx_need[i].spec, &p);
	/* preempt_count() is x86's per-CPU __preempt_count (before 6.2 and since 6.15; pcpu_hot
	 * in between).  Per-CPU data symbols are in kallsyms only with CONFIG_KALLSYMS_ALL, so
	 * the program finds it from this CPU's runqueue, which current's se.cfs_rq->rq points
	 * to: both are per-CPU variables, their distance is in BTF's .data..percpu. */
	pc = percpu_off(btf, "__preempt_count");
	rq = percpu_off(btf, "runqueues");
	out->preempt_ok = pc >= 0 && rq >= 0 && !walk(btf, "task_struct", "se.cfs_rq->rq", &p);
	out->preempt_delta = out->preempt_ok ? pc - rq : 0;
}

int scry_ctx_kernel(const struct scry_ctx_btf *kb, uint64_t mask, struct scry_ctx_kernel *out, char *err,
		    size_t errlen)
{
	const bool has[] = { kb->migration_disabled, kb->time_ns, kb->cgroup_ns };
	struct utsname u;
	unsigned maj = 0, min = 0;

	for (size_t i = 0; i < sizeof(ctx_need) / sizeof(ctx_need[0]); i++) {
		if ((mask & (1ULL << ctx_need[i].ctx)) && kb->has_btf && !has[i]) {
			snprintf(err, errlen, "context %s: this kernel has no %s", scry_context(ctx_need[i].ctx)->name,
				 ctx_need[i].lacks ? ctx_need[i].lacks : "task_struct.migration_disabled (Linux 6.13, CONFIG_SMP)");
			return -1;
		}
	}
	memset(out, 0, sizeof(*out));
	for (int c = SCRY_CTX_INTERRUPTIBLE; c <= SCRY_CTX_PREEMPTIBLE; c++) {
		if (!(mask & (1ULL << c)) || !kb->has_btf)
			continue;
		if (!kb->preempt_ok) {
			snprintf(err, errlen, "context %s: this kernel's BTF has no per-CPU __preempt_count and "
				 "runqueues, or no task_struct.se.cfs_rq (CONFIG_FAIR_GROUP_SCHED)", scry_context(c)->name);
			return -1;
		}
		out->preempt_delta = kb->preempt_delta;
	}
	/* x86 moved to the generic TIF bits in Linux 6.18: TIF_NEED_RESCHED 3 became 4 */
	out->tif_need_resched = 3;
	if (!uname(&u) && sscanf(u.release, "%u.%u", &maj, &min) == 2 && (maj > 6 || (maj == 6 && min >= 18)))
		out->tif_need_resched = 4;
	out->stack_max = read_u32_file("/proc/sys/kernel/perf_event_max_stack", 127);
	if (out->stack_max > SCRY_CALLSTACK_MAX)
		out->stack_max = SCRY_CALLSTACK_MAX;
	out->ovf_uid = read_u32_file("/proc/sys/kernel/overflowuid", 65534);
	out->ovf_gid = read_u32_file("/proc/sys/kernel/overflowgid", 65534);
	return 0;
}
