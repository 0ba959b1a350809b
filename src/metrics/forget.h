/* forget.h — the series of processes that exited deleted from metric maps. */
#ifndef SCRY_METRICS_FORGET_H
#define SCRY_METRICS_FORGET_H

#include <stddef.h>
#include <stdint.h>

/* Delete from the maps fds[0..nfds-1] (-1: none) every series whose pid label is one of
 * pids (dense metrics, without a pid, are left alone).  Series deleted, or -ENOMEM. */
long scry_metrics_forget_pids(const int *fds, size_t nfds, const uint32_t *pids, size_t n);

#endif /* SCRY_METRICS_FORGET_H */
