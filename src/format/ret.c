/* ret.c — strace's return column: "= 3", "= 0x7f1234560000" for calls returning
 * addresses, "= 022" for umask, "= -1 ENOENT (No such file or directory)" for errors,
 * "= ? ERESTARTSYS (To be restarted if SA_RESTART is set)" for the kernel's restart
 * codes, "= ?" for calls that do not return (exit, exit_group); and the decoded extras
 * strace adds after some of them ("= 0x1 (flags FD_CLOEXEC)", "= 1 ([{fd=3, revents=POLLIN}])",
 * select's "= 1 (in [3], left {tv_sec=0, tv_usec=999})"). */
#include <string.h>
#include "format/format.h"
#include "catalog/structs.h"
#include "format/fmt_internal.h"

/* What a syscall's name decides of its return column (scry_fmt_ret_class). */
enum {
	RC_NORETURN = 1 << 0,      /* exit, exit_group: "= ?" */
	RC_HEX = 1 << 1,           /* an address */
	RC_OCT = 1 << 2,           /* umask */
	RC_FCNTL = 1 << 3,
	RC_POLL = 1 << 4,
	RC_PPOLL = 1 << 5,
	RC_SELECT = 1 << 6,
	RC_PSELECT = 1 << 7,       /* pselect6 */
	RC_SIGWAIT = 1 << 8,       /* rt_sigtimedwait, rt_sigwaitinfo */
	RC_PRCTL = 1 << 9,
	RC_PERSONALITY = 1 << 10,
};

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (name[0] == (*list)[0] && !strcmp(name, *list))
			return true;
	return false;
}

unsigned scry_fmt_ret_class(const char *syscall)
{
	static const char *const noreturn[] = { "exit", "exit_group", NULL };
	static const char *const hexret[] = { "mmap", "mremap", "brk", "shmat", NULL };
	const char *name = syscall ? syscall : "";

	return (in_list(name, noreturn) ? RC_NORETURN : 0) | (in_list(name, hexret) ? RC_HEX : 0) |
	       (FMT_STREQ(name, "umask") ? RC_OCT : 0) | (FMT_STREQ(name, "fcntl") ? RC_FCNTL : 0) |
	       (FMT_STREQ(name, "poll") ? RC_POLL : 0) | (FMT_STREQ(name, "ppoll") ? RC_PPOLL : 0) |
	       (FMT_STREQ(name, "select") ? RC_SELECT : 0) | (FMT_STREQ(name, "pselect6") ? RC_PSELECT : 0) |
	       (FMT_STREQ(name, "rt_sigtimedwait") || FMT_STREQ(name, "rt_sigwaitinfo") ? RC_SIGWAIT : 0) |
	       (FMT_STREQ(name, "prctl") ? RC_PRCTL : 0) | (FMT_STREQ(name, "personality") ? RC_PERSONALITY : 0);
}

static void ret_plain(struct outbuf *ob, unsigned k, int64_t ret)
{
	if (k & RC_NORETURN) {
		OB_LIT(ob, "= ?");
		return;
	}
	if (ret < 0 && ret >= -4095) {
		int err = (int)-ret;
		const char *ename = scry_errno_name(err), *text = scry_errno_text(err);

		if (err == 512 || err == 513 || err == 514 || err == 516) {
			OB_LIT(ob, "= ? ");
		} else {
			OB_LIT(ob, "= -1 ");
		}
		if (ename) {
			ob_puts(ob, ename);
		} else {
			OB_LIT(ob, "ERRNO_");
			ob_u64(ob, (uint64_t)err);
		}
		OB_LIT(ob, " (");
		if (text) {
			ob_puts(ob, text);
		} else {
			OB_LIT(ob, "Unknown error ");
			ob_u64(ob, (uint64_t)err);
		}
		ob_putc(ob, ')');
		return;
	}
	OB_LIT(ob, "= ");
	if (k & RC_HEX)
		fmt_hex(ob, (uint64_t)ret);
	else if (k & RC_OCT)
		fmt_oct(ob, (uint64_t)ret);
	else
		ob_i64(ob, ret);
}

void scry_fmt_ret(struct outbuf *ob, const char *syscall, int64_t ret)
{
	ret_plain(ob, scry_fmt_ret_class(syscall), ret);
}

