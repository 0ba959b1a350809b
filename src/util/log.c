/* log.c — the library's messages through one callback (see log.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/log.h"

static scry_log_fn log_fn;
static void *log_ctx;
static bool log_verbose;

void scry_log_set(scry_log_fn fn, void *ctx, bool verbose)
{
	log_fn = fn;
	log_ctx = ctx;
	log_verbose = verbose;
}

bool scry_log_verbose(void)
{
	return log_verbose;
}

void scry_logv(enum scry_log_level level, const char *fmt, va_list ap)
{
	char buf[1024], *text = buf;
	va_list aq;
	int n;

	if (level == SCRY_LOG_VERBOSE && !log_verbose)
		return;
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf) && !(text = malloc((size_t)n + 1)))
		text = buf;              /* cut, rather than nothing */
	else if (n >= (int)sizeof(buf))
		vsnprintf(text, (size_t)n + 1, fmt, ap);
	n = (int)strlen(text);
	while (n > 0 && text[n - 1] == '\n')
		text[--n] = 0;       /* the callback gets lines without the last newline */
	if (log_fn)
		log_fn(log_ctx, level, text);
	else
		fprintf(stderr, "%s\n", text);
	if (text != buf)
		free(text);
}

void scry_log(enum scry_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	scry_logv(level, fmt, ap);
	va_end(ap);
}
