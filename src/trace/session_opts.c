/* session_opts.c — the session `scry trace` asks for (see session_opts.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"
#include "trace/session_opts.h"
#include "trace/summary.h"
#include "util/overrides.h"

/* The session's event specs: the selected syscalls, and what the printer needs besides. */
static int event_specs(const struct trace_opts *o, struct scry_catalog *cat, char ***out, size_t *nout)
{
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(cat, &list), k = 0;
	static const char *const fd_calls[] = {
		"open", "openat", "openat2", "creat", "close", "close_range", "dup", "dup2", "dup3",
		"fcntl", "socket", "socketpair", "pipe", "pipe2", "accept", "accept4", "chdir", "fchdir",
		"unlink", "unlinkat", "rmdir", "epoll_create", "epoll_create1", "eventfd", "eventfd2",
		"signalfd", "signalfd4", "timerfd_create", "inotify_init", "inotify_init1", "memfd_create",
		"pidfd_open", "pidfd_getfd", "fanotify_init", "userfaultfd", "perf_event_open",
		"bind", "connect", "listen", "sendto", "sendmsg", "sendmmsg",
	};
	const size_t nfd = sizeof(fd_calls) / sizeof(fd_calls[0]);
	char **specs = calloc(n + 12 + nfd + o->nprobes, sizeof(*specs));

	if (!specs)
		return -ENOMEM;
	if (trace_opts_selects_all(o)) {
		specs[k++] = strdup("syscall:*");
	} else {
		for (size_t i = 0; i < n; i++)
			if (trace_opts_selected(o, list[i].nr) &&
			    asprintf(&specs[k++], "syscall:%s", list[i].name) < 0)
				specs[k - 1] = NULL;
	}
	if (o->count != TRACE_COUNT_ONLY) {
		/* execve always: the command is shown from its exec on (trace_live_gate_exec);
		 * the printer leaves out what trace= does not select */
		if (!trace_opts_selects_all(o))
			specs[k++] = strdup("syscall:execve");
		/* -y: the fd table needs the calls that make and close fds, printed or not */
		for (size_t i = 0; (o->decode_fds || o->npaths || o->stack) && !trace_opts_selects_all(o) && i < nfd; i++)
			if (scry_catalog_syscall_by_name(cat, fd_calls[i]) &&
			    asprintf(&specs[k++], "syscall:%s", fd_calls[i]) < 0)
				specs[k - 1] = NULL;
		if (o->stack && !trace_opts_selects_all(o)) {   /* -k: the libraries' and program's mappings */
			specs[k++] = strdup("syscall:mmap");
			specs[k++] = strdup("syscall:mprotect");
		}
		specs[k++] = strdup("signal:signal_deliver");
		specs[k++] = strdup("signal:signal_generate");   /* the ignored ones */
		if (o->follow)                                    /* children shown from their birth */
			specs[k++] = strdup("sched:sched_process_fork");
		specs[k++] = strdup("sched:sched_process_exit");
	}
	for (size_t i = 0; i < o->nprobes; i++)   /* -e uprobe:... */
		specs[k++] = strdup(o->probes[i]);
	if (o->flow && (asprintf(&specs[k++], "uprobe:%s", o->flow) < 0 || asprintf(&specs[k++], "uretprobe:%s", o->flow) < 0))
		specs[k - 1] = NULL;
	*out = specs;
	*nout = k;
	for (size_t i = 0; i < k; i++)
		if (!specs[i])
			return -ENOMEM;
	return 0;
}

static bool minmax_cols(const struct trace_opts *o)
{
	for (unsigned i = 0; i < o->ncols; i++)
		if (o->cols[i] == TRACE_COL_MIN || o->cols[i] == TRACE_COL_MAX)
			return true;
	return false;
}

int trace_session_build(struct trace_session *ts, const struct trace_opts *o, struct scry_catalog *cat)
{
	struct scry_session_opts *so = &ts->so;
	struct scry_channel_opts *chan = &ts->chan;

	memset(ts, 0, sizeof(*ts));
	if (event_specs(o, cat, &ts->specs, &ts->nspecs))
		return -ENOMEM;
	chan->events = (const char *const *)ts->specs;
	chan->nevents = ts->nspecs;
	/* -k: each exit's user stack copied, unwound as strace's (trace/ustacks.h); no call
	 * stack context but for -i, a recording, or frame pointers asked for (window 0) */
	uint32_t window = SCRY_USTACK_WINDOW;
	if (scry_overrides()->ustack_window_set)   /* bench: another window; 0: frame pointers */
		window = scry_overrides()->ustack_window;
	if (!o->stack)
		window = 0;
	chan->ctx_mask = (1ULL << SCRY_CTX_PID) | (1ULL << SCRY_CTX_TID) |
			 (o->show_ip || (o->stack && (!window || o->record_dir)) ? 1ULL << SCRY_CTX_CALLSTACK_USER : 0) |
			 (o->decode_comm ? 1ULL << SCRY_CTX_PROCNAME : 0);
	so->catalog = cat;
	so->channels = chan;
	so->nchannels = 1;
	so->target_all = o->all;
	so->no_follow = !o->follow;
	so->fixed_events = true;
	so->filter_entries_only = true;
	so->capture.strsize = o->strsize;
	/* the catalog bounds it to SCRY_SEQ_MAX */
	so->capture.snaplen = (unsigned)(o->snaplen ? o->snaplen : o->strsize + 1);
	if (o->dumps && !o->snaplen)   /* -e read=/write=: the whole buffer, as far as one capture goes */
		so->capture.snaplen = SCRY_SEQ_MAX;
	so->capture.fetch = o->fetch;
	so->capture.what = o->verbose ? SCRY_CAPTURE_ENV : 0;   /* envp listed with -v alone, as strace */
	/* getdents64's entries are listed only with -v (or --json, or in a --record trace):
	 * else the kernel counts them and copies none (find: a copy of up to 32 KiB of names
	 * per call, through the ring, for "/ * 255 entries * /") */
	so->capture.dirents_count = !o->verbose && !o->json && !o->record_dir;
	if (o->decode_fds >= 2)   /* -yy: sockets named from the kernel at the call */
		so->capture.what |= SCRY_CAPTURE_SOCK;
	/* -c: a counting channel (no event, no trace); else the live printer is the channel's
	 * record sink (the caller's), beside --record's trace directory */
	chan->kind = o->count == TRACE_COUNT_ONLY && !minmax_cols(o) ? SCRY_CHANNEL_COUNT : SCRY_CHANNEL_EVENTS;
	so->output = o->record_dir;
	if (chan->kind == SCRY_CHANNEL_EVENTS && (chan->ustack_window = window)) {
		chan->ustack_ring = TRACE_USTACK_RING;
		if (scry_overrides()->ustack_ring)   /* tests: a small ring, to fill it */
			chan->ustack_ring = scry_overrides()->ustack_ring;
	}
	return 0;
}

void trace_session_free(struct trace_session *ts)
{
	for (size_t i = 0; i < ts->nspecs; i++)
		free(ts->specs[i]);
	free(ts->specs);
	ts->specs = NULL;
	ts->nspecs = 0;
}
