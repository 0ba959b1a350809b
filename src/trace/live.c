/* live.c — see live.h.  Events arrive per CPU in time order; they are copied into a
 * pending list, and each pump sorts it and hands over those older than the horizon (the
 * caller picks a horizon no CPU can still produce an event before).  The bytes of the
 * events handed over stay where they are until the buffer is full: then the pending ones
 * are moved to the front of a second buffer of the same size (each byte moved about once,
 * not at every pump it waits through). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "catalog/record.h"
#include "catalog/symbolize.h"
#include "catalog/unwind.h"
#include "session/session.h"
#include "trace/live.h"
#include "trace/ustacks.h"
#include "util/clock.h"

#define MAX_FIELDS 64
#define TRACE_SIGNAL_IGNORED 1 /* include/trace/events/signal.h: signal_generate's result */
#define EXIT_SLOTS 4096        /* pid -> exit code seen in exit/exit_group, or fatal signal */
#define USTACK_GRACE_NS (50 * 1000 * 1000ULL)   /* a copy waits this long past the horizon for
						 * its event (one late from a stage) */

/* What a syscall is, to the merger (by number: no name compared per event). */
#define NR_EXIT 1                  /* exit or exit_group */
#define NR_EXIT_GROUP 2
#define NR_FORKS 4                 /* clone, clone3, fork, vfork */
#define NR_EXECVE 8                /* execve (the -- command's gate) */
#define NR_EXEC 16                 /* execve or execveat */
/* What fields an event has, to skip the walks over its fields that find nothing. */
#define EVF_SK 1                   /* sk_* (fill_sock "sk") */
#define EVF_RSK 2                  /* rsk_* */
#define EVF_FILE 4                 /* fd_*, fd0_*, fd1_* (fill_file) */

struct pending {
	uint64_t ts;
	uint64_t seq;
	size_t off;                /* in bytes */
	uint32_t len;
};

struct exit_slot {
	int pid;
	int status;                /* wait(2) status to report */
};

/* The fields of a signal event: sig, errno, code; the siginfo union's views (the builtins
 * of src/bpf/signals.bpf.h: addr, value, utime, stime), or -1; deliver's sa_handler;
 * generate's result and target (pid, tgid). */
struct sig_event {
	int id;
	int f[3];
	int views[4];
	int handler, result, tid, tgid;
};

struct trace_live {
	struct trace_live_ops ops;
	const struct scry_event *const *events;
	size_t nevents;
	struct scry_record_layout layout;    /* the session's contexts (pid and tid among them) */
	bool ids32;                          /* pid and tid are signed 32-bit ints (read in place) */
	const struct scry_syscall **by_nr;   /* SCRY_MAX_SYSCALLS */
	const char **user_name;              /* by_nr's names as strace has them */
	uint8_t *nr_flags;                   /* NR_* of by_nr's calls */
	uint8_t *ev_flags;                   /* EVF_* of events[] (what fill_* would find) */
	uint8_t *ev_args;                    /* the arguments (bits) events[]' fields fill */
	struct trace_call call;              /* dispatch's, zeroed as it needs (call_reset) */
	uint8_t dirty_in, dirty_out;         /* call's arguments written since */
	bool ext_dirty;                      /* call's file[] and sock[] written since */
	struct sig_event deliver, generate;  /* signal:signal_deliver, signal:signal_generate */
	int pexit_id;
	int group_dead_f;
	int fork_id, fork_f[3];              /* sched_process_fork: parent_pid, child_pid, child_tid */
	int64_t realtime_off;                /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	struct pending *pend;
	size_t npend, cappend;
	struct pending *sorted;              /* sort_pending's second array */
	size_t capsort;
	uint8_t *bytes;
	size_t nbytes, capbytes;
	size_t live_bytes;                   /* of bytes, those of the pending events */
	uint8_t *spare;                      /* bytes_room's other buffer (capbytes), or NULL */
	uint64_t seq;
	uint64_t malformed;
	uint64_t oom;                        /* events not kept: out of memory */
	int gate_pid;                        /* events of this pid are skipped until its execve */
	struct exit_slot exits[EXIT_SLOTS];
	struct scry_fieldval vals[MAX_FIELDS];
	struct scry_syms *syms;              /* -k: user stacks' mappings (read when met) */
	struct trace_ustacks *ustacks;       /* -k: the exits' stack copies (NULL: frame pointers) */
	bool ustacks_tried;                  /* ... looked for once the session is loaded */
	uint64_t ips[SCRY_UNWIND_MAX_DEPTH]; /* -k: the frames of the exit being handed over */
	struct scry_session *session;        /* exit statuses (scry_session_exit_code) */
	char comm[17];                       /* -Y: the event's procname context */
};

