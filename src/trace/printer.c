/* printer.c — strace's text output and the matching of entries with exits (see
 * printer.h): the tasks and their pending calls, and which line each part of a call goes
 * on (the text itself: printer_text.c).  strace's rules reproduced here: one task's line is
 * "open" after its entry part; any other line that must start closes it with
 * " <unfinished ...>", and the call later ends on a line of its own,
 * "<... NAME resumed>REST) = RET"; exit and exit_group print " = ?" at once; a task that
 * dies in a call ends it with " <unfinished ...>) = ?". */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "trace/classes.h"
#include "trace/printer_int.h"
#include "trace/sockdesc.h"
#include "trace/stackmaps.h"
#include "catalog/symbolize.h"

enum end_how { END_DIED, END_DETACHED };

bool trace_call_failed(int64_t ret)
{
	return ret >= -4095 && ret <= -1;
}

static bool never_returns(const char *name)
{
	return name && (TRACE_NAME_IS(name, "exit") || TRACE_NAME_IS(name, "exit_group"));
}

/* Is the call shown?  With --filter, exit/exit_group arrive unfiltered (for the exit
 * status) but are shown only by the +++ line. */
static bool selected(const struct trace_printer *p, int nr, const char *name)
{
	return trace_opts_selected(&p->o, nr) && !(p->o.filtered && never_returns(name));
}

static bool is_exec(const char *name)
{
	return name && (TRACE_NAME_IS(name, "execve") || TRACE_NAME_IS(name, "execveat"));
}

/* ---- tasks and pending calls ---- */

static void pend_destroy(struct pend *pd)
{
	if (pd) {
		free(pd->blob);
		free(pd);
	}
}

/* A pending call done with: kept for the next (its blob with it), up to PEND_SPARES
 * (a malloc and a free of each per call were a tenth of the printing). */
static void pend_free(struct trace_printer *p, struct pend *pd)
{
	if (!pd)
		return;
	if (p->nspare < PEND_SPARES)
		p->spare[p->nspare++] = pd;
	else
		pend_destroy(pd);
}

/* First argument strace prints when the call returns. */
static unsigned entry_args(const struct trace_call *c)
{
	if (c->name && TRACE_NAME_IS(c->name, "clone3"))
		return c->nargs ? 1 : 0;   /* the struct; " => {parent_tid=[N]}, size" at exit */
	for (unsigned i = 0; c->specs && i < c->nargs; i++)
		if (!scry_fmt_at_entry(&c->specs[i]))
			return i;
	return c->nargs;
}

/* The same, once per syscall number (its name, specs and argument count are the number's). */
static unsigned entry_args_of(struct trace_printer *p, const struct trace_call *c)
{
	unsigned k;

	if (c->nr < 0 || c->nr >= SCRY_MAX_SYSCALLS)
		return entry_args(c);
	if (!p->entry_k[c->nr])
		p->entry_k[c->nr] = (uint8_t)(entry_args(c) + 1);
	k = p->entry_k[c->nr] - 1u;
	return k < c->nargs ? k : c->nargs;
}

/* What a pending call copies of the entry's call, and what the exit then writes into it:
 * the head and the arguments the call has (in[] past nargs and out[] are zero in the
 * calls live.c makes), the files and sockets only where they are (every reader tests
 * .have), and the rest: ~300 bytes for a call of three arguments where the whole struct
 * was 1,256 (its copy, inlined as rep movsq, was most of the entry's own samples). */
_Static_assert(offsetof(struct trace_call, file) == offsetof(struct trace_call, ret) + sizeof(int64_t) &&
	       offsetof(struct trace_call, sock) == offsetof(struct trace_call, file) + 2 * sizeof(struct trace_file) &&
	       offsetof(struct trace_call, ip) == offsetof(struct trace_call, sock) + 2 * sizeof(struct trace_sock) &&
	       offsetof(struct trace_call, out) > offsetof(struct trace_call, in) &&
	       offsetof(struct trace_call, ret) > offsetof(struct trace_call, out),
	       "struct trace_call's order: head, in, out, ret, file, sock, ip...: update call_ext_copy and pend_new");
#define CALL_ARGS_AT offsetof(struct trace_call, in)
#define CALL_REST_AT offsetof(struct trace_call, ip)

/* file[] and sock[] of src into dst, where src has them. */
static void call_ext_copy(struct trace_call *dst, const struct trace_call *src)
{
	for (unsigned k = 0; k < 2; k++) {
		if (src->file[k].have)
			dst->file[k] = src->file[k];
		else
			dst->file[k].have = false;
		if (src->sock[k].have)
			dst->sock[k] = src->sock[k];
		else
			dst->sock[k].have = false;
	}
}

