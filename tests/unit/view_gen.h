/* view_gen.h — test-trace generator for the `scry view` tests: writes a FORMAT.md-
 * conformant trace (plain-text metadata, packets with 32-byte header + 52-byte context,
 * packed little-endian events) with known, formula-defined events on several CPUs.
 *
 * Event i (0-based) of cpu c: timestamp gen_ts(c, i), kind i % 4:
 *   0 syscall_entry_openat { dfd = -100, filename, flags = i, mode = 0644 }
 *   1 syscall_exit_openat  { ret = (i % 2) ? -2 : 3 }
 *   2 sched_switch         { prev_comm "swapper/c", prev_tid 0, prev_prio 20, prev_state 1,
 *                            next_comm "bash", next_tid 1000 + i, next_prio 20 }
 *   3 my_seq               { _vals_length = i % 4 (uint8), vals int32[] = -k*i,
 *                            ptr = 0xffff0000 + i (hex), state enum i % 5 }
 * Context: _pid = 100 + c, _tid = 200 + i % 3, _procname "proc<c>".
 * Packets hold GEN_PER_PACKET events; on cpu 1 the third packet reports 5 discarded. */
#ifndef VIEW_GEN_H
#define VIEW_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef GEN_PER_PACKET
#define GEN_PER_PACKET 7
#endif
#define GEN_OFFSET_S 1700000000LL
#define GEN_OFFSET_NS 123456789ULL

static const uint8_t gen_uuid[16] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x4d, 0xef,
				      0x81, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };

static const char gen_metadata[] =
	"/* CTF 1.8 */\n"
	"\n"
	"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
	"\n"
	"trace {\n"
	"\tmajor = 1;\n"
	"\tminor = 8;\n"
	"\tuuid = \"12345678-9abc-4def-8123-456789abcdef\";\n"
	"\tbyte_order = le;\n"
	"\tpacket.header := struct {\n"
	"\t\tuint32_t magic;\n"
	"\t\tuint8_t  uuid[16];\n"
	"\t\tuint32_t stream_id;\n"
	"\t\tuint64_t stream_instance_id;\n"
	"\t};\n"
	"};\n"
	"\n"
	"env {\n"
	"\tdomain = \"kernel\";\n"
	"\ttracer_name = \"scry\";\n"
	"\ttracer_major = 0;\n"
	"};\n"
	"\n"
	"clock {\n"
	"\tname = \"monotonic\";\n"
	"\tuuid = \"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee\";\n"
	"\tdescription = \"Monotonic Clock\";\n"
	"\tfreq = 1000000000; /* Frequency, in Hz */\n"
	"\tprecision = 1;\n"
	"\toffset_s = 1700000000;\n"
	"\toffset = 123456789;\n"
	"\tabsolute = TRUE;\n"
	"};\n"
	"\n"
	"typealias integer {\n"
	"\tsize = 64; align = 8; signed = false;\n"
	"\tmap = clock.monotonic.value;\n"
	"} := uint64_clock_monotonic_t;\n"
	"\n"
	"struct packet_context {\n"
	"\tuint64_clock_monotonic_t timestamp_begin;\n"
	"\tuint64_clock_monotonic_t timestamp_end;\n"
	"\tuint64_t content_size;\n"
	"\tuint64_t packet_size;\n"
	"\tuint64_t packet_seq_num;\n"
	"\tunsigned long events_discarded;\n"
	"\tuint32_t cpu_id;\n"
	"};\n"
	"\n"
	"struct event_header {\n"
	"\tuint16_t id;\n"
	"\tuint64_clock_monotonic_t timestamp;\n"
	"} align(8);\n"
	"\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tevent.header := struct event_header;\n"
	"\tpacket.context := struct packet_context;\n"
	"\tevent.context := struct {\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;\n"
	"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _procname[16];\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"syscall_entry_openat\";\n"
	"\tid = 0;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } dfd;\n"
	"\t\tstring _filename;\n"
	"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } flags;\n"
	"\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 8; } mode;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"syscall_exit_openat\";\n"
	"\tid = 1;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } ret;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"sched_switch\";\n"
	"\tid = 2;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _prev_comm[16];\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_tid;\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_prio;\n"
	"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _prev_state;\n"
	"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _next_comm[16];\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_tid;\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_prio;\n"
	"\t};\n"
	"};\n"
	"\n"
	"event {\n"
	"\tname = \"my_seq\";\n"
	"\tid = 3;\n"
	"\tstream_id = 0;\n"
	"\tfields := struct {\n"
	"\t\tuint8_t _vals_length;\n"
	"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } vals[ _vals_length ];\n"
	"\t\tinteger { size = 64; align = 8; signed = 0; encoding = none; base = 16; } ptr;\n"
	"\t\tenum : uint8_t { RUNNING = 0, SLEEPING = 1 ... 2, \"DEAD\" = 3 } state;\n"
	"\t};\n"
	"};\n"
	"\n";

