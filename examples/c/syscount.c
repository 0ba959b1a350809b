/* syscount.c — libscry's example: the system calls each process makes, counted from their
 * entry events, printed as "PID COMM SYSCALL COUNT" (most frequent first) when the traced
 * process PID (and its children) ends, or at Ctrl-C without PID (the whole machine).
 * Build: cc syscount.c $(pkg-config --cflags --libs scry).  Run as root. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scry/scry.h>

#define SLOTS 65536      /* (process, syscall) pairs counted at most */

struct count {
	int64_t pid;
	char comm[17];
	char name[48];
	uint64_t n;
};

static struct count table[SLOTS];
static size_t used;
static uint64_t overflow, lost;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void on_event(const struct scry_event *e, void *ctx)
{
	const char *name = scry_event_name(e), *comm;
	int64_t pid = 0;
	uint64_t h = 1469598103934665603ULL;

	if (scry_event_kind(e) == SCRY_EVENT_LOSS) {
		lost += scry_event_lost(e);
		return;
	}
	if (strncmp(name, "syscall_entry_", 14))
		return;                     /* exits: the entries are counted */
	name += 14;
	scry_event_context_int(e, "pid", &pid);
	comm = scry_event_context_string(e, "procname", NULL);
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (uint64_t i = (h ^ (uint64_t)pid) % SLOTS, k = 0; k < SLOTS; i = (i + 1) % SLOTS, k++) {
		struct count *c = &table[i];

		if (c->n && c->pid == pid && !strcmp(c->name, name)) {
			c->n++;
			snprintf(c->comm, sizeof(c->comm), "%s", comm ? comm : "?");   /* the last name (execve) */
			return;
		}
		if (!c->n) {
			if (used == SLOTS - 1)
				break;
			*c = (struct count){ .pid = pid, .n = 1 };
			snprintf(c->comm, sizeof(c->comm), "%s", comm ? comm : "?");
			snprintf(c->name, sizeof(c->name), "%s", name);
			used++;
			return;
		}
	}
	overflow++;
}

static int by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	struct scry_session_options o = SCRY_SESSION_OPTIONS_INIT;
	struct scry_session_stats st = SCRY_SESSION_STATS_INIT;
	struct scry_session *s;
	char err[512];
	size_t n = 0;
	int ok;

	o.system_wide = argc < 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ok = (s = scry_session_new(&o, err, sizeof(err))) &&
	     !scry_session_enable_event(s, "syscall:*", NULL, err, sizeof(err)) &&
	     (argc < 2 || !scry_session_track_pid(s, atoi(argv[1]), err, sizeof(err))) &&
	     !scry_session_on_event(s, on_event, NULL) && !scry_session_start(s, err, sizeof(err));
	if (ok) {
		fprintf(stderr, "syscount: tracing\n");
		ok = !scry_session_run(s, &stop, err, sizeof(err)) && !scry_session_stop(s, &st, err, sizeof(err));
	}
	if (!ok) {
		fprintf(stderr, "syscount: %s\n", err);
		scry_session_destroy(s);
		return 1;
	}
	scry_session_destroy(s);
	for (size_t i = 0; i < SLOTS; i++)
		if (table[i].n)
			table[n++] = table[i];
	qsort(table, n, sizeof(*table), by_count);
	for (size_t i = 0; i < n; i++)
		printf("%lld %s %s %llu\n", (long long)table[i].pid, table[i].comm, table[i].name,
		       (unsigned long long)table[i].n);
	fprintf(stderr, "syscount: %llu events, %llu lost, %llu not counted (table full)\n",
		(unsigned long long)st.events, (unsigned long long)lost, (unsigned long long)overflow);
	return lost || overflow ? 3 : 0;
}
