/* tally.h — --call-graph dwarf's samples counted in user space, as the kernel counts the
 * others (kernel/profiler.h): by thread, process, command name, kernel stack id and the
 * user stack unwound from the sample (unwind.h), each distinct one kept once. */
#ifndef SCRY_PROFILE_TALLY_H
#define SCRY_PROFILE_TALLY_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/profile.h"

struct scry_tally_entry {
	uint32_t pid, tgid;
	int32_t kstack;              /* the stack map's id, < 0: none or lost */
	char comm[SCRY_PROF_COMM];
	uint32_t first, n;           /* its user frames: scry_tally_ips(t)[first .. first + n) */
	uint64_t count;
};

struct scry_tally {
	struct scry_tally_entry *e;
	size_t n, cap;
	uint64_t *ips;
	size_t nips, capips;
	uint32_t *slots;             /* open addressing over entry indexes + 1 */
	size_t nslots;
};

void scry_tally_init(struct scry_tally *t);
void scry_tally_free(struct scry_tally *t);
/* One more sample of that stack.  0 or -ENOMEM. */
int scry_tally_add(struct scry_tally *t, uint32_t pid, uint32_t tgid, const char *comm, int32_t kstack,
		   const uint64_t *ips, unsigned n);
static inline const uint64_t *scry_tally_ips(const struct scry_tally *t, const struct scry_tally_entry *e)
{
	return t->ips + e->first;
}

#endif
