/* lazylib.c — shared libraries loaded when first used (see lazylib.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "util/lazylib.h"

static int load(struct scry_lazylib *l)
{
	/* RTLD_LOCAL: the library's symbols stay out of the global namespace */
	void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	const char *why;

	if (!h) {
		why = dlerror();
		snprintf(l->error, sizeof(l->error), "cannot load %s (needed for %s): %s", l->soname, l->purpose,
			 why ? why : "unknown error");
		return -1;
	}
	for (size_t i = 0; i < l->nsyms; i++) {
		void *p;

		dlerror();
		p = dlsym(h, l->syms[i].name);
		if (!p) {
			why = dlerror();
			snprintf(l->error, sizeof(l->error), "cannot load %s (needed for %s): %s", l->soname,
				 l->purpose, why ? why : "symbol not found");
			dlclose(h);
			return -1;
		}
		/* POSIX: an object pointer from dlsym converts to the function pointer it is */
		memcpy(l->syms[i].addr, &p, sizeof(p));
	}
	return 0;   /* h stays open for the process's life */
}

int scry_lazylib_load(struct scry_lazylib *l, char *err, size_t errlen)
{
	int state;

	pthread_mutex_lock(&l->lock);
	if (!l->state)
		l->state = load(l) ? -1 : 1;
	state = l->state;
	pthread_mutex_unlock(&l->lock);
	if (state < 0) {
		snprintf(err, errlen, "%s", l->error);
		return -1;
	}
	return 0;
}
