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
int cmd_profile(int argc, char **argv);  /* src/cli/profile.c */
/* src/cli/control.c: the session verbs of ctl/verbs.h, through the daemon */
int cmd_control(int argc, char **argv);
/* `scry list [NAME]` when a daemon runs: its sessions, or session NAME (*handled false:
 * no daemon, or no such session — the events are listed instead) */
#include <stdbool.h>
int cmd_list_sessions(int argc, char **argv, bool *handled);
/* `scry view [NAME]`: session NAME's (NULL: the current one's) trace directory, asked of a
 * running daemon (none is started).  0, or 1: the reason printed, or *no_daemon. */
int cmd_session_trace_dir(const char *name, char *dir, size_t len, bool *no_daemon);
int cmd_daemon(int argc, char **argv);   /* scryd, or `scry daemon` */

#endif
