/* verbs_snapshot.c — a snapshot session's output, LTTng's `snapshot add-output`,
 * `list-output` and `del-output`: one output at a time (lttng 2.13's kernel and user space
 * sessions hold one), numbered from 1 (`create --snapshot` makes output 1, `snapshot-1`, at
 * the session's directory), each named (-n, default `snapshot-ID`), with a maximum size (-m:
 * `snapshot record` without -m keeps within it).  `snapshot record` without a path writes to
 * it; with none left it fails as lttng's does.  Local outputs only (a path or file://). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/verbs_int.h"
#include "util/parse.h"

/* The output of s now (NULL: deleted): the default one until add-output or del-output. */
const struct dsnap_output *dsession_snapshot_output(struct dsession *s)
{
	if (s->snap_out.state == DSNAP_DEFAULT) {
		s->snap_out.id = 1;
		snprintf(s->snap_out.name, sizeof(s->snap_out.name), "snapshot-1");
		s->snap_out.max = 0;
		s->snap_out.file_url = false;
		free(s->snap_out.path);
		if (!(s->snap_out.path = strdup(s->dir)))
			return NULL;
		s->snap_out.state = DSNAP_SET;
		s->snap_out.next_id = 2;
	}
	return s->snap_out.state == DSNAP_SET ? &s->snap_out : NULL;
}

/* lttng's line of an output: "[1] snapshot-1: /path (max size: 4096 bytes)"; add-output
 * echoes a file:// URL as given (as_given), list-output shows its path */
static void output_line(FILE *out, const char *indent, const struct dsnap_output *o, bool as_given)
{
	fprintf(out, "%s[%u] %s: %s%s", indent, o->id, o->name, as_given && o->file_url ? "file://" : "", o->path);
	if (o->max)
		fprintf(out, " (max size: %llu bytes)", (unsigned long long)o->max);
	fprintf(out, "\n");
}

int verb_snapshot_output(struct verb_ctx *v, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "session", required_argument, NULL, 's' }, { "name", required_argument, NULL, 'n' },
		{ "max-size", required_argument, NULL, 'm' }, { 0 } };
	struct dreply *r = v->r;
	const char *action = argv[1], *sname = NULL, *name = NULL;
	const struct dsnap_output *o;
	uint64_t max = 0;
	struct dsession *s;
	char *path = NULL;
	int opt, ret;

	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, ":s:n:m:", lo, NULL)) != -1) {
		switch (opt) {
		case 's': sname = optarg; break;
		case 'n':
			if (!dsession_name_ok(optarg) || strlen(optarg) >= sizeof(((struct dsnap_output *)0)->name))
				return ERR("invalid snapshot output name '%s' (letters, digits, '_', '-', '.')", optarg);
			name = optarg;
			break;
		case 'm':
			if (scry_parse_size(optarg, &max) || !max)
				return ERR("invalid maximum size '%s' (expected e.g. 4M, 1G)", optarg);
			break;
		default: return bad_option(v, argc, argv);
		}
	}
	if (!(s = target(v, sname)))
		return -ENOENT;
	if (!s->snapshot)   /* lttng's words */
		return ERR("Snapshot command can't be applied to a non-snapshot session");
	o = dsession_snapshot_output(s);
	if (!strcmp(action, "list-output")) {
		if (optind < argc || name || max)
			return ERR("snapshot list-output: no argument but -s");
		fprintf(r->out, "Snapshot output list for session %s\n", s->name);
		if (o)
			output_line(r->out, "    ", o, false);
		else
			fprintf(r->out, "    None\n");
		return 0;
	}
	if (!strcmp(action, "del-output")) {
		char id[16];

		if (optind + 1 != argc || name || max)
			return ERR("snapshot del-output: give the output's ID or NAME");
		if (o)
			snprintf(id, sizeof(id), "%u", o->id);
		if (!o || (strcmp(argv[optind], id) && strcmp(argv[optind], o->name)))
			return ERR("Invalid parameter: no snapshot output '%s' in session %s", argv[optind], s->name);
		fprintf(r->out, "Snapshot output %s%s successfully deleted for session %s\n",
			strcmp(argv[optind], id) ? "" : "id ", argv[optind], s->name);
		s->snap_out.state = DSNAP_DELETED;
		return 0;
	}
	/* add-output PATH|file://PATH */
	if (optind + 1 != argc)
		return ERR("snapshot add-output: give one output (a path or file://PATH)");
	if (o)
		return ERR("Snapshot output already exists");
	if (strstr(argv[optind], "://") && strncmp(argv[optind], "file://", 7))
		return ERR("snapshot add-output: scry writes local snapshots only (file:// or a path)");
	if ((ret = resolve_path(v, !strncmp(argv[optind], "file://", 7) ? argv[optind] + 7 : argv[optind], &path)))
		return ret;
	free(s->snap_out.path);
	s->snap_out.path = path;
	s->snap_out.id = s->snap_out.next_id++;
	s->snap_out.max = max;
	s->snap_out.file_url = !strncmp(argv[optind], "file://", 7);
	if (name)
		snprintf(s->snap_out.name, sizeof(s->snap_out.name), "%s", name);
	else
		snprintf(s->snap_out.name, sizeof(s->snap_out.name), "snapshot-%u", s->snap_out.id);
	s->snap_out.state = DSNAP_SET;
	fprintf(r->out, "Snapshot output successfully added for session %s\n", s->name);
	output_line(r->out, "  ", &s->snap_out, true);
	return 0;
}
