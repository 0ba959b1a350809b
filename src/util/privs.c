/* privs.c — root, or CAP_BPF + CAP_PERFMON (+ CAP_DAC_READ_SEARCH for tracefs); the open-file
 * limit raised to its hard value. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include "util/privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static int has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return (d[cap / 32].effective >> (cap % 32)) & 1;
}

int scry_check_privileges(const char *what, char *err, size_t errlen)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];
	const char *missing[3];
	int n = 0;

	if (geteuid() == 0)
		return 0;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) == 0) {
		if (has_cap(d, CAP_SYS_ADMIN))
			return 0;
		if (!has_cap(d, CAP_BPF))
			missing[n++] = "CAP_BPF";
		if (!has_cap(d, CAP_PERFMON))
			missing[n++] = "CAP_PERFMON";
		if (!has_cap(d, CAP_DAC_READ_SEARCH))
			missing[n++] = "CAP_DAC_READ_SEARCH";
		if (!n)
			return 0;
	}
	snprintf(err, errlen, "%s needs root, or CAP_BPF, CAP_PERFMON and CAP_DAC_READ_SEARCH%s%s%s%s%s (run it with sudo)",
		 what, n ? "; missing " : "", n > 0 ? missing[0] : "", n > 1 ? ", " : "",
		 n > 1 ? missing[1] : "", n > 2 ? ", CAP_DAC_READ_SEARCH" : "");
	return -EPERM;
}

static struct rlimit nofile_before;   /* the limit before scry_raise_nofile raised it */
static bool nofile_raised;

int scry_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur >= rl.rlim_max)
		return 0;
	nofile_before = rl;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	nofile_raised = true;
	return 0;
}

unsigned long scry_raise_nofile_max(void)
{
	unsigned long nr_open = 0;
	struct rlimit rl;
	FILE *f;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if ((f = fopen("/proc/sys/fs/nr_open", "re"))) {
		if (fscanf(f, "%lu", &nr_open) != 1)
			nr_open = 0;
		fclose(f);
	}
	if (nr_open > 1048576)
		nr_open = 1048576;
	if (nr_open > rl.rlim_max) {   /* root (CAP_SYS_RESOURCE) may; else the hard limit stays */
		struct rlimit up = { nr_open, nr_open };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return nr_open;
	}
	scry_raise_nofile();           /* else the soft limit to the hard one */
	return getrlimit(RLIMIT_NOFILE, &rl) ? 0 : rl.rlim_cur;
}

void scry_restore_nofile(void)
{
	if (nofile_raised)
		setrlimit(RLIMIT_NOFILE, &nofile_before);
}

void scry_explain_nofile(char *err, size_t errlen)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	/* libbpf turns an EMFILE met while it duplicates a map's fd into the EBADF of the mmap
	 * that follows, and an EMFILE met earlier (the object's BTF, a map: it goes on without
	 * them) can surface as an EINVAL of the programs loaded after: under a small limit, that
	 * is the limit too (scry record -a needs about 200 descriptors with its two lanes; seen
	 * once in a CI run at 64) */
	if (!strstr(err, strerror(EMFILE)) &&
	    !((strstr(err, strerror(EBADF)) && rl.rlim_cur < 1024) || (strstr(err, strerror(EINVAL)) && rl.rlim_cur < 256)))
		return;
	snprintf(err, errlen, "too many open files: the open-file limit (RLIMIT_NOFILE) is %llu, too few for "
		 "scry's programs, maps and ring buffers (raise the hard limit: ulimit -Hn, prlimit --nofile)",
		 (unsigned long long)rl.rlim_cur);
}
