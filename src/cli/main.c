/* main.c — `scry COMMAND ...`: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "ctl/verbs.h"
#include "util/heap.h"
#include "util/version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry COMMAND [OPTIONS]\n"
		"\n"
		"  record [-o DIR] [-e EVENT]... [-c CTX,...] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     record kernel events into a CTF trace (LTTng kernel layout);\n"
		"                     -e uprobe:PATH:FUNC, uretprobe:PATH:FUNC, usdt:PATH:PROV:NAME,\n"
		"                     uprobe:PATH:FILE:LINE: dynamic probes, typed from DWARF\n"
		"  trace [-f] [-T] [-tt] [-e trace=SET] [-c] [-o FILE] [-p PID|-a|-- CMD ARGS]\n"
		"                     strace-style live output, decoded in the kernel\n"
		"  view [--json] DIR|SESSION  print a recorded trace, one line per event, time-ordered\n"
		"  list [GLOB|syscalls|contexts|features|uprobe:PATH[:GLOB]|usdt:PATH]\n"
		"                     show available tracepoints, syscalls, contexts, kernel features,\n"
		"                     a binary's functions with their parameters, its USDT probes\n"
		"  recover DIR        make a trace whose recorder died readable (complete packets kept)\n"
		"  serve --config FILE [--listen ADDR:PORT] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     syscall metrics kept in the kernel, served to Prometheus\n"
		"  profile [-F HZ] [-o OUT.svg|.folded|.pb.gz] [--report] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     sample kernel and user stacks: flame graph, folded stacks, pprof\n"
		"  top [-d SECONDS] [-n COUNT] [-S] [-s KEY] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     live table of syscalls per process: calls/s, errors, latency, bytes\n"
		"\n"
		"Sessions, through the daemon scryd (LTTng's commands and options):\n"
		"  create [NAME] [-o DIR] [--snapshot] [--clock C]  enable-channel/disable-channel -k CHAN\n"
		"  enable-event/disable-event -k [-c CHAN] [--syscall] EVENT  add-context -k -t TYPE\n"
		"  track/untrack -k --pid PID  start  stop  list [NAME]  status  view [NAME]  set-session NAME\n"
		"  snapshot record  rotate  enable-rotation/disable-rotation  save  load  destroy [NAME|-a]\n"
		"  daemon [--foreground]\n"
		"\n"
		"`scry COMMAND --help` describes each command.\n");
}

/* `scry list [NAME]` lists the daemon's sessions when one runs (as `lttng list`), the
 * events otherwise, and always with -k or a keyword of the event listing. */
static int list(int argc, char **argv)
{
	bool handled = false;
	int ret;

	for (int i = 1; i < argc; i++)   /* a session's channel or domains: the daemon's */
		if (!strcmp(argv[i], "-d") || !strcmp(argv[i], "--domain") || !strcmp(argv[i], "-c") ||
		    !strncmp(argv[i], "--channel", 9))
			return cmd_control(argc, argv);
	if (argc <= 2 && !(argc == 2 && (argv[1][0] == '-' || strchr(argv[1], ':') ||
					 !strcmp(argv[1], "syscalls") || !strcmp(argv[1], "contexts") ||
					 !strcmp(argv[1], "features")))) {
		ret = cmd_list_sessions(argc, argv, &handled);
		if (handled)
			return ret;
	}
	return cmd_list(argc, argv);
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	bool daemon = !strcmp(base ? base + 1 : argv[0], "scryd");

	scry_heap_init();
	if (daemon)
		return cmd_daemon(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(cmd, "view"))
		return cmd_view(argc - 1, argv + 1);
	if (!strcmp(cmd, "list"))
		return list(argc - 1, argv + 1);
	if (!strcmp(cmd, "daemon"))
		return cmd_daemon(argc - 1, argv + 1);
	if (scry_ctl_verb(cmd))
		return cmd_control(argc - 1, argv + 1);
	if (!strcmp(cmd, "recover"))
		return cmd_recover(argc - 1, argv + 1);
	if (!strcmp(cmd, "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "top"))
		return cmd_top(argc - 1, argv + 1);
	if (!strcmp(cmd, "profile"))
		return cmd_profile(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("scry %d.%d.%d\n", SCRY_VERSION_MAJOR, SCRY_VERSION_MINOR, SCRY_VERSION_PATCH);
		return 0;
	}
	fprintf(stderr, "scry: unknown command '%s' (try: record, trace, view, list, recover, serve, top, profile)\n", cmd);
	return 2;
}
