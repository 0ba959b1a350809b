/* state_truth.c — ground truth for the state-reconstruction test (tests/e2e/
 * test_state_reconstruction.py): a process whose threads, names, CPUs, open files, CPU time
 * and count of a rare syscall are known, reported by the process itself.
 *
 *   state_truth cmd OUT    set up, run, write the report to OUT, exit
 *   state_truth wait OUT   set up, print {"pid":P} and wait for a line on stdin; run, write
 *                          the report, print "done" and wait for stdin's end
 *
 * Set-up: the main thread names itself "st_main" (prctl PR_SET_NAME) and opens OUT (the
 * report, write-only), OUT.a (read-only) and OUT.b (read-write, close-on-exec);
 * it starts NWORKERS threads, each naming itself "st_wI" and pinning itself to the I-th
 * CPU it may run on (modulo their number).  Run: worker I calls getpgrp (through syscall(),
 * never cached) 100 + 37 * I times while it spins until its CLOCK_THREAD_CPUTIME_ID has
 * advanced by 150 + 50 * I ms; worker 0 closes OUT.a, worker 1 opens OUT.w1 and keeps it,
 * worker 2 opens OUT.w2 and closes it; the main thread calls getpgrp 7 times.  Report (one
 * JSON line): {"pid", "threads": [{"tid", "name", "cpu" (-1 for the main thread, not
 * pinned), "getpgrp", "cpu_ns" (the thread's CPU time from the start of the run to the end
 * of its work, main thread: 0, not measured)}], "fds": {"FD": "PATH"}} — the names as
 * PR_GET_NAME reads them and the descriptors as /proc/self/fd shows them after the run
 * (read with readlink, which opens none).  The workers live until the process ends (in
 * wait mode, stdin's end), so that no other thread gets their tids while they are traced. */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NWORKERS 3

struct worker {
	int idx, cpu, calls;
	long tid;
	long long cpu_ns;
	char name[16];
	pthread_t th;
};

static struct worker w[NWORKERS];
static pthread_barrier_t ready, go, finished, end;
static const char *out;
static int fd_a;

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spin_chunk(void)
{
	static volatile unsigned long sink;

	for (int i = 0; i < 100000; i++)
		sink += i;
}

static void *work(void *arg)
{
	struct worker *me = arg;
	long long t0, target;
	char path[4200];
	cpu_set_t set;
	int n = 0, fd;

	me->tid = syscall(SYS_gettid);
	snprintf(me->name, sizeof(me->name), "st_w%d", me->idx);
	prctl(PR_SET_NAME, me->name);
	CPU_ZERO(&set);
	CPU_SET(me->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		exit(3);
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	t0 = thread_ns();
	target = (150 + 50LL * me->idx) * 1000000;
	if (me->idx == 0)
		close(fd_a);
	if (me->idx == 1 || me->idx == 2) {
		snprintf(path, sizeof(path), "%s.w%d", out, me->idx);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			exit(4);
		if (me->idx == 2)
			close(fd);
	}
	while (thread_ns() - t0 < target) {
		spin_chunk();
		if (n < me->calls && (syscall(SYS_getpgrp), 1))
			n++;
	}
	for (; n < me->calls; n++)
		syscall(SYS_getpgrp);
	me->cpu_ns = thread_ns() - t0;
	/* alive until the process ends: its tid is not given to another thread while recorded */
	pthread_barrier_wait(&finished);
	pthread_barrier_wait(&end);
	return NULL;
}

int main(int argc, char **argv)
{
	int cpus[CPU_SETSIZE], ncpus = 0, report, fd_b;
	bool wait_mode;
	char path[4200], link[64], line[64];
	cpu_set_t set;
	FILE *f;

	if (argc != 3 || (strcmp(argv[1], "cmd") && strcmp(argv[1], "wait"))) {
		fprintf(stderr, "usage: state_truth cmd|wait OUT\n");
		return 2;
	}
	wait_mode = !strcmp(argv[1], "wait");
	out = argv[2];
	prctl(PR_SET_NAME, "st_main");
	sched_getaffinity(0, sizeof(set), &set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
	report = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	snprintf(path, sizeof(path), "%s.a", out);
	close(open(path, O_WRONLY | O_CREAT, 0644));
	fd_a = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s.b", out);
	fd_b = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (report < 0 || fd_a < 0 || fd_b < 0)
		return 1;
	pthread_barrier_init(&ready, NULL, NWORKERS + 1);
	pthread_barrier_init(&go, NULL, NWORKERS + 1);
	pthread_barrier_init(&finished, NULL, NWORKERS + 1);
	pthread_barrier_init(&end, NULL, NWORKERS + 1);
	for (int i = 0; i < NWORKERS; i++) {
		w[i].idx = i;
		w[i].cpu = cpus[i % ncpus];
		w[i].calls = 100 + 37 * i;
		pthread_create(&w[i].th, NULL, work, &w[i]);
	}
	pthread_barrier_wait(&ready);
	if (wait_mode) {
		printf("{\"pid\":%d}\n", getpid());
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	pthread_barrier_wait(&go);
	for (int i = 0; i < 7; i++)
		syscall(SYS_getpgrp);
	pthread_barrier_wait(&finished);

	f = fdopen(report, "w");   /* the report's descriptor: opened before the list */
	if (!f)
		return 1;
	prctl(PR_GET_NAME, line);
	fprintf(f, "{\"pid\":%d,\"threads\":[{\"tid\":%d,\"name\":\"%s\",\"cpu\":-1,\"getpgrp\":7,\"cpu_ns\":0}",
		getpid(), getpid(), line);
	for (int i = 0; i < NWORKERS; i++)
		fprintf(f, ",{\"tid\":%ld,\"name\":\"%s\",\"cpu\":%d,\"getpgrp\":%d,\"cpu_ns\":%lld}", w[i].tid,
			w[i].name, w[i].cpu, w[i].calls, w[i].cpu_ns);
	fprintf(f, "],\"fds\":{");
	for (int fd = 0, first = 1; fd < 1024; fd++) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, path, sizeof(path) - 1);
		if (len <= 0)
			continue;
		path[len] = 0;
		fprintf(f, "%s\"%d\":\"%s\"", first ? "" : ",", fd, path);
		first = 0;
	}
	fprintf(f, "}}\n");
	fflush(f);   /* the FILE and its descriptor stay open: they are in the list */
	if (wait_mode) {
		printf("done\n");
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin))
			;
	}
	pthread_barrier_wait(&end);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(w[i].th, NULL);
	return 0;
}
