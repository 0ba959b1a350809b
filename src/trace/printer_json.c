/* printer_json.c — `scry trace --json`: one object per line, always valid JSON, strings as
 * util/json.h writes them (bytes that are not UTF-8 as U+DC80 + byte), and each field of
 * one JSON type whatever its value (json_int): integers of a 64-bit C type (ts, ret,
 * duration_ns, pointers, size_t, u64 struct fields such as sa_mask and rlim_cur) are exact
 * decimal strings, narrower ones (pid, fds, int flags, signo, exit_code) numbers:
 *   {"event":"syscall","ts":"1700000000000012345","pid":1,"tid":1,"syscall":"openat",
 *    "args":[{"name":"dfd","type":"dirfd","value":-100,"text":"AT_FDCWD"},
 *            {"name":"filename","type":"path","value":"/etc/passwd","text":"\"/etc/passwd\""},
 *            {"name":"flags","type":"flags","value":0,"names":["O_RDONLY"],"text":"O_RDONLY"}],
 *    "ret":"3","error":null,"duration_ns":"12000"}
 *     args: each argument's name (the kernel's), kind, typed value (json_args.c) and the text
 *     strace prints (an argument strace leaves out is left out); "ret" and "error" null and
 *     "unfinished":true for a call that never returned ("detached":true when tracing
 *     stopped first); duration_ns when both ends are known
 *   {"event":"signal","ts":..,"pid":..,"tid":..,"signal":"SIGCHLD","signo":17,
 *    "si_code":"CLD_EXITED","code":1,"si_errno":null}
 *   {"event":"exit","ts":..,"pid":..,"tid":..,"exit_code":0}
 *   {"event":"exit","ts":..,"pid":..,"tid":..,"signal":"SIGKILL","signo":9,"core_dumped":false}
 * ts: nanoseconds since the epoch (the call's entry when known).  A syscall's "ret" is the
 * kernel's long (a file offset may pass 2^53): a string, as every 64-bit value. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "trace/printer_int.h"
#include "util/json.h"

static void head(struct trace_printer *p, const char *event, int64_t ts, int pid, int tid)
{
	OB_LIT(&p->ob, "{\"event\":\"");
	ob_puts(&p->ob, event);
	OB_LIT(&p->ob, "\",\"ts\":");
	json_int(&p->ob, (uint64_t)(ts < 0 ? 0 : ts), 8, true);
	OB_LIT(&p->ob, ",\"pid\":");
	ob_i64(&p->ob, pid);
	OB_LIT(&p->ob, ",\"tid\":");
	ob_i64(&p->ob, tid);
}

/* One argument as an object (name, type, typed value, the text printer's text), after a
 * comma when sep; false when the text printer leaves it out (it prints as nothing). */
static bool json_arg(struct trace_printer *p, const struct trace_call *c, unsigned i,
		     const struct scry_argval *all, bool have_ret, bool sep)
{
	const char *s = p->scratch.buf;
	size_t n;

	rewind(p->ms);
	p->scratch.n = 0;
	trace_printer_fmt_arg(p, &p->scratch, c, i, all, have_ret);
	n = p->scratch.n;
	if (ftell(p->ms) != 0) {
		/* longer than the scratch buffer: it spilled into the memory stream */
		ob_flush(&p->scratch);
		fflush(p->ms);
		s = p->ms_buf;
		n = p->ms_len;
	}
	if (!n)
		return false;
	if (sep)
		ob_putc(&p->ob, ',');
	OB_LIT(&p->ob, "{\"name\":");
	json_cstr(&p->ob, c->args ? c->args[i].name : NULL);
	OB_LIT(&p->ob, ",\"type\":");
	json_cstr(&p->ob, trace_json_kind(c->specs[i].kind));
	trace_json_arg_value(&p->ob, c, i, &all[i], n >= 4 && (!memcmp(s + n - 4, "\"...", 4) ||
							      !memcmp(s + n - 4, "...]", 4) || memmem(s, n, "\"..., ", 6)));
	if (c->specs[i].kind == SCRY_A_FLAGS) {      /* the names the text or-s together */
		OB_LIT(&p->ob, ",\"names\":[");
		for (size_t k = 0, from = 0; k <= n; k++)
			if (k == n || s[k] == '|') {
				if (from)
					ob_putc(&p->ob, ',');
				json_str(&p->ob, s + from, k - from);
				from = k + 1;
			}
		ob_putc(&p->ob, ']');
	}
	OB_LIT(&p->ob, ",\"text\":");
	json_str(&p->ob, s, n);
	ob_putc(&p->ob, '}');
	return true;
}

