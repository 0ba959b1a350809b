/* flow.c — `scry trace --flow`: each thread's calls and returns of the probed functions as
 * an indented tree (SystemTap's thread_indent), one line each:
 *      12   -> add3(a=7, b=-100000000000, c=200)
 *      15   <- add3 = -99999999793 <0.000003>
 * microseconds since the thread's first probe hit, two spaces per open call, the arguments
 * at entry, the return value and the call's duration at return.  Each thread keeps its own
 * stack, so threads and recursion are kept apart; a return matching no open call of its
 * thread (its entry came before scry) is marked "[entry not seen]", never paired with
 * another call; calls left open by a return further down (longjmp) are closed with it.
 * --json: one object per line, {"event":"call"|"return","ts","pid","tid","depth","func",
 * "args":{...}} / {...,"ret":V,"duration_ns":D} ("entry_seen":false and no duration when
 * unpaired). */
#include <stdlib.h>
#include <string.h>
#include "trace/imap.h"
#include "trace/printer_int.h"
#include "util/json.h"

#define FLOW_DEPTH 256

struct frame {
	const char *func;           /* the event's tp: the function (catalog-owned) */
	int64_t ts;
};

struct flow_task {
	int64_t first;
	unsigned depth;
	struct frame stack[FLOW_DEPTH];
};

struct trace_flow {
	struct imap tasks;          /* tid -> struct flow_task * */
};

struct trace_flow *trace_flow_new(void)
{
	return calloc(1, sizeof(struct trace_flow));
}

void trace_flow_free(struct trace_flow *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->tasks.cap; i++)
		if (f->tasks.slots[i].key)
			free(f->tasks.slots[i].val);
	imap_free(&f->tasks);
	free(f);
}

static void put_fmt(struct trace_printer *p, const char *fmt, long long a, long long b)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), fmt, a, b);

	ob_write(&p->ob, tmp, (size_t)n);
}

static void indent(struct trace_printer *p, unsigned depth)
{
	for (unsigned i = 0; i < depth && i < 64; i++)
		OB_LIT(&p->ob, "  ");
}

/* The innermost open call of func on t's stack (its depth + 1), or 0. */
static unsigned open_call(const struct flow_task *t, const char *func)
{
	unsigned k = t->depth < FLOW_DEPTH ? t->depth : FLOW_DEPTH;

	while (k > 0 && strcmp(t->stack[k - 1].func, func))
		k--;
	return k;
}

static void json_value(struct outbuf *ob, const struct scry_field *f, const struct scry_fieldval *v)
{
	if (f->type == SCRY_F_STRING) {
		json_str(ob, v->p, v->len);
	} else {
		json_int(ob, v->v, f->size, f->is_signed);
	}
}

static void flow_json(struct trace_printer *p, struct flow_task *t, int pid, int tid, int64_t ts,
		      const struct scry_event *ev, const struct scry_fieldval *vals, bool ret)
{
	struct outbuf *ob = &p->ob;
	unsigned k = ret ? open_call(t, ev->tp) : 0;
	unsigned depth = ret ? (k ? k - 1 : t->depth) : t->depth;

	OB_LIT(ob, "{\"event\":\"");
	ob_puts(ob, ret ? "return" : "call");
	OB_LIT(ob, "\",\"ts\":");
	json_int(ob, (uint64_t)ts, 8, true);
	OB_LIT(ob, ",\"pid\":");
	ob_i64(ob, pid);
	OB_LIT(ob, ",\"tid\":");
	ob_i64(ob, tid);
	OB_LIT(ob, ",\"depth\":");
	ob_u64(ob, depth);
	OB_LIT(ob, ",\"func\":");
	json_cstr(ob, ev->tp);
	if (!ret) {
		OB_LIT(ob, ",\"args\":{");
		for (unsigned i = 0; i < ev->nfields; i++) {
			if (i)
				ob_putc(ob, ',');
			json_cstr(ob, ev->fields[i].name);
			ob_putc(ob, ':');
			json_value(ob, &ev->fields[i], &vals[i]);
		}
		ob_putc(ob, '}');
		if (t->depth < FLOW_DEPTH)
			t->stack[t->depth] = (struct frame){ ev->tp, ts };
		t->depth++;
	} else {
		if (ev->nfields) {
			OB_LIT(ob, ",\"ret\":");
			json_value(ob, &ev->fields[0], &vals[0]);
		}
		if (k) {
			OB_LIT(ob, ",\"duration_ns\":");
			json_int(ob, (uint64_t)(ts - t->stack[k - 1].ts), 8, true);
			t->depth = k - 1;
		} else {
			OB_LIT(ob, ",\"entry_seen\":false");
		}
	}
	ob_putc(ob, '}');
	trace_printer_line_end(p);
}

void trace_flow_probe(struct trace_printer *p, struct trace_flow *f, int pid, int tid, int64_t ts,
		      const struct scry_event *ev, const struct scry_fieldval *vals)
{
	struct flow_task *t = imap_get(&f->tasks, tid);
	bool ret = ev->system && !strcmp(ev->system, "uretprobe");
	const char *func = ev->tp;

	if (!t) {
		if (!(t = calloc(1, sizeof(*t))) || imap_put(&f->tasks, tid, t)) {
			free(t);
			return;
		}
		t->first = ts;
	}
	if (p->o.json) {
		flow_json(p, t, pid, tid, ts, ev, vals, ret);
		return;
	}
	trace_printer_leader(p, pid, tid, ts);
	put_fmt(p, "%6lld ", (ts - t->first) / 1000, 0);
	if (!ret) {
		indent(p, t->depth);
		OB_LIT(&p->ob, "-> ");
		ob_puts(&p->ob, func);
		trace_probe_args(p, ev, vals);
		if (t->depth < FLOW_DEPTH)
			t->stack[t->depth] = (struct frame){ func, ts };
		t->depth++;
		trace_printer_line_end(p);
		return;
	}
	/* the innermost open call of this function */
	unsigned k = open_call(t, func);
	if (!k) {
		indent(p, t->depth);
		OB_LIT(&p->ob, "<- ");
		ob_puts(&p->ob, func);
		if (ev->nfields) {
			OB_LIT(&p->ob, " = ");
			trace_probe_ret(p, ev, vals);
		}
		OB_LIT(&p->ob, " [entry not seen]");
		trace_printer_line_end(p);
		return;
	}
	t->depth = k - 1;
	indent(p, t->depth);
	OB_LIT(&p->ob, "<- ");
	ob_puts(&p->ob, func);
	if (ev->nfields) {
		OB_LIT(&p->ob, " = ");
		trace_probe_ret(p, ev, vals);
	}
	int64_t d = ts - t->stack[k - 1].ts;
	put_fmt(p, " <%lld.%06lld>", d / 1000000000, d % 1000000000 / 1000);
	trace_printer_line_end(p);
}
