/* bench/proginfo.c — what the verifier did for each BPF program process PID holds (the
 * prog_id lines of its /proc/PID/fdinfo): name, instructions verified (bpf_prog_info's
 * verified_insns: the verifier's work, the same whatever the machine's load) and the
 * xlated size.  This machine's bpftool does not print verified_insns.  bench/startup.sh
 * uses it.
 *   proginfo PID */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	char path[64], line[256];
	unsigned ids[256], n = 0;
	struct dirent *de;
	DIR *d;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: proginfo PID\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", atoi(argv[1]));
	if (!(d = opendir(path))) {
		perror(path);
		return 1;
	}
	while ((de = readdir(d)) && n < sizeof(ids) / sizeof(ids[0])) {
		char p[sizeof(path) + sizeof(de->d_name) + 1];
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		if (de->d_name[0] == '.' || !(f = fopen(p, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "prog_id:", 8)) {
				unsigned id = (unsigned)strtoul(line + 8, NULL, 10), k;

				for (k = 0; k < n && ids[k] != id; k++)
					;
				if (k == n)
					ids[n++] = id;
			}
		fclose(f);
	}
	closedir(d);
	for (unsigned i = 0; i < n; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			printf("%s %u %u\n", info.name, info.verified_insns, info.xlated_prog_len);
		close(fd);
	}
	return 0;
}
