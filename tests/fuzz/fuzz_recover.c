/* fuzz_recover.c — libFuzzer target: bytes as a trace's stream file (beside a metadata file
 * and a stale index) through ctf_trace_recover; afterwards the stream must be whole packets
 * (each header's sizes within the file, tiling it exactly), the index must list exactly
 * those packets, and a second recovery must find nothing to do. */
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ctf/recover.h"

static char dir[64], kdir[96], stream[128], index_path[160];

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

static size_t read_file(const char *path, uint8_t **out)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		abort();
	*out = malloc((size_t)st.st_size + 1);
	if (read(fd, *out, (size_t)st.st_size) != st.st_size)
		abort();
	close(fd);
	return (size_t)st.st_size;
}

static uint64_t le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return le64toh(v); }
static uint64_t be64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_recover_report rep;
	char err[512];
	uint8_t *s, *idx;
	size_t n, in, off = 0, k = 0;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz_recover.%d", (int)getpid());
		snprintf(kdir, sizeof(kdir), "%s/kernel", dir);
		snprintf(stream, sizeof(stream), "%s/channel0_0", kdir);
		snprintf(index_path, sizeof(index_path), "%s/index/channel0_0.idx", kdir);
		mkdir(dir, 0755);
		mkdir(kdir, 0755);
		snprintf(err, sizeof(err), "%s/index", kdir);
		mkdir(err, 0755);
		snprintf(err, sizeof(err), "%s/metadata", kdir);
		write_file(err, (const uint8_t *)"/* CTF 1.8 */", 13);
	}
	write_file(stream, data, size);
	write_file(index_path, data, size > 100 ? 100 : size);   /* stale */
	if (ctf_trace_recover(dir, &rep, err, sizeof(err)))
		abort();
	n = read_file(stream, &s);
	if (n > size || memcmp(s, data, n))
		abort();                       /* only ever cut at the end */
	in = read_file(index_path, &idx);
	if (in < 16 || (in - 16) % 72)
		abort();
	while (off < n) {
		uint64_t psize = le64(s + off + 56) / 8;

		if (off + 84 > n || psize < 84 || off + psize > n || k >= (in - 16) / 72 ||
		    be64(idx + 16 + k * 72) != off || be64(idx + 16 + k * 72 + 8) / 8 != psize)
			abort();
		off += psize;
		k++;
	}
	if (k != (in - 16) / 72 || k != rep.packets)
		abort();
	if (ctf_trace_recover(dir, &rep, err, sizeof(err)) || rep.streams_cut || rep.indexes_rebuilt)
		abort();
	free(s);
	free(idx);
	return 0;
}
