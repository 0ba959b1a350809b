/* vdso.h — the kernel's vDSO as a file: every process of this kernel maps the same image
 * ([vdso] in /proc/PID/maps), not a file on disk; scry's own copy is written once to a
 * memfd, so that its symbols (__vdso_clock_gettime) and CFI are read as any file's. */
#ifndef SCRY_CATALOG_VDSO_H
#define SCRY_CATALOG_VDSO_H

#define SCRY_VDSO_NAME "[vdso]"      /* its name in /proc/PID/maps */

/* "/proc/self/fd/N" of the memfd holding this process's vDSO, made on first use; NULL when
 * it has none or it cannot be copied. */
const char *scry_vdso_path(void);

#endif