/* poll's " ([{fd=3, revents=POLLIN}])": the entries with events, from the exit capture */
static void put_revents(struct outbuf *ob, int64_t ret, const struct scry_argval *fds,
			const struct scry_argval *left, const struct scry_fmt_opts *o)
{
	uint32_t n = fds->have && fds->p ? fds->len / 8 : 0, shown = 0;
	bool any = ret > 0 && n;

	if (!any && !(left && left->have && left->p && left->len >= 16))
		return;
	OB_LIT(ob, " (");
	if (any) {
		ob_putc(ob, '[');
		for (uint32_t i = 0; i < n && shown < (uint64_t)ret; i++) {
			const uint8_t *e = fds->p + (size_t)i * 8;
			uint64_t revents = fmt_get(e + 6, 2);

			if (!revents)
				continue;
			if (shown++)
				OB_LIT(ob, ", ");
			OB_LIT(ob, "{fd=");
			ob_i64(ob, fmt_gets(e, 4));
			OB_LIT(ob, ", revents=");
			fmt_named(ob, "poll_events", revents);
			ob_putc(ob, '}');
		}
		ob_putc(ob, ']');
	}
	if (left && left->have && left->p && left->len >= 16) {
		ob_puts(ob, any ? ", left " : "left ");
		scry_fmt_struct(ob, "timespec", left->p, left->len, o);
	}
	ob_putc(ob, ')');
}

void scry_fmt_ret_call_k(struct outbuf *ob, unsigned k, int64_t ret, const struct scry_argspec *specs,
			 const struct scry_argval *all, unsigned nargs, const struct scry_fmt_opts *o)
{
	if (!all || (ret < 0 && ret >= -4095)) {
		ret_plain(ob, k, ret);
		return;
	}
	if ((k & RC_FCNTL) && nargs >= 2 && all[1].have) {
		uint64_t cmd = all[1].v & 0xffffffff;

		if (cmd == 3 || (cmd == 1 && ret > 0)) {        /* F_GETFL; F_GETFD */
			OB_LIT(ob, "= ");
			fmt_hex(ob, (uint64_t)ret);
			OB_LIT(ob, " (flags ");
			int style = fmt_xlat_style;

			if (cmd == 3)      /* F_GETFL's flags keep their names under -X, as strace's */
				fmt_xlat_style = SCRY_XLAT_ABBREV;
			fmt_named(ob, cmd == 3 ? "open" : "fdflags", (uint64_t)ret);
			fmt_xlat_style = style;
			ob_putc(ob, ')');
			return;
		}
	}
	ret_plain(ob, k, ret);
	if (ret == 0 && (k & (RC_POLL | RC_PPOLL | RC_SELECT | RC_PSELECT))) {
		OB_LIT(ob, " (Timeout)");
		return;
	}
	if ((k & (RC_SELECT | RC_PSELECT)) && ret > 0)
		fmt_select_ready(ob, ret, all, nargs, (k & RC_PSELECT) != 0, o);
	else if ((k & (RC_POLL | RC_PPOLL)) && nargs >= 1)
		put_revents(ob, ret, &all[0], (k & RC_PPOLL) && nargs >= 3 && ret >= 0 ? &all[2] : NULL, o);
	else if ((k & RC_SIGWAIT) && ret > 0) {
		OB_LIT(ob, " (");
		fmt_signame(ob, ret);
		ob_putc(ob, ')');
	} else if ((k & RC_PRCTL) && nargs >= 1 && all[0].have && (all[0].v & 0xffffffff) == 3 && ret >= 0) {
		OB_LIT(ob, " (");                               /* PR_GET_DUMPABLE */
		fmt_named(ob, "suid_dump", (uint64_t)ret);
		ob_putc(ob, ')');
	} else if ((k & RC_PERSONALITY) && ret >= 0) {
		OB_LIT(ob, " (");
		fmt_named(ob, "personality", (uint64_t)ret);
		ob_putc(ob, ')');
	}
	(void)specs;
}

void scry_fmt_ret_call(struct outbuf *ob, const char *syscall, int64_t ret, const struct scry_argspec *specs,
		       const struct scry_argval *all, unsigned nargs, const struct scry_fmt_opts *o)
{
	scry_fmt_ret_call_k(ob, scry_fmt_ret_class(syscall), ret, specs, all, nargs, o);
}
