/* top.c — `scry top`: a live table of the processes (or, -S or the key s, of their syscalls)
 * of the whole system but scry (or -p, the trackers, -- CMD), counted in the kernel
 * (metrics/table.h's config: calls, errors, bytes, latency by pid, comm and syscall),
 * refreshed every -d seconds: calls/s, errors/s, bytes/s, p50/p99 latency, with the totals
 * in a header.  A process that exited is shown once more, marked, then its series are
 * deleted from the kernel's maps (metrics/forget.h).  A CONTAINER column (util/cgroup.h).
 * On a terminal the keys s, H (threads), c, e, l, b choose the view and the sort and q quits; otherwise plain tables are printed one after
 * the other (-n COUNT of them), and a last one when CMD ends. */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "cli/commands.h"
#include "cli/metrics_cli.h"
#include "metrics/forget.h"
#include "metrics/table.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/spawn.h"

static volatile sig_atomic_t stop_signal, quit_flag;   /* quit_flag: the run's stop */

static void on_signal(int sig)
{
	stop_signal = sig;
	quit_flag = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: scry top [OPTIONS] [-- CMD ARGS...]\n"
		"A live table of the processes of the system but scry (scry and scryd processes are left\n"
		"out), counted in the kernel: calls and calls/s, errors and errors/s, bytes read and\n"
		"written, the busiest syscall; the totals in a header.  With -S (the key s) one row per\n"
		"process and syscall, with p50 and p99 latency (bucket bounds, over the whole run).\n"
		"A process that exited is shown once more, marked (exited), then leaves.\n"
		"\n"
		"  -d, --delay SECONDS    refresh every SECONDS (default 1)\n"
		"  -n, --iterations N     stop after N tables\n"
		"  -S, --syscalls         the syscall view: one row per process and syscall\n"
		"  -H, --threads          a row per thread (its TID), not per process (the key H)\n"
		"  -s, --sort KEY         calls (default), errors, latency (syscall view) or bytes; on a\n"
		"                         terminal the keys c, e, l, b change it, s switches the view,\n"
		"                         H shows threads and q quits\n"
		CLI_METRICS_TARGET_USAGE
		"  -v, --verbose          libbpf and verifier messages\n"
		"\n"
		"When stdout is not a terminal, plain tables follow one another; with -- CMD, a last\n"
		"table is printed when CMD ends and scry exits with its status.\n");
}

struct top {
	struct cli_metrics *m;
	struct scry_top_table prev;
	enum scry_top_sort by;
	bool syscalls;             /* the syscall view (-S, key s) */
	bool threads;              /* a row per thread (-H, key H) */
	bool tty;
	double delay;
	long iterations, shown;
	uint64_t next_ns;
	bool quit;
	int error;
	struct termios saved;
	bool raw;
};

static void term_restore(struct top *t)
{
	if (t->raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &t->saved);
		t->raw = false;
	}
}

static void term_raw(struct top *t)
{
	struct termios r;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &t->saved))
		return;
	r = t->saved;
	r.c_lflag &= ~(ICANON | ECHO);
	r.c_cc[VMIN] = 0;
	r.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &r))
		t->raw = true;
}

static size_t screen_rows(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_row < 4)
		return 20;
	return ws.ws_row - 3;
}

/* scry's processes: not shown (the kernel leaves out this one; the others, and the command
 * before its exec, are named scry or scryd). */
static bool is_scry(const struct scry_top_row *r)
{
	return !strcmp(r->comm, "scry") || !strcmp(r->comm, "scryd");
}

static bool gone(const char *pid)
{
	long p = strtol(pid, NULL, 10);

	return p > 0 && kill((pid_t)p, 0) && errno == ESRCH;
}

/* scry's rows out; the rows of exited processes marked, their pids into *dead (the series
 * deleted once the table is shown). */
