/* main.c — `scry COMMAND ...`: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "util/version.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry COMMAND [OPTIONS]\n"
		"\n"
		"  record [-o DIR] [-e EVENT]... [-c CTX,...] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     record kernel events into a CTF trace (LTTng kernel layout)\n"
		"  trace [-f] [-T] [-tt] [-e trace=SET] [-c] [-o FILE] [-p PID|-a|-- CMD ARGS]\n"
		"                     strace-style live output, decoded in the kernel\n"
		"  view [--json] DIR  print a recorded trace, one line per event, time-ordered\n"
		"  list [GLOB|syscalls|contexts]\n"
		"                     show available tracepoints, syscalls or contexts\n"
		"  recover DIR        make a trace whose recorder died readable (complete packets kept)\n"
		"  serve --config FILE [--listen ADDR:PORT] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     syscall metrics kept in the kernel, served to Prometheus\n"
		"  top [-d SECONDS] [-n COUNT] [-s KEY] [-p PID,...|-a|-- CMD ARGS]\n"
		"                     live table of syscalls per process: calls/s, errors, latency, bytes\n"
		"\n"
		"`scry COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv)
{
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
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "recover"))
		return cmd_recover(argc - 1, argv + 1);
	if (!strcmp(cmd, "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "top"))
		return cmd_top(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("scry %d.%d.%d\n", SCRY_VERSION_MAJOR, SCRY_VERSION_MINOR, SCRY_VERSION_PATCH);
		return 0;
	}
	fprintf(stderr, "scry: unknown command '%s' (try: record, trace, view, list, recover, serve, top)\n", cmd);
	return 2;
}
