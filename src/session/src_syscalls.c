/* src_syscalls.c — the syscall source: "syscall:GLOB" enables the entry and exit events of
 * the syscalls GLOB matches (by number: one descriptor per syscall number, read by the
 * sys_enter/sys_exit programs of src/bpf/syscalls.bpf.h), "syscall:*" also the
 * unknown-syscall built-ins; disabling clears a descriptor at once; the descriptor table
 * carries what each syscall's events read (strings, deferred entries, execve, the filter's
 * verdict) and, in a counting channel, only that it is counted.  A syscall enabled for
 * per-process sets only (pid_sets.c) is off for the others: its descriptor says
 * SCRY_SC_PIDSET while some set selects it. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/probes.h"
#include "session/filters.h"
#include "session/session_int.h"
#include "session/source.h"

static bool claims(const char *spec)
{
	return !strncmp(spec, "syscall:", 8) || !strncmp(spec, "syscalls:", 9);
}

static int enable_syscall(struct scry_channel *c, const struct scry_syscall *sc)
{
	int id;

	if (sc->nr < 0 || sc->nr >= SCRY_MAX_SYSCALLS)
		return 0;
	if (c->sc_entry[sc->nr] != NO_EVENT) {
		channel_mark(c, c->sc_entry[sc->nr]);
		channel_mark(c, c->sc_exit[sc->nr]);
		if (c->sc_off[sc->nr] && !c->enabling_pid) {   /* disabled, or per-process only: on */
			c->sc_off[sc->nr] = false;
			c->changes++;
		}
		return 0;
	}
	id = channel_add_event(c, scry_catalog_syscall_entry(c->s->cat, sc));
	if (id < 0)
		return id;
	c->sc_entry[sc->nr] = id;
	id = channel_add_event(c, scry_catalog_syscall_exit(c->s->cat, sc));
	if (id < 0)
		return id;
	c->sc_exit[sc->nr] = id;
	c->sc_off[sc->nr] = c->enabling_pid;     /* per-process sets': off for the others */
	c->any_syscall = true;
	return 0;
}

static int enable_unknown_syscalls(struct scry_channel *c)
{
	int id;

	if (c->unknown_entry != NO_EVENT) {
		channel_mark(c, c->unknown_entry);
		channel_mark(c, c->unknown_exit);
		return 0;
	}
	id = channel_add_event(c, scry_catalog_builtin(c->s->cat, "syscall_entry_unknown"));
	if (id < 0)
		return id;
	c->unknown_entry = id;
	id = channel_add_event(c, scry_catalog_builtin(c->s->cat, "syscall_exit_unknown"));
	if (id < 0)
		return id;
	c->unknown_exit = id;
	c->any_syscall = true;
	return 0;
}

static int enable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	const char *glob = strchr(spec, ':') + 1;
	const struct scry_syscall *scs;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs);
	int ret;

	for (size_t i = 0; i < n; i++) {
		if (fnmatch(glob, scs[i].name, 0))
			continue;
		if ((ret = enable_syscall(c, &scs[i])) < 0)
			return ret;
		(*matched)++;
	}
	if (!c->enabling_pid && (!strcmp(glob, "*") || !fnmatch(glob, "unknown", 0))) {
		if ((ret = enable_unknown_syscalls(c)) < 0)
			return ret;
		(*matched)++;
	}
	return 0;
}

static int disable(struct scry_channel *c, const char *spec, size_t *matched, char *err, size_t errlen)
{
	const char *glob = strchr(spec, ':') + 1;
	const struct scry_syscall *scs;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs);

	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS && c->sc_entry[scs[i].nr] != NO_EVENT &&
		    !c->sc_off[scs[i].nr] && !fnmatch(glob, scs[i].name, 0)) {
			c->sc_off[scs[i].nr] = true;
			(*matched)++;
		}
	return 0;
}

/* A syscall descriptor's flags once the filter is known: an event the filter can never
 * accept is not recorded (one it may accept passes the syscall's filter front first). */
static uint16_t filtered_flags(const struct scry_channel *c, uint16_t flags, uint16_t id, uint16_t rec)
{
	if (c->filters && scry_filters_use(c->filters, id) == SCRY_FILTER_NEVER)
		return flags & ~rec;
	return flags;
}

/* An entry's operations use only the kinds its BPF program verifies (scry_abi.h): a
 * catalog that breaks this is refused rather than written wrong. */
static int check_kinds(const struct scry_event *ev, uint32_t kinds, char *err, size_t errlen)
{
	for (size_t i = 0; i < ev->nops; i++)
		if (!(kinds & SCRY_SOP_BIT(ev->ops[i].kind))) {
			snprintf(err, errlen, "%s: an entry operation of kind %u, which scry's BPF programs do not "
				 "verify for entries", ev->name, ev->ops[i].kind);
			return -EINVAL;
		}
	return 0;
}

/* An exit whose operations write ret, then 64-bit arguments in their order (lttng-modules'
 * read: ret, buf): the fixed layout's argument mask, written without operations (the
 * ring's fast path); 0 when the exit needs its operations. */