static struct pend *pend_new(struct trace_printer *p, const struct trace_call *c)
{
	struct pend *pd = p->nspare ? p->spare[--p->nspare] : calloc(1, sizeof(*pd));
	size_t total = 0, off = 0;
	unsigned n = c->nargs < SCRY_MAX_ARGS ? c->nargs : SCRY_MAX_ARGS;

	if (!pd)
		return NULL;
	pd->shown = pd->path_ok = false;
	memcpy(&pd->c, c, CALL_ARGS_AT + n * sizeof(c->in[0]));
	if (pd->in_n > n)     /* a longer call's arguments, before */
		memset(&pd->c.in[n], 0, (pd->in_n - n) * sizeof(c->in[0]));
	pd->in_n = n;
	if (pd->out_n)        /* the exit that made it a whole call wrote them */
		memset(pd->c.out, 0, pd->out_n * sizeof(c->out[0]));
	pd->out_n = 0;
	pd->c.ret = c->ret;
	call_ext_copy(&pd->c, c);
	memcpy((uint8_t *)&pd->c + CALL_REST_AT, (const uint8_t *)c + CALL_REST_AT, sizeof(*c) - CALL_REST_AT);
	pd->c.nargs = n;
	for (unsigned i = 0; i < n; i++)
		if (c->in[i].have && c->in[i].p)
			total += c->in[i].len;
	if (total > pd->blobcap) {
		uint8_t *nb = malloc(total);

		if (!nb) {
			pend_destroy(pd);
			return NULL;
		}
		free(pd->blob);
		pd->blob = nb;
		pd->blobcap = total;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!c->in[i].have || !c->in[i].p)
			continue;
		memcpy(pd->blob + off, c->in[i].p, c->in[i].len);
		pd->c.in[i].p = pd->blob + off;
		off += c->in[i].len;
	}
	pd->k = entry_args_of(p, &pd->c);
	return pd;
}

static void put_sigq(struct trace_printer *p, int tid, int64_t ts);
static void put_frames(struct trace_printer *p, const struct trace_call *c);
static void frames_forget(struct trace_printer *p, int tgid);

static struct task *task_get(struct trace_printer *p, int tid, int pid)
{
	struct task *t = imap_get(&p->tasks, tid);

