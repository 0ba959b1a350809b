/* trace.c — `scry trace`: strace-style live output (options in src/trace/options.c).
 * A session in live mode (no trace directory): the consumer hands events to the live
 * merger (src/trace/live.c), which feeds the printer (src/trace/printer.c).  With -c the
 * kernel counts calls, errors and time per syscall and no event is written at all. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "catalog/catalog.h"
#include "catalog/elfsyms.h"
#include "cli/commands.h"
#include "cli/launch.h"
#include "cli/report.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "session/session.h"
#include "trace/live.h"
#include "trace/ustacks.h"
#include "cli/trace_options.h"
#include "trace/printer.h"
#include "trace/session_opts.h"
#include "util/dirh.h"
#include "trace/summary.h"
#include "util/clock.h"
#include "util/overrides.h"
#include "util/privs.h"
#include "util/spawn.h"

/* Events of a CPU reach us at most this late (stage fetch period + margin): older ones can
 * be printed in global time order. */
#define LIVE_LAG_NS (4 * 1000 * 1000ULL)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct names_ctx {
	struct scry_catalog *cat;
	const char **names;
	size_t n;
};

static int lookup(void *ctx, const char *name)
{
	struct names_ctx *nc = ctx;
	const struct scry_syscall *sc = scry_catalog_syscall_by_name(nc->cat, name);

	return sc ? sc->nr : -1;
}

/* Every syscall name users may write: the kernel's and strace's spelling. */
static int build_names(struct names_ctx *nc)
{
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(nc->cat, &list);

	nc->names = calloc(2 * n + 1, sizeof(*nc->names));
	if (!nc->names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *u = scry_syscall_user_name(list[i].name);

		nc->names[nc->n++] = list[i].name;
		if (u != list[i].name)
			nc->names[nc->n++] = u;
	}
	return 0;
}

static void on_entry(void *ctx, const struct trace_call *c)
{
	trace_printer_entry(ctx, c);
}

static void on_exit_ev(void *ctx, const struct trace_call *c)
{
	trace_printer_exit(ctx, c);
}

static void on_signal_ev(void *ctx, int pid, int tid, int64_t ts, const uint8_t *si)
{
	trace_printer_signal(ctx, pid, tid, ts, si);
}

static void on_signal_ignored_ev(void *ctx, int pid, int tid, int64_t ts, const uint8_t *si)
{
	trace_printer_signal_ignored(ctx, pid, tid, ts, si);
}

static void on_task_ev(void *ctx, int parent_pid, int pid, int tid)
{
	trace_printer_task(ctx, parent_pid, pid, tid);
}

static void on_proc_exit(void *ctx, int pid, int64_t ts, int status)
{
	trace_printer_exited(ctx, pid, ts, status);
}

static void on_probe(void *ctx, int pid, int tid, int64_t ts, const struct scry_event *ev,
		     const struct scry_fieldval *vals)
{
	trace_printer_probe(ctx, pid, tid, ts, ev, vals);
}

/* The command is held before its exec: shown from its exec on, with what it inherited
 * (-y: its descriptors and working directory as they are now). */
struct on_child_ctx {
	struct trace_live *live;
	struct trace_printer *pr;
};

static void on_child(void *ctx, pid_t pid)
{
	struct on_child_ctx *c = ctx;

	trace_live_gate_exec(c->live, (int)pid);
	trace_printer_prime(c->pr, (int)pid);
}

/* After each poll: hand the printer the events older than the live lag. */
struct live_pump {
	struct trace_live *live;
	struct trace_printer *pr;
};

static void pump(void *ctx, uint64_t now)
{
	struct live_pump *lp = ctx;

	trace_live_pump(lp->live, now > LIVE_LAG_NS ? now - LIVE_LAG_NS : 0);
	trace_printer_batch_end(lp->pr);
}

/* The command was killed by sig: scry dies of it too, as strace does (the shell then says
 * "Terminated" and $? is 128 + sig), without a core file of its own. */
static void die_like(int sig)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* -U's shortest and longest call need the calls one by one: -c then reads events (the
 * kernel's counts hold sums only). */
