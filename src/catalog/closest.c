/* closest.c — scry_closest: the candidates nearest to a misspelt name by edit distance,
 * for "unknown event 'sched_swich'; did you mean sched_switch?" messages. */
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog.h"

#define NAME_MAX_CMP 128

/* Levenshtein distance of a[0..la) and b[0..lb), both at most NAME_MAX_CMP long. */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned row[NAME_MAX_CMP + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

size_t scry_closest(const char *name, const char *const *candidates, size_t n, const char **out, size_t max)
{
	size_t la, found = 0;
	unsigned limit, dist[64];

	if (!name || !candidates || !out || !max)
		return 0;
	if (max > 64)
		max = 64;
	la = strlen(name);
	if (la > NAME_MAX_CMP)
		return 0;
	limit = la < 8 ? 2 : (unsigned)(la / 4);
	for (size_t i = 0; i < n; i++) {
		const char *c = candidates[i];
		unsigned d;
		size_t pos;

		if (!c)
			continue;
		/* "sched_swich" against "sched:sched_switch": compare the event part only. */
		if (!strchr(name, ':') && strchr(c, ':'))
			c = strchr(c, ':') + 1;
		if (strlen(c) > NAME_MAX_CMP)
			continue;
		d = distance(name, la, c, strlen(c));
		if (d > limit)
			continue;
		/* insertion sort by distance, stable for equal distances */
		for (pos = found; pos > 0 && dist[pos - 1] > d; pos--)
			;
		if (pos >= max)
			continue;
		if (found < max)
			found++;
		memmove(&out[pos + 1], &out[pos], (found - 1 - pos) * sizeof(*out));
		memmove(&dist[pos + 1], &dist[pos], (found - 1 - pos) * sizeof(*dist));
		out[pos] = candidates[i];
		dist[pos] = d;
	}
	return found;
}
