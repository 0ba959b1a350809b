/* view.c — `scry view [--json] [--clock-gmt] [-n N] [--filter EXPR] DIR|net://…`: print a
 * recorded CTF trace, or follow a live session at lttng-relayd, one line per event, in time
 * order (reader, live viewer and sinks in src/view/, filter in src/filter/);
 * `scry view --json-schema DIR`: the JSON Schema of what --json prints for DIR. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "catalog/symbolize.h"
#include "cli/commands.h"
#include "view/view_filter.h"
#include "relay/live_proto.h"
#include "view/live.h"
#include "view/output.h"
#include "view/reader.h"

static void view_usage(FILE *f)
{
	fprintf(f,
		"usage: scry view [OPTIONS] DIR\n"
		"       scry view [OPTIONS] [SESSION]\n"
		"       scry view [OPTIONS] net://RELAY[:PORT]/host/HOSTNAME/SESSION\n"
		"\n"
		"Print the events of the CTF trace(s) in DIR (a trace directory with a `metadata`\n"
		"file, or a scry/LTTng output directory), merged in time order.  Without DIR, or\n"
		"with a name that is no directory: the trace of a session of the running daemon\n"
		"(scryd; the current one by default): its output directory (every chunk of a\n"
		"session that rotated), or a snapshot session's last snapshot.  With a net:// URL:\n"
		"follow the live session SESSION of host HOSTNAME at lttng-relayd (its live port,\n"
		"5344 by default) until it ends, as babeltrace2 --input-format=lttng-live does.\n"
		"\n"
		"  --json          one JSON object per line instead of babeltrace2-style text\n"
		"  --json-schema   print the JSON Schema (draft 2020-12) of the objects --json\n"
		"                  prints for this trace: each event class's context and payload\n"
		"                  members with their types, chosen by the event's name\n"
		"  --clock-gmt     print times in UTC instead of local time\n"
		"  -n, --limit N   stop after the first N events (that match the filter)\n"
		"  -f, --filter EXPR\n"
		"                  only events for which EXPR (LTTng's filter language) is true, e.g.\n"
		"                  'ret < 0', '$ctx.procname == \"make*\" && fd == 3'\n"
		"  -h, --help      this help\n");
}

int cmd_view(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "json-schema", no_argument, NULL, 'S' },
		{ "clock-gmt", no_argument, NULL, 'g' },
		{ "limit", required_argument, NULL, 'n' },
		{ "filter", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, schema = 0, gmt = 0, c;
	uint64_t limit = UINT64_MAX;
	const char *filter_text = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hn:f:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'S':
			schema = 1;
			break;
		case 'g':
			gmt = 1;
			break;
		case 'n': {
			char *end;
			errno = 0;
			unsigned long long n = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr, "scry view: bad --limit '%s'\n", optarg);
				return 1;
			}
			limit = n;
			break;
		}
		case 'f':
			filter_text = optarg;
			break;
		case 'h':
			view_usage(stdout);
			return 0;
		default:
			view_usage(stderr);
			return 1;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "scry view: expected one trace directory (try: scry view --help)\n");
		return 1;
	}
	if (schema && (filter_text || limit != UINT64_MAX)) {
		fprintf(stderr, "scry view: --json-schema describes every event class: no --filter or --limit\n");
		return 1;
	}
	/* LTTng's `view [SESSION]`: no directory, or a name that is none: a session's trace */
	char sdir[4096];
	const char *dir = optind < argc ? argv[optind] : NULL;
	struct stat st;
	bool live = dir && live_url_is_net(dir);
	if (schema && live) {
		fprintf(stderr, "scry view: --json-schema reads a trace directory, not a live session\n");
		return 1;
	}
	if (!live && (!dir || (stat(dir, &st) < 0 && !strchr(dir, '/')))) {
		bool no_daemon;

		if (cmd_session_trace_dir(dir, sdir, sizeof(sdir), &no_daemon)) {
			if (no_daemon && !dir) {
				fprintf(stderr, "scry view: no trace directory given and no session daemon runs "
					"(scry view DIR, or scry view [SESSION] with scryd)\n");
				return 1;
			}
			if (!no_daemon)
				return 1;
		} else {
			dir = sdir;
		}
	}
	/* The filter is parsed, then checked against the trace's event classes, before anything
	 * is printed. */
	struct filter_error ferr;
	struct filter *flt = NULL;
	struct view_filter *vf = NULL;
	if (filter_text && !(flt = filter_parse(filter_text, &ferr))) {
		filter_error_print(stderr, filter_text, &ferr);
		return 1;
	}
	struct view v;
	struct outbuf ob;
	char err[512];
	int ret = 1;
	if (live ? view_open_live(&v, dir, stderr, err, sizeof(err)) : view_open(&v, dir, stderr, err, sizeof(err))) {
		fprintf(stderr, "scry view: %s\n", err);
		filter_free(flt);
		return 1;
	}
	v.gmt = gmt;
	if (schema) {
		if (json_schema_write(&v, stdout, err, sizeof(err)))
			fprintf(stderr, "scry view: %s\n", err);
		else
			ret = 0;
		goto cleanup;
	}
	if (flt && !(vf = view_filter_new(&v, flt, &ferr))) {
		filter_error_print(stderr, filter_text, &ferr);
		goto cleanup;
	}
	if (ob_init(&ob, stdout)) {
		fprintf(stderr, "scry view: out of memory\n");
		goto cleanup;
	}
	struct text_out to;
	struct json_out jo;
	text_out_init(&to, &ob, gmt);
	/* call stacks: user mappings captured while recording, at the trace's top (the path
	 * given, or its parent when it is the kernel/ directory) */
	if (!json && !live && (to.syms = scry_syms_new())) {
		char mp[4096];
		snprintf(mp, sizeof(mp), "%s/" SCRY_MAPS_FILE, argv[optind]);
		if (access(mp, R_OK))
			snprintf(mp, sizeof(mp), "%s/../" SCRY_MAPS_FILE, argv[optind]);
		scry_syms_load_maps(to.syms, mp);
	}
	json_out_init(&jo, &ob);
	v.flush_ob = &ob;
	uint64_t count = 0, gen = v.gen;
	struct view_stream *s;
	while (count < limit && !ob.error && (s = view_next(&v))) {
		if (vf && v.gen != gen) {
			/* live: the metadata grew, the filter is bound to the new event classes */
			view_filter_free(vf);
			if (!(vf = view_filter_new(&v, flt, &ferr))) {
				filter_error_print(stderr, filter_text, &ferr);
				v.errors++;
				break;
			}
		}
		gen = v.gen;
		if (vf && !view_filter_match(vf, s))
			continue;
		if (json)
			json_event(&jo, s);
		else
			text_event(&to, s);
		count++;
	}
	ob_free(&ob);
	scry_syms_free(to.syms);
	if (ob.error && errno != EPIPE) {
		fprintf(stderr, "scry view: write error: %s\n", strerror(errno));
		goto cleanup;
	}
	ret = v.errors ? 1 : 0;
cleanup:
	view_filter_free(vf);
	filter_free(flt);
	view_close(&v);
	return ret;
}