static void prune(struct scry_top_table *tab, uint32_t **dead, size_t *ndead)
{
	size_t out = 0;

	*dead = NULL;
	*ndead = 0;
	for (size_t i = 0; i < tab->n; i++) {
		struct scry_top_row *r = &tab->rows[i];

		if (is_scry(r)) {
			free(r->pid);
			free(r->comm);
			free(r->syscall);
			free(r->container);
			continue;
		}
		if ((r->exited = gone(r->pid))) {
			uint32_t *nd = realloc(*dead, (*ndead + 1) * sizeof(**dead));

			if (nd) {
				*dead = nd;
				nd[(*ndead)++] = (uint32_t)strtoul(r->pid, NULL, 10);
			}
		}
		tab->rows[out++] = *r;
	}
	tab->n = out;
}

/* Read the maps, print a table; it becomes the previous one for the next rates. */
static void refresh(struct top *t, uint64_t now)
{
	struct scry_metrics_snap snap;
	struct scry_top_table tab;
	struct scry_top_procs procs;
	uint32_t *dead;
	size_t ndead;
	int ret;

	if ((ret = scry_feed_read(&t->m->f, &snap)) ||
	    (ret = scry_top_table_build(&tab, &snap, now, &t->prev, t->threads))) {
		if (!ret)
			scry_metrics_snap_free(&snap);
		t->error = ret;
		t->quit = true;
		return;
	}
	scry_metrics_snap_free(&snap);
	prune(&tab, &dead, &ndead);
	if (t->tty)
		fputs("\033[H\033[2J", stdout);
	if (t->syscalls) {
		scry_top_table_sort(&tab, t->by);
		scry_top_table_print(stdout, &tab, t->by, t->tty ? screen_rows() : 0, t->delay);
	} else if (!scry_top_procs_build(&procs, &tab, NULL, NULL)) {
		scry_top_procs_sort(&procs, t->by);
		scry_top_procs_print(stdout, &procs, t->by, t->tty ? screen_rows() : 0);
		scry_top_procs_free(&procs);
	}
	if (!t->tty)
		fputc('\n', stdout);
	fflush(stdout);
	/* the exited processes' series leave the kernel's maps: not shown again, and the
	 * maps' room (max_entries) is for the living */
	scry_metrics_forget_pids(t->m->f.fds, SCRY_TOP_NMETRICS, dead, ndead);
	free(dead);
	scry_top_table_sort_keys(&tab);
	scry_top_table_free(&t->prev);
	t->prev = tab;
	t->shown++;
	if (t->iterations && t->shown >= t->iterations)
		t->quit = true;
}

static void keys(struct top *t, uint64_t now)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;

	while (t->raw && poll(&p, 1, 0) == 1 && read(STDIN_FILENO, &c, 1) == 1) {
		enum scry_top_sort by = t->by;

		switch (c) {
		case 'q': case 'Q': t->quit = true; return;
		case 'c': by = SCRY_TOP_BY_CALLS; break;
		case 'e': by = SCRY_TOP_BY_ERRORS; break;
		case 'l': by = SCRY_TOP_BY_LATENCY; break;
		case 'b': by = SCRY_TOP_BY_BYTES; break;
		case 's': case 'S': case '\n': case '\r':
			t->syscalls = !t->syscalls;
			t->next_ns = now;
			continue;
		case 'H':   /* threads, as top's and htop's H (no rates for one table: other rows) */
			t->threads = !t->threads;
			t->next_ns = now;
			continue;
		default: continue;
		}
		if (by != t->by) {
			t->by = by;
			t->next_ns = now;   /* redrawn at once */
		}
	}
}

static void after_poll(void *ctx, uint64_t now)
{
	struct top *t = ctx;

	keys(t, now);
	if (!t->quit && now >= t->next_ns) {
		t->next_ns = now + (uint64_t)(t->delay * 1e9);
		refresh(t, now);
	}
	if (t->quit)
		quit_flag = 1;
}

