/* report.c — perf report's text for a profile: each function's total share (the samples
 * whose stack holds it: perf's "Children") and self share (the samples it is the leaf of),
 * sorted by self then total, with its object ("[kernel.kallsyms]", the file's name) and
 * perf's marks [k] (kernel) and [.] (user). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

struct fn {
	uint32_t key;            /* name id * 2 + kernel */
	uint64_t self, total;
	size_t last;             /* the last sample counted in total, + 1 */
	uint32_t mapping;        /* the first frame's mapping + 1 */
};

static int by_share(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

int scry_prof_write_report(const struct scry_prof *p, FILE *f, unsigned n)
{
	struct fn *fs = calloc(2 * p->nstrs + 1, sizeof(*fs));
	double tot = p->total ? (double)p->total : 1;
	size_t nused = 0;

	if (!fs)
		return -ENOMEM;
	for (size_t i = 0; i < 2 * p->nstrs; i++)
		fs[i].key = (uint32_t)i;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct scry_prof_sample *s = &p->samples[i];
		const uint32_t *fr = scry_prof_frames(p, s);

		for (uint32_t k = 0; k < s->nframes; k++) {
			const struct scry_prof_frame *fm = &p->frames[fr[k]];
			struct fn *x = &fs[2 * fm->name + fm->kernel];

			if (!x->mapping)
				x->mapping = fm->kernel ? UINT32_MAX : fm->mapping;
			if (k == 0)
				x->self += s->count;
			if (x->last != i + 1) {
				x->total += s->count;
				x->last = i + 1;
			}
		}
	}
	qsort(fs, 2 * p->nstrs, sizeof(*fs), by_share);
	for (size_t i = 0; i < 2 * p->nstrs && fs[i].total; i++)
		nused = i + 1;
	if (p->offcpu)
		fprintf(f, "# Off-CPU: %llu us blocked\n", (unsigned long long)p->total);
	else
		fprintf(f, "# Samples: %llu of event '%s' (%u Hz)\n", (unsigned long long)p->total, p->event, p->freq);
	fprintf(f, "#\n#    Total      Self  Object                Symbol\n");
	for (size_t i = 0; i < nused && (!n || i < n); i++) {
		const struct fn *x = &fs[i];
		const char *obj = "[unknown]";

		if (x->mapping == UINT32_MAX) {
			obj = "[kernel.kallsyms]";
		} else if (x->mapping) {
			const char *path = scry_prof_s(p, p->maps[x->mapping - 1].path), *b = strrchr(path, '/');
			obj = b ? b + 1 : path;
		}
		fprintf(f, "  %7.2f%%  %7.2f%%  %-20.20s  [%c] %s\n", 100.0 * (double)x->total / tot,
			100.0 * (double)x->self / tot, obj, x->key & 1 ? 'k' : '.', scry_prof_s(p, x->key / 2));
	}
	free(fs);
	return ferror(f) ? -EIO : 0;
}