/* -k: the mappings of a record's user stack, read while the process lives (at the sink). */
static void stack_capture(struct trace_live *l, const uint8_t *ev, size_t size)
{
	struct scry_record r;
	const uint64_t *a;
	int64_t pid;
	uint32_t n;

	if (scry_record_read(&l->layout, ev, size, &r) || !scry_record_ctx(&l->layout, &r, SCRY_CTX_PID, &pid) ||
	    !(a = scry_record_callstack(&l->layout, &r, SCRY_CTX_CALLSTACK_USER, &n)))
		return;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t addr;
		struct scry_sym_info info;

		memcpy(&addr, a + i, 8);
		if (addr == UINT64_MAX)
			break;
		/* /proc is read for the innermost frame only: the frame-pointer walk's deeper
		 * values are often no addresses at all (code without frame pointers), and a read
		 * for each of them, event after event, held the consumer back until the ring
		 * overflowed (-k -f on a shell loop: 6,576 events lost) */
		if (i > 0 ? !scry_syms_user_info(l->syms, (int)pid, addr - 1, false, &info)
			  : scry_syms_capture(l->syms, (int)pid, addr, NULL) < 0)
			break;
	}
}

struct trace_live *trace_live_new(const struct trace_live_ops *ops)
{
	struct trace_live *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->ops = *ops;
	l->deliver.id = l->generate.id = l->pexit_id = l->fork_id = -1;
	l->by_nr = calloc(SCRY_MAX_SYSCALLS, sizeof(*l->by_nr));
	l->user_name = calloc(SCRY_MAX_SYSCALLS, sizeof(*l->user_name));
	l->nr_flags = calloc(SCRY_MAX_SYSCALLS, sizeof(*l->nr_flags));
	if (!l->by_nr || !l->user_name || !l->nr_flags) {
		free(l->by_nr);
		free(l->user_name);
		free(l->nr_flags);
		free(l);
		return NULL;
	}
	return l;
}

void trace_live_free(struct trace_live *l)
{
	if (!l)
		return;
	free(l->by_nr);
	free(l->user_name);
	free(l->nr_flags);
	free(l->ev_flags);
	free(l->ev_args);
	free(l->pend);
	free(l->sorted);
	free(l->bytes);
	free(l->spare);
	trace_ustacks_free(l->ustacks);
	scry_syms_free(l->syms);
	free(l);
}

