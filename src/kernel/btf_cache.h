/* btf_cache.h — the CO-RE BTF cache: the kernel types scry's BPF object relocates against,
 * minimized and kept per kernel and scry build (util/cache.h), given to libbpf as its
 * CO-RE BTF (the full kernel BTF is still read for the BTF tracepoints). */
#ifndef SCRY_KERNEL_BTF_CACHE_H
#define SCRY_KERNEL_BTF_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The cached BTF of scry's BPF object for this kernel in path: true when there is one
 * and it parses (one that does not is removed). */
bool scry_btf_cache_lookup(char *path, size_t n);
/* Start making it for the next run (bpftool gen min_core_btf, in the background; nothing
 * when bpftool is missing or the cache directory cannot be made). */
void scry_btf_cache_fill(const void *obj, size_t objsz);
/* A cached BTF the kernel's load failed with: removed (filled again later). */
void scry_btf_cache_drop(const char *path);

#endif
