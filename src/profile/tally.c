/* tally.c — user-space sample counts by thread and stacks (see tally.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/tally.h"

void scry_tally_init(struct scry_tally *t)
{
	memset(t, 0, sizeof(*t));
}

void scry_tally_free(struct scry_tally *t)
{
	free(t->e);
	free(t->ips);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t hash(uint32_t pid, uint32_t tgid, const char *comm, int32_t kstack, const uint64_t *ips, unsigned n)
{
	uint64_t h = mix(mix(mix(0, pid), tgid), (uint32_t)kstack), c[2];

	memcpy(c, comm, sizeof(c));
	h = mix(mix(h, c[0]), c[1]);
	for (unsigned i = 0; i < n; i++)
		h = mix(h, ips[i]);
	return mix(h, n);
}

static uint64_t entry_hash(const struct scry_tally *t, const struct scry_tally_entry *e)
{
	return hash(e->pid, e->tgid, e->comm, e->kstack, t->ips + e->first, e->n);
}

static int fit(struct scry_tally *t)
{
	size_t cap;
	uint32_t *s;

	if (2 * (t->n + 1) <= t->nslots)
		return 0;
	cap = t->nslots ? 2 * t->nslots : 1024;
	if (!(s = calloc(cap, sizeof(*s))))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = entry_hash(t, &t->e[i]) & (cap - 1);

		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = cap;
	return 0;
}

int scry_tally_add(struct scry_tally *t, uint32_t pid, uint32_t tgid, const char *comm, int32_t kstack,
		   const uint64_t *ips, unsigned n)
{
	char c[SCRY_PROF_COMM] = { 0 };
	struct scry_tally_entry *e;
	size_t i;

	memcpy(c, comm, strnlen(comm, sizeof(c)));
	if (fit(t))
		return -ENOMEM;
	for (i = hash(pid, tgid, c, kstack, ips, n) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		e = &t->e[t->slots[i] - 1];
		if (e->pid == pid && e->tgid == tgid && e->kstack == kstack && e->n == n &&
		    !memcmp(e->comm, c, sizeof(c)) && !memcmp(t->ips + e->first, ips, n * sizeof(*ips))) {
			e->count++;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		void *x = realloc(t->e, cap * sizeof(*t->e));

		if (!x)
			return -ENOMEM;
		t->e = x;
		t->cap = cap;
	}
	while (t->nips + n > t->capips) {
		size_t cap = t->capips ? 2 * t->capips : 4096;
		void *x = realloc(t->ips, cap * sizeof(*t->ips));

		if (!x)
			return -ENOMEM;
		t->ips = x;
		t->capips = cap;
	}
	memcpy(t->ips + t->nips, ips, n * sizeof(*ips));
	e = &t->e[t->n];
	*e = (struct scry_tally_entry){ .pid = pid, .tgid = tgid, .kstack = kstack, .first = (uint32_t)t->nips,
					.n = n, .count = 1 };
	memcpy(e->comm, c, sizeof(c));
	t->nips += n;
	t->slots[i] = (uint32_t)++t->n;
	return 0;
}