static int field_index(const struct scry_event *ev, const char *name)
{
	for (unsigned i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return (int)i;
	return -1;
}

int trace_live_bind(struct trace_live *l, struct scry_session *s, char *err, size_t errlen)
{
	return trace_live_bind_channel(l, s, 0, err, errlen);
}

int trace_live_bind_channel(struct trace_live *l, struct scry_session *s, unsigned chan, char *err, size_t errlen)
{
	struct scry_catalog *cat = scry_session_catalog(s);
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(cat, &list);

	l->session = s;
	scry_record_layout_init(&l->layout, scry_session_ctx_mask(s, chan));
	if (l->layout.ctx_off[SCRY_CTX_PID] < 0 || l->layout.ctx_off[SCRY_CTX_TID] < 0) {
		snprintf(err, errlen, "live output needs the pid and tid contexts");
		return -EINVAL;
	}
	{
		const struct scry_context_desc *p = scry_context(SCRY_CTX_PID), *t = scry_context(SCRY_CTX_TID);

		l->ids32 = p->type == SCRY_F_INT && p->size == 4 && p->is_signed && t->type == SCRY_F_INT &&
			   t->size == 4 && t->is_signed;
	}
	for (size_t i = 0; i < n; i++)
		if (list[i].nr >= 0 && list[i].nr < SCRY_MAX_SYSCALLS) {
			const char *name = list[i].name;
			int nr = list[i].nr;

			l->by_nr[nr] = &list[i];
			l->user_name[nr] = scry_syscall_user_name(name);
			l->nr_flags[nr] = (!strcmp(name, "exit") ? NR_EXIT : 0) |
					  (!strcmp(name, "exit_group") ? NR_EXIT | NR_EXIT_GROUP : 0) |
					  (!strcmp(name, "clone") || !strcmp(name, "clone3") || !strcmp(name, "fork") ||
					   !strcmp(name, "vfork") ? NR_FORKS : 0) |
					  (!strcmp(name, "execve") ? NR_EXECVE | NR_EXEC : 0) |
					  (!strcmp(name, "execveat") ? NR_EXEC : 0);
		}
	l->nevents = scry_session_events(s, chan, &l->events);
	free(l->ev_flags);
	free(l->ev_args);
	l->ev_args = calloc(l->nevents ? l->nevents : 1, 1);
	if (!(l->ev_flags = calloc(l->nevents ? l->nevents : 1, 1)) || !l->ev_args) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->nevents; i++)
		for (unsigned k = 0; k < l->events[i]->nfields; k++) {
			const char *f = l->events[i]->fields[k].name;

			int arg = l->events[i]->fields[k].arg;

			if (arg >= 0 && arg < SCRY_MAX_ARGS)
				l->ev_args[i] |= (uint8_t)(1u << arg);
			l->ev_flags[i] |= (!strncmp(f, "sk_", 3) ? EVF_SK : 0) | (!strncmp(f, "rsk_", 4) ? EVF_RSK : 0) |
					  (!strncmp(f, "fd_", 3) || !strncmp(f, "fd0_", 4) || !strncmp(f, "fd1_", 4) ?
					   EVF_FILE : 0);
		}
	if (l->ops.stack_names && !l->syms &&
	    !(l->syms = scry_syms_new())) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->nevents; i++) {
		const struct scry_event *ev = l->events[i];

		if (ev->kind != SCRY_EV_TRACEPOINT && ev->kind != SCRY_EV_BUILTIN)
			continue;
		if (!strcmp(ev->system, "signal") &&
		    (!strcmp(ev->tp, "signal_deliver") || !strcmp(ev->tp, "signal_generate"))) {
			bool gen = !strcmp(ev->tp, "signal_generate");
			struct sig_event *se = gen ? &l->generate : &l->deliver;
			static const char *const views[4] = { "si_addr", "si_value", "si_utime", "si_stime" };

			se->id = (int)i;
			se->f[0] = field_index(ev, "sig");
			se->f[1] = field_index(ev, "errno");
			se->f[2] = field_index(ev, "code");
			for (int k = 0; k < 4; k++)
				se->views[k] = field_index(ev, views[k]);
			se->handler = field_index(ev, "sa_handler");
			se->result = field_index(ev, "result");
			se->tid = field_index(ev, "pid");
			se->tgid = field_index(ev, "tgid");
			if (se->f[0] < 0 || se->f[1] < 0 || se->f[2] < 0 || (!gen && se->handler < 0) ||
			    (gen && (se->result < 0 || se->tid < 0))) {
				snprintf(err, errlen, "signal:%s lacks the fields scry trace reads", ev->tp);
				return -EINVAL;
			}
		} else if (!strcmp(ev->system, "sched") && !strcmp(ev->tp, "sched_process_fork")) {
			static const char *const names[3] = { "parent_pid", "child_pid", "child_tid" };

			for (int k = 0; k < 3; k++)
				if ((l->fork_f[k] = field_index(ev, names[k])) < 0) {
					snprintf(err, errlen, "sched:sched_process_fork lacks %s", names[k]);
					return -EINVAL;
				}
			l->fork_id = (int)i;
		} else if (!strcmp(ev->system, "sched") && !strcmp(ev->tp, "sched_process_exit")) {
			l->pexit_id = (int)i;
			l->group_dead_f = field_index(ev, "group_dead");
		}
	}
	{
		int64_t sec;
		uint64_t nsec;

		scry_clock_offset(&sec, &nsec);
		l->realtime_off = sec * 1000000000LL + (int64_t)nsec;
	}
	return 0;
}

/* The first 48 bytes of a siginfo_t from a signal event just decoded into l->vals. */
static void sig_info(const struct trace_live *l, const struct sig_event *se, uint8_t si[48])
{
	static const int at[4] = { 16, 24, 32, 40 };   /* addr, value, utime, stime in siginfo_t */
	int32_t w[3];

	memset(si, 0, 48);
	for (int k = 0; k < 3; k++)
		w[k] = (int32_t)l->vals[se->f[k]].v;
	memcpy(si, w, sizeof(w));                           /* signo, errno, code */
	for (int k = 0; k < 4; k++)                         /* the union, 8 bytes at a time */
		if (se->views[k] >= 0)
			memcpy(si + at[k], &l->vals[se->views[k]].v, 8);
}

