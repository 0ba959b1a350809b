/* commands.h — the scry subcommands; each parses its own options (getopt_long) and
 * returns the process exit status. */
#ifndef SCRY_COMMANDS_H
#define SCRY_COMMANDS_H

int cmd_record(int argc, char **argv);   /* src/cli/record.c */
int cmd_view(int argc, char **argv);     /* src/cli/view.c   */
int cmd_list(int argc, char **argv);     /* src/cli/list.c   */
int cmd_trace(int argc, char **argv);    /* src/cli/trace.c  */
int cmd_recover(int argc, char **argv);  /* src/cli/recover.c */
int cmd_serve(int argc, char **argv);    /* src/cli/serve.c  */
int cmd_top(int argc, char **argv);      /* src/cli/top.c    */

#endif