/* -A: the -o file appended to (a regular file of ours, or a device; created if missing). */
static int open_append(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return scry_open_output(AT_FDCWD, path, NULL, false, err, errlen);
	if (fd < 0) {
		snprintf(err, errlen, "cannot append to '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || (S_ISREG(st.st_mode) && st.st_uid != getuid())) {
		snprintf(err, errlen, "'%s' belongs to uid %u: refusing to append to it", path, (unsigned)st.st_uid);
		close(fd);
		return -1;
	}
	return fd;
}

/* -P: each path, and what it resolves into when that differs (strace's message). */
static int add_paths(struct trace_printer *pr, const struct trace_opts *o)
{
	for (size_t i = 0; i < o->npaths; i++) {
		char *rp = realpath(o->paths[i], NULL);

		if (trace_printer_add_path(pr, o->paths[i]))
			return free(rp), -1;
		if (rp && strcmp(rp, o->paths[i])) {
			if (!(o->quiet & TRACE_Q_PATH_RESOLVE))
				fprintf(stderr, "scry: Requested path '%s' resolved into '%s'\n", o->paths[i], rp);
			if (trace_printer_add_path(pr, rp))
				return free(rp), -1;
		}
		free(rp);
	}
	return 0;
}

/* -E: the command's environment (scry's own, which the command inherits); -u: the user
 * the command runs as, checked now. */
static int start_options(const struct trace_opts *o, char *err, size_t errlen)
{
	for (size_t i = 0; i < o->nenv; i++) {
		const char *eq = strchr(o->env[i], '=');
		int rc;

		if (eq) {
			char *name = strndup(o->env[i], (size_t)(eq - o->env[i]));

			rc = name ? setenv(name, eq + 1, 1) : -1;
			free(name);
		} else {
			rc = unsetenv(o->env[i]);
		}
		if (rc) {
			snprintf(err, errlen, "-E '%s': %s", o->env[i], strerror(errno));
			return -1;
		}
	}
	if (o->user && !getpwnam(o->user)) {
		snprintf(err, errlen, "-u: cannot find user '%s'", o->user);
		return -1;
	}
	return 0;
}

/* -k: the calls whose stack copy was lost, shown without frames. */
static void report_ustacks(struct scry_session *s, struct trace_live *live)
{
	const struct trace_ustacks_stats *u = trace_live_ustack_stats(live);
	struct scry_ustack_stats k;

	if (!u || scry_session_ustack_stats(s, &k))
		return;
	if (k.ring_full || k.busy || u->oom)
		fprintf(stderr, "scry: %llu call stacks lost (%llu: their ring was full, %llu: copied by an "
			"interrupted run, %llu: out of memory): those calls are shown without their frames\n",
			(unsigned long long)(k.ring_full + k.busy + u->oom), (unsigned long long)k.ring_full,
			(unsigned long long)k.busy, (unsigned long long)u->oom);
}

/* Trace until the command ends, the processes (-p) end, or a signal. */
static int run(struct scry_session *s, struct trace_live *live, struct trace_printer *pr,
	       const struct trace_opts *o, struct scry_child *child, struct scry_run_end *end,
	       char *err, size_t errlen)
{
	struct live_pump lp = { .live = live, .pr = pr };
	struct scry_run_opts ro = {
		.child = child ? child->pid : 0,
		.pids = child ? NULL : o->pids,
		.npids = child ? 0 : o->npids,
		/* live output: keep the latency low; -c prints at the end (the rings' own pace) */
		.max_poll_delay_ns = live ? 5000000ULL : 0,
		.after_poll = live ? pump : NULL,
		.ctx = &lp,
		.stop = &stop_signal,
	};

	return scry_session_run(s, &ro, end, err, errlen);
}

/* -c: the kernel's totals into the summary. */
static void add_counts(struct scry_session *s, struct trace_summary *sum, const struct trace_opts *o)
{
	const struct scry_syscall *list;
	size_t n = scry_catalog_syscalls(scry_session_catalog(s), &list);

	for (size_t i = 0; i < n; i++) {
		struct scry_sc_count c;

		if (!trace_opts_selected(o, list[i].nr) || scry_session_sc_count(s, (unsigned)list[i].nr, &c) || !c.calls)
			continue;
		trace_summary_add(sum, list[i].nr, scry_syscall_user_name(list[i].name), c.calls, c.errors, c.ns);
	}
}

/* Whether scryd's ready object may be this run's: it holds `scry trace [-o FILE] -- CMD`'s
 * only (docs/DAEMON.md), so with any other option before the command the whole object is
 * opened ahead, not its shell (which a miss would throw away: ~5 ms more of a cold start).
 * A guess from the words alone; the fingerprint decides. */
static bool default_options(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--") || a[0] != '-' || !a[1])
			return true;         /* the command */
		if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			i++;
		else if (strncmp(a, "--output=", 9) && !(a[1] == 'o' && a[2]))
			return false;
	}
	return true;
}

