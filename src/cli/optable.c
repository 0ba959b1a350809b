/* optable.c — options parsed by their table (see optable.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli/optable.h"

/* getopt_long's long options and short string ("+", or "+:" when named) from the table. */
static int build(const struct cli_opt *t, size_t n, int named, struct option **lop, char **shortsp)
{
	struct option *lo = calloc(n + 1, sizeof(*lo));
	char *shorts = malloc(3 + 3 * n);
	size_t ns = 0, nl = 0;

	if (!lo || !shorts) {
		free(lo);
		free(shorts);
		return -ENOMEM;
	}
	shorts[ns++] = '+';
	if (named)
		shorts[ns++] = ':';
	for (size_t i = 0; i < n; i++) {
		if (t[i].name)
			lo[nl++] = (struct option){ t[i].name, t[i].has_arg, NULL, t[i].key };
		if (t[i].key > 0 && t[i].key < 256) {
			shorts[ns++] = (char)t[i].key;
			if (t[i].has_arg != no_argument)
				shorts[ns++] = ':';
			if (t[i].has_arg == optional_argument)
				shorts[ns++] = ':';
		}
	}
	shorts[ns] = '\0';
	*lop = lo;
	*shortsp = shorts;
	return 0;
}

static const struct cli_opt *find(const struct cli_opt *t, size_t n, int key)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].key == key)
			return &t[i];
	return NULL;
}

/* The parse of both: see (named) or invalid (not) is the message for an option outside the table. */
static int run(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, int named, const char *msg,
	       char *err, size_t errlen)
{
	struct option *lo;
	char *shorts;
	int opt, ret = 0;

	if (build(t, n, named, &lo, &shorts)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	optind = named ? 0 : 1;   /* 0: glibc re-initializes its state (clustered options of a previous parse) */
	if (named)
		opterr = 0;
	while (!ret && (opt = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct cli_opt *o = find(t, n, opt);

		if (o) {
			ret = o->set(args, opt, optarg, err, errlen);
			continue;
		}
		ret = -EINVAL;
		if (!named)
			snprintf(err, errlen, "%s", msg);
		else if (opt == ':')
			snprintf(err, errlen, "option '%s' needs an argument", argv[optind - 1]);
		else if (optopt && optopt < 256)
			snprintf(err, errlen, "invalid option '-%c' (see %s)", optopt, msg);
		else
			snprintf(err, errlen, "invalid option '%s' (see %s)", argv[optind - 1], msg);
	}
	free(lo);
	free(shorts);
	return named && ret > 0 ? 0 : ret;
}

int cli_opts_parse(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, const char *invalid,
		   char *err, size_t errlen)
{
	return run(t, n, argc, argv, args, 0, invalid, err, errlen);
}

int cli_opts_parse_named(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, const char *see,
			 char *err, size_t errlen)
{
	return run(t, n, argc, argv, args, 1, see, err, errlen);
}
