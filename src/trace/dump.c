/* dump.c — `scry trace -e read=SET -e write=SET`: the data a call read from or wrote to a
 * descriptor of the sets, in strace's dump format after the call's line (strace's dumpstr):
 *    | 00000  68 65 6c 6c 6f 20 77 6f  72 6c 64 0a 78 79 7a     hello world.xyz  |
 * Reads dump the bytes returned, writes the bytes passed, of successful calls only, as far
 * as they were captured (--snaplen, raised to its maximum, 4096, by -e read=/write=).
 * Plain buffers only: readv/writev/recvmsg/sendmsg's iovecs are not dumped. */
#include <string.h>
#include "trace/printer_int.h"

/* The calls whose buffer (argument 1) is dumped; write: the length is argument 2's. */
static int dump_kind(const char *name)
{
	static const char *const reads[] = { "read", "pread64", "recvfrom", NULL };
	static const char *const writes[] = { "write", "pwrite64", "sendto", NULL };

	for (int i = 0; reads[i]; i++)
		if (!strcmp(name, reads[i]))
			return 1;
	for (int i = 0; writes[i]; i++)
		if (!strcmp(name, writes[i]))
			return 2;
	return 0;
}

static void dump_bytes(struct outbuf *ob, const uint8_t *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t off = 0; off < n; off += 16) {
		char line[96];
		size_t k = 0, m = n - off < 16 ? n - off : 16;
		int w = snprintf(line, sizeof(line), " | %05zx  ", off);

		k = (size_t)w;
		for (size_t i = 0; i < 16; i++) {
			if (i < m) {
				line[k++] = hex[b[off + i] >> 4];
				line[k++] = hex[b[off + i] & 15];
			} else {
				line[k++] = ' ';
				line[k++] = ' ';
			}
			line[k++] = ' ';
			if (i == 7)
				line[k++] = ' ';
		}
		line[k++] = ' ';
		for (size_t i = 0; i < 16; i++)
			line[k++] = i < m ? (b[off + i] >= 0x20 && b[off + i] < 0x7f ? (char)b[off + i] : '.') : ' ';
		memcpy(line + k, " |\n", 3);
		ob_write(ob, line, k + 3);
	}
}

void trace_printer_dump(struct trace_printer *p, const struct trace_call *c, const struct scry_argval *all)
{
	int kind = c->name ? dump_kind(c->name) : 0;
	size_t n;

	if (!kind || c->nargs < 3 || trace_call_failed(c->ret) || c->ret < 0 || !all[0].have || !all[1].have ||
	    !all[1].p || !trace_opts_dumped(&p->o, (int)all[0].v, kind == 2))
		return;
	n = kind == 1 ? (size_t)c->ret : (size_t)all[2].v;
	if (n > all[1].len)
		n = all[1].len;
	dump_bytes(&p->ob, all[1].p, n);
	p->mark = p->ob.n;
	if (p->tty)
		trace_printer_flush(p);
}
