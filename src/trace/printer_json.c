/* printer_json.c — `scry trace --json`: one object per line, always valid JSON:
 *   {"event":"syscall","ts":1700000000.000012345,"pid":1,"tid":1,"syscall":"openat",
 *    "args":["AT_FDCWD","\"/etc/passwd\"","O_RDONLY"],"ret":3,"error":null,
 *    "duration_ns":12000}
 *     args: each argument exactly as the text output prints it; "ret" and "error" null and
 *     "unfinished":true for a call that never returned ("detached":true when tracing
 *     stopped first); duration_ns when both ends are known
 *   {"event":"signal","ts":..,"pid":..,"tid":..,"signal":"SIGCHLD","signo":17,
 *    "si_code":"CLD_EXITED","code":1,"si_errno":null}
 *   {"event":"exit","ts":..,"pid":..,"tid":..,"exit_code":0}
 *   {"event":"exit","ts":..,"pid":..,"tid":..,"signal":"SIGKILL","signo":9,"core_dumped":false}
 * ts: seconds since the epoch with nanoseconds (the call's entry when known). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "trace/printer_int.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;      /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f;      /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90;      /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f;      /* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

void trace_json_str(struct outbuf *ob, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	static const char hex[] = "0123456789abcdef";

	ob_putc(ob, '"');
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t run = i;

		/* copy a run of plain ASCII at once */
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {
			ob_write(ob, s + i, run - i);
			i = run;
			continue;
		}
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			ob_write(ob, e, 2);
			i++;
		} else if (c < 0x20) {
			const char *e = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" :
					c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;

			if (e) {
				ob_write(ob, e, 2);
			} else {
				char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

				ob_write(ob, u, 6);
			}
			i++;
		} else {
			size_t l = utf8_len(s + i, n - i);

			if (l) {
				ob_write(ob, s + i, l);
				i += l;
			} else {   /* not UTF-8: the byte as a code point */
				char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

				ob_write(ob, u, 6);
				i++;
			}
		}
	}
	ob_putc(ob, '"');
}

static void json_cstr(struct outbuf *ob, const char *s)
{
	if (s)
		trace_json_str(ob, s, strlen(s));
	else
		OB_LIT(ob, "null");
}

static void head(struct trace_printer *p, const char *event, int64_t ts, int pid, int tid)
{
	char tmp[64];
	int n;

	if (ts < 0)
		ts = 0;
	n = snprintf(tmp, sizeof(tmp), "%lld.%09lld", (long long)(ts / 1000000000), (long long)(ts % 1000000000));
	OB_LIT(&p->ob, "{\"event\":\"");
	ob_puts(&p->ob, event);
	OB_LIT(&p->ob, "\",\"ts\":");
	ob_write(&p->ob, tmp, (size_t)n);
	OB_LIT(&p->ob, ",\"pid\":");
	ob_i64(&p->ob, pid);
	OB_LIT(&p->ob, ",\"tid\":");
	ob_i64(&p->ob, tid);
}

/* One argument formatted by the text printer, then escaped, after a comma when sep;
 * false when the text printer leaves it out (it prints as nothing). */
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
	trace_json_str(&p->ob, s, n);
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
		ob_i64(ob, c->ret);
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
			ob_i64(ob, c->ts_exit > c->ts_entry ? c->ts_exit - c->ts_entry : 0);
		}
	}
	ob_putc(ob, '}');
	trace_printer_line_end(p);
}

/* {"event":"signal",...,"signal":"SIGCHLD","signo":17,"si_code":"CLD_EXITED","code":1,
 * "si_errno":null,"si_pid":12,"si_uid":0,"si_status":0,...}: the union's members as
 * scry_siginfo_fields lists them, numbers as numbers, addresses as "0x..." strings,
 * signals and errnos by name. */
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
		char hex[24];

		if (f[i].kind == SCRY_SI_ERRNO)
			continue;                       /* si_errno above */
		OB_LIT(ob, ",\"");
		ob_puts(ob, f[i].name);
		OB_LIT(ob, "\":");
		switch (f[i].kind) {
		case SCRY_SI_UINT: ob_u64(ob, (uint64_t)f[i].v); break;
		case SCRY_SI_HEX: case SCRY_SI_PTR:
			snprintf(hex, sizeof(hex), "%#llx", (unsigned long long)f[i].v);
			json_cstr(ob, hex);
			break;
		case SCRY_SI_SIGNAL: json_cstr(ob, scry_signal_name((int)f[i].v)); break;
		default: ob_i64(ob, f[i].v); break;
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
