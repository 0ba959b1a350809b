/* bench/jitdump.c — writes the JIT image of BPF program ID to stdout and its kernel address
 * (hex) to stderr, for `objdump -D -b binary -mi386:x86-64 --adjust-vma=ADDR`: this machine's
 * bpftool and perf have no disassembler (no libbfd).  bench/annotate.sh uses it.
 *   jitdump ID > prog.bin */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n;
	__u64 ksym = 0;
	unsigned char *buf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: jitdump PROG_ID > image.bin\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(atoi(argv[1]));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("jitdump: program info");
		return 1;
	}
	n = info.jited_prog_len;
	if (!n || !(buf = malloc(n))) {
		fprintf(stderr, "jitdump: program %s has no JIT image\n", argv[1]);
		return 1;
	}
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = n;
	info.jited_prog_insns = (__u64)(unsigned long)buf;
	info.nr_jited_ksyms = 1;              /* the main function's address (the image's start) */
	info.jited_ksyms = (__u64)(unsigned long)&ksym;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		perror("jitdump: JIT image");
		return 1;
	}
	if (fwrite(buf, 1, n, stdout) != n)
		return 1;
	fprintf(stderr, "%llx\n", (unsigned long long)ksym);
	return 0;
}
