/* privs.h — does this process have what loading tracing BPF programs needs? */
#ifndef SCRY_PRIVS_H
#define SCRY_PRIVS_H

#include <stddef.h>

/* 0, or -EPERM with a one-line message naming what is missing. */
int scry_check_privileges(const char *what, char *err, size_t errlen);

#endif
