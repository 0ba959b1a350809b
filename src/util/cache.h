/* cache.h — what scry keeps between runs because it does not change while the kernel and
 * scry's build stay the same (the CO-RE BTF of scry's programs, the kernel's syscall
 * formats): files in /var/cache/scry (SCRY_CACHE_DIR), named for this kernel (release,
 * build, machine, size of its BTF) and this scry build (its build id), written whole and
 * renamed into place.  SCRY_NO_CACHE=1: none read or written; nor when the directory is
 * not scry's own (a symlink, another user's, writable by others). */
#ifndef SCRY_UTIL_CACHE_H
#define SCRY_UTIL_CACHE_H

#include <stdbool.h>
#include <stddef.h>

const char *scry_cache_dir(void);
/* DIR/PREFIX-BUILD-KERNEL.SUFFIX in buf; false when caching is off or the kernel has no
 * BTF to name it by. */
bool scry_cache_path(const char *prefix, const char *suffix, char *buf, size_t n);
/* Make the cache directory (0700); 0 or -errno (-EPERM: it exists and is not scry's own). */
int scry_cache_mkdir(void);
/* Before a PREFIX file is added: the oldest PREFIX files removed but the newest few (other
 * builds' and kernels' files do not pile up). */
void scry_cache_prune(const char *prefix);
/* len bytes of data as path, atomically (a temporary file renamed); 0 or -errno. */
int scry_cache_write(const char *path, const void *data, size_t len);
/* The build-id keyed copies of the ELF files that traced processes mapped (perf's build-id
 * cache): DIR/elf-BUILDID (hex) in buf; false when caching is off, the directory is not
 * scry's own, or bid is not a build id. */
bool scry_cache_elf_path(const char *bid, char *buf, size_t n);
/* A copy of the regular file src as the cache file path, unless path exists (the same
 * build id: the same contents); files over 1 GiB are not kept, and the oldest copies are
 * removed so that all of them stay within 512 MiB.  0 or -errno. */
int scry_cache_keep(const char *src, const char *path);

#endif
