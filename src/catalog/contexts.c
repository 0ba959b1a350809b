/* contexts.c — the context table (-c): names, CTF types and sizes of the per-event
 * context fields, in enum scry_ctx order (docs/FORMAT.md, LTTng's names). */
#include <stdio.h>
#include <string.h>
#include "catalog/catalog.h"

#define I32(n)  { n, SCRY_F_INT, 4, true, 0 }
#define U32(n)  { n, SCRY_F_INT, 4, false, 0 }
/* perf counters: LTTng's names ("perf:cpu:cpu-cycles") and CTF fields ("perf_cpu_cpu_cycles");
 * perf_event_attr type 0 hardware, 1 software */
#define PERF(scope, n, f, t, cfg) { "perf:" scope ":" n, SCRY_F_INT, 8, false, 0, "perf_" scope "_" f, t, cfg }
#define PERF_ALL(scope) \
	PERF(scope, "cpu-cycles", "cpu_cycles", 0, 0), PERF(scope, "instructions", "instructions", 0, 1), \
	PERF(scope, "cache-references", "cache_references", 0, 2), PERF(scope, "cache-misses", "cache_misses", 0, 3), \
	PERF(scope, "branch-instructions", "branch_instructions", 0, 4), \
	PERF(scope, "branch-misses", "branch_misses", 0, 5), PERF(scope, "cpu-clock", "cpu_clock", 1, 0), \
	PERF(scope, "task-clock", "task_clock", 1, 1), PERF(scope, "page-fault", "page_fault", 1, 2), \
	PERF(scope, "context-switches", "context_switches", 1, 3), \
	PERF(scope, "cpu-migrations", "cpu_migrations", 1, 4), PERF(scope, "minor-faults", "minor_faults", 1, 5), \
	PERF(scope, "major-faults", "major_faults", 1, 6)
#define I8(n)   { n, SCRY_F_INT, 1, true, 0 }
#define U8(n)   { n, SCRY_F_INT, 1, false, 0 }

static const struct scry_context_desc contexts[SCRY_CTX_NR] = {
	[SCRY_CTX_PID] = I32("pid"),
	[SCRY_CTX_TID] = I32("tid"),
	[SCRY_CTX_PPID] = I32("ppid"),
	[SCRY_CTX_VPID] = I32("vpid"),
	[SCRY_CTX_VTID] = I32("vtid"),
	[SCRY_CTX_PROCNAME] = { "procname", SCRY_F_TEXT, 1, false, SCRY_COMM_LEN },
	[SCRY_CTX_CPU_ID] = I32("cpu_id"),
	[SCRY_CTX_UID] = U32("uid"),
	[SCRY_CTX_GID] = U32("gid"),
	[SCRY_CTX_EUID] = U32("euid"),
	[SCRY_CTX_PRIO] = I32("prio"),
	[SCRY_CTX_NICE] = I32("nice"),
	[SCRY_CTX_CGROUP_NS] = U32("cgroup_ns"),
	[SCRY_CTX_IPC_NS] = U32("ipc_ns"),
	[SCRY_CTX_MNT_NS] = U32("mnt_ns"),
	[SCRY_CTX_NET_NS] = U32("net_ns"),
	[SCRY_CTX_PID_NS] = U32("pid_ns"),
	[SCRY_CTX_USER_NS] = U32("user_ns"),
	[SCRY_CTX_UTS_NS] = U32("uts_ns"),
	[SCRY_CTX_VPPID] = I32("vppid"),
	[SCRY_CTX_HOSTNAME] = { "hostname", SCRY_F_TEXT, 1, false, SCRY_HOSTNAME_LEN },
	[SCRY_CTX_INTERRUPTIBLE] = I8("interruptible"),
	[SCRY_CTX_PREEMPTIBLE] = U8("preemptible"),
	[SCRY_CTX_NEED_RESCHEDULE] = U8("need_reschedule"),
	[SCRY_CTX_MIGRATABLE] = U8("migratable"),
	[SCRY_CTX_EGID] = U32("egid"),
	[SCRY_CTX_SGID] = U32("sgid"),
	[SCRY_CTX_SUID] = U32("suid"),
	[SCRY_CTX_VUID] = U32("vuid"),
	[SCRY_CTX_VEUID] = U32("veuid"),
	[SCRY_CTX_VSUID] = U32("vsuid"),
	[SCRY_CTX_VGID] = U32("vgid"),
	[SCRY_CTX_VEGID] = U32("vegid"),
	[SCRY_CTX_VSGID] = U32("vsgid"),
	[SCRY_CTX_TIME_NS] = U32("time_ns"),
	[SCRY_CTX_CGROUP_ID] = { "cgroup_id", SCRY_F_INT, 8, false, 0 },
	[SCRY_CTX_PERF_CPU] = PERF_ALL("cpu"),
	[SCRY_CTX_PERF_THREAD] = PERF_ALL("thread"),
	[SCRY_CTX_CALLSTACK_KERNEL] = { "callstack_kernel", SCRY_F_SEQ, 8, false, SCRY_CALLSTACK_SLOTS },
	[SCRY_CTX_CALLSTACK_USER] = { "callstack_user", SCRY_F_SEQ, 8, false, SCRY_CALLSTACK_SLOTS },
};

