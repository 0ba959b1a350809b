/* warm.c — scryd's ready object (see daemon_int.h, docs/DAEMON.md): a thread of the lowest
 * priority (nice 19) loads the BPF object of `scry trace -- CMD`'s default session (built by
 * trace/session_opts.c, the code cmd_trace runs) at start and again after each handover (once
 * the process it went to has exited, or a second later), and keeps one.  A caller that asks with that object's fingerprint, and could load it itself
 * (peer.c: CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON, in scryd's user namespace), receives
 * its descriptors (server.c: SCM_RIGHTS) and attaches them; scryd closes its copies: the
 * object is the caller's session's alone.  Any other caller gets no descriptor and loads its
 * own, as without scryd (kernel/warm.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "catalog/catalog.h"
#include "kernel/features.h"
#include "kernel/probes.h"
#include "session/session.h"
#include "trace/options.h"
#include "trace/session_opts.h"
#include "daemon/daemon_int.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/overrides.h"

#define RETRY_NS (10 * 1000000000ULL)   /* after a failed load, none tried again before this */
#define TAKER_WAIT_MS 1000              /* the next load waits for the taker's exit this long */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t th;
	bool running, stop, want, making;
	struct scry_warm *ready;
	int taker;                 /* pidfd of the process the last object went to, or -1 */
	uint64_t made, handed, refused, failed, failed_at;
	char last_error[256];
} W = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .taker = -1 };

/* Records of the prepared session go nowhere: it is never started. */
static void discard(void *ctx, unsigned cpu, const uint8_t *ev, size_t size)
{
	(void)ctx, (void)cpu, (void)ev, (void)size;
}

/* The object of `scry trace -- CMD`'s default, loaded and exported into w. */
static int make_one(struct scry_warm *w, char *err, size_t errlen)
{
	struct scry_catalog *cat = scry_catalog_open(NULL, err, errlen);
	struct trace_session ts = { 0 };
	struct scry_session *s = NULL;
	struct trace_opts o;
	int ret;

	if (!cat)
		return -ENOENT;
	trace_opts_init(&o);
	if ((ret = trace_session_build(&ts, &o, cat)))
		snprintf(err, errlen, "out of memory");
	if (!ret && ts.chan.kind == SCRY_CHANNEL_EVENTS)
		ts.chan.sink = discard;
	if (!ret)
		ret = scry_session_create(&s, &ts.so, err, errlen);
	if (!ret)
		ret = scry_session_load(s, err, errlen);
	if (!ret)
		ret = scry_session_export_warm(s, w, err, errlen);
	scry_session_destroy(s);
	trace_session_free(&ts);
	trace_opts_free(&o);
	scry_catalog_close(cat);
	return ret;
}

static void *warm_main(void *arg)
{
	char err[256];

	(void)arg;
	/* the lowest priority: the verifier runs in this thread (and its lanes, which inherit it) */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	pthread_mutex_lock(&W.lock);
	while (!W.stop) {
		if (W.ready || !W.want) {
			pthread_cond_wait(&W.cond, &W.lock);
			continue;
		}
		W.want = false;
		W.making = true;
		int taker = W.taker;

		W.taker = -1;
		pthread_mutex_unlock(&W.lock);
		/* the next object once the one handed over is done with: a short trace (a warm start
		 * is ~20 ms) runs without this load's verifier beside it on the machine's CPUs (its
		 * two lanes take both of a 2-CPU machine's, nice 19 or not: the trace's threads and
		 * its command wait for them at each wakeup); a long one, after a second */
		if (taker >= 0) {
			struct pollfd pf = { .fd = taker, .events = POLLIN };

			for (int ms = 0; ms < TAKER_WAIT_MS && !__atomic_load_n(&W.stop, __ATOMIC_RELAXED); ms += 50)
				if (poll(&pf, 1, 50) > 0)
					break;
			close(taker);
		}
		struct scry_warm *w = calloc(1, sizeof(*w));
		int ret = w ? make_one(w, err, sizeof(err)) : -ENOMEM;

		if (!w)
			snprintf(err, sizeof(err), "out of memory");
		pthread_mutex_lock(&W.lock);
		W.making = false;
		if (ret) {
			W.failed++;
			W.failed_at = scry_monotonic_ns();
			snprintf(W.last_error, sizeof(W.last_error), "%s", err);
			scry_log(SCRY_LOG_INFO, "scryd: no ready object for scry trace: %s", err);
			free(w);
		} else if (W.stop) {
			scry_warm_clear(w);
			free(w);
		} else {
			W.ready = w;
			W.made++;
			scry_log(SCRY_LOG_VERBOSE, "scryd: a ready object for scry trace (%zu descriptors)", w->n);
		}
	}
	pthread_mutex_unlock(&W.lock);
	return NULL;
}

