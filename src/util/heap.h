/* heap.h — how scry's heap is set up at start: on transparent huge pages where the
 * kernel offers them (see heap.c for why). */
#ifndef SCRY_HEAP_H
#define SCRY_HEAP_H

#include <stdbool.h>

/* Called once, first thing in main(), before any thread starts; prefault: the command
 * loads BPF programs (and so parses the kernel's BTF): the reserve is faulted in at once. */
void scry_heap_init(bool prefault);

#endif