const struct scry_context_desc *scry_context(enum scry_ctx c)
{
	if ((unsigned)c >= SCRY_CTX_NR)
		return NULL;
	return &contexts[c];
}

int scry_context_by_name(const char *name)
{
	if (!name)
		return -1;
	if (name[0] == '_')   /* accept LTTng's CTF spelling "_pid" too */
		name++;
	for (int i = 0; i < SCRY_CTX_NR; i++)
		if (!strcmp(contexts[i].name, name))
			return i;
	for (int i = 0; i < SCRY_CTX_NR; i++)
		if (contexts[i].ctf && !strcmp(contexts[i].ctf, name))
			return i;
	/* lttng add-context's other names of perf counters */
	static const struct { const char *alias, *name; } perf_alias[] = {
		{ "cycles", "cpu-cycles" }, { "branches", "branch-instructions" }, { "faults", "page-fault" },
		{ "cs", "context-switches" }, { "migrations", "cpu-migrations" },
	};
	for (int scope = 0; scope < 2; scope++) {
		const char *pfx = scope ? "perf:thread:" : "perf:cpu:";
		size_t pl = strlen(pfx);

		if (strncmp(name, pfx, pl))
			continue;
		for (size_t k = 0; k < sizeof(perf_alias) / sizeof(perf_alias[0]); k++)
			if (!strcmp(name + pl, perf_alias[k].alias))
				for (int i = 0; i < SCRY_PERF_NR; i++) {
					int c = (scope ? SCRY_CTX_PERF_THREAD : SCRY_CTX_PERF_CPU) + i;
					if (!strcmp(contexts[c].name + pl, perf_alias[k].name))
						return c;
				}
	}
	if (!strcmp(name, "container"))   /* -c container: the cgroup id, which scry view names */
		return SCRY_CTX_CGROUP_ID;
	if (!strcmp(name, "callstack-kernel"))   /* lttng add-context's spelling */
		return SCRY_CTX_CALLSTACK_KERNEL;
	if (!strcmp(name, "callstack-user"))
		return SCRY_CTX_CALLSTACK_USER;
	return -1;
}

size_t scry_context_unknown(const char *name, char *err, size_t errlen)
{
	const char *all[SCRY_CTX_NR], *best[1];
	size_t nb;

	for (int i = 0; i < SCRY_CTX_NR; i++)
		all[i] = contexts[i].name;
	nb = scry_closest(name, all, SCRY_CTX_NR, best, 1);
	if (nb)
		return (size_t)snprintf(err, errlen, "unknown context '%s' (did you mean '%s'? `scry list contexts` "
					"shows them)", name, best[0]);
	return (size_t)snprintf(err, errlen, "unknown context '%s' (`scry list contexts` shows them)", name);
}

size_t scry_context_size(uint64_t mask)
{
	size_t total = 0;

	for (int i = 0; i < SCRY_CTX_NR; i++) {
		if (!(mask & (1ull << i)))
			continue;
		if (contexts[i].type == SCRY_F_SEQ)   /* in a record: its word, the frames at the end */
			total += 4;
		else
			total += contexts[i].type == SCRY_F_TEXT ? contexts[i].size * contexts[i].count
								 : contexts[i].size;
	}
	return total;
}