int dwarm_start(char *err, size_t errlen)
{
	int ret;

	scry_probes_warm_exporter();
	if (scry_overrides()->no_warm) {     /* none kept: scryd's memory as without it */
		scry_log(SCRY_LOG_INFO, "scryd: no ready object (SCRY_NO_WARM)");
		return 0;
	}
	/* the kernel's BTF parsed here, before the thread: features.c's copy is then read only */
	scry_features_vmlinux();
	W.want = true;
	/* no signal for the thread (nor the lanes it starts): the loop's stay the loop's */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&W.th, NULL, warm_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		snprintf(err, errlen, "cannot start the ready object's thread: %s", strerror(-ret));
		return ret;
	}
	W.running = true;
	return 0;
}

void dwarm_stop(void)
{
	if (!W.running)
		return;
	pthread_mutex_lock(&W.lock);
	W.stop = true;
	pthread_cond_signal(&W.cond);
	pthread_mutex_unlock(&W.lock);
	pthread_join(W.th, NULL);
	W.running = false;
	if (W.taker >= 0) {
		close(W.taker);
		W.taker = -1;
	}
	if (W.ready) {
		scry_warm_clear(W.ready);
		free(W.ready);
		W.ready = NULL;
	}
}

int dwarm_take(const char *fp, pid_t pid, int pidfd, struct scry_warm **out, char *err, size_t errlen)
{
	int ret = dpeer_may_load_bpf(pid, pidfd, err, errlen);

	*out = NULL;
	pthread_mutex_lock(&W.lock);
	if (ret) {
		W.refused++;
	} else if (!W.ready) {
		snprintf(err, errlen, "no object ready%s%s", W.making ? " (one is being loaded)" : "",
			 W.failed && !W.making ? ": the last load failed" : "");
		ret = -ENOENT;
		/* a failed load is tried again on demand, not at once */
		if (W.running && !W.making && (!W.failed || scry_monotonic_ns() - W.failed_at > RETRY_NS)) {
			W.want = true;
			pthread_cond_signal(&W.cond);
		}
	} else if (!fp || strcmp(fp, W.ready->fp)) {
		snprintf(err, errlen, "no object ready for these settings");
		ret = -ENOENT;
	} else {
		*out = W.ready;          /* the caller's now: a new one is loaded once it exits */
		W.ready = NULL;
		W.handed++;
		W.want = true;
		if (W.taker >= 0)
			close(W.taker);
		W.taker = pidfd >= 0 ? fcntl(pidfd, F_DUPFD_CLOEXEC, 3) : -1;
		pthread_cond_signal(&W.cond);
	}
	pthread_mutex_unlock(&W.lock);
	return ret;
}

void dwarm_status(struct dwarm_status *st)
{
	pthread_mutex_lock(&W.lock);
	st->ready = W.ready != NULL;
	snprintf(st->fp, sizeof(st->fp), "%s", W.ready ? W.ready->fp : "");
	st->made = W.made;
	st->handed = W.handed;
	st->refused = W.refused;
	st->failed = W.failed;
	snprintf(st->last_error, sizeof(st->last_error), "%s", W.last_error);
	pthread_mutex_unlock(&W.lock);
}
