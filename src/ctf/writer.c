/* writer.c — the writer thread (see writer.h): a FIFO of jobs under one mutex, a condition
 * for the thread (work) and one for the waiters (a job ran). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctf/writer.h"
#include "util/overrides.h"

struct ctf_writer {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t work, ran;
	struct ctf_writer_job *head, *tail;
	uint64_t submitted, done;    /* under lock; done also read atomically */
	bool stop;
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void ctf_writer_test_stall(void)
{
	static int done;
	unsigned ms = scry_overrides()->test_write_stall_ms;
	const char *path = scry_overrides()->test_write_stall_file;

	if ((!ms && !path) || __atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
		return;
	if (ms)
		sleep_ms(ms);
	for (unsigned i = 0; path && i < 120000 && access(path, F_OK) == 0; i++)
		sleep_ms(1);
}

static void *writer_main(void *arg)
{
	struct ctf_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct ctf_writer_job *j;

		while (!w->head && !w->stop)
			pthread_cond_wait(&w->work, &w->lock);
		if (!(j = w->head))
			break;               /* stopped, nothing left */
		w->head = j->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&w->lock);
		j->run(j);
		pthread_mutex_lock(&w->lock);
		__atomic_store_n(&w->done, w->done + 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&w->ran);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct ctf_writer *ctf_writer_new(char *err, size_t errlen)
{
	struct ctf_writer *w = calloc(1, sizeof(*w));
	int r;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->ran, NULL);
	if ((r = pthread_create(&w->th, NULL, writer_main, w))) {
		snprintf(err, errlen, "cannot start the writer thread: %s", strerror(r));
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->ran);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

uint64_t ctf_writer_submit(struct ctf_writer *w, struct ctf_writer_job *j)
{
	uint64_t ticket;

	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	ticket = ++w->submitted;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	return ticket;
}

uint64_t ctf_writer_done(struct ctf_writer *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

void ctf_writer_wait(struct ctf_writer *w, bool (*ready)(void *arg), void *arg)
{
	pthread_mutex_lock(&w->lock);
	while (!ready(arg))
		pthread_cond_wait(&w->ran, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static bool all_ran(void *arg)
{
	struct ctf_writer *w = arg;

	return w->done == w->submitted;   /* under the lock */
}

void ctf_writer_sync(struct ctf_writer *w)
{
	ctf_writer_wait(w, all_ran, w);
}

void ctf_writer_free(struct ctf_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->ran);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