static int exit_fixed_args(const struct scry_event *ev)
{
	int mask = 0, last = -1;

	if (!ev->nops || ev->ops[0].kind != SCRY_SOP_RET)
		return 0;
	for (size_t i = 1; i < ev->nops; i++) {
		const struct scry_sc_op *op = &ev->ops[i];

		if (op->kind != SCRY_SOP_INT || op->flags || (int)op->arg <= last || op->arg >= SCRY_MAX_ARGS)
			return 0;
		last = op->arg;
		mask |= 1 << op->arg;
	}
	return mask;
}

static int describe(struct scry_channel *c, char *err, size_t errlen)
{
	const struct scry_syscall *scs;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs);
	bool *known = calloc(SCRY_MAX_SYSCALLS, sizeof(bool));
	struct scry_sc_desc *table = calloc(SCRY_MAX_SYSCALLS, sizeof(*table));
	bool count = c->opts.kind == SCRY_CHANNEL_COUNT;
	int ret = 0;

	if (!known || !table) {
		free(known);
		free(table);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS)
			known[scs[i].nr] = true;
	for (unsigned nr = 0; nr < SCRY_MAX_SYSCALLS; nr++) {
		struct scry_sc_desc *dp = &table[nr], d = { .entry_id = NO_EVENT, .exit_id = NO_EVENT };
		int fixed;

		bool pid_only = c->sc_off[nr] && (c->psel.sc[nr / 64] >> (nr % 64) & 1);

		if (known[nr] && c->sc_entry[nr] != NO_EVENT && (!c->sc_off[nr] || pid_only)) {
			const struct scry_event *ev = c->events[c->sc_entry[nr]];
			d.entry_id = c->sc_entry[nr];
			d.exit_id = c->sc_exit[nr];
			d.flags = count ? SCRY_SC_COUNT : pid_only ? SCRY_SC_PIDSET : SCRY_SC_ENTRY | SCRY_SC_EXIT;
			d.nargs = ev->nargs;
			d.str_mask = ev->str_mask;
			d.s32_mask = ev->s32_mask;
			d.u32_mask = ev->u32_mask;
			if (scry_event_reads_strings(ev) && !count)
				d.flags |= SCRY_SC_DEFER;
			if (!strcmp(ev->tp, "execve") || !strcmp(ev->tp, "execveat"))
				d.flags |= SCRY_SC_EXEC;
			if (ev->nops && !count) {
				if ((ret = check_kinds(ev, d.flags & SCRY_SC_EXEC ? SCRY_SOP_EXEC_KINDS : SCRY_SOP_ENTRY_KINDS,
						       err, errlen)))
					break;
				d.flags |= SCRY_SC_ENTRY_OPS;
				d.n_entry_ops = ev->nops;
				memcpy(d.entry_ops, ev->ops, sizeof(d.entry_ops));
			}
			ev = c->events[c->sc_exit[nr]];
			if (ev->nops && !count && (fixed = exit_fixed_args(ev)) > 0) {
				d.exit_args = (__u8)fixed;   /* ret and integer arguments: no operations */
			} else if (ev->nops && !count) {
				d.flags |= SCRY_SC_EXIT_OPS;
				d.n_exit_ops = ev->nops;
				memcpy(d.exit_ops, ev->ops, sizeof(d.exit_ops));
			}
			d.flags = filtered_flags(c, d.flags, d.entry_id, SCRY_SC_ENTRY);
			d.flags = filtered_flags(c, d.flags, d.exit_id, SCRY_SC_EXIT);
		} else if (!known[nr] && c->unknown_entry != NO_EVENT) {
			d.entry_id = c->unknown_entry;
			d.exit_id = c->unknown_exit;
			d.flags = SCRY_SC_ENTRY | SCRY_SC_EXIT | SCRY_SC_UNKNOWN;
		}
		*dp = d;
	}
	if (!ret && (ret = scry_probes_set_syscalls(c->probes, table, SCRY_MAX_SYSCALLS)))
		snprintf(err, errlen, "cannot fill the syscall table: %s", strerror(-ret));
	free(known);
	free(table);
	return ret;
}

static int select_(struct scry_channel *c, const char *spec, struct pid_sel *sel)
{
	const char *glob = strchr(spec, ':') + 1;
	const struct scry_syscall *scs;
	size_t n = scry_catalog_syscalls(c->s->cat, &scs);

	for (size_t i = 0; i < n; i++)
		if (scs[i].nr >= 0 && scs[i].nr < SCRY_MAX_SYSCALLS && c->sc_entry[scs[i].nr] != NO_EVENT &&
		    !fnmatch(glob, scs[i].name, 0))
			sel->sc[scs[i].nr / 64] |= 1ULL << (scs[i].nr % 64);
	return 0;
}

static int names(struct scry_channel *c, char ***out, size_t *n)
{
	const struct scry_syscall *scs;
	size_t nsc = scry_catalog_syscalls(c->s->cat, &scs);
	char **v = calloc(nsc ? nsc : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nsc; i++)
		if (asprintf(&v[i], "syscall:%s", scs[i].name) < 0) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return -ENOMEM;
		}
	*out = v;
	*n = nsc;
	return 0;
}

const struct scry_source scry_source_syscalls = {
	.name = "syscalls",
	.claims = claims,
	.enable = enable,
	.disable = disable,
	.describe = describe,
	.select = select_,
	.names = names,
};
