/* pathtrace.c — `scry trace -P PATH`: a call is shown when one of its path arguments is
 * PATH as the program wrote it, or one of its descriptors (or a *at call's directory)
 * refers to PATH, as strace's pathtrace_match decides (the descriptors' paths from the fd
 * table, fdtrack.c, absolute; a relative path argument is compared as written). */
#include <stdlib.h>
#include <string.h>
#include "trace/printer_int.h"

static bool is_path(const struct trace_printer *p, const char *s, size_t n)
{
	for (size_t i = 0; i < p->npaths; i++)
		if (strlen(p->paths[i]) == n && !memcmp(p->paths[i], s, n))
			return true;
	return false;
}

bool trace_printer_path_match(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all)
{
	if (!p->npaths)
		return true;
	for (unsigned i = 0; c->specs && i < c->nargs; i++) {
		const struct scry_argval *v = &all[i];

		if (!v->have)
			continue;
		switch (c->specs[i].kind) {
		case SCRY_A_PATH:
			if (v->p && !v->truncated && is_path(p, (const char *)v->p, v->len))
				return true;
			break;
		case SCRY_A_FD:
		case SCRY_A_DIRFD: {
			int fd = (int32_t)v->v;
			const char *path;

			if (fd == -100 && c->specs[i].kind == SCRY_A_DIRFD)
				break;   /* strace matches no working directory */
			if (fd >= 0 && (path = fdtrack_path(&p->fds, c->pid, fd)) && is_path(p, path, strlen(path)))
				return true;
			break;
		}
		default:
			break;
		}
	}
	return false;
}

int trace_printer_add_path(struct trace_printer *p, const char *path)
{
	char **v = realloc(p->paths, (p->npaths + 1) * sizeof(*v));

	if (!v)
		return -1;
	p->paths = v;
	if (!(v[p->npaths] = strdup(path)))
		return -1;
	p->npaths++;
	return 0;
}
