/* lazylib.h — a shared library loaded only when it is used (dlopen/dlsym), so that a scry
 * that never needs it does not map it, nor the libraries it pulls in, at start-up (libcurl,
 * libxml2 and libmicrohttpd bring ~35 more: gnutls, krb5, ldap, icu...).  A consumer keeps
 * a table of pointers typed after the library's own header, from the list of its symbols:
 *
 *   #define CURL_FNS(X, t) X(t, curl_easy_init) X(t, curl_easy_perform)
 *   SCRY_LAZYLIB_DEFINE(curl, curl_lib, "libcurl.so.4", "OTLP export", CURL_FNS);
 *   ...
 *   if (scry_lazylib_load(&curl_lib, err, errlen)) return -ENOENT;   (err: one line)
 *   CURL *c = curl.curl_easy_init();
 *
 * The soname is the runtime package's (libcurl.so.4, not libcurl.so): no -dev package is
 * needed.  A library's global variable (libxml2's xmlFree) is listed like a function: its
 * field is then a pointer to the variable. */
#ifndef SCRY_UTIL_LAZYLIB_H
#define SCRY_UTIL_LAZYLIB_H

#include <pthread.h>
#include <stddef.h>

struct scry_lazysym {
	const char *name;
	void *addr;                      /* where its address goes: a field of the consumer's table */
};

struct scry_lazylib {
	const char *soname;              /* "libcurl.so.4" */
	const char *purpose;             /* "OTLP export": what needs it, for the error */
	const struct scry_lazysym *syms;
	size_t nsyms;
	pthread_mutex_t lock;
	int state;                       /* 0 not tried, 1 loaded, -1 failed (error kept) */
	char error[256];
};

/* static table: a struct of pointers, one per symbol FNS lists (FNS(X, t) expands
 * X(t, name) for each), each typed after the library's declaration of name; static lib: the
 * library, whose scry_lazylib_load fills table. */
#define SCRY_LAZYLIB_DEFINE(table, lib, soname_, purpose_, FNS)                                     \
	static struct {                                                                             \
		FNS(SCRY_LAZY_FIELD_, table)                                                        \
	} table;                                                                                    \
	static const struct scry_lazysym table##_syms[] = { FNS(SCRY_LAZY_SYM_, table) };           \
	static struct scry_lazylib lib = { .soname = soname_, .purpose = purpose_, .syms = table##_syms, \
					   .nsyms = sizeof(table##_syms) / sizeof(table##_syms[0]),          \
					   .lock = PTHREAD_MUTEX_INITIALIZER }
/* A table shared by several files: their header declares it,
 *   struct NAME_fns { FNS(SCRY_LAZY_FIELD_, table) };
 *   extern struct NAME_fns table;  extern struct scry_lazylib lib;
 * and one of them defines it with SCRY_LAZYLIB_DEFINE_SHARED(table, lib, soname, purpose, FNS). */
#define SCRY_LAZYLIB_DEFINE_SHARED(table, lib, soname_, purpose_, FNS)                              \
	__typeof__(table) table;                                                                    \
	static const struct scry_lazysym table##_syms[] = { FNS(SCRY_LAZY_SYM_, table) };           \
	struct scry_lazylib lib = { .soname = soname_, .purpose = purpose_, .syms = table##_syms,   \
				    .nsyms = sizeof(table##_syms) / sizeof(table##_syms[0]),                 \
				    .lock = PTHREAD_MUTEX_INITIALIZER }
#define SCRY_LAZY_FIELD_(table, name) __typeof__(name) *name;
#define SCRY_LAZY_SYM_(table, name) { #name, &(table).name },

/* Open the library and resolve its symbols, once per process (thread-safe); later calls
 * return the first one's result.  0, or -1 with err set to one line:
 * "cannot load libcurl.so.4 (needed for OTLP export): <dlerror>". */
int scry_lazylib_load(struct scry_lazylib *l, char *err, size_t errlen);

#endif
