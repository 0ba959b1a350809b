/* folded.c — FlameGraph's folded stacks: one line per distinct stack, "comm;root;...;leaf
 * COUNT", kernel frames marked "_[k]" (stackcollapse-perf.pl --kernel), lines sorted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

struct line {
	char *text;
	uint64_t count;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* sample s as "comm;root;...;leaf" (malloc'd) */
static char *stack_text(const struct scry_prof *p, const struct scry_prof_sample *s)
{
	const uint32_t *fr = scry_prof_frames(p, s);
	char *buf = NULL, lab[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	fputs(scry_prof_s(p, s->comm), m);
	for (uint32_t i = s->nframes; i-- > 0;) {
		scry_prof_frame_label(p, fr[i], lab, sizeof(lab));
		for (char *c = lab; *c; c++)       /* ';' separates frames, ' ' the count */
			if (*c == ';' || *c == '\n')
				*c = ':';
		fputc(';', m);
		fputs(lab, m);
	}
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	for (char *c = buf; *c; c++)
		if (*c == '\n')
			*c = ' ';
	return buf;
}

int scry_prof_write_folded(const struct scry_prof *p, FILE *f)
{
	struct line *l = calloc(p->nsamples ? p->nsamples : 1, sizeof(*l));
	size_t n = 0;
	int ret = 0;

	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < p->nsamples; i++) {
		if (!(l[n].text = stack_text(p, &p->samples[i]))) {
			ret = -ENOMEM;
			goto out;
		}
		l[n++].count = p->samples[i].count;
	}
	qsort(l, n, sizeof(*l), by_text);
	for (size_t i = 0; i < n;) {
		uint64_t c = 0;
		size_t j = i;

		while (j < n && !strcmp(l[j].text, l[i].text))
			c += l[j++].count;
		fprintf(f, "%s %llu\n", l[i].text, (unsigned long long)c);
		i = j;
	}
	if (ferror(f))
		ret = -EIO;
out:
	for (size_t i = 0; i < n; i++)
		free(l[i].text);
	free(l);
	return ret;
}
