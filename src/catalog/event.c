/* event.c — struct scry_event and how the catalog builds one (struct builder: a new event,
 * its fields appended one by one, freed), and the built-in events: syscall_*_unknown,
 * sched_process_fork, signal_deliver and signal_generate in lttng-modules' layout, the
 * lttng_statedump events (net_connection: event_net.c).  Tracepoints from their format: event_tp.c; syscall entry/exit
 * events: event_syscall.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/event.h"
#include "catalog/internal.h"
#include "catalog/statedump.h"

void scry_event_free(struct scry_event *ev)
{
	if (!ev)
		return;
	for (unsigned i = 0; i < ev->nfields; i++) {
		free(ev->fields[i].name);
		for (unsigned k = 0; k < ev->fields[i].nenums; k++)
			free(ev->fields[i].enums[k].name);
		free(ev->fields[i].enums);
	}
	free(ev->fields);
	free(ev->name);
	free(ev->system);
	free(ev->tp);
	free(ev->emf_uri);
	free(ev);
}

struct scry_event *scry_event_new(const char *name, const char *system, const char *tp,
				  enum scry_ekind kind, int nr)
{
	struct scry_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->kind = kind;
	ev->nr = nr;
	ev->name = strdup(name);
	ev->system = strdup(system);
	ev->tp = strdup(tp);
	if (!ev->name || !ev->system || !ev->tp) {
		scry_event_free(ev);
		return NULL;
	}
	return ev;
}

struct scry_field *scry_event_add(struct builder *b, const char *name, enum scry_ftype type, uint8_t size,
				  bool is_signed)
{
	struct scry_field *f;

	if (b->ev->nfields == b->cap) {
		unsigned ncap = b->cap ? b->cap * 2 : 8;
		struct scry_field *n = realloc(b->ev->fields, ncap * sizeof(*n));

		if (!n)
			return NULL;
		b->ev->fields = n;
		b->cap = ncap;
	}
	f = &b->ev->fields[b->ev->nfields];
	memset(f, 0, sizeof(*f));
	if (!(f->name = scry_ctf_ident(name)))
		return NULL;
	b->ev->nfields++;
	f->type = type;
	f->size = size;
	f->is_signed = is_signed;
	f->base = 10;
	f->length_field = -1;
	f->arg = -1;
	f->src = SCRY_SRC_NONE;
	return f;
}

struct scry_field *scry_event_add_text(struct builder *b, const char *name, uint32_t count)
{
	struct scry_field *f = scry_event_add(b, name, SCRY_F_TEXT, 1, false);

	if (f)
		f->count = count;
	return f;
}

struct scry_event *scry_event_builtin(const char *name)
{
	struct builder b = { 0 };
	struct scry_field *f;

	if (!strcmp(name, "syscall_entry_unknown")) {
		if (!(b.ev = scry_event_new(name, "raw_syscalls", "sys_enter", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!scry_event_add(&b, "id", SCRY_F_INT, 8, true) ||
		    !(f = scry_event_add(&b, "args", SCRY_F_ARRAY, 8, false)))
			goto fail;
		f->count = SCRY_MAX_ARGS;
		f->base = 16;
	} else if (!strcmp(name, "syscall_exit_unknown")) {
		if (!(b.ev = scry_event_new(name, "raw_syscalls", "sys_exit", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!scry_event_add(&b, "id", SCRY_F_INT, 8, true) || !scry_event_add(&b, "ret", SCRY_F_INT, 8, true))
			goto fail;
	} else if (!strcmp(name, "sched_process_fork")) {
		/* lttng-modules sched.h: ctf_array_text parent_comm, pid_t parent_tid, parent_pid,
		 * unsigned int parent_ns_inum, child_comm, child_tid,
		 * ctf_sequence(pid_t, vtids, ..., u8 length), child_pid, unsigned int child_ns_inum */
		if (!(b.ev = scry_event_new(name, "sched", "sched_process_fork", SCRY_EV_BUILTIN, -1)))
			return NULL;
		if (!scry_event_add_text(&b, "parent_comm", SCRY_COMM_LEN) ||
		    !scry_event_add(&b, "parent_tid", SCRY_F_INT, 4, true) ||
		    !scry_event_add(&b, "parent_pid", SCRY_F_INT, 4, true) ||
		    !scry_event_add(&b, "parent_ns_inum", SCRY_F_INT, 4, false) ||
		    !scry_event_add_text(&b, "child_comm", SCRY_COMM_LEN) ||
		    !scry_event_add(&b, "child_tid", SCRY_F_INT, 4, true) ||
		    !scry_event_add(&b, "_vtids_length", SCRY_F_INT, 1, false) ||
		    !(f = scry_event_add(&b, "vtids", SCRY_F_SEQ, 4, true)))
			goto fail;
		f->length_field = (int)b.ev->nfields - 2;
		if (!scry_event_add(&b, "child_pid", SCRY_F_INT, 4, true) ||
		    !scry_event_add(&b, "child_ns_inum", SCRY_F_INT, 4, false))
			goto fail;
	} else if (!strcmp(name, "signal_deliver") || !strcmp(name, "signal_generate")) {
		/* lttng-modules signal.h, deliver: int sig, errno, code; unsigned long sa_handler,
		 * sa_flags; generate: int sig, errno, code; ctf_array_text comm; pid_t pid; int
		 * group, result.  Then scry's: generate's target tgid, and for both the views of the
		 * siginfo union (src/bpf/signals.bpf.h): pid and uid (kill, queue, child), status,
		 * utime and stime (child), addr (fault), value (queue, timer) */
		static const struct { const char *name; uint8_t size; bool is_signed; uint8_t base; } head[] = {
			{ "sig", 4, true, 10 }, { "errno", 4, true, 10 }, { "code", 4, true, 10 },
		}, deliver[] = {
			{ "sa_handler", 8, false, 16 }, { "sa_flags", 8, false, 16 },
		}, generate[] = {
			{ "pid", 4, true, 10 }, { "group", 4, true, 10 }, { "result", 4, true, 10 },
			{ "tgid", 4, true, 10 },
		}, views[] = {
			{ "si_pid", 4, true, 10 }, { "si_uid", 4, false, 10 }, { "si_status", 4, true, 10 },
			{ "si_utime", 8, true, 10 }, { "si_stime", 8, true, 10 }, { "si_addr", 8, false, 16 },
			{ "si_value", 8, false, 16 },
		};
		bool gen = !strcmp(name, "signal_generate");
		const struct { const void *v; size_t n; } parts[] = {
			{ head, 3 }, { gen ? (const void *)generate : (const void *)deliver, gen ? 4 : 2 }, { views, 7 },
		};

		if (!(b.ev = scry_event_new(name, "signal", name, SCRY_EV_BUILTIN, -1)))
			return NULL;
		for (size_t k = 0; k < 3; k++)
			for (size_t i = 0; i < parts[k].n; i++) {
				const typeof(head[0]) *d = (const typeof(head[0]) *)parts[k].v + i;

				if (gen && k == 1 && i == 0 && !scry_event_add_text(&b, "comm", SCRY_COMM_LEN))
					goto fail;
				if (!(f = scry_event_add(&b, d->name, SCRY_F_INT, d->size, d->is_signed)))
					goto fail;
				f->base = d->base;
			}
	} else if (!strcmp(name, "profile_cpu_clock")) {
		/* a cpu-clock sample (src/bpf/samples.bpf.h): no payload, its stacks are the
		 * channel's callstack contexts */
		if (!(b.ev = scry_event_new(name, "profile", "cpu_clock", SCRY_EV_BUILTIN, -1)))
			return NULL;
	} else if (!strcmp(name, "net_connection")) {
		return scry_event_net_connection();     /* event_net.c */
	} else if (scry_sd_find(name) >= 0) {
		const struct scry_sd_spec *sp = &scry_sd_specs[scry_sd_find(name)];

		if (!(b.ev = scry_event_new(name, "lttng_statedump", name, SCRY_EV_BUILTIN, -1)))
			return NULL;
		for (unsigned i = 0; i < sp->nfields; i++) {
			if (!(f = scry_event_add(&b, sp->fields[i].name, sp->fields[i].type, sp->fields[i].size,
				      sp->fields[i].is_signed)))
				goto fail;
			f->base = sp->fields[i].base;
			f->count = sp->fields[i].count;
		}
	} else {
		return NULL;
	}
	return b.ev;
fail:
	scry_event_free(b.ev);
	return NULL;
}