/* The catalog is left to the exit rather than freed by hand at the end of the run (~1,000
 * event descriptors: ~0.7 ms, and the pages those frees write fault once each after the
 * command's fork, ~200 of them); kept reachable here for leak checkers. */
static struct scry_catalog *exit_cat;

int cmd_trace(int argc, char **argv)
{
	struct trace_opts o;
	struct names_ctx nc = { 0 };
	struct trace_names names = { .lookup = lookup, .ctx = &nc };
	struct trace_session ts = { 0 };
	struct scry_session *s = NULL;
	struct scry_session_summary ssum;
	struct trace_live *live = NULL;
	struct trace_printer *pr = NULL;
	struct trace_summary *sum = NULL;
	struct scry_child child = { .pid = -1, .status_fd = -1 };
	struct scry_run_end end;
	char err[1024] = "";
	FILE *out = stderr;
	int wstatus = 0, ret = 1;
	bool child_done = false;
	struct cli_track track = { 0 };

	trace_opts_init(&o);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		trace_opts_usage(stdout);
		return 0;
	}
	/* the privileges first: without them tracefs cannot be read either */
	if (scry_check_privileges("scry trace", err, sizeof(err)))
		goto fail;
	scry_raise_nofile();
	scry_features_prefetch();   /* the kernel's BTF parsed while we prepare */
	scry_probes_prefetch(default_options(argc, argv));   /* and the BPF object opened */
	scry_probes_exit_after_close();   /* libbpf's copy of it freed by the exit, not by hand */
	if (!(nc.cat = scry_catalog_open(NULL, err, sizeof(err))) || build_names(&nc)) {
		if (!err[0])
			snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	names.names = nc.names;
	names.nnames = nc.n;
	if (trace_opts_parse(&o, &track, argc, argv, &names, err, sizeof(err)))
		goto fail;
	if (o.help) {
		trace_opts_usage(stdout);
		ret = 0;
		goto out;
	}
	for (char *w = o.warn, *nl; *w; w = nl ? nl + 1 : w + strlen(w)) {
		nl = strchr(w, '\n');
		fprintf(stderr, "scry trace: %.*s\n", nl ? (int)(nl - w) : (int)strlen(w), w);
	}
	if (cli_resolve_pids(o.pids, o.npids, !o.follow, err, sizeof(err)))
		goto fail;
	if (o.cmd && scry_spawn_check(o.cmd[0], err, sizeof(err)))
		goto fail;
	if (o.outfile && !o.per_pid_files) {   /* no symlink or file of another user written (util/dirh.h) */
		int fd = o.append ? open_append(o.outfile, err, sizeof(err))
				  : scry_open_output(AT_FDCWD, o.outfile, NULL, false, err, sizeof(err));

		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			if (fd >= 0) {
				close(fd);
				snprintf(err, sizeof(err), "cannot open '%s': %s", o.outfile, strerror(errno));
			}
			out = stderr;
			goto fail;
		}
	}
	if (trace_session_build(&ts, &o, nc.cat)) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (o.count != TRACE_COUNT_NONE && !(sum = trace_summary_new())) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (!(pr = trace_printer_new(&o, out, sum)) || add_paths(pr, &o)) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (start_options(&o, err, sizeof(err)))
		goto fail;
	if (cli_track_apply(&track, &ts.so, &o.pids, &o.npids)) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (ts.chan.kind == SCRY_CHANNEL_EVENTS) {
		struct trace_live_ops ops = {
			.entry = on_entry, .exit = on_exit_ev, .signal = on_signal_ev, .signal_ignored = on_signal_ignored_ev,
			.proc_exit = on_proc_exit, .task = on_task_ev, .probe = on_probe, .ctx = pr,
			.stack_names = o.stack,
		};
		if (!(live = trace_live_new(&ops))) {
			snprintf(err, sizeof(err), "out of memory");
			goto fail;
		}
		ts.chan.sink = trace_live_sink;
		ts.chan.sink_ctx = live;
	}
	scry_elf_search_pids(o.pids, o.npids);   /* uprobe:NAME: the file -p's processes map */
	if (scry_session_create(&s, &ts.so, err, sizeof(err)))
		goto fail;
	if (live && trace_live_bind(live, s, err, sizeof(err)))
		goto fail;
	if (live && trace_printer_set_syms(pr, trace_live_syms(live))) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (scry_session_load(s, err, sizeof(err)))
		goto fail;
	for (size_t i = 0; i < o.npids; i++)
		trace_printer_prime(pr, o.pids[i]);
	child.user = o.user;
	if (cli_launch(s, o.pids, o.npids, o.cmd, &child, on_signal, live ? on_child : NULL,
		       &(struct on_child_ctx){ live, pr }, err, sizeof(err)))
		goto fail;

	if (run(s, live, pr, &o, o.cmd ? &child : NULL, &end, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	child_done = end.child_done;
	wstatus = end.wstatus;

	if (scry_session_stop(s, &ssum, err, sizeof(err)))
		fprintf(stderr, "scry: %s\n", err);
	if (live)
		trace_live_pump(live, UINT64_MAX);
	if (ts.chan.kind == SCRY_CHANNEL_COUNT)
		add_counts(s, sum, &o);
	if (trace_printer_finish(pr))
		fprintf(stderr, "scry: writing the trace output failed\n");
	if (sum && (o.ncols ? trace_summary_print_cols(sum, out, o.sortby, o.cols, o.ncols)
			    : trace_summary_print(sum, out, o.sortby)))
		fprintf(stderr, "scry: writing the summary failed\n");
	if (ssum.discarded)
		fprintf(stderr, "scry: %llu events lost (ring buffer full, or calls still blocked at the end): "
			"calls are missing above\n",
			(unsigned long long)ssum.discarded);
	if (o.record_dir)
		cli_report_recording(&ssum, scry_session_dir(s));
	else if (ssum.unfollowed)
		fprintf(stderr, "scry: %llu processes could not be followed (the follow set was full): their "
			"calls are missing\n", (unsigned long long)ssum.unfollowed);
	if (live && o.stack)
		report_ustacks(s, live);
	if (live && trace_live_malformed(live))
		fprintf(stderr, "scry: %llu events could not be decoded\n",
			(unsigned long long)trace_live_malformed(live));
	if (live && trace_live_dropped(live))
		fprintf(stderr, "scry: %llu events lost (out of memory): calls are missing above\n",
			(unsigned long long)trace_live_dropped(live));
	ret = 0;
	if (o.cmd) {
		if (!child_done && waitpid(child.pid, &wstatus, WNOHANG) == child.pid)
			child_done = true;
		ret = child_done ? scry_exit_status(wstatus) : (stop_signal ? 128 + stop_signal : 0);
	}
	if (ssum.write_error)
		ret = 1;   /* the trace (--record) is incomplete */
	goto out;
fail:
	scry_explain_nofile(err, sizeof(err));
	fprintf(stderr, "scry trace: %s\n", err);
	ret = 1;
	if (child.pid > 0 && child.held)
		scry_spawn_abort(&child);
out:
	scry_session_destroy(s);
	trace_live_free(live);
	trace_printer_free(pr);
	trace_summary_free(sum);
	if (out != stderr)
		fclose(out);
	trace_session_free(&ts);
	free(nc.names);
	exit_cat = nc.cat;       /* freed by the exit: see exit_cat */
	trace_opts_free(&o);
	cli_track_free(&track);
	if (ret > 128 && child_done && WIFSIGNALED(wstatus) && !ssum.write_error)
		die_like(WTERMSIG(wstatus));
	return ret;
}
