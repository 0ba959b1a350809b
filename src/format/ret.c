/* ret.c — strace's return column: "= 3", "= 0x7f1234560000" for calls returning
 * addresses, "= 022" for umask, "= -1 ENOENT (No such file or directory)" for errors,
 * "= ? ERESTARTSYS (To be restarted if SA_RESTART is set)" for the kernel's restart
 * codes, "= ?" for calls that do not return (exit, exit_group). */
#include <string.h>
#include "format/format.h"
#include "format/fmt_internal.h"

static bool in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return true;
	return false;
}

void scry_fmt_ret(struct outbuf *ob, const char *syscall, int64_t ret)
{
	static const char *const noreturn[] = { "exit", "exit_group", NULL };
	static const char *const hexret[] = { "mmap", "mremap", "brk", "shmat", NULL };
	const char *name = syscall ? syscall : "";

	if (in_list(name, noreturn)) {
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
	if (in_list(name, hexret))
		fmt_hex(ob, (uint64_t)ret);
	else if (!strcmp(name, "umask"))
		fmt_oct(ob, (uint64_t)ret);
	else
		ob_i64(ob, ret);
}