/* Room for need more bytes: the pending events' bytes moved to the front of the spare
 * buffer when they fill at most half of it, else into a larger one.  False when out of
 * memory (nothing moved). */
static bool bytes_room(struct trace_live *l, size_t need)
{
	size_t ncap = l->capbytes ? l->capbytes : 1 << 20;
	uint8_t *nb;

	if (l->nbytes + need <= l->capbytes)
		return true;
	while (ncap < 2 * (l->live_bytes + need))
		ncap *= 2;
	if (ncap == l->capbytes && l->spare) {
		nb = l->spare;
	} else {
		if (!(nb = malloc(ncap)))
			return false;
		free(l->spare);
		l->spare = NULL;
	}
	l->nbytes = 0;
	for (size_t i = 0; i < l->npend; i++) {
		memcpy(nb + l->nbytes, l->bytes + l->pend[i].off, l->pend[i].len);
		l->pend[i].off = l->nbytes;
		l->nbytes += l->pend[i].len;
	}
	if (ncap == l->capbytes)
		l->spare = l->bytes;          /* same size: the two buffers swap */
	else
		free(l->bytes);
	l->bytes = nb;
	l->capbytes = ncap;
	return true;
}

void trace_live_sink(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	struct trace_live *l = ctx;
	struct pending *p;

	if (size < l->layout.payload_off)
		return;
	if (l->syms && l->layout.ctx_off[SCRY_CTX_CALLSTACK_USER] >= 0)
		stack_capture(l, ev, size);
	if (l->ustacks && l->seq % 256 == 255)   /* the copies' ring kept empty during a long poll */
		trace_ustacks_drain(l->ustacks);
	if (l->npend == l->cappend) {
		size_t ncap = l->cappend ? l->cappend * 2 : 4096;
		struct pending *np = realloc(l->pend, ncap * sizeof(*np));

		if (!np) {
			l->oom++;
			return;
		}
		l->pend = np;
		l->cappend = ncap;
	}
	if (!bytes_room(l, size)) {
		l->oom++;
		return;
	}
	p = &l->pend[l->npend++];
	memcpy(&p->ts, ev + 2, 8);
	p->seq = l->seq++;
	p->off = l->nbytes;
	p->len = (uint32_t)size;
	memcpy(l->bytes + l->nbytes, ev, size);
	l->nbytes += size;
	l->live_bytes += size;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline bool before(const struct pending *x, const struct pending *y)
{
	return x->ts != y->ts ? x->ts < y->ts : x->seq < y->seq;
}

/* The pending list in time order.  It is made of runs already in order (what one CPU's
 * ring gave in one read, and what the last pump kept): adjacent runs are merged, pass
 * after pass, through a second array (qsort's comparator calls were a tenth of the
 * printing).  False when out of memory (the list is left as it was). */
static bool sort_pending(struct trace_live *l)
{
	struct pending *a = l->pend, *b;
	size_t n = l->npend;
	size_t *runs, nruns = 0;

	for (size_t i = 1; i < n; i++)
		if (before(&a[i], &a[i - 1]))
			nruns++;
	if (!nruns)
		return true;
	if (l->capsort < n) {
		struct pending *ns = realloc(l->sorted, l->cappend * sizeof(*ns));

		if (!ns)
			return false;
		l->sorted = ns;
		l->capsort = l->cappend;
	}
	if (!(runs = malloc((nruns + 2) * sizeof(*runs))))
		return false;
	nruns = 0;
	runs[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (before(&a[i], &a[i - 1]))
			runs[nruns++] = i;
	runs[nruns] = n;
	b = l->sorted;
	while (nruns > 1) {
		size_t out = 0;

		for (size_t r = 0; r < nruns; r += 2) {
			/* runs r and r + 1; an odd run out (r + 1 == nruns) is copied as it is */
			size_t i = runs[r], mid = runs[r + 1], end = r + 2 <= nruns ? runs[r + 2] : mid;
			size_t j = mid, k = i;

			while (i < mid && j < end)
				b[k++] = before(&a[j], &a[i]) ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < end)
				b[k++] = a[j++];
			runs[out++] = runs[r];
		}
		runs[out] = n;
		nruns = out;
		{
			struct pending *t = a;

			a = b;
			b = t;
		}
	}
	free(runs);
	if (a != l->pend) {   /* the sorted list is the other array: swap the two */
		l->sorted = l->pend;
		l->pend = a;
		{
			size_t c = l->capsort;

			l->capsort = l->cappend;
			l->cappend = c;
		}
	}
	return true;
}

static struct exit_slot *exit_slot(struct trace_live *l, int pid)
{
	return &l->exits[(unsigned)pid % EXIT_SLOTS];
}

/* Fill c's argument values from a syscall event's decoded fields. */
static void fill_args(const struct scry_event *ev, const struct scry_fieldval *vals, struct scry_argval *out,
		      const struct scry_syscall *sc)
{
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *f = &ev->fields[i];
		struct scry_argval *a;

		if (f->arg < 0 || f->arg >= SCRY_MAX_ARGS)
			continue;
		a = &out[f->arg];
		switch (f->aux) {
		case SCRY_AUX_PTR:
			a->v = vals[i].v;
			a->have_ptr = true;
			continue;
		case SCRY_AUX_COUNT:
			a->count = (uint32_t)vals[i].v;
			a->have_count = true;
			continue;
		default:
			break;
		}
		a->have = true;
		a->p = vals[i].p;
		a->len = vals[i].len;
		a->n = vals[i].n;
		if (f->type == SCRY_F_INT) {
			a->v = vals[i].v;
			a->have_ptr = scry_akind_captures(sc->spec[f->arg].kind) ||
				      sc->spec[f->arg].kind == SCRY_A_STRV;
			if (sc->spec[f->arg].kind == SCRY_A_STRV) {   /* envp: the pointer, no string */
				a->p = NULL;
				a->len = 0;
			}
		}
	}
}