static int parse_sort(const char *s, enum scry_top_sort *by)
{
	static const char *const names[] = { "calls", "errors", "latency", "bytes" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]) || (s[0] == names[i][0] && !s[1])) {
			*by = i;
			return 0;
		}
	return -1;
}

int cmd_top(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "syscalls", no_argument, NULL, 'S' },
		{ "threads", no_argument, NULL, 'H' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, CLI_METRICS_OPT_DURATION },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		CLI_TRACK_LONGOPTS,
		{ 0 },
	};
	struct cli_metrics m;
	struct top t = { .m = &m, .delay = 1, .tty = isatty(STDOUT_FILENO) };
	char err[1024] = "", *end;
	int opt, ret = 1, wstatus = 0;

	cli_metrics_init(&m);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+d:n:s:SHp:avh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			t.delay = strtod(optarg, &end);
			if (!*optarg || *end || !(t.delay >= 0.1 && t.delay <= 3600)) {
				snprintf(err, sizeof(err), "invalid delay '%s' (0.1 to 3600 seconds)", optarg);
				goto fail;
			}
			break;
		case 'n':
			t.iterations = strtol(optarg, &end, 10);
			if (!*optarg || *end || t.iterations < 1) {
				snprintf(err, sizeof(err), "invalid iteration count '%s' (1 or more)", optarg);
				goto fail;
			}
			break;
		case 's':
			if (parse_sort(optarg, &t.by)) {
				snprintf(err, sizeof(err), "invalid sort key '%s' (calls, errors, latency, bytes)", optarg);
				goto fail;
			}
			break;
		case 'S':
			t.syscalls = true;
			break;
		case 'H':
			t.threads = true;
			break;
		case 'v':
			scry_log_set(NULL, NULL, true);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'p': case 'a': case CLI_METRICS_OPT_DURATION:
		CLI_TRACK_CASES:
			if (cli_metrics_option(&m, opt, optarg, err, sizeof(err)))
				goto fail;
			break;
		default:
			snprintf(err, sizeof(err), "invalid option (see scry top --help)");
			goto fail;
		}
	}
	if (optind < argc)
		m.cmd = &argv[optind];
	if (cli_metrics_prepare(&m, NULL, scry_top_config, "(scry top's config)", err, sizeof(err)) ||
	    cli_metrics_start(&m, on_signal, err, sizeof(err)))
		goto fail;
	if (t.tty)
		term_raw(&t);
	t.prev.t_ns = scry_monotonic_ns();   /* the first rates: since the start */
	t.next_ns = t.prev.t_ns + (uint64_t)(t.delay * 1e9);
	{
		struct scry_run_opts ro = {
			.duration_ns = m.duration > 0 ? (uint64_t)(m.duration * 1e9) : 0,
			.child = m.cmd ? m.child.pid : 0,
			.max_poll_delay_ns = 50 * 1000 * 1000ULL,
			.after_poll = after_poll,
			.ctx = &t,
			.stop = &quit_flag,
		};
		struct scry_run_end rend = { 0 };

		if (scry_session_run(m.f.s, &ro, &rend, err, sizeof(err)))
			fprintf(stderr, "scry: %s\n", err);
		if (rend.child_done) {
			wstatus = rend.wstatus;
			if (!t.quit && !t.tty)
				refresh(&t, scry_monotonic_ns());   /* the command's last table */
		}
		term_restore(&t);
		cli_metrics_stop(&m);
		ret = t.error ? 1 : m.cmd && rend.child_done ? scry_exit_status(wstatus) : 0;
		if (t.error)
			fprintf(stderr, "scry top: reading the metrics failed: %s\n", strerror(-t.error));
	}
	goto out;
fail:
	fprintf(stderr, "scry top: %s\n", err);
	ret = 1;
out:
	term_restore(&t);
	scry_top_table_free(&t.prev);
	cli_metrics_free(&m);
	return ret;
}
