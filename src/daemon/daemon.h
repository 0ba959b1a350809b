/* daemon.h — scryd, the session daemon: one per machine, it owns the recording sessions
 * (their BPF objects, rings and consumers, all on one event loop) and serves the control
 * verbs over a root-only UNIX socket ($SCRY_RUNDIR or /run/scry, then /control).
 * See docs/DAEMON.md. */
#ifndef SCRY_DAEMON_H
#define SCRY_DAEMON_H

/* `scryd [--foreground] [--group NAME]` (or `scry daemon ...`): the process exit status. */
int scryd_main(int argc, char **argv);

#endif