/* What a returned descriptor is (SCRY_SOP_FILE: fd_mode, fd_ino, fd_name), or the two of a
 * pipe (fd0_*, fd1_*), when recorded. */
static void fill_file(const struct scry_event *ev, const struct scry_fieldval *vals, struct trace_file *files)
{
	for (unsigned i = 0; i < ev->nfields; i++) {
		const char *n = ev->fields[i].name, *part;
		struct trace_file *out;

		if (!strncmp(n, "fd_", 3))
			out = &files[0];
		else if (!strncmp(n, "fd0_", 4) || !strncmp(n, "fd1_", 4))
			out = &files[n[2] - '0'];
		else
			continue;
		part = strchr(n, '_');
		if (!strcmp(part, "_mode")) {
			out->mode = (uint32_t)vals[i].v;
			out->have = true;
		} else if (!strcmp(part, "_ino")) {
			out->ino = vals[i].v;
		} else if (!strcmp(part, "_name") && vals[i].p) {
			size_t k = vals[i].len < sizeof(out->name) - 1 ? vals[i].len : sizeof(out->name) - 1;

			memcpy(out->name, vals[i].p, k);
			out->name[k] = '\0';
		}
	}
}

/* -yy: the struct scry_sock_rec of fields PREFIX_* (SCRY_SOP_SOCK), when recorded. */
static bool fill_sock(const struct scry_event *ev, const struct scry_fieldval *vals, const char *prefix,
		      struct scry_sock_rec *r)
{
	size_t n = strlen(prefix);
	bool any = false;

	memset(r, 0, sizeof(*r));
	for (unsigned i = 0; i < ev->nfields; i++) {
		const char *name = ev->fields[i].name, *k;

		if (strncmp(name, prefix, n) || name[n] != '_')
			continue;
		k = name + n + 1;
		any = true;
		if (!strcmp(k, "family")) r->family = (uint16_t)vals[i].v;
		else if (!strcmp(k, "type")) r->type = (uint16_t)vals[i].v;
		else if (!strcmp(k, "protocol")) r->protocol = (uint16_t)vals[i].v;
		else if (!strcmp(k, "state")) r->state = (uint8_t)vals[i].v;
		else if (!strcmp(k, "path_len")) r->path_len = (uint8_t)vals[i].v;
		else if (!strcmp(k, "lport")) r->lport = (uint16_t)vals[i].v;
		else if (!strcmp(k, "rport")) r->rport = (uint16_t)vals[i].v;
		else if (!strcmp(k, "ino")) r->ino = vals[i].v;
		else if (!strcmp(k, "peer_ino")) r->peer_ino = vals[i].v;
		else if (!strcmp(k, "laddr") && vals[i].len == 16) memcpy(r->laddr, vals[i].p, 16);
		else if (!strcmp(k, "raddr") && vals[i].len == 16) memcpy(r->raddr, vals[i].p, 16);
		else if (!strcmp(k, "path") && vals[i].len == SCRY_SOCK_PATH) memcpy(r->path, vals[i].p, SCRY_SOCK_PATH);
	}
	return any && r->family;
}

