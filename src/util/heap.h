/* heap.h — how scry's heap is set up at start: on transparent huge pages where the
 * kernel offers them (see heap.c for why). */
#ifndef SCRY_HEAP_H
#define SCRY_HEAP_H

/* Called once, first thing in main(), before any thread starts. */
void scry_heap_init(void);

#endif
