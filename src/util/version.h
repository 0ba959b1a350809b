/* version.h — scry's version (scry --version, the trace metadata's tracer_* env). */
#ifndef SCRY_UTIL_VERSION_H
#define SCRY_UTIL_VERSION_H

#define SCRY_VERSION_MAJOR 0
#define SCRY_VERSION_MINOR 1
#define SCRY_VERSION_PATCH 0

#endif
