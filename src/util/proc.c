/* proc.c — what /proc says about a process (see proc.h). */
#include <stdio.h>
#include "util/proc.h"

pid_t scry_process_of(pid_t pid)
{
	char path[64], line[256];
	pid_t tgid = -1;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}
