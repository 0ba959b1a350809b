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
		"                     record kernel events into a CTF trace (LTTng kernel layout);\n"
		"                     -e uprobe:PATH:FUNC, uretprobe:PATH:FUNC, usdt:PATH:PROV:NAME,\n"
		"                     uprobe:PATH:FILE:LINE: dynamic probes, typed from DWARF\n"
		"  trace [-f] [-T] [-tt] [-e trace=SET] [-c] [-o FILE] [-p PID|-a|-- CMD ARGS]\n"
		"                     strace-style live output, decoded in the kernel\n"
		"  view [--json] DIR  print a recorded trace, one line per event, time-ordered\n"
		"  list [GLOB|syscalls|contexts|features|uprobe:PATH[:GLOB]|usdt:PATH]\n"
		"                     show available tracepoints, syscalls, contexts, kernel features,\n"
		"                     a binary's functions with their parameters, its USDT probes\n"
		"  recover DIR        make a trace whose recorder died readable (complete packets kept)\n"
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
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("scry %d.%d.%d\n", SCRY_VERSION_MAJOR, SCRY_VERSION_MINOR, SCRY_VERSION_PATCH);
		return 0;
	}
	fprintf(stderr, "scry: unknown command '%s' (try: record, trace, view, list, recover)\n", cmd);
	return 2;
}