/* l->call as zeroed, rewriting only what the last event wrote: its arguments (dirty_in,
 * dirty_out), its files and sockets (ext_dirty), and the rest (a memset of the whole
 * 1,256 bytes per event was most of dispatch's own time). */
_Static_assert(offsetof(struct trace_call, out) == offsetof(struct trace_call, in) + sizeof(((struct trace_call *)0)->in),
	       "in, out adjacent");
_Static_assert(offsetof(struct trace_call, sock) == offsetof(struct trace_call, file) + sizeof(((struct trace_call *)0)->file),
	       "file, sock adjacent");
_Static_assert(offsetof(struct trace_call, file) > offsetof(struct trace_call, out), "in, out before file, sock");
static void call_reset(struct trace_live *l)
{
	struct trace_call *c = &l->call;
	uint8_t *base = (uint8_t *)c;
	size_t args_end = offsetof(struct trace_call, out) + sizeof(c->out);
	size_t ext = offsetof(struct trace_call, file), ext_end = offsetof(struct trace_call, sock) + sizeof(c->sock);

	memset(base, 0, offsetof(struct trace_call, in));
	for (unsigned m = l->dirty_in; m; m &= m - 1)
		memset(&c->in[__builtin_ctz(m)], 0, sizeof(c->in[0]));
	for (unsigned m = l->dirty_out; m; m &= m - 1)
		memset(&c->out[__builtin_ctz(m)], 0, sizeof(c->out[0]));
	l->dirty_in = l->dirty_out = 0;
	memset(base + args_end, 0, ext - args_end);
	if (l->ext_dirty)
		memset(base + ext, 0, ext_end - ext);
	l->ext_dirty = false;
	memset(base + ext_end, 0, sizeof(*c) - ext_end);
}

