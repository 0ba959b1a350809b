/* fuzz_session_xml.c — libFuzzer target: input bytes as an LTTng session file through scryd's
 * loader (src/daemon/session_xml.c: libxml2's parser, then scry's reading of the elements).
 * A refusal must say why on one line.  A file that loads is saved again (dsession_save) and
 * loaded back: the same sessions (name, output, snapshot mode and output, trackers, rotation, channels
 * with their sizes, timers, output type and mode, contexts, and event rules with their
 * filters and probe names). */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "daemon/daemon_int.h"

static void same(const struct dsession *a, const struct dsession *b)
{
	assert(!strcmp(a->name, b->name) && !strcmp(a->dir, b->dir) && a->snapshot == b->snapshot);
	assert(a->snap_out.state == b->snap_out.state);   /* the snapshot output: as add-output left it */
	assert(a->snap_out.state != DSNAP_SET || (!strcmp(a->snap_out.name, b->snap_out.name) &&
						 a->snap_out.max == b->snap_out.max &&
						 !strcmp(a->snap_out.path, b->snap_out.path)));
	assert(a->npids == b->npids && a->nvpids == b->nvpids && a->nuids == b->nuids && a->ngids == b->ngids);
	assert(!a->npids || !memcmp(a->pids, b->pids, a->npids * sizeof(*a->pids)));
	assert(!a->nuids || !memcmp(a->uids, b->uids, a->nuids * sizeof(*a->uids)));
	assert(a->rot_timer_ns == b->rot_timer_ns && a->rot_size == b->rot_size);
	assert(a->nchans == b->nchans);
	for (size_t i = 0; i < a->nchans; i++) {
		const struct dchannel *x = &a->chans[i], *y = &b->chans[i];
		struct drule *rx, *ry;
		int nx = dchannel_rules(x, &rx), ny = dchannel_rules(y, &ry);

		assert(!strcmp(x->name, y->name) && x->ctx_mask == y->ctx_mask);
		assert(x->subbuf_size == y->subbuf_size && x->num_subbuf == y->num_subbuf && x->ring_size == y->ring_size);
		assert(x->switch_timer_us == y->switch_timer_us && x->read_timer_us == y->read_timer_us &&
		       x->monitor_timer_us == y->monitor_timer_us && x->output_mmap == y->output_mmap &&
		       x->overwrite == y->overwrite);
		assert(nx == ny && nx >= 0);
		for (int k = 0; k < nx; k++)
			assert(!strcmp(rx[k].spec, ry[k].spec) && rx[k].enabled == ry[k].enabled &&
			       (rx[k].filter ? ry[k].filter && !strcmp(rx[k].filter, ry[k].filter) : !ry[k].filter) &&
			       (rx[k].name ? ry[k].name && !strcmp(rx[k].name, ry[k].name) : !ry[k].name));
		free(rx);
		free(ry);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dsession **v = NULL, **w = NULL;
	bool *st = NULL, *st2 = NULL;
	size_t n = 0, n2 = 0;
	char err[1024], path[] = "/tmp/fuzz_session_xml.XXXXXX";
	int fd;

	if (dsession_read_xml_buffer((const char *)data, size, "in.lttng", &v, &n, &st, err, sizeof(err))) {
		assert(err[0] && !strchr(err, '\n'));
		return 0;
	}
	assert(n > 0);
	for (size_t i = 0; i < n; i++) {
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
		assert(dsession_save(v[i], path, true, NULL, err, sizeof(err)) == 0);
		if (dsession_read_xml(NULL, path, NULL, &w, &n2, &st2, err, sizeof(err))) {
			fprintf(stderr, "saved, not loaded: %s\n", err);
			abort();
		}
		assert(n2 == 1);   /* started: saved as the state of this (not started) copy */
		same(v[i], w[0]);
		dsession_free(w[0]);
		free(w);
		free(st2);
		unlink(path);
		strcpy(path, "/tmp/fuzz_session_xml.XXXXXX");
	}
	for (size_t i = 0; i < n; i++)
		dsession_free(v[i]);
	free(v);
	free(st);
	return 0;
}
