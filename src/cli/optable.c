/* optable.c — options parsed by their table (see optable.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli/optable.h"

int cli_opts_parse(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, const char *invalid,
		   char *err, size_t errlen)
{
	struct option *lo = calloc(n + 1, sizeof(*lo));
	char *shorts = malloc(2 + 3 * n);
	size_t ns = 0, nl = 0;
	int opt, ret = 0;

	if (!lo || !shorts) {
		free(lo);
		free(shorts);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	shorts[ns++] = '+';
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
	optind = 1;
	while (!ret && (opt = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		size_t i = 0;

		while (i < n && t[i].key != opt)
			i++;
		if (i == n) {
			snprintf(err, errlen, "%s", invalid);
			ret = -EINVAL;
		} else {
			ret = t[i].set(args, opt, optarg, err, errlen);
		}
	}
	free(lo);
	free(shorts);
	return ret;
}