	if (t) {
		t->pid = pid;
		return t;
	}
	if (tid <= 0 || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = tid;
	t->pid = pid;
	if (imap_put(&p->tasks, tid, t)) {
		free(t);
		return NULL;
	}
	return t;
}

static void task_remove(struct trace_printer *p, int tid)
{
	struct task *t = imap_del(&p->tasks, tid);

	if (!t)
		return;
	if (p->open_tid == tid)
		p->open_tid = 0;   /* callers end the line first */
	pend_free(p, t->pend);
	if (t->out && t->out != p->out) {
		trace_printer_flush(p);
		if (p->ob.f == t->out)
			p->ob.f = p->out;
		if (fclose(t->out))
			p->ob.error = 1;
	}
	free(t);
}

static int by_tid(const void *a, const void *b)
{
	const struct task *x = *(struct task *const *)a, *y = *(struct task *const *)b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The tasks of pid (every task when pid is 0), by tid; NULL when none or out of memory. */
static struct task **tasks_of(struct trace_printer *p, int pid, size_t *n)
{
	struct task **v = malloc((p->tasks.n + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->tasks.cap; i++) {
		struct task *t = p->tasks.slots[i].val;

		if (p->tasks.slots[i].key && (!pid || t->pid == pid))
			v[(*n)++] = t;
	}
	qsort(v, *n, sizeof(*v), by_tid);
	return v;
}


static bool status_wanted(const struct trace_printer *p, unsigned bit)
{
	return p->o.status & bit;
}

/* ---- calls ---- */

/* Exit of an execve that a non-leader thread made: the thread took the leader's tid. */
static struct pend *steal_exec(struct trace_printer *p, int pid, int tid)
{
	size_t n;
	struct task **v = tasks_of(p, pid, &n);
	struct pend *pd = NULL;

	for (size_t i = 0; v && i < n && !pd; i++)
		if (v[i]->tid != tid && v[i]->pend && is_exec(v[i]->pend->c.name)) {
			pd = v[i]->pend;
			v[i]->pend = NULL;
			if (p->open_tid == v[i]->tid)
				p->open_tid = tid;
		}
	free(v);
	return pd;
}

/* A successful execve ends the other threads of the process. */
static void exec_done(struct trace_printer *p, int pid, int tid)
{
	size_t n;
	struct task **v = tasks_of(p, pid, &n);

	for (size_t i = 0; v && i < n; i++)
		if (v[i]->tid != tid) {
			if (p->open_tid == v[i]->tid)
				trace_printer_close_open(p, " <unfinished ...>");
			task_remove(p, v[i]->tid);
		}
	free(v);
}

/* -a with --filter: a process none of whose calls the filter accepted is not shown at all,
 * its signals and exit neither (without -a the traced processes are the user's choice) */
static bool unshown(const struct trace_printer *p, int pid)
{
	return p->o.all && p->o.filtered && !imap_get(&p->accepted, pid);
}

static void put_exited(struct trace_printer *p, int pid, int tid, int64_t ts, int status)
{
	if (p->quiet || (p->o.quiet & TRACE_Q_EXIT && !p->o.json) || unshown(p, pid))
		return;
	if (p->o.json) {
		trace_json_exit(p, pid, tid, ts, status);
		return;
	}
	p->exit_line = true;
	trace_printer_line_start(p, tid, ts);
	p->exit_line = false;
	if (WIFSIGNALED(status)) {
		const char *s = scry_signal_name(WTERMSIG(status));

		OB_LIT(&p->ob, "+++ killed by ");
		if (s)
			ob_puts(&p->ob, s);
		else
			ob_i64(&p->ob, WTERMSIG(status));
		ob_puts(&p->ob, WCOREDUMP(status) ? " (core dumped) +++" : " +++");
	} else {
		OB_LIT(&p->ob, "+++ exited with ");
		ob_i64(&p->ob, WEXITSTATUS(status));
		OB_LIT(&p->ob, " +++");
	}
	trace_printer_line_end(p);
}

/* A pending call whose exit will not come (lost, or its task was replaced by an execve in
 * another thread): its open line ends as unfinished; --json still reports it. */
static void drop_pending(struct trace_printer *p, struct task *t)
{
	struct pend *pd = t->pend;

	if (!pd)
		return;
	t->pend = NULL;
	if (p->open_tid == t->tid)
		trace_printer_close_open(p, " <unfinished ...>");
	if (p->o.json && !p->quiet && selected(p, pd->c.nr, pd->c.name))
		trace_json_call(p, &pd->c, pd->c.in, true, false);
	pend_free(p, pd);
}

/* exit, exit_group: "exit_group(0) = ?" when they enter. */
static void put_noreturn_call(struct trace_printer *p, const struct trace_call *c)
{
	if (p->o.json) {
		trace_json_call(p, c, c->in, true, false);
		return;
	}
	if (p->deferred && !status_wanted(p, TRACE_ST_UNFINISHED))
		return;
	trace_printer_line_start(p, c->tid, c->ts_entry);
	ob_puts(&p->ob, c->name);
	ob_putc(&p->ob, '(');
	trace_printer_put_args(p, c, 0, c->nargs, c->in, false);
	trace_printer_put_noret(p);
	if (c->nframes && p->names)   /* -k: its stack, taken at the entry */
		put_frames(p, c);
}

/* -yy: the sockets the kernel described at the call, named so in the lines to come. */
static void kernel_socks(struct trace_printer *p, const struct trace_call *c, unsigned k)
{
	char name[256];

	const struct scry_sock_rec *r = &c->sock[k].r;
	const char *before;
	size_t n;

	if (p->o.decode_fds < 2 || !c->sock[k].have || !sockdesc_from_rec(r, name, sizeof(name)))
		return;
	/* a UNIX socket whose peer is gone (closed: the kernel forgets its inode) keeps the
	 * peer it was seen with, as strace's cache of socket details by inode does */
	before = fdtrack_kernel_seen(&p->fds, c->pid, c->sock[k].fd);
	n = strcspn(name, "[") + 1;
	n += strspn(name + n, "0123456789");   /* "UNIX-STREAM:[INODE" */
	if (r->family == AF_UNIX && !r->peer_ino && before && !strncmp(before, name, n) && before[n] == '-' &&
	    name[n] != '-')
		return;
	fdtrack_kernel_name(&p->fds, c->pid, c->sock[k].fd, name);
}

static bool is_detached(const struct trace_printer *p, int pid)
{
	return p->detached.n && pid > 0 && imap_get(&p->detached, pid);
}

/* -n and -Y: the task's last call and name. */
static void note_task(struct task *t, const struct trace_call *c)
{
	t->scno = c->nr;
	if (c->ip)
		t->ip = c->ip;
	if (c->comm && *c->comm)
		snprintf(t->comm, sizeof(t->comm), "%s", c->comm);
}

/* -b execve: a process is left when an execve of it succeeds, but for the command's own. */
static bool detach_here(struct trace_printer *p, const struct trace_call *c)
{
	if (!p->o.detach_execve || !is_exec(c->name) || c->ret != 0)
		return false;
	if (c->pid == p->first_exec_pid) {
		p->first_exec_pid = -1;
		return false;
	}
	return true;
}

/* As strace leaves it: the execve's entry part, " <detached ...>", and from then on none
 * of the process's (or its future children's) events. */
static void detach(struct trace_printer *p, const struct trace_call *full, struct pend *pd,
		   const struct scry_argval *all)
{
	size_t n;
	struct task **v;
	int pid;

	if (!p->quiet && trace_opts_selected(&p->o, full->nr)) {
		if (!(pd && pd->shown && p->open_tid == full->tid)) {
			trace_printer_line_start(p, full->tid, full->have_entry ? full->ts_entry : full->ts_exit);
			ob_puts(&p->ob, full->name);
			ob_putc(&p->ob, '(');
			trace_printer_put_args(p, full, 0, full->nargs, all, false);
		}
		if (p->announce)
			trace_printer_put_num(p, "scry: Process %lld detached\n", full->pid, 0);
		OB_LIT(&p->ob, " <detached ...>");
		trace_printer_line_end(p);
		p->open_tid = 0;
	}
	pid = full->pid;   /* full may be pd's call */
	pend_free(p, pd);
	imap_put(&p->detached, pid, p);
	v = tasks_of(p, pid, &n);
	for (size_t i = 0; v && i < n; i++)
		task_remove(p, v[i]->tid);
	free(v);
}

void trace_printer_entry(struct trace_printer *p, const struct trace_call *c)
{
	struct task *t = task_get(p, c->tid, c->pid);
	bool sel = selected(p, c->nr, c->name);

	if (!t || !c->name || is_detached(p, c->pid))
		return;
	if (p->o.all && p->o.filtered && imap_put(&p->accepted, c->pid, p))   /* (the kernel's filter
										   * passed this entry) */
		p->ob.error = 1;
	note_task(t, c);
	kernel_socks(p, c, 0);
	drop_pending(p, t);   /* its exit was never seen */
	sel = sel && trace_printer_path_match(p, c, c->in);
	if (never_returns(c->name)) {
		if (sel && !p->quiet)
			put_noreturn_call(p, c);
		if (TRACE_NAME_IS(c->name, "exit") && c->tid != c->pid) {   /* a thread ends */
			put_exited(p, c->pid, c->tid, c->ts_entry, (int)((c->in[0].v & 0xff) << 8));
			task_remove(p, c->tid);
		}
		return;
	}
	if (!(t->pend = pend_new(p, c)))
		return;
	t->pend->path_ok = sel;
	if (!sel || p->quiet || p->deferred)
		return;
	trace_printer_line_start(p, c->tid, c->ts_entry);
	trace_printer_put_entry_part(p, t->pend);
	t->pend->shown = true;
	p->open_tid = c->tid;
	trace_printer_col_sync(p);
}

void trace_printer_exit(struct trace_printer *p, const struct trace_call *c)
{
	struct task *t = task_get(p, c->tid, c->pid);
	struct pend *pd = t ? t->pend : NULL;
	struct scry_argval all[SCRY_MAX_ARGS];
	struct trace_call own, *f;   /* the whole call: the pending one, or own */
	bool sel = selected(p, c->nr, c->name), show, cont = false, early;
	unsigned from = 0;

	if (!c->name || is_detached(p, c->pid))
		return;
	if (t)
		note_task(t, c);
	if (pd && pd->c.nr != c->nr) {   /* another call's exit never came */
		drop_pending(p, t);
		pd = NULL;
	}
	if (t)
		t->pend = NULL;
	if (!pd && is_exec(c->name) && c->ret == 0)
		pd = steal_exec(p, c->pid, c->tid);
	if (!pd && p->o.filtered)   /* --filter rejected its entry: the call is not shown */
		return;
	if (pd) {   /* the pending call becomes the whole call (no copy; out[] is c's, below) */
		f = &pd->c;
		pd->out_n = c->nargs < SCRY_MAX_ARGS ? c->nargs : SCRY_MAX_ARGS;
		memcpy(f->out, c->out, pd->out_n * sizeof(c->out[0]));
		call_ext_copy(f, c);
	} else {
		own = *c;
		own.have_entry = false;
		f = &own;
	}
	f->pid = c->pid;
	f->tid = c->tid;
	f->have_exit = true;
	f->ts_exit = c->ts_exit;
	f->ret = c->ret;
	f->ip = c->ip;            /* execve's: in the new image */
	for (unsigned i = 0; i < SCRY_MAX_ARGS; i++) {
		const struct scry_argval *in = pd ? &pd->c.in[i] : &c->in[i];

		all[i] = c->out[i].have ? c->out[i] : *in;
		if (c->out[i].have && in->have_ptr) {   /* keep the pointer the entry recorded */
			all[i].v = in->v;
			all[i].have_ptr = true;
		}
		if (c->out[i].have && in->have)         /* an in-out capture as passed */
			all[i].entry = in;
	}

	/* a pipe's two new descriptors are named in its own line (pipe2([3<pipe:[N]>, ...])) */
	if (p->npaths)   /* -P: as the entry decided, else from the values at exit */
		sel = sel && (pd ? pd->path_ok || trace_printer_path_match(p, f, all)
				 : trace_printer_path_match(p, f, all));
	if (detach_here(p, f)) {
		detach(p, f, pd, all);
		return;
	}
	early = p->track_fds && (TRACE_NAME_IS(c->name, "pipe") || TRACE_NAME_IS(c->name, "pipe2") ||
				    TRACE_NAME_IS(c->name, "socketpair"));
	if (early)
		fdtrack_apply(&p->fds, f, all);
	if (sel && p->sum)
		trace_summary_call(p->sum, f);
	show = sel && !p->quiet &&
	       status_wanted(p, trace_call_failed(c->ret) ? TRACE_ST_FAILED : TRACE_ST_SUCCESSFUL);
	if (show && p->o.json) {
		trace_json_call(p, f, all, false, false);
		show = false;
	} else if (show && p->deferred) {
		trace_printer_line_start(p, c->tid, f->have_entry ? f->ts_entry : f->ts_exit);
		ob_puts(&p->ob, f->name);
		ob_putc(&p->ob, '(');
		from = entry_args_of(p, f);
		bool any = trace_printer_put_args(p, f, 0, from, all, true);

		trace_printer_put_clone3_out(p, f, all);
		trace_printer_put_args_lead(p, f, from, f->nargs, all, true, any);
	} else if (show) {
		cont = pd && pd->shown && p->open_tid == c->tid;
		if (!cont) {
			trace_printer_line_start(p, c->tid, c->ts_exit);
			OB_LIT(&p->ob, "<... ");
			ob_puts(&p->ob, f->name);
			OB_LIT(&p->ob, " resumed>");
		}
		from = pd ? pd->k : entry_args_of(p, f);
		if (pd)
			trace_printer_put_clone3_out(p, f, all);
		trace_printer_put_args_lead(p, f, from, f->nargs, all, true,
					    pd && trace_printer_sep_at_exit(f, from));
		p->open_tid = 0;
	} else if (pd && p->open_tid == c->tid) {
		trace_printer_close_open(p, " <unfinished ...>");   /* not wanted after all (cannot happen) */
	}
	if (p->track_fds && !early)
		fdtrack_apply(&p->fds, f, all);
	kernel_socks(p, c, 1);   /* accept's new socket */
	if (show)
		trace_printer_put_ret(p, f, all);
	if (show && p->o.dumps)
		trace_printer_dump(p, f, all);
	if (p->syms) {   /* -k: what it mapped, before its frames are named */
		if (is_exec(c->name) && c->ret == 0)
			frames_forget(p, c->pid);
		trace_stack_learn(p->maps, p->syms, &p->fds, f, all);
	}
	if (show && c->nframes && p->names)   /* -k: strace's " > frame" lines after the call's */
		put_frames(p, c);
	if (is_exec(c->name) && c->ret == 0)
		exec_done(p, c->pid, c->tid);
	pend_free(p, pd);
	put_sigq(p, c->tid, c->ts_exit);
}

/* -k: the named frames of tgid forgotten (its exec or exit: the addresses mean other
 * things now), or all of them (tgid 0). */
static void frames_forget(struct trace_printer *p, int tgid)
{
	for (size_t i = 0; p->frames && i < FRAME_SLOTS; i++)
		if (p->frames[i].tgid && (!tgid || p->frames[i].tgid == tgid)) {
			free(p->frames[i].text);
			memset(&p->frames[i], 0, sizeof(p->frames[i]));
		}
}

/* strace -k's lines: " > PATH(function+0xoff) [0xoffset]", innermost first, up to
 * LTTng's "cut here" mark, or up to the first frame in no mapping: where strace's unwinder
 * fails it prints unexpected_backtracing_error and stops, and the frame-pointer walk's
 * next addresses are no frames either (code without frame pointers). */
static void put_frames(struct trace_printer *p, const struct trace_call *c)
{
	char f[4200];

	for (uint32_t i = 0; i < c->nframes; i++) {
		uint64_t addr;
		struct frame_slot *fs;
		bool known;

		memcpy(&addr, c->frames + i, 8);
		if (addr == UINT64_MAX)
			break;
		fs = p->frames ? &p->frames[(addr ^ (addr >> 12) ^ (uint64_t)c->pid * 0x9e3779b9u) % FRAME_SLOTS] : NULL;
		OB_LIT(&p->ob, " > ");
		if (fs && fs->tgid == c->pid && fs->addr == addr && fs->ret_addr == (i > 0)) {
			ob_puts(&p->ob, fs->text);
			ob_putc(&p->ob, '\n');
			continue;
		}
		known = trace_stack_frame(p->names, p->syms, c->pid, addr, i > 0, f, sizeof(f));
		ob_puts(&p->ob, f);
		ob_putc(&p->ob, '\n');
		if (!known)
			break;
		if (fs) {   /* only named ones: a mapping learnt later may name the others */
			char *t = strdup(f);

			if (t) {
				free(fs->text);
				*fs = (struct frame_slot){ .tgid = c->pid, .ret_addr = i > 0, .addr = addr, .text = t };
			}
		}
	}
	p->mark = p->ob.n;
	if (p->tty)
		trace_printer_flush(p);
}

int trace_printer_set_syms(struct trace_printer *p, struct scry_syms *syms)
{
	p->syms = syms;
	if (syms && !p->names && !(p->names = trace_stacknames_new()))
		return -1;
	if (syms && !p->maps && !(p->maps = trace_stackmaps_new()))
		return -1;
	if (syms && !p->frames && !(p->frames = calloc(FRAME_SLOTS, sizeof(*p->frames))))
		return -1;
	return 0;
}

/* A pending call that will not return: its task died, or tracing stops. */
static void end_pending(struct trace_printer *p, struct task *t, int64_t ts, enum end_how how)
{
	struct pend *pd = t->pend;
	unsigned bit = how == END_DIED ? TRACE_ST_UNFINISHED : TRACE_ST_DETACHED;
	bool nf;

	if (!pd)
		return;
	t->pend = NULL;
	nf = trace_syscall_classes(pd->c.name) & TRACE_NEVER_FAILS;
	if (!selected(p, pd->c.nr, pd->c.name) || p->quiet) {
		pend_free(p, pd);
		return;
	}
	if (p->o.json) {
		trace_json_call(p, &pd->c, pd->c.in, true, how == END_DETACHED);
	} else if (p->deferred) {
		if (status_wanted(p, bit)) {
			trace_printer_line_start(p, t->tid, pd->c.ts_entry);
			trace_printer_put_entry_part(p, pd);
			if (how == END_DETACHED) {
				OB_LIT(&p->ob, " <detached ...>");
				trace_printer_line_end(p);
			} else {
				if (!nf)
					OB_LIT(&p->ob, " <unfinished ...>");
				trace_printer_put_noret(p);
			}
		}
	} else if (how == END_DETACHED) {
		if (p->open_tid == t->tid)
			trace_printer_close_open(p, " <detached ...>");
	} else if (p->open_tid == t->tid || pd->shown) {
		if (p->open_tid != t->tid) {
			trace_printer_line_start(p, t->tid, ts);
			OB_LIT(&p->ob, "<... ");
			ob_puts(&p->ob, pd->c.name);
			OB_LIT(&p->ob, " resumed>");
		}
		p->open_tid = 0;
		if (!nf)
			OB_LIT(&p->ob, " <unfinished ...>");
		trace_printer_put_noret(p);
	}
	pend_free(p, pd);
}

void trace_printer_exited(struct trace_printer *p, int pid, int64_t ts, int status)
{
	size_t n;
	struct task **v, *leader_task = NULL;

	if (is_detached(p, pid)) {   /* -b execve: left at its exec */
		imap_del(&p->detached, pid);
		return;
	}
	v = tasks_of(p, pid, &n);

	/* the other threads first (strace reaps the leader last), each: its pending call,
	 * then its "+++ exited" line */
	for (size_t i = 0; v && i < n; i++) {
		if (v[i]->tid == pid) {
			leader_task = v[i];
			continue;
		}
		end_pending(p, v[i], ts, END_DIED);
		put_exited(p, pid, v[i]->tid, ts, status);
		task_remove(p, v[i]->tid);
	}
	if (leader_task)
		end_pending(p, leader_task, ts, END_DIED);
	put_exited(p, pid, pid, ts, status);
	task_remove(p, pid);
	imap_del(&p->accepted, pid);
	free(v);
	fdtrack_drop(&p->fds, pid);
	if (p->syms) {   /* -k: its stacks are all printed */
		scry_syms_drop(p->syms, pid);
		frames_forget(p, pid);
	}
}

/* "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=12, si_uid=0} ---".  SIGKILL is
 * never shown (strace cannot see it: the kernel kills without stopping at it); --json
 * reports it. */
void trace_printer_signal(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si)
{
	int sig = (int)((uint32_t)si[0] | (uint32_t)si[1] << 8 | (uint32_t)si[2] << 16 | (uint32_t)si[3] << 24);
	const char *s = scry_signal_name(sig);

	if (is_detached(p, pid) || unshown(p, pid))
		return;
	task_get(p, tid, pid);
	if (p->quiet || (sig >= 1 && sig <= 64 && !(p->o.sigset >> (sig - 1) & 1)))
		return;
	if (p->o.json) {
		trace_json_signal(p, pid, tid, ts, si);
		return;
	}
	if (sig == SIGKILL)
		return;
	trace_printer_line_start(p, tid, ts);
	OB_LIT(&p->ob, "--- ");
	if (s)
		ob_puts(&p->ob, s);
	else
		ob_i64(&p->ob, sig);
	ob_putc(&p->ob, ' ');
	scry_fmt_siginfo(&p->ob, si);
	OB_LIT(&p->ob, " ---");
	trace_printer_line_end(p);
}

void trace_printer_signal_ignored(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si)
{
	struct task *t = imap_get(&p->tasks, tid);

	/* only to a task already shown (not scry, nor the command before its execve) */
	if (!t)
		return;
	if (t->pend && t->nsigq < TASK_SIGQ) {
		memcpy(t->sigq[t->nsigq++], si, 48);
		return;
	}
	trace_printer_signal(p, pid, tid, ts, si);
}

/* The ignored signals that arrived during t's call, after its line (t may go meanwhile). */
static void put_sigq(struct trace_printer *p, int tid, int64_t ts)
{
	struct task *t = imap_get(&p->tasks, tid);

	for (unsigned i = 0; t && i < t->nsigq; i++)
		trace_printer_signal(p, t->pid, tid, ts, t->sigq[i]);
	if (t)
		t->nsigq = 0;
}

/* With -f a new task is announced where strace announces it: "scry: Process N attached" on
 * stderr, in the middle of the line being written when the lines go to stderr too (the line
 * goes on after it; strace -o says nothing); from then on lines carry the "[pid N]" prefix. */
void trace_printer_task(struct trace_printer *p, int parent_pid, int pid, int tid)
{
	if (is_detached(p, parent_pid) || is_detached(p, pid)) {   /* -b execve: not followed */
		imap_put(&p->detached, pid, p);
		return;
	}
	if (p->announce && !imap_get(&p->tasks, tid))
		trace_printer_put_num(p, "scry: Process %lld attached\n", tid, 0);
	if (tid != pid)
		task_get(p, pid, pid);   /* a new thread: its process is alive (the parent process
					  * of a new process may be scry itself: not counted) */
	task_get(p, tid, pid);
	if (tid == pid && parent_pid > 0 && parent_pid != pid) {
		fdtrack_fork(&p->fds, parent_pid, pid);
		if (p->syms)   /* -k: the child runs in its parent's mappings until it execs */
			scry_syms_fork(p->syms, parent_pid, pid);
	}
}

void trace_printer_prime(struct trace_printer *p, int pid)
{
	if (p->track_fds)
		fdtrack_prime(&p->fds, pid);
	if (!p->first_exec_pid)
		p->first_exec_pid = pid;
}

/* ---- life cycle ---- */

struct trace_printer *trace_printer_new(const struct trace_opts *o, FILE *out, struct trace_summary *sum)
{
	struct trace_printer *p = calloc(1, sizeof(*p));
	unsigned sfu = TRACE_ST_SUCCESSFUL | TRACE_ST_FAILED | TRACE_ST_UNFINISHED;

	if (!p)
		return NULL;
	p->o = *o;
	p->o.pids = NULL;
	p->out = out;
	p->sum = sum;
	p->tty = isatty(fileno(out));
	p->quiet = o->count == TRACE_COUNT_ONLY;
	p->deferred = o->json || (o->status & sfu) != sfu;
	/* strace -o: the pid on every line when following children or several processes */
	p->numeric_pfx = o->outfile && (o->follow || o->all || o->npids + (o->cmd ? 1 : 0) > 1);
	p->announce = o->follow && out == stderr && !p->quiet && !o->json && !(o->quiet & TRACE_Q_ATTACH);
	p->track_fds = o->decode_fds || o->npaths || o->stack;   /* -k: the files mmap maps */
	/* -ff: whole calls, each task's in its file, without prefix */
	p->per_file = o->per_pid_files;
	if (p->per_file) {
		p->deferred = true;
		p->numeric_pfx = false;
	}
	fdtrack_init(&p->fds);
	p->fo.strsize = o->strsize;
	scry_fmt_style(o->xflag, o->xlat == TRACE_XLAT_RAW ? SCRY_XLAT_RAW :
				 o->xlat == TRACE_XLAT_VERBOSE ? SCRY_XLAT_VERBOSE : SCRY_XLAT_ABBREV);
	p->fo.verbose = o->verbose;
	p->fo.fd_ctx = p;
	if (o->decode_fds)
		p->fo.fd_path = trace_printer_fd_path;
	if (o->decode_comm)
		p->fo.pid_comm = trace_printer_pid_comm;
	if (ob_init(&p->ob, out))
		goto fail;
	if (o->json) {
		if (!(p->ms = open_memstream(&p->ms_buf, &p->ms_len)) || ob_init(&p->scratch, p->ms))
			goto fail;
	}
	return p;
fail:
	trace_printer_free(p);
	return NULL;
}

void trace_printer_batch_end(struct trace_printer *p)
{
	if (p->tty)
		trace_printer_flush(p);
}

int trace_printer_finish(struct trace_printer *p)
{
	size_t n;
	struct task **v = tasks_of(p, 0, &n);

	/* the open line first, so that it ends where it stands */
	for (size_t i = 0; v && i < n; i++)
		if (v[i]->tid == p->open_tid)
			end_pending(p, v[i], 0, END_DETACHED);
	for (size_t i = 0; v && i < n; i++)
		end_pending(p, v[i], 0, END_DETACHED);
	free(v);
	trace_printer_close_open(p, " <detached ...>");
	trace_printer_flush(p);
	return p->ob.error ? -1 : 0;
}

void trace_printer_leader(struct trace_printer *p, int pid, int tid, int64_t ts)
{
	task_get(p, tid, pid);
	trace_printer_line_start(p, tid, ts);
}

void trace_printer_free(struct trace_printer *p)
{
	if (!p)
		return;
	trace_flow_free(p->flow);
	while (p->nspare)
		pend_destroy(p->spare[--p->nspare]);
	for (size_t i = 0; i < p->tasks.cap; i++)
		if (p->tasks.slots[i].key) {
			struct task *t = p->tasks.slots[i].val;

			pend_destroy(t->pend);
			if (t->out && t->out != p->out)
				fclose(t->out);
			free(t);
		}
	imap_free(&p->tasks);
	fdtrack_free(&p->fds);
	imap_free(&p->detached);
	imap_free(&p->accepted);
	trace_stacknames_free(p->names);
	trace_stackmaps_free(p->maps);
	frames_forget(p, 0);
	free(p->frames);
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->ob.buf);        /* trace_printer_finish wrote it out; out may be closed now */
	if (p->scratch.buf) {
		free(p->scratch.buf);
		p->scratch.buf = NULL;
	}
	if (p->ms)
		fclose(p->ms);
	free(p->ms_buf);
	free(p);
}

/* ---- probes (uprobe, uretprobe, USDT) ---- */

void trace_printer_probe(struct trace_printer *p, int pid, int tid, int64_t ts, const struct scry_event *ev,
			 const struct scry_fieldval *vals)
{
	char label[512];
	bool ret = ev->system && !strcmp(ev->system, "uretprobe");

	task_get(p, tid, pid);
	if (p->quiet)
		return;
	if (p->o.flow) {
		if (!p->flow && !(p->flow = trace_flow_new()))
			return;
		trace_flow_probe(p, p->flow, pid, tid, ts, ev, vals);
		return;
	}
	trace_probe_label(ev, label, sizeof(label));
	if (p->o.json) {
		trace_json_probe(p, pid, tid, ts, label, ev, vals);
		return;
	}
	trace_printer_line_start(p, tid, ts);
	ob_puts(&p->ob, label);
	if (ret) {
		if (ev->nfields) {
			OB_LIT(&p->ob, " = ");
			trace_probe_ret(p, ev, vals);
		}
	} else {
		trace_probe_args(p, ev, vals);
	}
	trace_printer_line_end(p);
}