static void dispatch(struct trace_live *l, const uint8_t *b, uint32_t len)
{
	struct scry_record r;
	int64_t pid64, tid64;
	int32_t pid, tid;
	uint16_t id;
	uint64_t ts;
	const struct scry_event *ev;
	const struct scry_syscall *sc;
	struct trace_call *c = &l->call;
	int64_t rts;
	uint8_t nrf;

	if (scry_record_read(&l->layout, b, len, &r) < 0)
		goto bad;
	if (l->ids32) {   /* (scry_record_read checked the contexts are within len) */
		memcpy(&pid, b + l->layout.ctx_off[SCRY_CTX_PID], 4);
		memcpy(&tid, b + l->layout.ctx_off[SCRY_CTX_TID], 4);
	} else {
		if (!scry_record_ctx(&l->layout, &r, SCRY_CTX_PID, &pid64) ||
		    !scry_record_ctx(&l->layout, &r, SCRY_CTX_TID, &tid64))
			goto bad;
		pid = (int32_t)pid64;
		tid = (int32_t)tid64;
	}
	id = r.id;
	ts = r.ts;
	if (id >= l->nevents)
		goto bad;
	ev = l->events[id];
	if (ev->nfields > MAX_FIELDS || scry_event_decode(ev, r.payload, r.payload_size, l->vals) < 0)
		goto bad;
	rts = (int64_t)ts + l->realtime_off;
	if ((int)id == l->deliver.id) {
		int sig = (int)l->vals[l->deliver.f[0]].v;
		uint8_t si[48];

		if (l->vals[l->deliver.handler].v == 0 && sig > 0) {   /* default action: may be fatal */
			struct exit_slot *e = exit_slot(l, pid);
			e->pid = pid;
			e->status = sig & 0x7f;
		}
		if (l->ops.signal) {
			sig_info(l, &l->deliver, si);
			l->ops.signal(l->ops.ctx, pid, tid, rts, si);
		}
		return;
	}
	if ((int)id == l->generate.id) {
		uint8_t si[48];
		int ttid = (int)l->vals[l->generate.tid].v;
		int tpid = l->generate.tgid >= 0 ? (int)l->vals[l->generate.tgid].v : ttid;

		/* a signal the target ignores is never delivered (strace sees it, stopping there) */
		if ((int)l->vals[l->generate.result].v == TRACE_SIGNAL_IGNORED && l->ops.signal_ignored) {
			sig_info(l, &l->generate, si);
			l->ops.signal_ignored(l->ops.ctx, tpid, ttid, rts, si);
		}
		return;
	}
	if ((int)id == l->fork_id) {
		if (l->ops.task)
			l->ops.task(l->ops.ctx, (int)l->vals[l->fork_f[0]].v, (int)l->vals[l->fork_f[1]].v,
				    (int)l->vals[l->fork_f[2]].v);
		return;
	}
	if ((int)id == l->pexit_id) {
		struct exit_slot *e = exit_slot(l, pid);
		int status = e->pid == pid ? e->status : 0;

		if (l->group_dead_f >= 0 && !l->vals[l->group_dead_f].v)
			return;
		e->pid = 0;
		/* the kernel's status of the process (exit_group traced or not); the calls and
		 * signals seen when it is not known */
		if (l->session)
			scry_session_exit_code(l->session, pid, &status);
		if (l->ustacks)
			trace_ustacks_forget(l->ustacks, pid);
		if (l->ops.proc_exit)
			l->ops.proc_exit(l->ops.ctx, pid, rts, status);
		return;
	}
	if (ev->kind == SCRY_EV_UPROBE) {
		if (l->ops.probe && !(l->gate_pid && pid == l->gate_pid))   /* scry's child before its exec */
			l->ops.probe(l->ops.ctx, pid, tid, rts, ev, l->vals);
		return;
	}
	if (ev->kind != SCRY_EV_SYSCALL_ENTRY && ev->kind != SCRY_EV_SYSCALL_EXIT)
		return;
	if (ev->nr < 0 || ev->nr >= SCRY_MAX_SYSCALLS || !(sc = l->by_nr[ev->nr]))
		return;
	nrf = l->nr_flags[ev->nr];
	if (l->gate_pid && pid == l->gate_pid) {
		/* the entry opens the gate; its exit does when a filter rejected the entry */
		if (!(nrf & NR_EXECVE))
			return;
		l->gate_pid = 0;
	}
	/* a new task's return from fork/clone: strace shows the child from its next call */
	if (ev->kind == SCRY_EV_SYSCALL_EXIT && l->vals[0].v == 0 && (nrf & NR_FORKS))
		return;
	call_reset(l);
	c->name = l->user_name[ev->nr];
	c->nr = sc->nr;
	c->nargs = sc->nargs;
	c->specs = sc->spec;
	c->args = sc->args;
	c->pid = pid;
	c->tid = tid;
	if (l->layout.ctx_off[SCRY_CTX_PROCNAME] >= 0) {   /* -Y */
		size_t n = 0;
		const char *comm = scry_record_procname(&l->layout, &r, &n);

		if (comm) {
			n = strnlen(comm, n < 16 ? n : 16);
			memcpy(l->comm, comm, n);
			l->comm[n] = '\0';
			c->comm = l->comm;
		}
	}
	if (l->layout.ctx_off[SCRY_CTX_CALLSTACK_USER] >= 0) {   /* -i: the stack's first frame */
		uint32_t n = 0;
		const uint64_t *a = scry_record_callstack(&l->layout, &r, SCRY_CTX_CALLSTACK_USER, &n);

		if (a && n)
			memcpy(&c->ip, a, 8);
		if (c->ip == UINT64_MAX)
			c->ip = 0;
	}
	if (ev->kind == SCRY_EV_SYSCALL_ENTRY) {
		c->ts_entry = rts;
		c->have_entry = true;
		fill_args(ev, l->vals, c->in, sc);
		l->dirty_in |= l->ev_args[id];
		l->ext_dirty |= (l->ev_flags[id] & (EVF_SK | EVF_RSK | EVF_FILE)) != 0;
		if ((l->ev_flags[id] & EVF_SK) && (c->sock[0].have = fill_sock(ev, l->vals, "sk", &c->sock[0].r)))
			for (unsigned i = 0; i < sc->nargs; i++)
				if (sc->spec[i].kind == SCRY_A_FD) {
					c->sock[0].fd = (int)c->in[i].v;
					break;
				}
		if (l->ustacks && l->ops.stack_names && (nrf & NR_EXIT) &&
		    (c->nframes = trace_ustacks_take(l->ustacks, tid, ts, l->ips, SCRY_UNWIND_MAX_DEPTH)))
			c->frames = l->ips;   /* -k: a call that never returns, its stack at the entry */
		if ((nrf & NR_EXIT) && c->in[0].have) {
			struct exit_slot *e = exit_slot(l, pid);
			if (e->pid != pid || (nrf & NR_EXIT_GROUP) || (e->status & 0x7f) == 0) {
				e->pid = pid;
				e->status = (int)(c->in[0].v & 0xff) << 8;
			}
		}
		if (l->ops.entry)
			l->ops.entry(l->ops.ctx, c);
	} else {
		c->ts_exit = rts;
		c->have_exit = true;
		c->ret = (int64_t)l->vals[0].v;
		fill_args(ev, l->vals, c->out, sc);
		l->dirty_out |= l->ev_args[id];
		l->ext_dirty |= (l->ev_flags[id] & (EVF_SK | EVF_RSK | EVF_FILE)) != 0;
		if (l->ev_flags[id] & EVF_FILE)
			fill_file(ev, l->vals, c->file);
		if ((l->ev_flags[id] & EVF_RSK) && (c->sock[1].have = fill_sock(ev, l->vals, "rsk", &c->sock[1].r)))
			c->sock[1].fd = (int)c->ret;
		if (l->ops.stack_names) {   /* -k: named by the printer (trace_printer_set_syms) */
			if (l->ustacks && c->ret == 0 && (nrf & NR_EXEC))
				trace_ustacks_forget(l->ustacks, pid);   /* another program's files */
			if (l->ustacks && (c->nframes = trace_ustacks_take(l->ustacks, tid, ts, l->ips, SCRY_UNWIND_MAX_DEPTH))) {
				c->frames = l->ips;
				c->ip = l->ips[0];   /* (execve's: where the interpreter is, stackmaps.c) */
			}
			else   /* no copy (its loss counted), or frame pointers asked for */
				c->frames = scry_record_callstack(&l->layout, &r, SCRY_CTX_CALLSTACK_USER, &c->nframes);
			if (!c->frames)
				c->nframes = 0;
		}
		if (l->ops.exit)
			l->ops.exit(l->ops.ctx, c);
	}
	return;
bad:
	l->malformed++;
}

