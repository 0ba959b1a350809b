/* vdso.c — the vDSO copied to a memfd (see vdso.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "catalog/vdso.h"

static char vdso_path[64];
static bool vdso_tried;

/* The bounds of this process's [vdso] mapping.  false when none. */
static bool own_vdso(uint64_t *start, uint64_t *end)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		int n = 0;

		line[strcspn(line, "\n")] = 0;
		found = sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %*s %n", start, end, &n) == 2 && n &&
			!strcmp(line + n, SCRY_VDSO_NAME);
	}
	fclose(f);
	return found;
}

const char *scry_vdso_path(void)
{
	uint64_t start, end;
	int fd;

	if (vdso_tried)
		return vdso_path[0] ? vdso_path : NULL;
	vdso_tried = true;
	if (!own_vdso(&start, &end) || end <= start)
		return NULL;
	if ((fd = memfd_create("scry-vdso", MFD_CLOEXEC)) < 0)
		return NULL;
	if (write(fd, (const void *)(uintptr_t)start, end - start) != (ssize_t)(end - start)) {
		close(fd);
		return NULL;
	}
	snprintf(vdso_path, sizeof(vdso_path), "/proc/self/fd/%d", fd);   /* kept open for the process's life */
	return vdso_path;
}