static inline uint64_t gen_ts(unsigned cpu, unsigned i)
{
	return 5000000000ULL + (uint64_t)i * 20 + cpu * 7 + (i % 3 == 0 ? 3 : 0) * cpu;
}

static inline const char *gen_filename(unsigned i, char *buf, size_t len)
{
	if (i % 8 == 0)
		snprintf(buf, len, "/tmp/we\"ird\\%u\n\t\x01", i);
	else
		snprintf(buf, len, "/etc/file%u", i);
	return buf;
}

struct gen_buf {
	uint8_t *p;
	size_t n, cap;
};

static inline void gb_put(struct gen_buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}
#define GB_PUT(b, type, v) do { type t_ = (type)(v); gb_put((b), &t_, sizeof(t_)); } while (0)

static inline void gen_event(struct gen_buf *b, unsigned cpu, unsigned i)
{
	char tmp[64];
	unsigned kind = i % 4;
	GB_PUT(b, uint16_t, kind);
	GB_PUT(b, uint64_t, gen_ts(cpu, i));
	GB_PUT(b, int32_t, 100 + cpu);
	GB_PUT(b, int32_t, 200 + i % 3);
	memset(tmp, 0, 16);
	snprintf(tmp, 16, "proc%u", cpu);
	gb_put(b, tmp, 16);
	switch (kind) {
	case 0:
		GB_PUT(b, int64_t, -100);
		gen_filename(i, tmp, sizeof(tmp));
		gb_put(b, tmp, strlen(tmp) + 1);
		GB_PUT(b, int64_t, i);
		GB_PUT(b, uint64_t, 0644);
		break;
	case 1:
		GB_PUT(b, int64_t, (i % 2) ? -2 : 3);
		break;
	case 2:
		memset(tmp, 0, 16);
		snprintf(tmp, 16, "swapper/%u", cpu % 1000u);
		gb_put(b, tmp, 16);
		GB_PUT(b, int32_t, 0);
		GB_PUT(b, int32_t, 20);
		GB_PUT(b, int64_t, 1);
		memset(tmp, 0, 16);
		memcpy(tmp, "bash", 4);
		gb_put(b, tmp, 16);
		GB_PUT(b, int32_t, 1000 + i);
		GB_PUT(b, int32_t, 20);
		break;
	case 3:
		GB_PUT(b, uint8_t, i % 4);
		for (unsigned k = 0; k < i % 4; k++)
			GB_PUT(b, int32_t, -(int32_t)(k * i));
		GB_PUT(b, uint64_t, 0xffff0000ULL + i);
		GB_PUT(b, uint8_t, i % 5);
		break;
	}
}

/* Write DIR/kernel/{metadata,channel0_<cpu>}.  0 on success. */
static inline int gen_trace(const char *dir, unsigned ncpu, unsigned nev)
{
	char path[4096];
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/kernel", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/kernel/metadata", dir);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fwrite(gen_metadata, 1, sizeof(gen_metadata) - 1, f);
	fclose(f);
	for (unsigned cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "%s/kernel/channel0_%u", dir, cpu);
		f = fopen(path, "w");
		if (!f)
			return -1;
		struct gen_buf pk = { 0 };
		uint64_t seq = 0, discarded = 0;
		for (unsigned first = 0; first < nev; first += GEN_PER_PACKET, seq++) {
			unsigned last = first + GEN_PER_PACKET < nev ? first + GEN_PER_PACKET : nev;
			pk.n = 0;
			GB_PUT(&pk, uint32_t, 0xC1FC1FC1u);
			gb_put(&pk, gen_uuid, 16);
			GB_PUT(&pk, uint32_t, 0);
			GB_PUT(&pk, uint64_t, cpu);
			if (cpu == 1 && seq == 2)
				discarded += 5;
			GB_PUT(&pk, uint64_t, gen_ts(cpu, first));
			GB_PUT(&pk, uint64_t, gen_ts(cpu, last - 1));
			size_t sizes_at = pk.n;
			GB_PUT(&pk, uint64_t, 0);
			GB_PUT(&pk, uint64_t, 0);
			GB_PUT(&pk, uint64_t, seq);
			GB_PUT(&pk, uint64_t, discarded);
			GB_PUT(&pk, uint32_t, cpu);
			for (unsigned i = first; i < last; i++)
				gen_event(&pk, cpu, i);
			uint64_t bits = (uint64_t)pk.n * 8;
			memcpy(pk.p + sizes_at, &bits, 8);
			memcpy(pk.p + sizes_at + 8, &bits, 8);
			fwrite(pk.p, 1, pk.n, f);
		}
		free(pk.p);
		if (fclose(f))
			return -1;
	}
	return 0;
}

#endif
