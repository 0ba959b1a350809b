/* version.h — scry's version (scry --version, the trace metadata's scry_tracer_* env; the lttng-modules
 * version declared in tracer_*). */
#ifndef SCRY_UTIL_VERSION_H
#define SCRY_UTIL_VERSION_H

#define SCRY_VERSION_MAJOR 0
#define SCRY_VERSION_MINOR 1
#define SCRY_VERSION_PATCH 0

/* The lttng-modules release whose kernel trace layout (event and field names, env) scry's
 * traces follow: declared as the trace's tracer_* env so that Trace Compass chooses its
 * current LTTng kernel layout; scry's own version goes in scry_tracer_*. */
#define SCRY_LTTNG_MODULES_MAJOR 2
#define SCRY_LTTNG_MODULES_MINOR 13
#define SCRY_LTTNG_MODULES_PATCHLEVEL 0

#endif
