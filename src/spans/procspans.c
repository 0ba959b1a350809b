/* procspans.c — process lifetime spans (see procspans.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include "spans/procspans.h"
#include "trace/imap.h"

const char *const scry_procspans_events[] = {
	"syscall:execve", "syscall:execveat", "syscall:exit_group", "sched:sched_process_fork",
	"sched:sched_process_exit",
};
const size_t scry_procspans_nevents = sizeof(scry_procspans_events) / sizeof(scry_procspans_events[0]);

struct proc {
	int pid, ppid;
	uint8_t trace_id[16];
	uint8_t ctx[8];                  /* the parent of its next span */
	bool has_trace, has_ctx;
	bool running;                    /* cur is open */
	struct scry_span cur;
	char exec_path[SCRY_SPAN_STR_MAX];   /* the pending execve's file name (by its entry) */
	size_t exec_len;
};

struct scry_procspans {
	struct scry_otlp_exporter *exp;
	struct imap procs;               /* pid -> struct proc */
	uint64_t started;
};

static void random_bytes(uint8_t *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(b + got, n - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	for (; got < n; got++)            /* never all zero: an invalid id */
		b[got] = (uint8_t)(rand() | 1);
}

static struct proc *proc_get(struct scry_procspans *p, int pid, bool create)
{
	struct proc *pr = pid > 0 ? imap_get(&p->procs, pid) : NULL;

	if (pr || !create || pid <= 0)
		return pr;
	if (!(pr = calloc(1, sizeof(*pr))))
		return NULL;
	pr->pid = pid;
	if (imap_put(&p->procs, pid, pr)) {
		free(pr);
		return NULL;
	}
	return pr;
}

static void end_span(struct scry_procspans *p, struct proc *pr, uint64_t ts)
{
	if (!pr->running)
		return;
	pr->cur.end_ns = ts < pr->cur.start_ns ? pr->cur.start_ns : ts;
	scry_otlp_submit(p->exp, &pr->cur);
	memcpy(pr->ctx, pr->cur.span_id, 8);   /* its next program's parent */
	pr->has_ctx = true;
	pr->running = false;
}

static void on_task(void *ctx, int parent_pid, int pid, int tid)
{
	struct scry_procspans *p = ctx;
	struct proc *parent, *child;

	if (pid != tid)
		return;                    /* a thread */
	parent = proc_get(p, parent_pid, false);
	if (!(child = proc_get(p, pid, true)))
		return;
	child->ppid = parent_pid;
	if (!parent)
		return;
	if (parent->has_trace) {
		memcpy(child->trace_id, parent->trace_id, 16);
		child->has_trace = true;
	}
	if (parent->running) {
		memcpy(child->ctx, parent->cur.span_id, 8);
		child->has_ctx = true;
	} else if (parent->has_ctx) {
		memcpy(child->ctx, parent->ctx, 8);
		child->has_ctx = true;
	}
}

static bool is_exec(const char *name)
{
	return !strcmp(name, "execve") || !strcmp(name, "execveat");
}

static void on_entry(void *ctx, const struct trace_call *c)
{
	struct scry_procspans *p = ctx;
	struct proc *pr;
	unsigned arg = !strcmp(c->name, "execveat") ? 1 : 0;

	if (!is_exec(c->name) || !(pr = proc_get(p, c->pid, true)))
		return;
	pr->exec_len = 0;
	if (c->in[arg].have && c->in[arg].p) {
		size_t n = strnlen((const char *)c->in[arg].p, c->in[arg].len);

		if (n >= sizeof(pr->exec_path))
			n = sizeof(pr->exec_path) - 1;
		memcpy(pr->exec_path, c->in[arg].p, n);
		pr->exec_len = n;
	}
}

static void on_exit_call(void *ctx, const struct trace_call *c)
{
	struct scry_procspans *p = ctx;
	struct proc *pr;
	const char *base;
	size_t blen;

	if (!is_exec(c->name) || c->ret != 0 || !(pr = proc_get(p, c->pid, true)))
		return;
	end_span(p, pr, (uint64_t)c->ts_exit);     /* the previous program of this process */
	if (!pr->has_trace) {                      /* a new trace: a root */
		random_bytes(pr->trace_id, 16);
		pr->has_trace = true;
	}
	memset(&pr->cur, 0, sizeof(pr->cur));
	memcpy(pr->cur.trace_id, pr->trace_id, 16);
	random_bytes(pr->cur.span_id, 8);
	if (pr->has_ctx) {
		memcpy(pr->cur.parent_id, pr->ctx, 8);
		pr->cur.has_parent = true;
	}
	pr->cur.start_ns = (uint64_t)c->ts_exit;
	base = memrchr(pr->exec_path, '/', pr->exec_len);
	base = base ? base + 1 : pr->exec_path;
	blen = pr->exec_len - (size_t)(base - pr->exec_path);
	if (!blen) {
		base = "exec";
		blen = 4;
	}
	if (blen >= sizeof(pr->cur.name))
		blen = sizeof(pr->cur.name) - 1;
	memcpy(pr->cur.name, base, blen);
	scry_span_attr_int(&pr->cur, "process.pid", c->pid);
	if (pr->ppid)
		scry_span_attr_int(&pr->cur, "process.parent_pid", pr->ppid);
	scry_span_attr_str(&pr->cur, "process.executable.path", pr->exec_path, pr->exec_len);
	scry_span_attr_str(&pr->cur, "process.executable.name", base, blen);
	pr->running = true;
	p->started++;
}

static void on_proc_exit(void *ctx, int pid, int64_t ts, int status)
{
	struct scry_procspans *p = ctx;
	struct proc *pr = imap_del(&p->procs, pid);

	if (!pr)
		return;
	if (pr->running) {
		if (WIFSIGNALED(status)) {
			scry_span_attr_int(&pr->cur, "process.exit.signal", WTERMSIG(status));
			pr->cur.error = true;
		} else {
			scry_span_attr_int(&pr->cur, "process.exit.code", WEXITSTATUS(status));
			pr->cur.error = WEXITSTATUS(status) != 0;
		}
		end_span(p, pr, (uint64_t)ts);
	}
	free(pr);
}

struct scry_procspans *scry_procspans_new(struct scry_otlp_exporter *exp)
{
	struct scry_procspans *p = calloc(1, sizeof(*p));

	if (p)
		p->exp = exp;
	return p;
}

void scry_procspans_ops(struct scry_procspans *p, struct trace_live_ops *ops)
{
	memset(ops, 0, sizeof(*ops));
	ops->task = on_task;
	ops->entry = on_entry;
	ops->exit = on_exit_call;
	ops->proc_exit = on_proc_exit;
	ops->ctx = p;
}

void scry_procspans_finish(struct scry_procspans *p, uint64_t now_ns)
{
	for (size_t i = 0; i < p->procs.cap; i++) {
		struct proc *pr = p->procs.slots[i].key ? p->procs.slots[i].val : NULL;

		if (pr && pr->running) {
			scry_span_attr_int(&pr->cur, "scry.unfinished", 1);
			end_span(p, pr, now_ns);
		}
	}
}

bool scry_procspans_parent(const struct scry_procspans *p, int pid, uint64_t ts, uint8_t trace_id[16],
			   uint8_t span_id[8])
{
	struct proc *pr = pid > 0 ? imap_get(&p->procs, pid) : NULL;

	if (!pr)
		return false;
	if (pr->running && pr->cur.start_ns <= ts) {
		memcpy(trace_id, pr->cur.trace_id, 16);
		memcpy(span_id, pr->cur.span_id, 8);
		return true;
	}
	if (pr->running && pr->cur.has_parent) {   /* before its exec: what its span's parent is */
		memcpy(trace_id, pr->cur.trace_id, 16);
		memcpy(span_id, pr->cur.parent_id, 8);
		return true;
	}
	if (!pr->running && pr->has_trace && pr->has_ctx) {   /* a fork that has not exec'd (yet) */
		memcpy(trace_id, pr->trace_id, 16);
		memcpy(span_id, pr->ctx, 8);
		return true;
	}
	return false;
}

uint64_t scry_procspans_started(const struct scry_procspans *p)
{
	return p->started;
}

void scry_procspans_free(struct scry_procspans *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->procs.cap; i++)
		if (p->procs.slots[i].key)
			free(p->procs.slots[i].val);
	imap_free(&p->procs);
	free(p);
}
