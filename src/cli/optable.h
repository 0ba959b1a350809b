/* optable.h — a command's options as one table: each option's long name, its key (the short
 * letter, or a number from 256 for a long option only), whether it takes an argument, and the
 * function that applies it to the command's arguments.  getopt_long's long options and short
 * string are made from the table, so an option is described once. */
#ifndef SCRY_CLI_OPTABLE_H
#define SCRY_CLI_OPTABLE_H

#include <getopt.h>
#include <stddef.h>

/* Apply the option key (its argument arg, NULL when it has none) to args: 0, -EINVAL with err
 * filled, or -ENOMEM. */
typedef int (*cli_opt_fn)(void *args, int key, const char *arg, char *err, size_t errlen);

struct cli_opt {
	const char *name;    /* --name, or NULL for a short option only */
	int key;             /* 'x' for -x too, or >= 256 */
	int has_arg;         /* no_argument, required_argument, optional_argument */
	cli_opt_fn set;
};

/* Parse argv[1..] by the table's n options, stopping at the first operand or "--" (optind is
 * left there, as getopt_long's "+" does); an option not in the table fills err with
 * `invalid` and gives -EINVAL.  Returns 0 or the first nonzero of an option's function. */
int cli_opts_parse(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, const char *invalid,
		   char *err, size_t errlen);

/* As cli_opts_parse, for a command that names getopt's errors itself (strace's spellings):
 * getopt prints nothing; an option not in the table gives "invalid option '-x' (see SEE)"
 * (the letter getopt names, or the word as given), a missing argument "option 'WORD' needs
 * an argument"; an option's function returning 1 ends the parse with 0 (--help).  glibc's
 * state is restarted (optind 0), so a cluster a previous parse left is not resumed. */
int cli_opts_parse_named(const struct cli_opt *t, size_t n, int argc, char **argv, void *args, const char *see,
			 char *err, size_t errlen);

#endif