void trace_live_pump(struct trace_live *l, uint64_t horizon)
{
	size_t i, keep = 0;

	if (l->syms && !l->ustacks_tried && l->session) {   /* the session is loaded by now */
		int fd = scry_session_ustack_fd(l->session);

		l->ustacks_tried = true;
		if (fd >= 0 && !(l->ustacks = trace_ustacks_new(fd, l->syms)))
			fprintf(stderr, "scry: cannot read the user stack copies (out of memory): frames from "
				"frame pointers\n");
	}
	if (l->ustacks)   /* the copies of the events read so far: all in the ring by now */
		trace_ustacks_drain(l->ustacks);
	if (!l->npend)
		goto expire;
	if (!sort_pending(l))   /* out of memory: the slow way */
		qsort(l->pend, l->npend, sizeof(*l->pend), by_time);
	for (i = 0; i < l->npend && l->pend[i].ts < horizon; i++) {
		if (l->ustacks && i % 64 == 63)   /* the ring kept empty while the stacks are unwound */
			trace_ustacks_drain(l->ustacks);
		dispatch(l, l->bytes + l->pend[i].off, l->pend[i].len);
	}
	if (i == l->npend) {
		l->npend = 0;
		l->nbytes = 0;
		l->live_bytes = 0;
		goto expire;
	}
	/* keep the rest (their bytes stay until bytes_room needs the room) */
	for (size_t k = 0; k < i; k++)
		l->live_bytes -= l->pend[k].len;
	keep = l->npend - i;
	memmove(l->pend, l->pend + i, keep * sizeof(*l->pend));
	l->npend = keep;
expire:
	if (l->ustacks && horizon > USTACK_GRACE_NS)   /* copies whose event was lost */
		trace_ustacks_expire(l->ustacks, horizon == UINT64_MAX ? horizon : horizon - USTACK_GRACE_NS);
}

void trace_live_gate_exec(struct trace_live *l, int pid)
{
	l->gate_pid = pid;
}

const struct trace_ustacks_stats *trace_live_ustack_stats(const struct trace_live *l)
{
	return l->ustacks ? trace_ustacks_stats(l->ustacks) : NULL;
}

struct scry_syms *trace_live_syms(struct trace_live *l)
{
	return l->syms;
}

uint64_t trace_live_malformed(const struct trace_live *l)
{
	return l->malformed;
}

uint64_t trace_live_dropped(const struct trace_live *l)
{
	return l->oom;
}
