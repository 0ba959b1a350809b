/* log.h — how library code (below src/cli) says something that is not an error of the call
 * it is in: through one callback, which the CLI leaves writing to stderr and a daemon can
 * point at its client or its journal.  Levels: SCRY_LOG_INFO (said always), SCRY_LOG_VERBOSE
 * (--verbose: why a filter runs where it runs, libbpf and the verifier). */
#ifndef SCRY_UTIL_LOG_H
#define SCRY_UTIL_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum scry_log_level { SCRY_LOG_INFO, SCRY_LOG_VERBOSE };

/* text: one or more lines, without the last newline */
typedef void (*scry_log_fn)(void *ctx, enum scry_log_level level, const char *text);

/* The callback (NULL: stderr) and whether SCRY_LOG_VERBOSE messages are produced at all. */
void scry_log_set(scry_log_fn fn, void *ctx, bool verbose);
bool scry_log_verbose(void);
void scry_log(enum scry_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void scry_logv(enum scry_log_level level, const char *fmt, va_list ap);

#endif