void trace_json_call(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all,
		     bool unfinished, bool detached)
{
	struct outbuf *ob = &p->ob;

	head(p, "syscall", c->have_entry ? c->ts_entry : c->ts_exit, c->pid, c->tid);
	OB_LIT(ob, ",\"syscall\":");
	json_cstr(ob, c->name);
	OB_LIT(ob, ",\"args\":[");
	for (unsigned i = 0, any = 0; i < c->nargs; i++)
		any |= json_arg(p, c, i, all, !unfinished, any);
	ob_putc(ob, ']');
	if (unfinished) {
		OB_LIT(ob, ",\"ret\":null,\"error\":null,\"unfinished\":true");
		if (detached)
			OB_LIT(ob, ",\"detached\":true");
	} else {
		OB_LIT(ob, ",\"ret\":");
		json_int(ob, (uint64_t)c->ret, 8, true);
		OB_LIT(ob, ",\"error\":");
		if (trace_call_failed(c->ret)) {
			const char *e = scry_errno_name((int)-c->ret);
			char tmp[32];

			if (!e) {
				snprintf(tmp, sizeof(tmp), "ERRNO_%d", (int)-c->ret);
				e = tmp;
			}
			json_cstr(ob, e);
		} else {
			OB_LIT(ob, "null");
		}
		if (c->have_entry) {
			OB_LIT(ob, ",\"duration_ns\":");
			json_int(ob, (uint64_t)(c->ts_exit > c->ts_entry ? c->ts_exit - c->ts_entry : 0), 8, false);
		}
	}
	ob_putc(ob, '}');
	trace_printer_line_end(p);
}

/* {"event":"signal",...,"signal":"SIGCHLD","signo":17,"si_code":"CLD_EXITED","code":1,
 * "si_errno":null,"si_pid":12,"si_uid":0,"si_status":0,"si_utime":"0",...}: the union's
 * members as scry_siginfo_fields lists them, by their C type (si_size), signals and errnos
 * by name. */
static unsigned si_size(const char *name)
{
	static const char *const wide[] = { "si_band", "si_utime", "si_stime", "si_addr", "si_ptr", "si_call_addr" };

	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (!strcmp(name, wide[i]))
			return 8;
	return 4;
}

void trace_json_signal(struct trace_printer *p, int pid, int tid, int64_t ts, const uint8_t *si)
{
	struct outbuf *ob = &p->ob;
	struct scry_si_field f[8];
	int32_t w[3];
	size_t n = scry_siginfo_fields(si, f, 8);

	memcpy(w, si, sizeof(w));
	head(p, "signal", ts, pid, tid);
	OB_LIT(ob, ",\"signal\":");
	json_cstr(ob, scry_signal_name(w[0]));
	OB_LIT(ob, ",\"signo\":");
	ob_i64(ob, w[0]);
	OB_LIT(ob, ",\"si_code\":");
	json_cstr(ob, scry_si_code_name(w[0], w[2]));
	OB_LIT(ob, ",\"code\":");
	ob_i64(ob, w[2]);
	OB_LIT(ob, ",\"si_errno\":");
	json_cstr(ob, w[1] ? scry_errno_name(w[1]) : NULL);
	for (size_t i = 0; i < n && i < 8; i++) {
		if (f[i].kind == SCRY_SI_ERRNO)
			continue;                       /* si_errno above */
		OB_LIT(ob, ",\"");
		ob_puts(ob, f[i].name);
		OB_LIT(ob, "\":");
		switch (f[i].kind) {
		case SCRY_SI_UINT: case SCRY_SI_HEX: case SCRY_SI_PTR:
			json_int(ob, (uint64_t)f[i].v, si_size(f[i].name), false);
			break;
		case SCRY_SI_SIGNAL: json_cstr(ob, scry_signal_name((int)f[i].v)); break;
		default: json_int(ob, (uint64_t)f[i].v, si_size(f[i].name), true); break;
		}
	}
	ob_putc(ob, '}');
	trace_printer_line_end(p);
}

void trace_json_exit(struct trace_printer *p, int pid, int tid, int64_t ts, int status)
{
	struct outbuf *ob = &p->ob;

	head(p, "exit", ts, pid, tid);
	if (WIFSIGNALED(status)) {
		OB_LIT(ob, ",\"signal\":");
		json_cstr(ob, scry_signal_name(WTERMSIG(status)));
		OB_LIT(ob, ",\"signo\":");
		ob_i64(ob, WTERMSIG(status));
		ob_puts(ob, WCOREDUMP(status) ? ",\"core_dumped\":true" : ",\"core_dumped\":false");
	} else {
		OB_LIT(ob, ",\"exit_code\":");
		ob_i64(ob, WEXITSTATUS(status));
	}
	ob_putc(ob, '}');
	trace_printer_line_end(p);
}

void trace_json_probe(struct trace_printer *p, int pid, int tid, int64_t ts, const char *label,
		      const struct scry_event *ev, const struct scry_fieldval *vals)
{
	struct outbuf *ob = &p->ob;

	head(p, "probe", ts, pid, tid);
	OB_LIT(ob, ",\"probe\":");
	json_cstr(ob, label);
	OB_LIT(ob, ",\"args\":{");
	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct scry_field *f = &ev->fields[i];

		if (i)
			ob_putc(ob, ',');
		json_cstr(ob, f->name);
		ob_putc(ob, ':');
		if (f->type == SCRY_F_STRING)
			json_str(ob, vals[i].p, vals[i].len);
		else
			json_int(ob, vals[i].v, f->size, f->type == SCRY_F_INT && f->is_signed);
	}
	OB_LIT(ob, "}}");
	trace_printer_line_end(p);
}
